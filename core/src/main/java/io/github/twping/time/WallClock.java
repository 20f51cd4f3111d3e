package io.github.twping.time;

import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.SystemEpochNanoClock;
import io.github.twping.ffm.RealtimeClock;

/**
 * The wall clock every TWAMP timestamp is taken from: epoch nanoseconds plus the
 * {@code OWAMP_DEBUG_TIMEOFFSET} offset, and the same as an NTP timestamp.
 *
 * <p>Source of {@link #system()}: {@code clock_gettime(CLOCK_REALTIME)} through FFM
 * ({@code ffm.RealtimeClock}, nanosecond resolution, the same clock as the kernel's software timestamps,
 * allocation-free). Agrona's {@link SystemEpochNanoClock} ({@code Instant.now()}) allocated 24 bytes per
 * reading in the sender and receiver loops, where C2 could not scalar-replace the {@code Instant}
 * ({@code ClientTestSessionTest} measures the threads' allocation). {@code Clock.systemUTC().instant()} and
 * {@code System.currentTimeMillis()} are not used. C twping reads {@code gettimeofday} (microseconds);
 * this clock keeps the full resolution. Kernel NTP offset/sync handling (docs/PROTOCOL-TEST.md, Timestamps) is not applied here.
 *
 * <p>Thread-safe and allocation-free after construction.
 */
public final class WallClock {
    /** CLOCK_REALTIME via FFM (Instant.now() without native access). */
    private static final EpochNanoClock REALTIME = RealtimeClock::epochNs;

    private final EpochNanoClock clock;
    private final long offsetNs;
    private final long resolutionNs;

    /** Creates a clock over {@code clock} that adds {@code offsetNs} to every reading (full resolution). */
    public WallClock(EpochNanoClock clock, long offsetNs) {
        this(clock, offsetNs, 1L);
    }

    private WallClock(EpochNanoClock clock, long offsetNs, long resolutionNs) {
        this.clock = clock;
        this.offsetNs = offsetNs;
        this.resolutionNs = resolutionNs;
    }

    /**
     * Returns the same clock truncated to whole microseconds after the offset is added, like C's
     * {@code gettimeofday} path (docs/PROTOCOL-TEST.md, Timestamps), for byte-level parity with C twping.
     */
    public WallClock withMicrosecondResolution() {
        return new WallClock(clock, offsetNs, 1_000L);
    }

    /** Returns the system wall clock shifted by {@code offset}. */
    public static WallClock system(DebugTimeOffset offset) {
        return new WallClock(REALTIME, offset.offsetNs());
    }

    /** Returns the system wall clock without offset. */
    public static WallClock system() {
        return new WallClock(REALTIME, 0L);
    }

    /** Returns the current time in epoch nanoseconds, offset applied. */
    public long nowEpochNs() {
        long epochNs = clock.nanoTime() + offsetNs;
        return epochNs - Math.floorMod(epochNs, resolutionNs);
    }

    /** Returns the current time as an NTP timestamp, offset applied. */
    public long nowNtp() {
        return NtpTime.fromEpochNanos(nowEpochNs());
    }

    /** Returns the offset added to every reading, in nanoseconds. */
    public long offsetNs() {
        return offsetNs;
    }
}
