package io.github.twping.control;

import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;

/** The two clock readings the control layer needs, expressed in NTP Num64 via the {@code time} package. */
final class ControlTime {
    private static final WallClock WALL_CLOCK = WallClock.system();

    private ControlTime() {
    }

    /** @return the current wall-clock time as NTP Num64. */
    static long nowNtp() {
        return WALL_CLOCK.nowNtp();
    }

    /** @return a monotonic duration in nanoseconds as Num64 (negative values give 0). */
    static long durationNsToNtp(long durationNs) {
        return NtpTime.durationFromNanos(Math.max(0, durationNs));
    }
}
