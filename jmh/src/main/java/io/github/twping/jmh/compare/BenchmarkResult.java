package io.github.twping.jmh.compare;

/**
 * The figures of one JMH result that the comparison needs.
 *
 * @param key            benchmark, mode and parameters.
 * @param score          primary score, in {@code unit}.
 * @param scoreError     half-width of the 99.9 % confidence interval JMH reports, or NaN when unknown
 *                       (a single measurement iteration).
 * @param confidenceLow  lower end of the confidence interval (equals {@code score} when the error is unknown).
 * @param confidenceHigh upper end of the confidence interval.
 * @param unit           score unit as JMH writes it ({@code ns/op}, {@code ops/s}, ...).
 * @param allocNormBytes {@code gc.alloc.rate.norm} in bytes per operation, or NaN when not profiled.
 * @param allocNormErrorBytes the error JMH reports for {@code gc.alloc.rate.norm}, or NaN when unknown.
 */
public record BenchmarkResult(BenchmarkKey key, double score, double scoreError, double confidenceLow,
                              double confidenceHigh, String unit, double allocNormBytes, double allocNormErrorBytes) {

    /** A result without an allocation error estimate. */
    public BenchmarkResult(BenchmarkKey key, double score, double scoreError, double confidenceLow,
                           double confidenceHigh, String unit, double allocNormBytes) {
        this(key, score, scoreError, confidenceLow, confidenceHigh, unit, allocNormBytes, Double.NaN);
    }

    /** @return whether JMH reported an error estimate for the score. */
    public boolean hasError() {
        return Double.isFinite(scoreError);
    }

    /** @return whether the result carries {@code gc.alloc.rate.norm} ({@code -prof gc}). */
    public boolean hasAlloc() {
        return Double.isFinite(allocNormBytes);
    }

    /**
     * Returns this result with score, error and interval multiplied by a factor (unit conversion).
     *
     * @param factor the multiplier, > 0.
     * @param newUnit the unit the scaled figures are in.
     * @return the scaled copy.
     */
    public BenchmarkResult scaled(double factor, String newUnit) {
        return new BenchmarkResult(key, score * factor, scoreError * factor, confidenceLow * factor,
                confidenceHigh * factor, newUnit, allocNormBytes, allocNormErrorBytes);
    }
}
