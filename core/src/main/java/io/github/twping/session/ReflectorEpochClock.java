package io.github.twping.session;

import io.github.twping.time.ErrorEstimate;
import org.agrona.concurrent.SystemEpochNanoClock;

/**
 * The reflector's allocation-free wall clock: {@code System.nanoTime()} plus an epoch offset re-measured
 * against the realtime clock every second (best of three back-to-back readings). Between measurements it
 * follows the monotonic clock, which Linux slews exactly like the realtime clock, so the only divergence is a
 * realtime step, caught at the next measurement. Reading {@code Instant.now()} per packet instead allocates
 * in the reflector loop (escape analysis does not reach it there; measured 24 B/packet).
 *
 * <p>Not thread-safe: one instance per reflector thread.
 */
public final class ReflectorEpochClock implements ReflectorClock {
    static final long RESAMPLE_INTERVAL_NS = 1_000_000_000L;
    private static final int SAMPLES = 3;

    private final long offsetNs;
    private final int errorEstimate;
    private long baseMonotonicNs;
    private long baseEpochNs;
    private boolean sampled;

    /**
     * @param offsetNs      added to every reading ({@code OWAMP_DEBUG_TIMEOFFSET})
     * @param errorEstimate the error estimate field reported with every timestamp
     */
    public ReflectorEpochClock(long offsetNs, int errorEstimate) {
        this.offsetNs = offsetNs;
        this.errorEstimate = errorEstimate;
    }

    /** An unsynchronised clock without offset. */
    public ReflectorEpochClock() {
        this(0, ErrorEstimate.UNSYNCHRONISED);
    }

    @Override
    public long nowEpochNs() {
        long monotonicNs = System.nanoTime();
        if (!sampled || monotonicNs - baseMonotonicNs >= RESAMPLE_INTERVAL_NS) {
            resample();
            monotonicNs = System.nanoTime();
        }
        return baseEpochNs + (monotonicNs - baseMonotonicNs) + offsetNs;
    }

    @Override
    public long adjustEpochNs(long epochNs) {
        return epochNs + offsetNs;
    }

    @Override
    public int errorEstimate() {
        return errorEstimate;
    }

    private void resample() {
        long bestWidthNs = Long.MAX_VALUE;
        for (int i = 0; i < SAMPLES; i++) {
            long before = System.nanoTime();
            long epoch = SystemEpochNanoClock.INSTANCE.nanoTime();
            long after = System.nanoTime();
            if (after - before < bestWidthNs) {
                bestWidthNs = after - before;
                baseMonotonicNs = before + (after - before) / 2;
                baseEpochNs = epoch;
            }
        }
        sampled = true;
    }
}
