package io.github.twping.session;

import io.github.twping.pacing.PacingClock;
import io.github.twping.pacing.SystemPacingClock;
import io.github.twping.time.WallClock;

/**
 * The sender's pacing clock: {@link SystemPacingClock}, with a spin that reads the wall clock on every turn. The
 * send stamp T1 is that same wall-clock read, taken right after the spin ends; after a sleep of milliseconds its
 * code path and the pages it touches are cold, and reading it during the spin keeps them warm at any rate. It
 * was built for the 3 µs median of the 500/s send lateness, and moved it by less than the spread: that median
 * was the interpreted loop body around the pacer ({@code SessionSender.sendOne}, docs/PERFORMANCE.md, "Pacing").
 * One instance per sender thread; allocation-free.
 */
final class StampWarmingPacingClock implements PacingClock {
    /** System property: false spins on {@link Thread#onSpinWait()} alone (the measurement's comparison). */
    static final String PROPERTY = "twping.sender.warmSpin";
    /**
     * System property: false spins without the PAUSE of {@link Thread#onSpinWait()} (the clock reads alone pace
     * the loop). A virtual machine's host may treat a run of PAUSEs as a vCPU waiting for a lock and deschedule
     * it (pause-loop exiting); this is the measurement's switch for that case (docs/PERFORMANCE.md, "Pacing").
     */
    static final String PAUSE_PROPERTY = "twping.sender.spinPause";

    private final WallClock wall;
    private final boolean warm;
    private final boolean pause;

    StampWarmingPacingClock(WallClock wall) {
        this.wall = wall;
        this.warm = !"false".equals(System.getProperty(PROPERTY));
        this.pause = !"false".equals(System.getProperty(PAUSE_PROPERTY));
    }

    @Override
    public long nanoTime() {
        return SystemPacingClock.INSTANCE.nanoTime();
    }

    @Override
    public void parkNanos(long ns) {
        SystemPacingClock.INSTANCE.parkNanos(ns);
    }

    @Override
    public void onSpinWait() {
        if (pause) {
            SystemPacingClock.INSTANCE.onSpinWait();
        }
        if (warm) {
            wall.nowEpochNs(); // a native call: the JIT cannot remove it
        }
    }
}
