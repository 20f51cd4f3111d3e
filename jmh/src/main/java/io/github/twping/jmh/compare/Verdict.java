package io.github.twping.jmh.compare;

/** Outcome of comparing one benchmark's primary score between two runs. */
public enum Verdict {
    /** Confidence intervals do not overlap and the score got worse by more than the threshold. */
    REGRESSION("REGRESSION"),
    /** Confidence intervals do not overlap and the score got better by more than the threshold. */
    IMPROVEMENT("improved"),
    /** The confidence intervals overlap: the difference is within the reported error. */
    WITHIN_ERROR("ok (within error)"),
    /** The intervals are apart but the change is not larger than the threshold. */
    WITHIN_THRESHOLD("ok (within threshold)"),
    /** The two runs report units that cannot be converted into each other; nothing was compared. */
    INCOMPARABLE_UNITS("not compared (units differ)");

    private final String text;

    Verdict(String text) {
        this.text = text;
    }

    /** @return the word printed in the verdict column. */
    public String text() {
        return text;
    }
}
