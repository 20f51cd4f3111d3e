package io.github.twping.ffm;

import java.io.IOException;

/**
 * A failed socket call (or another libc call of this package): the call's name, the errno it returned and the libc message, e.g.
 * {@code bind: Address already in use}. Expected conditions (EAGAIN, EINTR) are never thrown.
 */
public class SocketException extends IOException {
    private final String call;
    private final int errno;

    public SocketException(String call, int errno) {
        this(call, errno, Errno.message(errno), null);
    }

    public SocketException(String call, int errno, String message, Throwable cause) {
        super(call + ": " + message, cause);
        this.call = call;
        this.errno = errno;
    }

    /** Builds the exception for a call that returned {@code -errno} (or errno); EADDRINUSE gives {@link AddressInUseException}. */
    public static SocketException of(String call, int errno) {
        int positive = Math.abs(errno);
        return positive == Errno.EADDRINUSE ? new AddressInUseException(call) : new SocketException(call, positive);
    }

    /** The libc call (or operation) that failed, e.g. {@code bind}. */
    public String call() {
        return call;
    }

    /** The Linux errno, or 0 when the failure did not come from libc (NIO fallback, invalid use). */
    public int errno() {
        return errno;
    }

    /** The symbolic errno name, e.g. {@code EADDRINUSE}. */
    public String errnoName() {
        return Errno.name(errno);
    }
}
