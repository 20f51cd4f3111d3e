package io.github.twping.jmh.pacing;

/** Pacer that busy-spins ({@link Thread#onSpinWait()}) up to each deadline: most accurate, one full core. */
public final class BusySpinPacer implements Pacer {
    private final PacingClock clock;

    /** @param clock time source and spin primitive. */
    public BusySpinPacer(PacingClock clock) {
        this.clock = clock;
    }

    @Override
    public long awaitDeadline(long deadlineNs) {
        long nowNs = clock.nanoTime();
        while (nowNs < deadlineNs) {
            clock.onSpinWait();
            nowNs = clock.nanoTime();
        }
        return nowNs - deadlineNs;
    }
}
