package io.github.twping.pacing;

/**
 * Pacer that parks until {@code spinNs} before the deadline, then busy-spins to it: the accuracy of a
 * spin for the price of at most {@code spinNs} of CPU per send (plus the park overshoot beyond it).
 *
 * <p>The two ends of the family are this class too: a window of 0 only parks ({@link #parkOnly}: almost no CPU,
 * but every send inherits the scheduler's wake-up latency and timer slack, about 50-100 µs on Linux), an
 * unbounded window only spins ({@link #spinOnly}: most accurate, one full core). The session sender uses it
 * through {@link #awaitDeadlineAfter}, which caps the window at a quarter of the interval.
 *
 * <p>A park interrupted by {@link Thread#interrupt()} returns at once (a negative lateness), so a stopped
 * sender does not wait out its deadline.
 */
public final class ParkThenSpinPacer implements Pacer {
    /** The spin window never exceeds this share of the interval since the previous deadline (1/4). */
    private static final int INTERVAL_SHARE_SHIFT = 2;

    private final PacingClock clock;
    private final long spinNs;

    /**
     * @param clock  time source and wait primitives.
     * @param spinNs busy-wait window before each deadline, in nanoseconds, >= 0.
     */
    public ParkThenSpinPacer(PacingClock clock, long spinNs) {
        if (spinNs < 0) {
            throw new IllegalArgumentException("spinNs must be >= 0: " + spinNs);
        }
        this.clock = clock;
        this.spinNs = spinNs;
    }

    /** @return a pacer that only parks, for the time left (a window of 0). */
    public static ParkThenSpinPacer parkOnly(PacingClock clock) {
        return new ParkThenSpinPacer(clock, 0);
    }

    /** @return a pacer that only spins ({@link PacingClock#onSpinWait()}) up to each deadline. */
    public static ParkThenSpinPacer spinOnly(PacingClock clock) {
        return new ParkThenSpinPacer(clock, Long.MAX_VALUE);
    }

    /** @return the busy-wait window in nanoseconds ({@link Long#MAX_VALUE} = spin only). */
    public long spinNs() {
        return spinNs;
    }

    @Override
    public long awaitDeadline(long deadlineNs) {
        return awaitDeadline(deadlineNs, spinNs);
    }

    /**
     * Waits for a deadline that follows {@code previousDeadlineNs}: the spin window is capped at a quarter of
     * the interval, so that at high rates the pacer still parks between sends instead of degenerating into a
     * busy spin (which the scheduler punishes on a contended machine; see docs/PERFORMANCE.md, Pacing).
     */
    @Override
    public long awaitDeadlineAfter(long deadlineNs, long previousDeadlineNs) {
        long intervalNs = deadlineNs - previousDeadlineNs;
        return awaitDeadline(deadlineNs, Math.min(spinNs, Math.max(0, intervalNs >> INTERVAL_SHARE_SHIFT)));
    }

    private long awaitDeadline(long deadlineNs, long windowNs) {
        long nowNs = clock.nanoTime();
        while (deadlineNs - nowNs > windowNs) {
            clock.parkNanos(deadlineNs - windowNs - nowNs);
            nowNs = clock.nanoTime();
            if (Thread.currentThread().isInterrupted()) {
                return nowNs - deadlineNs;
            }
        }
        while (nowNs - deadlineNs < 0) {
            clock.onSpinWait();
            nowNs = clock.nanoTime();
        }
        return nowNs - deadlineNs;
    }
}
