package io.github.twping.pacing;

/**
 * Policy for waiting until an absolute send deadline on the monotonic clock.
 *
 * <p>Deadlines are absolute ({@code start + i * period}), so a late send does not push the next one back:
 * lateness never accumulates, and a pacer that falls behind catches up by returning at once.
 */
public interface Pacer {
    /**
     * Waits until the clock reaches {@code deadlineNs}; returns at once if it already has.
     *
     * @param deadlineNs absolute deadline on the {@link System#nanoTime()} clock.
     * @return how late the caller wakes up, in nanoseconds ({@code now - deadlineNs}, >= 0).
     */
    long awaitDeadline(long deadlineNs);

    /**
     * Waits for {@code deadlineNs}, the deadline after {@code previousDeadlineNs}: a pacer may use the interval to
     * bound its waiting strategy (see {@link ParkThenSpinPacer}); by default the same as {@link #awaitDeadline}.
     */
    default long awaitDeadlineAfter(long deadlineNs, long previousDeadlineNs) {
        return awaitDeadline(deadlineNs);
    }
}
