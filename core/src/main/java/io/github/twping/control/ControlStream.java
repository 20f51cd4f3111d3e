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
        int done = 0;
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

    /** Reads one byte, or returns -1 at end of stream; used to watch an idle connection. */
    int readOne(int timeoutMs) throws IOException {
        socket.setSoTimeout(timeoutMs);
        return in.read();
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
