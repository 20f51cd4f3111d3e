package io.github.twping.testing.perf.compare;

import java.util.Arrays;

/**
 * Exact order statistics of a set of values (no histogram): the nearest-rank percentile, i.e. the
 * smallest value such that at least p % of the values are less than or equal to it.
 */
public final class ExactPercentiles {
    /** The percentiles every distribution of the comparison reports, in this order. */
    public static final double[] REPORTED = {50, 90, 99, 99.9, 100};

    private final long[] sorted;

    private ExactPercentiles(long[] sorted) {
        this.sorted = sorted;
    }

    /** Sorts a copy of the first {@code count} values. */
    public static ExactPercentiles of(long[] values, int count) {
        long[] copy = Arrays.copyOf(values, count);
        Arrays.sort(copy);
        return new ExactPercentiles(copy);
    }

    public int count() {
        return sorted.length;
    }

    /**
     * The nearest-rank percentile: the value of rank ceil(p/100 × n) (1-based); p = 0 gives the minimum.
     *
     * @throws IllegalStateException when there are no values
     * @throws IllegalArgumentException when p is outside 0..100
     */
    public long percentile(double p) {
        if (!(p >= 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile outside 0..100: " + p);
        }
        if (sorted.length == 0) {
            throw new IllegalStateException("no values");
        }
        // p / 100 × n computed as p × n / 100 so that 99.9 % of 1000 is exactly rank 999
        double rank = Math.ceil(p * sorted.length / 100.0 - 1e-9);
        int index = (int) Math.max(1, Math.min(sorted.length, rank)) - 1;
        return sorted[index];
    }

    /** The {@link #REPORTED} percentiles (p50, p90, p99, p99.9, max), or {@code null} when there are no values. */
    public long[] reported() {
        if (sorted.length == 0) {
            return null;
        }
        long[] out = new long[REPORTED.length];
        for (int i = 0; i < REPORTED.length; i++) {
            out[i] = percentile(REPORTED[i]);
        }
        return out;
    }
}
