package io.github.twping.report.extended;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The per-interval values of the HTML report's time charts: exact up to the limit, a uniform sample beyond. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IntervalSampleTest {
    @Test
    void shouldBeExactUpToTheLimit() {
        SplittableRandom random = new SplittableRandom(1);
        long[] v = random.longs(IntervalSample.LIMIT, -5_000, 9_000_000).toArray();
        IntervalSample s = new IntervalSample();
        Arrays.stream(v).forEach(s::record);
        Arrays.sort(v);
        assertEquals(v.length, s.count());
        assertEquals(v[0], s.min());
        assertEquals(v[v.length - 1], s.max());
        assertEquals(v[v.length / 2 - 1], s.percentile(50));
        assertEquals(v[(int) Math.ceil(0.99 * v.length) - 1], s.percentile(99));
    }

    @Test
    void shouldSampleUniformlyBeyondTheLimit() {
        // a million values, rising: a sample that kept only the first or the last ones would be far off
        IntervalSample s = new IntervalSample();
        for (long i = 0; i < 1_000_000; i++) {
            s.record(i);
        }
        assertEquals(1_000_000, s.count());
        assertEquals(0, s.min());
        assertEquals(999_999, s.max());
        assertTrue(Math.abs(s.percentile(50) - 500_000) < 50_000, "p50 " + s.percentile(50));
        assertTrue(Math.abs(s.percentile(99) - 990_000) < 10_000, "p99 " + s.percentile(99));
    }
}
