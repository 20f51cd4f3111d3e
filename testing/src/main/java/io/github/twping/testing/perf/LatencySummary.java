package io.github.twping.testing.perf;

import org.HdrHistogram.Histogram;
import java.util.Locale;

/**
 * The figures a results table shows for one latency distribution, in ns.
 *
 * @param count  values recorded
 * @param minNs  smallest value
 * @param p50Ns  median (HdrHistogram bucket value, kept within [min, max])
 * @param p99Ns  99th percentile
 * @param p999Ns 99.9th percentile
 * @param maxNs  largest value
 */
public record LatencySummary(long count, long minNs, long p50Ns, long p99Ns, long p999Ns, long maxNs) {

    /** Summary of a histogram, with exact extremes supplied by the caller. */
    public static LatencySummary of(Histogram h, long exactMinNs, long exactMaxNs) {
        if (h.getTotalCount() == 0) {
            return new LatencySummary(0, 0, 0, 0, 0, 0);
        }
        return new LatencySummary(h.getTotalCount(), exactMinNs, within(h.getValueAtPercentile(50), exactMinNs,
                exactMaxNs), within(h.getValueAtPercentile(99), exactMinNs, exactMaxNs),
                within(h.getValueAtPercentile(99.9), exactMinNs, exactMaxNs), exactMaxNs);
    }

    /** A percentile's bucket value kept between the exact extremes (a bucket's top may exceed the maximum). */
    private static long within(long bucketValueNs, long minNs, long maxNs) {
        return Math.clamp(bucketValueNs, Math.min(minNs, maxNs), maxNs);
    }

    /** Summary of a histogram using its own (bucket-precision) extremes. */
    public static LatencySummary of(Histogram h) {
        if (h.getTotalCount() == 0) {
            return new LatencySummary(0, 0, 0, 0, 0, 0);
        }
        return of(h, h.getMinValue(), h.getMaxValue());
    }

    /** Formats ns as µs with one decimal ("12.3"); "–" when nothing was recorded. */
    public String micros(long ns) {
        return count == 0 ? "–" : formatMicros(ns);
    }

    /** Formats ns as µs with one decimal, rounding half away from zero ("12.3"). */
    public static String formatMicros(long ns) {
        return String.format(Locale.ROOT, "%.1f", ns / 1000.0);
    }
}
