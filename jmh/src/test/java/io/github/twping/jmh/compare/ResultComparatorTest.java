package io.github.twping.jmh.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

class ResultComparatorTest {
    private static final BenchmarkKey AVGT = new BenchmarkKey("a.B.c", "avgt", new TreeMap<>());
    private static final BenchmarkKey SAMPLE = new BenchmarkKey("a.B.d", "sample", new TreeMap<>());

    private static BenchmarkResult result(BenchmarkKey key, double score, double error, double allocBytes) {
        return new BenchmarkResult(key, score, error, score - error, score + error, "ns/op", allocBytes);
    }

    private static ComparisonRow compare(BenchmarkResult base, BenchmarkResult cur) {
        return new ResultComparator(10).compare(List.of(base), List.of(cur)).rows().get(0);
    }

    @Test
    void shouldNeedBothSeparatedIntervalsAndAChangeAboveTheThreshold() {
        assertEquals(Verdict.REGRESSION, compare(result(AVGT, 100, 1, 0), result(AVGT, 112, 1, 0)).verdict());
        assertEquals(Verdict.WITHIN_THRESHOLD, compare(result(AVGT, 100, 1, 0), result(AVGT, 108, 1, 0)).verdict());
        assertEquals(Verdict.WITHIN_ERROR, compare(result(AVGT, 100, 7, 0), result(AVGT, 112, 7, 0)).verdict());
    }

    @Test
    void shouldTreatSampleTimeLikeAverageTime() {
        assertEquals(Verdict.REGRESSION, compare(result(SAMPLE, 100, 1, 0), result(SAMPLE, 150, 1, 0)).verdict());
        assertEquals(Verdict.IMPROVEMENT, compare(result(SAMPLE, 150, 1, 0), result(SAMPLE, 100, 1, 0)).verdict());
    }

    @Test
    void shouldCompareSingleIterationResultsOnTheThresholdAlone() {
        BenchmarkResult base = new BenchmarkResult(AVGT, 100, Double.NaN, 100, 100, "ns/op", Double.NaN);
        BenchmarkResult cur = new BenchmarkResult(AVGT, 120, Double.NaN, 120, 120, "ns/op", Double.NaN);
        assertEquals(Verdict.REGRESSION, compare(base, cur).verdict());
        assertEquals(Verdict.WITHIN_ERROR, compare(base, base).verdict());
    }

    @Test
    void shouldFlagAllocationGrowthAboveTheThresholdAndOneByte() {
        assertTrue(compare(result(AVGT, 100, 1, 24), result(AVGT, 100, 1, 48)).allocRegression());
        assertFalse(compare(result(AVGT, 100, 1, 24), result(AVGT, 100, 1, 25)).allocRegression());
        assertFalse(compare(result(AVGT, 100, 1, 1.2), result(AVGT, 100, 1, 1.9)).allocRegression());
        assertTrue(compare(result(AVGT, 100, 1, 0.01), result(AVGT, 100, 1, 1.0)).allocRegression());
        assertFalse(compare(result(AVGT, 100, 1, 48), result(AVGT, 100, 1, 0)).allocRegression());
    }

    @Test
    void shouldIgnoreAllocationGrowthInsideTheReportedAllocationError() {
        // A paced benchmark: a few operations per second share the harness's background allocation.
        BenchmarkResult base = new BenchmarkResult(AVGT, 100, 1, 99, 101, "ns/op", 5_000, 600);
        assertFalse(compare(base, new BenchmarkResult(AVGT, 100, 1, 99, 101, "ns/op", 5_800, 600)).allocRegression());
        assertTrue(compare(base, new BenchmarkResult(AVGT, 100, 1, 99, 101, "ns/op", 7_000, 300)).allocRegression());
        // From zero the error does not matter: any real allocation is a regression.
        BenchmarkResult zero = new BenchmarkResult(AVGT, 100, 1, 99, 101, "ns/op", 0.0, 5);
        assertTrue(compare(zero, new BenchmarkResult(AVGT, 100, 1, 99, 101, "ns/op", 16, 20)).allocRegression());
    }

    @Test
    void shouldIgnoreAllocationChangesTooSmallToBeTheBenchmarksOwn() {
        // 1 000 paced sends per second: +4 B/op is 4 KB/s, the harness's background, not the sender.
        BenchmarkResult paced = new BenchmarkResult(AVGT, 1000, 1, 999, 1001, "us/op", 7.8, 0.1);
        assertFalse(compare(paced, new BenchmarkResult(AVGT, 1000, 1, 999, 1001, "us/op", 11.8, 0.1)).allocRegression());
        BenchmarkResult pacedFast = new BenchmarkResult(AVGT, 20, 0.1, 19.9, 20.1, "us/op", 0.2, 0.1);
        assertFalse(compare(pacedFast, new BenchmarkResult(AVGT, 20, 0.1, 19.9, 20.1, "us/op", 1.2, 0.1)).allocRegression());
        // The same +4 B/op at 10 million operations per second is 40 MB/s: a regression.
        assertTrue(compare(result(AVGT, 100, 1, 7.8), result(AVGT, 100, 1, 11.8)).allocRegression());
        BenchmarkKey thrpt = new BenchmarkKey("a.B.t", "thrpt", new TreeMap<>());
        BenchmarkResult fast = new BenchmarkResult(thrpt, 5, 0.1, 4.9, 5.1, "ops/us", 0.0, 0.0);
        assertTrue(compare(fast, new BenchmarkResult(thrpt, 5, 0.1, 4.9, 5.1, "ops/us", 16, 0.0)).allocRegression());
        BenchmarkResult slow = new BenchmarkResult(thrpt, 5, 0.1, 4.9, 5.1, "ops/s", 0.0, 0.0);
        assertFalse(compare(slow, new BenchmarkResult(thrpt, 5, 0.1, 4.9, 5.1, "ops/s", 16, 0.0)).allocRegression());
    }

    @Test
    void shouldNotCompareUnitsOfDifferentKinds() {
        BenchmarkResult base = result(AVGT, 100, 1, 0);
        BenchmarkResult cur = new BenchmarkResult(AVGT, 5, 1, 4, 6, "ops/s", 0);
        ComparisonRow row = compare(base, cur);
        assertEquals(Verdict.INCOMPARABLE_UNITS, row.verdict());
        assertFalse(row.failed());
    }

    @Test
    void shouldRejectANegativeThreshold() {
        assertThrows(IllegalArgumentException.class, () -> new ResultComparator(-1));
        assertThrows(IllegalArgumentException.class, () -> new ResultComparator(Double.NaN));
    }
}
