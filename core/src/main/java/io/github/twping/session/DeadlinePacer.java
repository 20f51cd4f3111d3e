package io.github.twping.session;

import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * Waits for absolute send deadlines on the monotonic clock: parks until shortly before the deadline, then
 * spins with an Agrona {@link IdleStrategy} up to the instant.
 *
 * <p>Deadlines are absolute ({@code start + offset_i}), so lateness never accumulates. The spin window
 * bounds the CPU spent per packet; with a window of 0 the pacer only parks and inherits the timer slack
 * of the operating system (typically 50-100 µs on Linux).
 */
public final class DeadlinePacer {
    /** The spin window never exceeds this share of the interval since the previous deadline (1/4). */
    private static final int INTERVAL_SHARE_SHIFT = 2;

    private final long spinNs;
    private final IdleStrategy spinStrategy;

    /**
     * @param spinNs upper bound of the busy-wait before each deadline, in nanoseconds (0 = park only).
     */
    public DeadlinePacer(long spinNs) {
        this(spinNs, new BusySpinIdleStrategy());
    }

    /**
     * @param spinNs       upper bound of the busy-wait before each deadline, in nanoseconds.
     * @param spinStrategy what to do in each iteration of the final spin.
     */
    public DeadlinePacer(long spinNs, IdleStrategy spinStrategy) {
        if (spinNs < 0) {
            throw new IllegalArgumentException("spinNs must be >= 0: " + spinNs);
        }
        this.spinNs = spinNs;
        this.spinStrategy = spinStrategy;
    }

    /** @return the busy-wait window in nanoseconds. */
    public long spinNs() {
        return spinNs;
    }

    /**
     * Waits until {@code System.nanoTime() >= deadlineNs} or the thread is interrupted.
     *
     * @param deadlineNs absolute deadline on the {@link System#nanoTime()} clock.
     * @return how late the caller wakes up, in nanoseconds ({@code nanoTime - deadline}, >= 0 unless interrupted).
     */
    public long awaitDeadline(long deadlineNs) {
        return awaitDeadline(deadlineNs, spinNs);
    }

    /**
     * Waits for a deadline that follows {@code previousDeadlineNs}: the spin window is capped at a quarter of
     * the interval, so that at high rates the pacer still parks between sends instead of degenerating into a
     * busy spin (which the scheduler punishes on a contended machine; see docs/PERFORMANCE.md, Pacing).
     */
    public long awaitDeadlineAfter(long deadlineNs, long previousDeadlineNs) {
        long intervalNs = deadlineNs - previousDeadlineNs;
        return awaitDeadline(deadlineNs, Math.min(spinNs, Math.max(0, intervalNs >> INTERVAL_SHARE_SHIFT)));
    }

    private long awaitDeadline(long deadlineNs, long windowNs) {
        long nowNs = System.nanoTime();
        long parkUntilNs = deadlineNs - windowNs;
        while (nowNs < parkUntilNs) {
            LockSupport.parkNanos(parkUntilNs - nowNs);
            if (Thread.currentThread().isInterrupted()) {
                return System.nanoTime() - deadlineNs;
            }
            nowNs = System.nanoTime();
        }
        spinStrategy.reset();
        while (nowNs < deadlineNs) {
            spinStrategy.idle();
            nowNs = System.nanoTime();
        }
        return nowNs - deadlineNs;
    }
}
