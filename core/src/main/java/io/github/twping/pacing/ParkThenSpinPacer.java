package io.github.twping.pacing;

/**
 * Pacer that parks until {@code spinNs} before the deadline, then busy-spins to it: the accuracy of a
 * spin for the price of at most {@code spinNs} of CPU per send (plus the park overshoot beyond it).
 *
 * <p>The two ends of the family are this class too: a window of 0 only parks ({@link #parkOnly}: almost no CPU,
 * but every send inherits the scheduler's wake-up latency and timer slack, about 50-100 µs on Linux), an
 * unbounded window only spins ({@link #spinOnly}: most accurate, one full core). The session sender uses it
 * through {@link #awaitDeadlineAfter}, which caps the window at a share of the interval (a quarter; half for a
 * sender running under SCHED_FIFO, {@code twping --rt-priority}), optionally of the running mean interval.
 *
 * <p>{@link #ADAPTIVE} ({@code twping --spin auto}, the default) learns the window instead: it starts at
 * {@link #ADAPTIVE_START_NS} and, once {@link #ADAPTIVE_MIN_SAMPLES} parks were seen, covers the wake-up overshoot
 * (how much later than asked a park returned) of {@link #DEFAULT_COVERAGE_PERCENT} % of the last
 * {@link #ADAPTIVE_HISTORY} parks, all but the latest 1 % (to within a bucket of {@link #BUCKET_NS} ns, which the
 * margin covers), plus {@link #ADAPTIVE_MARGIN_NS}, at most {@link #ADAPTIVE_MAX_NS} and within the same cap. A host
 * whose sleeps end on time spins a few tens of µs before each send instead of the fixed 100 µs (the sender's CPU,
 * issue 23); a wake-up later than the rest does not widen the window for the next {@link #ADAPTIVE_HISTORY} sends,
 * because no affordable window covers it (docs/notes/2026-12-04-lean-cpu.md). Covering three in four instead (the
 * four-argument constructor's {@code coveragePercent}, 75) saved 0.04 s of a 2000-packet session's CPU at 500/s and
 * none at 1000/s, and doubled the send lateness's p99 (docs/notes/2026-12-05-spin-coverage.md).
 *
 * <p>A park interrupted by {@link Thread#interrupt()} returns at once (a negative lateness), so a stopped
 * sender does not wait out its deadline.
 */
public final class ParkThenSpinPacer implements Pacer {
    /** The spin window of a time-shared thread never exceeds this share of the interval (1/4). */
    public static final int QUARTER_INTERVAL = 2;
    /**
     * The cap for a real-time (SCHED_FIFO) thread, half the interval: no time-shared thread can take its CPU
     * during the spin, and a duty cycle of at most one half stays clear of the kernel's real-time throttling.
     */
    public static final int HALF_INTERVAL = 1;

    /** {@code spinNs} value that selects the learnt window. */
    public static final long ADAPTIVE = -1;
    /** The learnt window until {@link #ADAPTIVE_MIN_SAMPLES} parks were seen, ns (the fixed default's 100 µs). */
    public static final long ADAPTIVE_START_NS = 100_000;
    /** Parks whose overshoot the learnt window is taken from (a power of two). */
    public static final int ADAPTIVE_HISTORY = 256;
    /** Parks seen before the learnt window replaces {@link #ADAPTIVE_START_NS}. */
    public static final int ADAPTIVE_MIN_SAMPLES = 32;
    /** The share of the history's parks whose overshoot the learnt window covers, by default, in percent. */
    public static final int DEFAULT_COVERAGE_PERCENT = 99;
    /** The overshoots are counted in buckets this wide, ns; the window covers a bucket's lower end. */
    public static final long BUCKET_NS = 1024;
    private static final int BUCKET_SHIFT = 10; // log2 of BUCKET_NS
    /** Buckets of the overshoot counts; the last one also counts every overshoot beyond the window's cap. */
    private static final int BUCKETS = 128;
    /** Added to the overshoot covered, ns; also the smallest learnt window. */
    public static final long ADAPTIVE_MARGIN_NS = 10_000;
    /** The learnt window never exceeds this, ns: the fixed default's 100 µs, so it never spins longer than it. */
    public static final long ADAPTIVE_MAX_NS = 100_000;

    private final PacingClock clock;
    private final long spinNs;
    private final int intervalShareShift;
    /** The running mean of the intervals moves by 1/16 of each new interval's difference to it. */
    private static final int MEAN_SHIFT = 4;

    private final byte[] history;    // null unless adaptive: a ring of the last parks' overshoot buckets
    private final int[] counts;      // null unless adaptive: parks in the history per bucket
    private final int coveragePercent;
    private final boolean meanCap;
    private long waits;              // awaitDeadlineAfter calls so far; the first one's interval is the lead-in
    private long meanIntervalNs;
    private int nextOvershoot;
    private long samples;            // parks recorded in the ring so far
    private long learntNs = ADAPTIVE_START_NS;

    /**
     * @param clock  time source and wait primitives.
     * @param spinNs busy-wait window before each deadline, in nanoseconds, >= 0.
     */
    public ParkThenSpinPacer(PacingClock clock, long spinNs) {
        this(clock, spinNs, QUARTER_INTERVAL);
    }

    /**
     * @param clock              time source and wait primitives.
     * @param spinNs             busy-wait window before each deadline, in nanoseconds, >= 0, or {@link #ADAPTIVE}.
     * @param intervalShareShift {@link #awaitDeadlineAfter} caps the window at interval >> this (1..16):
     *                           {@link #QUARTER_INTERVAL} or {@link #HALF_INTERVAL}
     */
    public ParkThenSpinPacer(PacingClock clock, long spinNs, int intervalShareShift) {
        this(clock, spinNs, intervalShareShift, false);
    }

    /**
     * @param meanCap true caps the window by the larger of the interval and the running mean interval instead of
     *                the interval alone (the session's {@code -Dtwping.sender.spinCapMean=true}; not the default:
     *                at load 21 it made the 1000/s lateness tail worse, docs/notes/2026-12-04-tails.md)
     */
    public ParkThenSpinPacer(PacingClock clock, long spinNs, int intervalShareShift, boolean meanCap) {
        this(clock, spinNs, intervalShareShift, meanCap, DEFAULT_COVERAGE_PERCENT);
    }

    /**
     * @param coveragePercent 1..100: the share of the history's parks whose overshoot the learnt window covers
     *                        (the session's {@code -Dtwping.sender.spinCoverage}; {@link #DEFAULT_COVERAGE_PERCENT}
     *                        otherwise); only read with {@link #ADAPTIVE}
     */
    public ParkThenSpinPacer(PacingClock clock, long spinNs, int intervalShareShift, boolean meanCap,
                             int coveragePercent) {
        this.meanCap = meanCap;
        if (coveragePercent < 1 || coveragePercent > 100) {
            throw new IllegalArgumentException("coveragePercent must be 1..100: " + coveragePercent);
        }
        if (spinNs < 0 && spinNs != ADAPTIVE) {
            throw new IllegalArgumentException("spinNs must be >= 0 or ADAPTIVE: " + spinNs);
        }
        if (intervalShareShift < 1 || intervalShareShift > 16) {
            throw new IllegalArgumentException("intervalShareShift must be 1..16: " + intervalShareShift);
        }
        this.clock = clock;
        this.spinNs = spinNs;
        this.intervalShareShift = intervalShareShift;
        this.coveragePercent = coveragePercent;
        this.history = spinNs == ADAPTIVE ? new byte[ADAPTIVE_HISTORY] : null;
        this.counts = spinNs == ADAPTIVE ? new int[BUCKETS] : null;
    }

    /** @return a pacer that only parks, for the time left (a window of 0). */
    public static ParkThenSpinPacer parkOnly(PacingClock clock) {
        return new ParkThenSpinPacer(clock, 0);
    }

    /** @return a pacer that only spins ({@link PacingClock#onSpinWait()}) up to each deadline. */
    public static ParkThenSpinPacer spinOnly(PacingClock clock) {
        return new ParkThenSpinPacer(clock, Long.MAX_VALUE);
    }

    /** @return the shift of the interval that caps the window in {@link #awaitDeadlineAfter}. */
    public int intervalShareShift() {
        return intervalShareShift;
    }

    /** @return the busy-wait window in nanoseconds ({@link Long#MAX_VALUE} = spin only, {@link #ADAPTIVE}: learnt). */
    public long spinNs() {
        return spinNs;
    }

    /** @return the window the next wait uses before the interval cap: the fixed one, or the learnt one. */
    public long windowNs() {
        return history == null ? spinNs : learntNs;
    }

    @Override
    public long awaitDeadline(long deadlineNs) {
        return awaitDeadline(deadlineNs, windowNs());
    }

    /**
     * Waits for a deadline that follows {@code previousDeadlineNs}: the spin window is capped at a share of the
     * interval (a quarter by default, half for a real-time thread), so that at high rates the pacer still parks
     * between sends instead of degenerating into a busy spin (which the scheduler punishes on a contended machine;
     * see docs/PERFORMANCE.md, Pacing). With the mean cap (the four-argument constructor) the share is of the larger
     * of this interval and the running mean of the intervals, so that an exponential schedule's short gaps keep the
     * whole window; the first call's interval (from the session's start to the first deadline) does not enter the
     * mean.
     */
    @Override
    public long awaitDeadlineAfter(long deadlineNs, long previousDeadlineNs) {
        long intervalNs = Math.max(0, deadlineNs - previousDeadlineNs);
        long capBaseNs = intervalNs;
        if (waits > 0 && meanCap) {
            // the mean of the intervals, not only this one: an exponential schedule's short gaps keep the window
            meanIntervalNs = waits == 1 ? intervalNs : meanIntervalNs + ((intervalNs - meanIntervalNs) >> MEAN_SHIFT);
            capBaseNs = Math.max(intervalNs, meanIntervalNs);
        }
        waits++;
        return awaitDeadline(deadlineNs, Math.min(windowNs(), capBaseNs >> intervalShareShift));
    }

    /** @return the running mean of the intervals between deadlines the cap follows (0 before two waits), ns. */
    public long meanIntervalNs() {
        return meanIntervalNs;
    }

    private long awaitDeadline(long deadlineNs, long windowNs) {
        long nowNs = clock.nanoTime();
        boolean parked = false;
        while (deadlineNs - nowNs > windowNs) {
            clock.parkNanos(deadlineNs - windowNs - nowNs);
            nowNs = clock.nanoTime();
            parked = true;
            if (Thread.currentThread().isInterrupted()) {
                return nowNs - deadlineNs;
            }
        }
        if (parked && history != null) {
            learn(nowNs - (deadlineNs - windowNs));
        }
        while (nowNs - deadlineNs < 0) {
            clock.onSpinWait();
            nowNs = clock.nanoTime();
        }
        return nowNs - deadlineNs;
    }

    /** @return the share of the history's parks whose overshoot the learnt window covers, percent. */
    public int coveragePercent() {
        return coveragePercent;
    }

    /**
     * Records one park's overshoot in the history (its bucket, the oldest one's count given back); from
     * {@link #ADAPTIVE_MIN_SAMPLES} parks on, sets the window to the lower end of the bucket that the covered share
     * of the history reaches, plus the margin, at most {@link #ADAPTIVE_MAX_NS}. At most {@value #BUCKETS} counts
     * read per park, no allocation.
     */
    private void learn(long overshootNs) {
        int bucket = (int) Math.min(BUCKETS - 1, Math.max(0, overshootNs) >> BUCKET_SHIFT);
        if (samples == ADAPTIVE_HISTORY) {
            counts[history[nextOvershoot] & 0xff]--;
        } else {
            samples++;
        }
        history[nextOvershoot] = (byte) bucket;
        counts[bucket]++;
        nextOvershoot = (nextOvershoot + 1) & (ADAPTIVE_HISTORY - 1);
        if (samples < ADAPTIVE_MIN_SAMPLES) {
            return;
        }
        learntNs = windowFor(coveredOvershootNs(counts, (int) samples, coveragePercent));
    }

    /**
     * @param counts          values per bucket of {@link #BUCKET_NS}
     * @param n               the values counted, > 0
     * @param coveragePercent 1..100
     * @return the lower end of the lowest bucket at which at least {@code coveragePercent} % of the {@code n}
     *         values (rounded up) are counted
     */
    static long coveredOvershootNs(int[] counts, int n, int coveragePercent) {
        int wanted = (n * coveragePercent + 99) / 100;
        int seen = 0;
        int b = 0;
        while (b < counts.length - 1) {
            seen += counts[b];
            if (seen >= wanted) {
                break;
            }
            b++;
        }
        return (long) b << BUCKET_SHIFT;
    }

    /** The learnt window for a covered overshoot: plus the margin, at most {@link #ADAPTIVE_MAX_NS}. */
    static long windowFor(long coveredOvershootNs) {
        return Math.min(ADAPTIVE_MAX_NS - ADAPTIVE_MARGIN_NS, Math.max(0, coveredOvershootNs)) + ADAPTIVE_MARGIN_NS;
    }
}
