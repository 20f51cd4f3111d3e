package io.github.twping.testing.perf.compare;

import java.util.Arrays;

/**
 * Minimum, median and maximum of one figure over the rounds of a comparison. The median of an even
 * number of rounds is the lower of the two middle values (always a value some round measured).
 *
 * @param min    smallest round
 * @param median median round
 * @param max    largest round
 * @param rounds how many rounds had the figure
 */
public record RoundSpread(double min, double median, double max, int rounds) {
    /** No round had the figure. */
    public static final RoundSpread NONE = new RoundSpread(Double.NaN, Double.NaN, Double.NaN, 0);

    /** The spread of {@code values} (NaN entries, rounds without the figure, are ignored). */
    public static RoundSpread of(double... values) {
        double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (v.length == 0) {
            return NONE;
        }
        return new RoundSpread(v[0], v[(v.length - 1) / 2], v[v.length - 1], v.length);
    }

    /** median(a) / median(b), or NaN when either is missing or b is 0. */
    public static double ratio(RoundSpread a, RoundSpread b) {
        if (a.rounds == 0 || b.rounds == 0 || b.median == 0) {
            return Double.NaN;
        }
        return a.median / b.median;
    }
}
