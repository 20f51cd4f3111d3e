package io.github.twping.jmh.compare;

/** Which way a JMH primary score gets worse, derived from the benchmark mode. */
public enum ScoreDirection {
    /** Time modes ({@code avgt}, {@code sample}, {@code ss}): a higher score is worse. */
    HIGHER_IS_WORSE,
    /** Throughput ({@code thrpt}): a lower score is worse. */
    LOWER_IS_WORSE;

    /**
     * @param mode the {@code mode} field of a JMH JSON result.
     * @return the direction, or {@code null} for a mode JMH does not write.
     */
    public static ScoreDirection ofMode(String mode) {
        return switch (mode) {
            case "thrpt" -> LOWER_IS_WORSE;
            case "avgt", "sample", "ss" -> HIGHER_IS_WORSE;
            default -> null;
        };
    }
}
