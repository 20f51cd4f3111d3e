package io.github.twping.control;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/** Blocking TCP byte stream of one control connection: exact-length reads with an optional timeout, single-call writes. */
final class ControlStream implements AutoCloseable {
    /** Timeout value meaning "block until data, EOF or error". */
    static final int NO_TIMEOUT = 0;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    ControlStream(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    Socket socket() {
        return socket;
    }

    /** Deadline (System.nanoTime) of the message being read; meaningful only when {@link #deadlineSet}. */
    private long deadlineNs;
    private boolean deadlineSet;

    /**
     * Reads exactly {@code length} bytes, the start of a message: {@code timeoutMs} is a deadline for the
     * whole message (this read and any {@link #readRest}), not an inactivity timer, so a peer sending one
     * byte at a time cannot stretch it.
     *
     * @param timeoutMs time allowed for the message, {@link #NO_TIMEOUT} for none
     * @throws EOFException           when the peer closed first (message: bytes received so far)
     * @throws SocketTimeoutException when the message was not complete by the deadline
     * @throws IOException            on other socket errors (reset, closed locally)
     */
    void readFully(byte[] buffer, int offset, int length, int timeoutMs) throws IOException {
        deadlineSet = timeoutMs != NO_TIMEOUT;
        deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        readRest(buffer, offset, length);
    }

    /** Reads exactly {@code length} more bytes of the message begun by {@link #readFully}, by its deadline. */
    void readRest(byte[] buffer, int offset, int length) throws IOException {
        int done = length > 0 ? takeWatchByte(buffer, offset) : 0;
        while (done < length) {
            if (deadlineSet) {
                long remainingNs = deadlineNs - System.nanoTime();
                if (remainingNs <= 0) {
                    throw new SocketTimeoutException("Read timed out");
                }
                socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE,
                        TimeUnit.NANOSECONDS.toMillis(remainingNs + 999_999))));
            } else {
                socket.setSoTimeout(NO_TIMEOUT);
            }
            int n = in.read(buffer, offset + done, length - done);
            if (n < 0) {
                throw new EOFException(Integer.toString(done));
            }
            done += n;
        }
    }

    /** {@link #readOne} result: nothing arrived within the timeout. */
    static final int QUIET = -2;
    /** {@link #readOne} result: the read failed (reset, or the socket closed locally). */
    static final int FAILED = -3;

    // The watch read: readOne's byte is read by a helper thread with a blocking read (no SO_TIMEOUT), and readOne
    // waits for it on a monitor. A read with SO_TIMEOUT threw a SocketTimeoutException (with its stack trace) per
    // quiet poll, about 1.4 MB/s of garbage while a client polled every millisecond; a monitor wait allocates
    // nothing. A byte the helper reads after its poller gave up is kept for the next readOne or readFully.
    private final Object watchLock = new Object();
    /** A helper read has been started and its result not taken yet. */
    private boolean watchPending;
    /** The helper read has returned: {@link #watchResult} (and {@link #watchError}) are set. */
    private boolean watchDone;
    /** The byte read, -1 at end of stream, {@link #FAILED} with {@link #watchError}. */
    private int watchResult;
    private IOException watchError;

    /**
     * Reads one byte, waiting at most {@code timeoutMs} ({@link #NO_TIMEOUT}: until something happens); used to
     * watch an idle connection. Allocates nothing while the connection stays quiet; like a socket read, it ignores
     * interrupts (the thread's flag is kept).
     *
     * @return the byte (0-255), -1 at end of stream, {@link #QUIET} when the timeout passed, {@link #FAILED} when
     *         the read failed (the socket reset or closed locally)
     */
    int readOne(int timeoutMs) {
        synchronized (watchLock) {
            if (!watchPending && !startWatchRead()) {
                return FAILED;
            }
            if (!awaitWatch(timeoutMs != NO_TIMEOUT,
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs))) {
                return QUIET;
            }
            watchPending = false;
            return watchResult;
        }
    }

    /** Starts the helper's blocking read of one byte (lock held); false when the socket is closed already. */
    private boolean startWatchRead() {
        try {
            socket.setSoTimeout(NO_TIMEOUT);
        } catch (IOException e) {
            return false;
        }
        watchPending = true;
        watchDone = false;
        watchError = null;
        // of the caller's kind: a platform thread for twping (no virtual-thread scheduler started for it), a virtual
        // one for the agent's target loops (a blocked socket read then holds no carrier and no stack of its own)
        Thread.Builder helper = Thread.currentThread().isVirtual() ? Thread.ofVirtual()
                : Thread.ofPlatform().daemon(true);
        helper.name("twping-control-watch").start(this::watchRead);
        return true;
    }

    /** The helper thread: one blocking read; ends when a byte, the end of stream or an error (close) comes. */
    private void watchRead() {
        int result;
        IOException error = null;
        try {
            result = in.read();
        } catch (IOException e) {
            result = FAILED;
            error = e;
        }
        synchronized (watchLock) {
            watchResult = result;
            watchError = error;
            watchDone = true;
            watchLock.notifyAll();
        }
    }

    /**
     * Waits (lock held) until the helper read has returned or the deadline has passed; an interrupt does not end the
     * wait (a socket read ignores it too) and is passed on to the caller.
     *
     * @return true when the read has returned
     */
    private boolean awaitWatch(boolean timed, long deadlineNs) {
        boolean interrupted = false;
        try {
            while (!watchDone) {
                long waitMs = 0;
                if (timed) {
                    long leftNs = deadlineNs - System.nanoTime();
                    if (leftNs <= 0) {
                        return false;
                    }
                    waitMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNs + 999_999));
                }
                try {
                    watchLock.wait(waitMs);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Takes the byte of a helper read still pending (a watch that gave up before it came) as the message's first,
     * waiting for it until the message's deadline.
     *
     * @return 1 when a byte was stored at {@code buffer[offset]}, 0 when no helper read was pending
     */
    private int takeWatchByte(byte[] buffer, int offset) throws IOException {
        synchronized (watchLock) {
            if (!watchPending) {
                return 0;
            }
            if (!awaitWatch(deadlineSet, deadlineNs)) {
                throw new SocketTimeoutException("Read timed out");
            }
            watchPending = false;
            if (watchResult == FAILED) {
                throw watchError;
            }
            if (watchResult < 0) {
                throw new EOFException("0");
            }
            buffer[offset] = (byte) watchResult;
            return 1;
        }
    }

    /** Writes {@code length} bytes with one call (one TCP segment with TCP_NODELAY set). */
    void write(byte[] buffer, int offset, int length) throws IOException {
        out.write(buffer, offset, length);
        out.flush();
    }

    boolean isClosed() {
        return socket.isClosed();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing: nothing left to report
        }
    }

    /** @return the C {@code strerror} text twping would print for a failed read (EOF reads as "Success"). */
    static String strerror(IOException e) {
        if (e instanceof EOFException) {
            return "Success";
        }
        if (e instanceof SocketTimeoutException) {
            return "Connection timed out";
        }
        String m = e.getMessage();
        if (m == null) {
            return e.getClass().getSimpleName();
        }
        return m.equals("Connection reset") ? "Connection reset by peer" : m;
    }
}
