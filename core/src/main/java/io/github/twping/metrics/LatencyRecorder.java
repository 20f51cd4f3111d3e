package io.github.twping.metrics;

import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.MetricType;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricFamilyDescriptor;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongConsumer;

/**
 * A lock-free, allocation-free classic histogram of durations for per-packet paths: {@link #accept(long)} does a
 * binary search over the fixed {@link DelayBuckets} and two atomic increments. Read at scrape time.
 */
public final class LatencyRecorder implements LongConsumer {
    private final long[] upperNs;
    private final AtomicLongArray counts;
    private final AtomicLong sumNs = new AtomicLong();

    public LatencyRecorder() {
        double[] s = DelayBuckets.seconds();
        upperNs = new long[s.length];
        for (int i = 0; i < s.length; i++) {
            upperNs[i] = Math.round(s[i] * 1e9);
        }
        counts = new AtomicLongArray(s.length + 1);
    }

    /** Records one duration in nanoseconds (negative values count as 0). */
    @Override
    public void accept(long ns) {
        long v = Math.max(0, ns);
        int lo = 0;
        int hi = upperNs.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (upperNs[mid] < v) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        counts.incrementAndGet(lo);
        sumNs.addAndGet(v);
    }

    /** @return per-bucket (not cumulative) counts, the last one for {@code +Inf}. */
    long[] counts() {
        long[] c = new long[counts.length()];
        for (int i = 0; i < c.length; i++) {
            c[i] = counts.get(i);
        }
        return c;
    }

    /** @return the sum of the recorded durations in seconds. */
    double sumSeconds() {
        return sumNs.get() / 1e9;
    }

    /** @return a collector that exposes this recorder as the classic histogram {@code name} ({@link DelayBuckets}). */
    Collector collector(String name, String help) {
        double[] s = DelayBuckets.seconds();
        double[] upper = Arrays.copyOf(s, s.length + 1);
        upper[s.length] = Double.POSITIVE_INFINITY;
        return new Collector() {
            @Override
            public MetricSnapshot collect() {
                return HistogramSnapshot.builder().name(name).help(help)
                        .dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                                .classicHistogramBuckets(ClassicHistogramBuckets.of(upper, counts()))
                                .sum(sumSeconds()).build())
                        .build();
            }

            @Override
            public MetricFamilyDescriptor getMetricFamilyDescriptor() {
                return MetricFamilyDescriptor.of(MetricType.HISTOGRAM, new MetricMetadata(name, help));
            }
        };
    }
}
