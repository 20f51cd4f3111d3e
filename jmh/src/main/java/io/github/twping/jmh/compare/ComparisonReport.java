package io.github.twping.jmh.compare;

import java.util.List;

/**
 * Everything one comparison of two JMH runs found.
 *
 * @param thresholdPct the relative threshold used, in percent.
 * @param rows         benchmarks present in both runs, in baseline order.
 * @param missing      benchmarks only in the baseline (removed or not run).
 * @param added        benchmarks only in the current run.
 */
public record ComparisonReport(double thresholdPct, List<ComparisonRow> rows, List<BenchmarkKey> missing,
                               List<BenchmarkKey> added) {

    /** @return how many rows regressed (score or allocation). */
    public long regressionCount() {
        return rows.stream().filter(ComparisonRow::failed).count();
    }
}
