package io.github.twping.session;

import io.github.twping.pacing.PacingClock;
import io.github.twping.pacing.SystemPacingClock;
import io.github.twping.time.WallClock;

/**
 * The sender's pacing clock: {@link SystemPacingClock}, with a spin that
 * reads the wall clock on every turn. The send stamp T1 is that same wall-clock read, taken right after the spin
 * ends; after a sleep of milliseconds its code path and the pages it touches are cold (on a virtual machine a
 * miss there costs microseconds), and at 500/s that cold read was the median of the send lateness, 3 µs, while
 * at 10,000/s, where the path stays warm, it was 0.5 µs (docs/PERFORMANCE.md, "Pacing"). Reading it during the
 * spin keeps it warm at any rate. One instance per sender thread; allocation-free.
 */
final class StampWarmingPacingClock implements PacingClock {
    /** System property: false spins on {@link Thread#onSpinWait()} alone (the measurement's comparison). */
    static final String PROPERTY = "twping.sender.warmSpin";

    private final WallClock wall;
    private final boolean warm;

    StampWarmingPacingClock(WallClock wall) {
        this.wall = wall;
        this.warm = !"false".equals(System.getProperty(PROPERTY));
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
        SystemPacingClock.INSTANCE.onSpinWait();
        if (warm) {
            wall.nowEpochNs(); // a native call: the JIT cannot remove it
        }
    }
}
