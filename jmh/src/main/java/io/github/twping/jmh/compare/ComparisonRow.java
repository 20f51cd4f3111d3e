package io.github.twping.jmh.compare;

/**
 * The comparison of one benchmark present in both runs.
 *
 * @param baseline        the baseline result.
 * @param current         the current result, converted to the baseline's unit.
 * @param changePct       relative change of the score in percent, {@code (current - baseline) / baseline * 100}.
 * @param verdict         outcome for the primary score.
 * @param allocRegression whether {@code gc.alloc.rate.norm} regressed.
 */
public record ComparisonRow(BenchmarkResult baseline, BenchmarkResult current, double changePct, Verdict verdict,
                            boolean allocRegression) {

    /** @return whether this row makes the comparison fail. */
    public boolean failed() {
        return verdict == Verdict.REGRESSION || allocRegression;
    }
}
