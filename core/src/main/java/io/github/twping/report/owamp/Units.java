package io.github.twping.report.owamp;

/** The {@code -n} unit: a float scale factor and its label (docs/STATISTICS.md; {@code s} has an empty label). */
record Units(float factor, String label) {

    static Units of(char unit, Language language) {
        boolean ru = language == Language.RU;
        return switch (unit) {
            case 'n' -> new Units(1e9f, ru ? "нс" : "ns");
            case 'u' -> new Units(1e6f, ru ? "мкс" : "us");
            case 's' -> new Units(1f, "");
            default -> new Units(1e3f, ru ? "мс" : "ms");
        };
    }

    double scale(double seconds) {
        return seconds * (double) factor;
    }
}
