package io.github.twping.jmh.pacing;

/**
 * Pacer that only parks ({@code LockSupport.parkNanos}) for the time left: almost no CPU, but every send
 * inherits the scheduler's wake-up latency and timer slack (about 50-100 µs on Linux).
 */
public final class ParkingPacer implements Pacer {
    private final PacingClock clock;

    /** @param clock time source and park primitive. */
    public ParkingPacer(PacingClock clock) {
        this.clock = clock;
    }

    @Override
    public long awaitDeadline(long deadlineNs) {
        long nowNs = clock.nanoTime();
        while (nowNs < deadlineNs) {
            clock.parkNanos(deadlineNs - nowNs);
            nowNs = clock.nanoTime();
        }
        return nowNs - deadlineNs;
    }
}
