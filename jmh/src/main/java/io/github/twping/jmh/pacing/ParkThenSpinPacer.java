package io.github.twping.jmh.pacing;

/**
 * Pacer that parks until {@code spinNs} before the deadline, then busy-spins to it: the accuracy of a
 * spin for the price of at most {@code spinNs} of CPU per send (plus the park overshoot beyond it).
 *
 * <p>With {@code spinNs = 0} it behaves as {@link ParkingPacer}. core's {@code session.DeadlinePacer} is this
 * strategy with a 100 µs window.
 */
public final class ParkThenSpinPacer implements Pacer {
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

    /** @return the busy-wait window in nanoseconds. */
    public long spinNs() {
        return spinNs;
    }

    @Override
    public long awaitDeadline(long deadlineNs) {
        long parkUntilNs = deadlineNs - spinNs;
        long nowNs = clock.nanoTime();
        while (nowNs < parkUntilNs) {
            clock.parkNanos(parkUntilNs - nowNs);
            nowNs = clock.nanoTime();
        }
        while (nowNs < deadlineNs) {
            clock.onSpinWait();
            nowNs = clock.nanoTime();
        }
        return nowNs - deadlineNs;
    }
}
