package io.github.twping.testsupport;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The one condition wait of the tests (core's, and the other modules' through core's test jar): polls a
 * condition until it holds or a deadline passes, then fails naming what it waited for. A wait for a state
 * another thread or process reaches, never a sleep standing in for synchronisation; the deadline stays under
 * the tests' default timeout (junit-platform.properties) so that a wait fails with its own message first.
 */
public final class Wait {
    /** The deadline of {@link #until(BooleanSupplier, String)}. */
    public static final Duration DEFAULT_LIMIT = Duration.ofSeconds(60);
    /** How often the condition is evaluated: short against what the tests wait for, long against a busy loop. */
    private static final long POLL_MILLIS = 5;

    private Wait() {
    }

    /** Waits up to {@link #DEFAULT_LIMIT} for {@code condition}; throws an {@link AssertionError} naming {@code what}. */
    public static void until(BooleanSupplier condition, String what) throws InterruptedException {
        until(condition, what, DEFAULT_LIMIT);
    }

    /** Waits up to {@code limit} for {@code condition}; throws an {@link AssertionError} naming {@code what}. */
    public static void until(BooleanSupplier condition, String what, Duration limit) throws InterruptedException {
        if (!holdsWithin(condition, limit)) {
            throw new AssertionError("timed out after " + limit.toSeconds() + " s waiting for: " + what);
        }
    }

    /** @return true as soon as {@code condition} holds, false when it still does not after {@code limit} */
    public static boolean holdsWithin(BooleanSupplier condition, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(POLL_MILLIS); // the polling interval of a wait with a deadline, not synchronisation
        }
        return true;
    }
}
