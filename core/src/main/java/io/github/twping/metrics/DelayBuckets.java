package io.github.twping.metrics;

/**
 * The classic histogram bucket upper bounds for delays, in seconds: 5 µs steps at the bottom, so a loopback or
 * data-centre path of tens of microseconds spreads over several buckets, then roughly 1-1.5-2-2.5-3-4-5-7.5 per
 * decade up to 10 s. Native histograms (where the scraper negotiates them) have their own exponential buckets.
 */
public final class DelayBuckets {
    private static final double[] SECONDS = {
        5e-6, 10e-6, 15e-6, 20e-6, 25e-6, 30e-6, 40e-6, 50e-6, 60e-6, 75e-6,
        100e-6, 125e-6, 150e-6, 200e-6, 250e-6, 300e-6, 400e-6, 500e-6, 750e-6,
        1e-3, 1.5e-3, 2e-3, 2.5e-3, 3e-3, 4e-3, 5e-3, 7.5e-3,
        10e-3, 15e-3, 20e-3, 25e-3, 30e-3, 40e-3, 50e-3, 75e-3,
        0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0, 5.0, 10.0
    };

    /**
     * Coarser bounds for the delay breakdown's per-component histograms: 1-2-5 per decade from 1 µs to 10 s. Seven
     * components per target would otherwise add 7 x 48 series to every target; a component's share of a delay
     * needs its order of magnitude more than the fine steps of {@link #SECONDS}.
     */
    private static final double[] COARSE_SECONDS = {
        1e-6, 2e-6, 5e-6, 10e-6, 20e-6, 50e-6, 100e-6, 200e-6, 500e-6,
        1e-3, 2e-3, 5e-3, 10e-3, 20e-3, 50e-3, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0
    };

    private DelayBuckets() {
    }

    /** @return a copy of the upper bounds in seconds, ascending (the {@code +Inf} bucket is implicit). */
    public static double[] seconds() {
        return SECONDS.clone();
    }

    /** @return a copy of the coarse upper bounds of the per-component histograms, in seconds, ascending. */
    public static double[] coarseSeconds() {
        return COARSE_SECONDS.clone();
    }

    /** @return the number of finite coarse buckets. */
    public static int coarseCount() {
        return COARSE_SECONDS.length;
    }

    /** @return the number of finite buckets. */
    public static int count() {
        return SECONDS.length;
    }
}
