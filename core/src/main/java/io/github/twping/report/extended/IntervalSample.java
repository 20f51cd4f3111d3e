package io.github.twping.report.extended;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The values of one series in one interval of the HTML report's time charts, in bounded memory: exact count,
 * min and max; p50 and p99 exact (nearest rank) while the interval has at most {@value #LIMIT} values, then
 * from a uniform sample of {@value #LIMIT} of them (reservoir sampling with a fixed seed, so a report is
 * reproducible). A report holds at most 400 intervals of four series: at most 26 MB however long the session.
 */
final class IntervalSample {
    /** Values kept per interval. */
    static final int LIMIT = 2048;

    private final SplittableRandom random = new SplittableRandom(0x7477_7069_6e67L);
    private final int limit;
    private long[] values = new long[8];
    private int size;
    private boolean sorted = true;
    private long count;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;

    IntervalSample() {
        this(LIMIT);
    }

    /** Keeps at most {@code limit} (at least 8) values. */
    IntervalSample(int limit) {
        this.limit = Math.max(8, limit);
    }

    void record(long v) {
        count++;
        min = Math.min(min, v);
        max = Math.max(max, v);
        if (size < limit) {
            if (size == values.length) {
                values = Arrays.copyOf(values, Math.min(limit, size * 2));
            }
            values[size++] = v;
            sorted = false;
            return;
        }
        long slot = random.nextLong(count);                 // keep the value with probability limit / count
        if (slot < limit) {
            values[(int) slot] = v;
            sorted = false;
        }
    }

    long count() {
        return count;
    }

    long min() {
        return min;
    }

    long max() {
        return max;
    }

    /** @return the value at percentile {@code p} (0..100) of the kept values: the smallest with at least p% at or below it */
    long percentile(double p) {
        if (!sorted) {
            Arrays.sort(values, 0, size);
            sorted = true;
        }
        int rank = (int) Math.min(size, Math.max(1, (long) Math.ceil(p / 100.0 * size)));
        return values[rank - 1];
    }
}
