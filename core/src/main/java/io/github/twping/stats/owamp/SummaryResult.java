package io.github.twping.stats.owamp;

import java.util.Arrays;

/**
 * The result of one (sub-)session summary (docs/STATISTICS.md): counts, min/max, error maxima, histogram and
 * TTL sets. Reused between summaries via {@link #reset}.
 */
public final class SummaryResult {
    /** Delay type index for min/max arrays: round trip. */
    public static final int RT = 0;
    /** Forward ("send") delay. */
    public static final int FWD = 1;
    /** Backward ("reflect") delay. */
    public static final int BCK = 2;
    /** Reflector processing time (min/max only). */
    public static final int PROC = 3;

    long first;
    long last;
    long startTimeNtp;
    long endTimeNtp;
    long sent;
    long lost;
    long dupsFwd;
    long dupsBck;
    boolean sync;
    boolean clocksOffset;
    long recordsExamined;
    long nextBeginRecord;
    double inf;
    final double[] min = new double[4];
    final double[] max = new double[4];
    final double[] maxErr = new double[3];
    final long[] ttlFwd = new long[256];
    final long[] ttlBck = new long[256];
    final DelayHistogram histogram;

    /** @param bucketWidth the {@code -b} bucket width as the C float */
    public SummaryResult(float bucketWidth) {
        this.histogram = new DelayHistogram(bucketWidth);
    }

    void reset(long firstSeq, long lastSeq, double infinity) {
        first = firstSeq;
        last = lastSeq;
        sent = 0;
        lost = 0;
        dupsFwd = 0;
        dupsBck = 0;
        sync = true;
        clocksOffset = false;
        recordsExamined = 0;
        nextBeginRecord = 0;
        inf = infinity;
        Arrays.fill(min, infinity);
        Arrays.fill(max, -infinity);
        Arrays.fill(maxErr, 0.0);
        Arrays.fill(ttlFwd, 0);
        Arrays.fill(ttlBck, 0);
        histogram.clear();
    }

    /** First sent seq of the range. */
    public long first() {
        return first;
    }

    /** One past the last sent seq of the range. */
    public long last() {
        return last;
    }

    /** schedtime(first) as Num64. */
    public long startTimeNtp() {
        return startTimeNtp;
    }

    /** schedtime of the last node flushed (normally schedtime(last - 1)) as Num64. */
    public long endTimeNtp() {
        return endTimeNtp;
    }

    public long sent() {
        return sent;
    }

    public long lost() {
        return lost;
    }

    /** "send duplicates". */
    public long dupsFwd() {
        return dupsFwd;
    }

    /** "reflect duplicates". */
    public long dupsBck() {
        return dupsBck;
    }

    /** The sync flag: cleared only by lost records with an unsynchronised receive-side estimate. */
    public boolean sync() {
        return sync;
    }

    /** True if a forward or backward delay was negative (the "out of sync clocks" warning). */
    public boolean clocksOffset() {
        return clocksOffset;
    }

    /** Records read for this summary (in range or not). */
    public long recordsExamined() {
        return recordsExamined;
    }

    /** Record index where the next {@code -N} sub-summary starts parsing. */
    public long nextBeginRecord() {
        return nextBeginRecord;
    }

    /** Minimum of a delay type in seconds, or NaN when undefined (still at the sentinel). */
    public double min(int type) {
        return min[type] >= inf ? Double.NaN : min[type];
    }

    /** Maximum of a delay type in seconds, or NaN when undefined. */
    public double max(int type) {
        return max[type] <= -inf ? Double.NaN : max[type];
    }

    /** Maximum error sum of type RT, FWD or BCK in seconds. */
    public double maxError(int type) {
        return maxErr[type];
    }

    /** P(alpha) for RT/FWD/BCK in seconds, or NaN when undefined (docs/STATISTICS.md). */
    public double percentile(int type, double alpha) {
        return histogram.percentile(type, alpha, sent);
    }

    /** Median (P 0.5), NaN when undefined. */
    public double median(int type) {
        return percentile(type, 0.5);
    }

    /** Jitter P95 - P50, NaN when either is undefined. */
    public double jitter(int type) {
        double p50 = percentile(type, 0.5);
        double p95 = percentile(type, 0.95);
        return Double.isNaN(p50) || Double.isNaN(p95) ? Double.NaN : p95 - p50;
    }

    /** Loss fraction {@code lost/sent} (0 when nothing was sent), before the ×100 of printing. */
    public double lossFraction() {
        return sent == 0 ? 0.0 : (double) lost / (double) sent;
    }

    /** Count of non-duplicate received records with forward (sender) TTL {@code ttl}. */
    public long ttlCountFwd(int ttl) {
        return ttlFwd[ttl];
    }

    /** Count of non-duplicate received records with backward (reply) TTL {@code ttl}. */
    public long ttlCountBck(int ttl) {
        return ttlBck[ttl];
    }

    /** The delay histogram. */
    public DelayHistogram histogram() {
        return histogram;
    }
}
