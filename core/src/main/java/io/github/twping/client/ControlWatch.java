package io.github.twping.client;

import java.util.concurrent.TimeUnit;

import io.github.twping.control.ControlActivity;
import io.github.twping.control.ControlClient;
import io.github.twping.session.ClientTestSession;
import io.github.twping.time.StopTrace;

/**
 * Waits for the test session while watching the control connection (docs/CLI.md, exit statuses): the server
 * closing it or sending anything during the test fails the test; a cancelled run cancels the session.
 */
final class ControlWatch {
    private static final long WATCH_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(50);
    /** The read timeout of one look at the control connection (ControlClient's shortest, 1 ms). */
    private static final long CONTROL_POLL_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long LOCAL_CLOSE_GRACE_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long JOIN_MILLIS = TimeUnit.SECONDS.toMillis(5);
    private static final long AWAIT_NS = TimeUnit.SECONDS.toNanos(5);

    private ControlWatch() {
    }

    /**
     * Returns when the session is done or the control connection failed.
     *
     * @return true when the control connection failed before the session was done
     */
    static boolean watch(RunContext run, ControlClient control, ClientTestSession session) {
        try {
            // The session's end wakes this thread at once (a Ctrl-C's partial results wait for it); the control
            // connection is looked at between waits, with the shortest read timeout.
            while (!session.await(WATCH_INTERVAL_NS)) {
                ControlActivity activity = control.awaitActivity(CONTROL_POLL_NS);
                if (activity == ControlActivity.PEER_CLOSED || activity == ControlActivity.DATA_RECEIVED) {
                    return !session.await(0);
                }
                if (activity == ControlActivity.LOCALLY_CLOSED) {
                    session.await(LOCAL_CLOSE_GRACE_NS);
                    return !session.isDone();
                }
                if (run.cancelled()) {
                    session.cancel();
                }
            }
            StopTrace.mark("session-ended");
            session.join(JOIN_MILLIS);
            StopTrace.mark("threads-joined");
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            session.cancel();
            awaitQuietly(session);
            return false;
        }
    }

    /** Waits (bounded) for a cancelled session's threads to finish. */
    static void awaitQuietly(ClientTestSession session) {
        try {
            session.await(AWAIT_NS);
            session.join(JOIN_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
