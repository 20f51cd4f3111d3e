package io.github.twping.pacing;

import java.util.concurrent.locks.LockSupport;

/** The real {@link PacingClock}: {@link System#nanoTime()}, {@link LockSupport#parkNanos(long)}, {@link Thread#onSpinWait()}. */
public final class SystemPacingClock implements PacingClock {
    /** The only instance; stateless. */
    public static final SystemPacingClock INSTANCE = new SystemPacingClock();

    private SystemPacingClock() {
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public void parkNanos(long ns) {
        LockSupport.parkNanos(ns);
    }

    @Override
    public void onSpinWait() {
        Thread.onSpinWait();
    }
}
