package io.github.twping.server;

import java.io.IOException;
import java.net.Socket;

/**
 * One accepted control connection as the accept loop sees it: {@link #serve()} runs the whole conversation
 * on the connection's thread; {@link #close()} ends it from another thread (shutdown).
 */
interface ServedConnection extends AutoCloseable {
    /** Serves until the connection ends; returns a short reason for the log. Must not throw for I/O problems. */
    String serve();

    @Override
    void close();

    /** Creates the served connection for an accepted socket. */
    @FunctionalInterface
    interface Factory {
        ServedConnection create(Socket socket) throws IOException;
    }
}
