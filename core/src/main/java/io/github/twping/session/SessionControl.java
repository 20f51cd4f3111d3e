package io.github.twping.session;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Run state shared by the sender, the receiver and whoever waits for the session: one outcome, set once,
 * and the diagnostic line that goes with it.
 */
final class SessionControl {
    private final CountDownLatch done = new CountDownLatch(1);
    private final Consumer<String> diagnostics;
    private volatile boolean running = true;
    private volatile SessionOutcome outcome;
    /** Run once the session stops, or null (set before the session starts: a {@link SharedSender}'s wake-up). */
    private volatile Runnable onStop;

    SessionControl(Consumer<String> diagnostics) {
        this.diagnostics = diagnostics;
    }

    /** Runs {@code hook} each time the session is stopped or finished (any thread); before the session starts. */
    void onStop(Runnable hook) {
        this.onStop = hook;
    }

    private void stopped() {
        Runnable hook = onStop;
        if (hook != null) {
            hook.run();
        }
    }

    boolean running() {
        return running;
    }

    /** Stops the session with an outcome (the first one wins) and prints its line, if any. */
    void fail(SessionOutcome why, String line) {
        synchronized (this) {
            if (outcome == null) {
                outcome = why;
            }
        }
        running = false;
        stopped();
        if (line != null) {
            diagnostics.accept(line);
        }
    }

    void cancel() {
        fail(SessionOutcome.CANCELLED, null);
    }

    /** Called by the receiver when it has written its last record. */
    void finished() {
        synchronized (this) {
            if (outcome == null) {
                outcome = SessionOutcome.COMPLETED;
            }
        }
        running = false;
        stopped();
        done.countDown();
    }

    boolean await(long timeoutNs) throws InterruptedException {
        return done.await(timeoutNs, TimeUnit.NANOSECONDS);
    }

    boolean isDone() {
        return done.getCount() == 0;
    }

    SessionOutcome outcome() {
        return outcome;
    }

    void diagnostic(String line) {
        diagnostics.accept(line);
    }
}
