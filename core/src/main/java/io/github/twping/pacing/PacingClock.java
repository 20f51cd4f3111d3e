package io.github.twping.pacing;

/** Source of monotonic time and of the primitive waits pacers combine; tests inject a simulated one. */
public interface PacingClock {
    /** @return monotonic time in nanoseconds ({@link System#nanoTime()} in production). */
    long nanoTime();

    /** Parks the thread for up to {@code ns} nanoseconds (it may wake earlier or, usually, later). */
    void parkNanos(long ns);

    /** One iteration of a busy wait ({@link Thread#onSpinWait()}). */
    void onSpinWait();
}
