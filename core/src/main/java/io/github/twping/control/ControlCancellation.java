package io.github.twping.control;

import java.io.IOException;
import java.net.Socket;

/**
 * Lets another thread (a signal handler) abort a control connection that is being opened: {@link #cancel()}
 * closes its socket, so a blocked {@code connect} or read fails at once, and the failure reads as C's
 * {@code Read failed: (Interrupted system call)} (docs/CLI.md, signals). Thread-safe; one per run.
 */
public final class ControlCancellation {
    private Socket socket;
    private boolean cancelled;

    /** Aborts the connection being opened (idempotent, any thread). */
    public void cancel() {
        Socket s;
        synchronized (this) {
            cancelled = true;
            s = socket;
            socket = null;
        }
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing to abort: nothing to report
            }
        }
    }

    /** Whether {@link #cancel()} was called. */
    public synchronized boolean isCancelled() {
        return cancelled;
    }

    /** Registers the socket being opened; false (and nothing registered) when already cancelled. */
    synchronized boolean register(Socket s) {
        if (cancelled) {
            return false;
        }
        socket = s;
        return true;
    }

    /** Forgets the socket (the connection is open, or the attempt failed): later cancels do not close it. */
    synchronized void release(Socket s) {
        if (socket == s) {
            socket = null;
        }
    }
}
