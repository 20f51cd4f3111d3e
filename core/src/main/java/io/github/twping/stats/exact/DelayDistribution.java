package io.github.twping.stats.exact;

import java.util.Arrays;

import org.HdrHistogram.Histogram;

/**
 * One distribution of signed nanosecond values (a delay, a delay variation): exact count, min, max, mean
 * and standard deviation always; percentiles exact (nearest rank over the sorted values) while the count is
 * at most {@link #EXACT_LIMIT}, then from two HdrHistograms (values at or above zero, and the magnitudes
 * of negative values) at nanosecond resolution with 3 significant digits.
 *
 * <p>Not thread-safe: fed and read by one writer thread. {@link #record} allocates only when the exact
 * buffer grows (amortised) and once when it switches to the histograms.
 */
public final class DelayDistribution {
    /** Largest count kept exactly. */
    public static final int EXACT_LIMIT = 1 << 17;
    private static final int SIGNIFICANT_DIGITS = 3;

    private long[] values = new long[64];
    private int size;
    private boolean sorted = true;
    private Histogram positive;
    private Histogram negative;

    private long count;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private double mean;
    private double m2;

    /** Adds one value in nanoseconds. */
    public void record(long valueNs) {
        count++;
        min = Math.min(min, valueNs);
        max = Math.max(max, valueNs);
        double delta = valueNs - mean;                       // Welford's running mean and variance
        mean += delta / count;
        m2 += delta * (valueNs - mean);
        if (positive == null) {
            if (size < EXACT_LIMIT) {
                if (size == values.length) {
                    values = Arrays.copyOf(values, Math.min(EXACT_LIMIT, size * 2));
                }
                values[size++] = valueNs;
                sorted = false;
                return;
            }
            positive = new Histogram(SIGNIFICANT_DIGITS);
            negative = new Histogram(SIGNIFICANT_DIGITS);
            for (int i = 0; i < size; i++) {
                histogramRecord(values[i]);
            }
            values = null;
            size = 0;
        }
        histogramRecord(valueNs);
    }

    private void histogramRecord(long v) {
        if (v >= 0) {
            positive.recordValue(v);
        } else {
            negative.recordValue(v == Long.MIN_VALUE ? Long.MAX_VALUE : -v);
        }
    }

    /** Forgets every value (the buffers are kept). */
    public void reset() {
        if (positive != null) {
            positive = null;
            negative = null;
            values = new long[64];
        }
        size = 0;
        sorted = true;
        count = 0;
        min = Long.MAX_VALUE;
        max = Long.MIN_VALUE;
        mean = 0;
        m2 = 0;
    }

    /** @return values recorded */
    public long count() {
        return count;
    }

    /** @return true while percentiles are exact */
    public boolean exact() {
        return positive == null;
    }

    /** @return the smallest value (ns); meaningless when {@link #count()} is 0 */
    public long min() {
        return min;
    }

    /** @return the largest value (ns); meaningless when {@link #count()} is 0 */
    public long max() {
        return max;
    }

    /** @return the mean (ns), NaN when empty */
    public double mean() {
        return count == 0 ? Double.NaN : mean;
    }

    /** @return the population standard deviation (ns), NaN when empty */
    public double stddev() {
        return count == 0 ? Double.NaN : Math.sqrt(m2 / count);
    }

    /**
     * The value at percentile {@code p} (0..100): the smallest recorded value such that at least p% of the
     * values are at or below it (nearest rank). With histograms, HdrHistogram's value of that rank (within
     * 0.1%), clamped to [min, max].
     *
     * @return the value in ns; 0 when empty
     */
    public long percentile(double p) {
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(p / 100.0 * count));     // 1-based
        rank = Math.min(rank, count);
        if (positive == null) {
            if (!sorted) {
                Arrays.sort(values, 0, size);
                sorted = true;
            }
            return values[(int) rank - 1];
        }
        long negatives = negative.getTotalCount();
        long v;
        if (rank <= negatives) {
            // rank-th smallest overall = the (negatives - rank + 1)-th smallest magnitude... from the top
            double q = 100.0 * (negatives - rank + 1) / negatives;
            v = -negative.getValueAtPercentile(q);
        } else {
            double q = 100.0 * (rank - negatives) / positive.getTotalCount();
            v = positive.getValueAtPercentile(q);
        }
        return Math.max(min, Math.min(max, v));
    }
}
