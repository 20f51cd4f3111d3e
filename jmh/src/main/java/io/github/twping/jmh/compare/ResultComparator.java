package io.github.twping.jmh.compare;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides, per benchmark, whether a current JMH run regressed against a baseline.
 *
 * <p>A score regresses only if both hold: the two confidence intervals JMH reports do not overlap (the
 * difference is not explained by the measured error), and the relative change in the bad direction
 * (higher for time modes, lower for throughput) is larger than the threshold. Allocation regresses when
 * {@code gc.alloc.rate.norm} goes from below {@value #ZERO_ALLOC_BYTES} B/op to at least that, or rises by
 * more than the threshold and by at least {@value #ZERO_ALLOC_BYTES} B/op with error bars (when JMH reports
 * them) that do not overlap. Either way the extra allocation must amount to at least
 * {@value #MIN_ALLOC_RATE_BYTES_PER_S} bytes per second at the benchmark's current speed. Both conditions
 * are for slow benchmarks (paced sends, network round trips): there {@code -prof gc} divides the JMH
 * harness's own background allocation (kilobytes per second) by few operations, which shows up as bytes
 * per operation that come and go between runs.
 */
public final class ResultComparator {
    /** Default relative threshold, in percent. */
    public static final double DEFAULT_THRESHOLD_PCT = 10.0;
    /** Allocation below this many bytes per operation counts as "allocation free" (JMH's own noise floor). */
    public static final double ZERO_ALLOC_BYTES = 1.0;
    /** Extra allocation below this rate is the harness's background, not the benchmark (1 MB/s). */
    public static final double MIN_ALLOC_RATE_BYTES_PER_S = 1_000_000.0;

    private final double thresholdPct;

    /** @param thresholdPct relative threshold in percent, finite and >= 0. */
    public ResultComparator(double thresholdPct) {
        if (!(thresholdPct >= 0) || Double.isInfinite(thresholdPct)) {
            throw new IllegalArgumentException("threshold must be a finite number >= 0: " + thresholdPct);
        }
        this.thresholdPct = thresholdPct;
    }

    /**
     * Compares two runs, matching results by benchmark name, mode and parameters.
     *
     * @param baseline results of the reference run.
     * @param current  results of the run under test.
     * @return the per-benchmark rows and the benchmarks present in only one run.
     */
    public ComparisonReport compare(List<BenchmarkResult> baseline, List<BenchmarkResult> current) {
        Map<BenchmarkKey, BenchmarkResult> currentByKey = new LinkedHashMap<>();
        for (BenchmarkResult result : current) {
            currentByKey.put(result.key(), result);
        }
        List<ComparisonRow> rows = new ArrayList<>();
        List<BenchmarkKey> missing = new ArrayList<>();
        for (BenchmarkResult base : baseline) {
            BenchmarkResult cur = currentByKey.remove(base.key());
            if (cur == null) {
                missing.add(base.key());
            } else {
                rows.add(row(base, cur));
            }
        }
        return new ComparisonReport(thresholdPct, rows, missing, new ArrayList<>(currentByKey.keySet()));
    }

    private ComparisonRow row(BenchmarkResult base, BenchmarkResult cur) {
        boolean allocRegression = allocRegressed(base, cur);
        double factor = ScoreUnits.factor(cur.unit(), base.unit());
        if (!(factor > 0) || Double.isInfinite(factor)) {
            return new ComparisonRow(base, cur, Double.NaN, Verdict.INCOMPARABLE_UNITS, allocRegression);
        }
        BenchmarkResult converted = factor == 1.0 ? cur : cur.scaled(factor, base.unit());
        double changePct = changePct(base.score(), converted.score());
        boolean higherIsWorse = ScoreDirection.ofMode(base.key().mode()) == ScoreDirection.HIGHER_IS_WORSE;
        double worsePct = higherIsWorse ? changePct : -changePct;
        boolean overlap = converted.confidenceLow() <= base.confidenceHigh()
                && base.confidenceLow() <= converted.confidenceHigh();
        Verdict verdict;
        if (overlap) {
            verdict = Verdict.WITHIN_ERROR;
        } else if (worsePct > thresholdPct) {
            verdict = Verdict.REGRESSION;
        } else if (-worsePct > thresholdPct) {
            verdict = Verdict.IMPROVEMENT;
        } else {
            verdict = Verdict.WITHIN_THRESHOLD;
        }
        return new ComparisonRow(base, converted, changePct, verdict, allocRegression);
    }

    private boolean allocRegressed(BenchmarkResult base, BenchmarkResult cur) {
        if (!base.hasAlloc() || !cur.hasAlloc()) {
            return false;
        }
        double baseBytes = base.allocNormBytes();
        double curBytes = cur.allocNormBytes();
        double opsPerSecond = opsPerSecond(cur);
        if (Double.isFinite(opsPerSecond) && (curBytes - baseBytes) * opsPerSecond < MIN_ALLOC_RATE_BYTES_PER_S) {
            return false;
        }
        if (baseBytes < ZERO_ALLOC_BYTES) {
            return curBytes >= ZERO_ALLOC_BYTES;
        }
        double baseError = Double.isFinite(base.allocNormErrorBytes()) ? base.allocNormErrorBytes() : 0.0;
        double curError = Double.isFinite(cur.allocNormErrorBytes()) ? cur.allocNormErrorBytes() : 0.0;
        boolean apart = curBytes - curError > baseBytes + baseError;
        return apart && curBytes - baseBytes >= ZERO_ALLOC_BYTES && changePct(baseBytes, curBytes) > thresholdPct;
    }

    /** @return operations per second of a result, or NaN when its unit is not a JMH time or rate unit. */
    private static double opsPerSecond(BenchmarkResult result) {
        if (ScoreDirection.ofMode(result.key().mode()) == ScoreDirection.LOWER_IS_WORSE) {
            return result.score() * ScoreUnits.factor(result.unit(), "ops/s");
        }
        return 1.0 / (result.score() * ScoreUnits.factor(result.unit(), "s/op"));
    }

    private static double changePct(double base, double cur) {
        if (base == 0.0) {
            return cur == 0.0 ? 0.0 : Math.copySign(Double.POSITIVE_INFINITY, cur);
        }
        return (cur - base) / Math.abs(base) * 100.0;
    }
}
