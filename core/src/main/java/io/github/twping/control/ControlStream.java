package io.github.twping.control;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;

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

    /**
     * Reads exactly {@code length} bytes.
     *
     * @param timeoutMs per-read inactivity timeout, {@link #NO_TIMEOUT} for none
     * @throws EOFException           when the peer closed first (message: bytes received so far)
     * @throws SocketTimeoutException when no byte arrived within the timeout
     * @throws IOException            on other socket errors (reset, closed locally)
     */
    void readFully(byte[] buffer, int offset, int length, int timeoutMs) throws IOException {
        socket.setSoTimeout(timeoutMs);
        int done = 0;
        while (done < length) {
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
