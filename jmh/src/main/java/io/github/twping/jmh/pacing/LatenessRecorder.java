package io.github.twping.jmh.pacing;

import io.github.twping.pacing.Pacer;
import io.github.twping.pacing.PacingClock;

import org.HdrHistogram.Histogram;

/**
 * Paces sends at a fixed rate against absolute deadlines and records how late each one is.
 *
 * <p>Every scheduled send is recorded against its own deadline ({@code start + i * period}), including the
 * sends that are late only because an earlier one was: this is the coordinated-omission-free measurement,
 * so {@code recordValueWithExpectedInterval} is not needed. Nothing is allocated per send.
 */
public final class LatenessRecorder {
    /** Largest lateness recorded exactly; larger values are clamped to it (and still counted). */
    public static final long HIGHEST_TRACKABLE_NS = 10_000_000_000L;

    private final Pacer pacer;
    private final PacingClock clock;
    private final long periodNs;
    private final Histogram latenessNs = new Histogram(HIGHEST_TRACKABLE_NS, 3);
    private long nextDeadlineNs;

    /**
     * @param pacer    the strategy under test.
     * @param clock    the clock the pacer uses.
     * @param periodNs interval between two deadlines, > 0 (1e9 / packets per second).
     */
    public LatenessRecorder(Pacer pacer, PacingClock clock, long periodNs) {
        if (periodNs <= 0) {
            throw new IllegalArgumentException("periodNs must be > 0: " + periodNs);
        }
        this.pacer = pacer;
        this.clock = clock;
        this.periodNs = periodNs;
    }

    /** Clears the histogram and schedules the first deadline one period from now. */
    public void start() {
        latenessNs.reset();
        nextDeadlineNs = clock.nanoTime() + periodNs;
    }

    /**
     * Waits for the next deadline and records the lateness.
     *
     * @return the lateness of this send, in nanoseconds.
     */
    public long paceNext() {
        long lateNs = pacer.awaitDeadline(nextDeadlineNs);
        nextDeadlineNs += periodNs;
        latenessNs.recordValue(Math.min(lateNs, HIGHEST_TRACKABLE_NS));
        return lateNs;
    }

    /**
     * Runs {@code sends} paced sends after {@link #start()}.
     *
     * @param sends how many sends, >= 0.
     */
    public void paceAll(long sends) {
        start();
        for (long i = 0; i < sends; i++) {
            paceNext();
        }
    }

    /** @return the lateness distribution since {@link #start()}, in nanoseconds (live view, not a copy). */
    public Histogram latenessNs() {
        return latenessNs;
    }

    /** @return the interval between deadlines in nanoseconds. */
    public long periodNs() {
        return periodNs;
    }
}
