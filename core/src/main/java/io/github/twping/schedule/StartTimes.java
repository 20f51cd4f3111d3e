package io.github.twping.schedule;

import io.github.twping.time.NtpTime;

/** Start-time, loss-timeout and expected-duration arithmetic of a twping test session (docs/CLIENT.md). */
public final class StartTimes {
    private static final long ONE_SECOND_NTP = 1L << 32;

    private StartTimes() {
    }

    /**
     * Returns the Start Time sent in Request-TW-Session: {@code now + max(floor(z*2^32), minimum)} where
     * {@code minimum = n_rtt*rtt_bound + 1 s}, {@code n_rtt = 2} with {@code -F} ({@code fileGiven}), else 3;
     * {@code z} is used only when {@code > 0} and its Num64 exceeds the minimum.
     */
    public static long startTimeNtp(long nowNtp, long rttBoundNtp, double zSeconds, boolean fileGiven) {
        long rttMultiplier = fileGiven ? 2L : 3L;
        long minimum = NtpTime.mul(rttBoundNtp, rttMultiplier << 32) + ONE_SECOND_NTP;
        long delay = minimum;
        if (zSeconds > 0) {
            long zNtp = NtpTime.fromSeconds(zSeconds);
            if (Long.compareUnsigned(zNtp, minimum) > 0) {
                delay = zNtp;
            }
        }
        return nowNtp + delay;
    }

    /** Returns the loss timeout L in seconds: {@code -L} when {@code > 0}, else {@code D(rtt_bound) + 2.0}. */
    public static double lossTimeoutSeconds(double lossOptionSeconds, long rttBoundNtp) {
        return lossOptionSeconds > 0 ? lossOptionSeconds : NtpTime.toDouble(rttBoundNtp) + 2.0;
    }

    /** Returns the loss timeout as transmitted in Request-TW-Session: {@code floor(L * 2^32)}. */
    public static long lossTimeoutNtp(double lossOptionSeconds, long rttBoundNtp) {
        return NtpTime.fromSeconds(lossTimeoutSeconds(lossOptionSeconds, rttBoundNtp));
    }

    /**
     * Returns the packet rate of a slot list, {@code nslots / Σ D(slot value)}, or 0 when the sum is not
     * positive (C {@code OWPTestPacketRate}).
     */
    public static double packetRate(ScheduleSlot[] slots) {
        double sumSeconds = 0.0;
        for (ScheduleSlot slot : slots) {
            sumSeconds += NtpTime.toDouble(slot.valueNtp());
        }
        return sumSeconds > 0.0 ? slots.length / sumSeconds : 0.0;
    }

    /**
     * Returns the session duration used by the "Approximately" line:
     * {@code N / rate + L + D(rtt_bound)} ({@code N / rate} counts 0 when the rate is 0).
     */
    public static double sessionDurationSeconds(long packetCount, ScheduleSlot[] slots, double lossTimeoutSeconds,
        long rttBoundNtp) {
        double rate = packetRate(slots);
        double sendingSeconds = rate > 0.0 ? packetCount / rate : 0.0;
        return sendingSeconds + lossTimeoutSeconds + NtpTime.toDouble(rttBoundNtp);
    }

    /**
     * Returns the value printed by {@code Approximately %.1f seconds until results available}:
     * {@code StartTime + duration - now}, the Num64 difference taken first (signed) for precision.
     */
    public static double secondsUntilResults(long startTimeNtp, long nowNtp, double sessionDurationSeconds) {
        return (startTimeNtp - nowNtp) / 4294967296.0 + sessionDurationSeconds;
    }
}
