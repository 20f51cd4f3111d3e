package io.github.twping.jmh.compare;

/** Conversion between the score units JMH writes ({@code ns/op} ... {@code s/op}, {@code ops/ns} ... {@code ops/s}). */
public final class ScoreUnits {
    private ScoreUnits() {
    }

    /**
     * Returns the factor that converts a score in {@code from} into {@code to}.
     *
     * @param from unit of the value to convert.
     * @param to   unit wanted.
     * @return the multiplier, or NaN when the units are not both time-per-op or both ops-per-time.
     */
    public static double factor(String from, String to) {
        if (from.equals(to)) {
            return 1.0;
        }
        if (from.endsWith("/op") && to.endsWith("/op")) {
            double fromNs = nanosPer(from.substring(0, from.length() - 3));
            double toNs = nanosPer(to.substring(0, to.length() - 3));
            return fromNs / toNs;
        }
        if (from.startsWith("ops/") && to.startsWith("ops/")) {
            double fromNs = nanosPer(from.substring(4));
            double toNs = nanosPer(to.substring(4));
            return toNs / fromNs;
        }
        return Double.NaN;
    }

    private static double nanosPer(String timeUnit) {
        return switch (timeUnit) {
            case "ns" -> 1.0;
            case "us" -> 1e3;
            case "ms" -> 1e6;
            case "s" -> 1e9;
            case "min" -> 60e9;
            case "hr" -> 3600e9;
            case "day" -> 86400e9;
            default -> Double.NaN;
        };
    }
}
