package io.github.twping.stats.exact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class DelayDistributionTest {
    private static long nearestRank(long[] sorted, double p) {
        long rank = Math.max(1, (long) Math.ceil(p / 100.0 * sorted.length));
        return sorted[(int) Math.min(rank, sorted.length) - 1];
    }

    @Test
    void smallSessionsAreExactNearestRankOverSignedValues() {
        SplittableRandom random = new SplittableRandom(7);
        DelayDistribution d = new DelayDistribution();
        long[] values = new long[1001];
        for (int i = 0; i < values.length; i++) {
            values[i] = random.nextLong(-50_000, 5_000_000);
            d.record(values[i]);
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        assertTrue(d.exact());
        for (double p : new double[] {0.1, 50, 90, 95, 99, 99.9, 99.99, 99.999, 100}) {
            assertEquals(nearestRank(sorted, p), d.percentile(p), "p" + p);
        }
        assertEquals(sorted[0], d.min());
        assertEquals(sorted[sorted.length - 1], d.max());
        double mean = Arrays.stream(values).average().orElseThrow();
        double var = Arrays.stream(values).mapToDouble(v -> (v - mean) * (v - mean)).sum() / values.length;
        assertEquals(mean, d.mean(), 1e-6 * Math.abs(mean));
        assertEquals(Math.sqrt(var), d.stddev(), 1e-6 * Math.sqrt(var));
    }

    @Test
    void medianOfFourIsTheSecondValue() {
        DelayDistribution d = new DelayDistribution();
        for (long v : new long[] {40, 10, 30, 20}) {
            d.record(v);
        }
        assertEquals(20, d.percentile(50));
        assertEquals(40, d.percentile(99.999));
        assertEquals(10, d.percentile(0));
    }

    @Test
    void largeSessionsSwitchToHistogramsWithinOnePerMille() {
        SplittableRandom random = new SplittableRandom(11);
        DelayDistribution d = new DelayDistribution();
        int n = DelayDistribution.EXACT_LIMIT + 50_000;
        long[] values = new long[n];
        for (int i = 0; i < n; i++) {
            // mostly positive, a tenth negative (unsynchronised clocks), a long tail
            long v = (long) (20_000 * Math.exp(random.nextDouble() * 8));
            values[i] = random.nextInt(10) == 0 ? -v : v;
            d.record(values[i]);
        }
        assertFalse(d.exact());
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        for (double p : new double[] {1, 5, 9.9, 10.1, 50, 90, 99, 99.9, 99.99}) {
            long expected = nearestRank(sorted, p);
            long got = d.percentile(p);
            assertEquals(expected, got, Math.abs(expected) * 0.001 + 1, "p" + p);
        }
        assertEquals(sorted[0], d.min());
        assertEquals(sorted[n - 1], d.max());
    }

    @Test
    void emptyAndResetDistributions() {
        DelayDistribution d = new DelayDistribution();
        assertEquals(0, d.count());
        assertTrue(Double.isNaN(d.mean()));
        assertEquals(0, d.percentile(50));
        d.record(5);
        d.reset();
        assertEquals(0, d.count());
        d.record(9);
        assertEquals(9, d.percentile(50));
        assertEquals(9, d.min());
    }
}
