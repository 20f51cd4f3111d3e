package io.github.twping.session;

import io.github.twping.time.ErrorEstimate;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.agrona.concurrent.SystemEpochNanoClock;

/**
 * The reflector's wall clock: the current time as an NTP timestamp and the 16-bit error estimate that goes
 * with it (RFC 4656 §4.1.2). Injected so tests and a clock-status-aware implementation can replace it.
 */
public interface ReflectorClock {
    /** The error estimate of an unsynchronised clock as C sends it: S=0, scale 0, multiplier 1. */
    int UNSYNCHRONISED_ERROR = 0x0001;

    /** The current time in epoch nanoseconds. */
    long nowEpochNs();

    /** The error estimate field for timestamps taken now. */
    int errorEstimate();

    /** Applies this clock's offset to a time read elsewhere (a kernel receive timestamp). */
    default long adjustEpochNs(long epochNs) {
        return epochNs;
    }

    /**
     * A new allocation-free system clock for one reflector, with the {@code OWAMP_DEBUG_TIMEOFFSET} offset of
     * {@code wallClock} and the kernel's synchronisation state as error estimate.
     */
    static ReflectorClock system(WallClock wallClock) {
        return new ReflectorEpochClock(wallClock.offsetNs(), ClockErrorEstimate.fromKernel());
    }

    /** A new allocation-free system clock for one reflector (kernel error estimate, no offset). */
    static ReflectorClock system() {
        return new ReflectorEpochClock();
    }

    /** A clock over {@code wallClock} with a fixed error estimate field. */
    static ReflectorClock of(WallClock wallClock, int errorEstimate) {
        return new ReflectorClock() {
            @Override
            public long nowEpochNs() {
                return wallClock.nowEpochNs();
            }

            @Override
            public int errorEstimate() {
                return errorEstimate;
            }

            @Override
            public long adjustEpochNs(long epochNs) {
                return epochNs + wallClock.offsetNs();
            }
        };
    }

    /** The system wall clock in epoch nanoseconds (no debug offset). */
    static long systemEpochNs() {
        return SystemEpochNanoClock.INSTANCE.nanoTime();
    }

    /** Converts epoch nanoseconds to an NTP Num64. */
    static long toNtp(long epochNs) {
        return NtpTime.fromEpochNanos(epochNs);
    }
}
