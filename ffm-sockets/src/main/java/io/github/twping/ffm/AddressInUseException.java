package io.github.twping.ffm;

/** bind(2) failed with EADDRINUSE: the port (or every port of the range) is taken. */
public final class AddressInUseException extends SocketException {
    public AddressInUseException(String call) {
        super(call, Errno.EADDRINUSE);
    }

    public AddressInUseException(String call, String message, Throwable cause) {
        super(call, Errno.EADDRINUSE, message, cause);
    }
}
