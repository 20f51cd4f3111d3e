package io.github.twping.session;

import io.github.twping.ffm.RealtimeClock;


/**
 * The reflector's allocation-free wall clock: {@code clock_gettime(CLOCK_REALTIME)} through FFM
 * ({@code ffm.RealtimeClock}), the same clock as the kernel's receive timestamps, so the reflector's
 * processing time (send stamp minus kernel receive stamp) mixes no clock domains. Reading
 * {@code Instant.now()} per packet instead allocates in the reflector loop (escape analysis does not reach
 * it there; measured 24 B/packet).
 *
 * <p>The error estimate follows the kernel clock state ({@code ntp_adjtime}: synchronised -> S bit and
 * {@code esterror}, else {@code 0x0001}) as C twampd reports it, re-read at each offset measurement.
 *
 * <p>Not thread-safe: one instance per reflector thread.
 */
public final class ReflectorEpochClock implements ReflectorClock {
    static final long RESAMPLE_INTERVAL_NS = 1_000_000_000L;

    private final long offsetNs;
    private final ClockErrorEstimate errorEstimate;
    private long baseMonotonicNs;
    private boolean sampled;

    /**
     * @param offsetNs      added to every reading ({@code OWAMP_DEBUG_TIMEOFFSET})
     * @param errorEstimate the error estimate reported with every timestamp; refreshed from the kernel clock
     *                      state at every offset measurement (once a second)
     */
    public ReflectorEpochClock(long offsetNs, ClockErrorEstimate errorEstimate) {
        this.offsetNs = offsetNs;
        this.errorEstimate = errorEstimate;
    }

    /** A clock without offset whose error estimate follows the kernel clock state (docs/PROTOCOL-TEST.md, Timestamps). */
    public ReflectorEpochClock() {
        this(0, ClockErrorEstimate.fromKernel());
    }

    @Override
    public long nowEpochNs() {
        long monotonicNs = System.nanoTime();
        if (!sampled || monotonicNs - baseMonotonicNs >= RESAMPLE_INTERVAL_NS) {
            resample();
        }
        return RealtimeClock.epochNs() + offsetNs;
    }

    @Override
    public long adjustEpochNs(long epochNs) {
        return epochNs + offsetNs;
    }

    @Override
    public int errorEstimate() {
        return errorEstimate.field();
    }

    /** Re-reads the kernel clock state for the error estimate, once a second (allocates; off the per-packet path). */
    private void resample() {
        baseMonotonicNs = System.nanoTime();
        sampled = true;
        errorEstimate.refresh();
    }

}
