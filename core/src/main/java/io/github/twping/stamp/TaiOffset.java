package io.github.twping.stamp;

import io.github.twping.ffm.ClockStatus;

/**
 * The TAI-UTC offset that PTP-format timestamps need (IEEE 1588 and RFC 8762 §4.2.1 count PTP seconds in TAI; the
 * program's clock is UTC): the kernel's {@code timex.tai}, read once through {@code ntp_adjtime} ({@link
 * ClockStatus#taiOffsetSeconds}). 0 means unknown: the kernel reports 0 until an NTP or PTP daemon sets it (chrony
 * with {@code leapsectz}, ntpd with a leap-second file, ptp4l/phc2sys), and PTP seconds are then UTC seconds.
 */
public final class TaiOffset {
    /** The note printed when PTP timestamps are in use and the offset is unknown. */
    public static final String UNKNOWN_NOTE = "PTP timestamps: the kernel's TAI-UTC offset is unknown (0);"
            + " PTP seconds are taken as UTC, 37 s off against a peer that uses TAI";
    /** The note printed after an NTP-format session whose reflector answered in PTP format, the offset unknown. */
    public static final String REPLY_NOTE = "the reflector sent PTP timestamps and the kernel's TAI-UTC offset is"
            + " unknown (0): they were taken as UTC, one-way delays 37 s off if the reflector uses TAI";

    private TaiOffset() {
    }

    /** @return the kernel's TAI-UTC offset in seconds, 0 when unknown or unreadable (never throws) */
    public static int kernel() {
        ClockStatus status = ClockStatus.read();
        return status.available() ? status.taiOffsetSeconds() : 0;
    }

    /** @return the text of the offset for an output line: {@code 37 s (kernel)} or {@code unknown} */
    public static String describe(int taiSeconds) {
        return taiSeconds == 0 ? "unknown" : taiSeconds + " s (kernel)";
    }
}
