package io.github.twping.stamp;

import io.github.twping.time.NtpTime;

/**
 * The two STAMP timestamp formats (RFC 8762 §4.2.1, RFC 8186 §2.3), told apart by the Z bit of the Error Estimate
 * that goes with the timestamp: NTP 64-bit (32-bit seconds since 1900, 32-bit fraction) and the truncated PTPv2
 * format (32-bit seconds since the PTP epoch, 32-bit nanoseconds). Inside the program every timestamp is an NTP Num64
 * (UTC); conversion happens at the wire only.
 *
 * <p>The PTP timescale is TAI (IEEE 1588, RFC 8762 §4.2.1): its seconds run ahead of the Unix (UTC) seconds by the
 * TAI-UTC offset (37 s since 2017). The conversions take that offset ({@code taiSeconds}, from the kernel through
 * {@link TaiOffset}); 0 means unknown, and then PTP seconds are written and read as UTC seconds (what a peer that
 * does the same expects, and 37 s off against one that uses TAI). NTP timestamps ignore it.
 */
public enum TimestampFormat {
    /** NTP 64-bit format, Z = 0. */
    NTP,
    /** Truncated PTPv2 format, Z = 1. */
    PTP;

    /** The Z bit of the 16-bit Error Estimate field: {@code S(1) Z(1) Scale(6) Multiplier(8)}. */
    public static final int Z_BIT = 0x4000;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** @return the format named by the Z bit of an Error Estimate field. */
    public static TimestampFormat ofErrorEstimate(int field) {
        return (field & Z_BIT) != 0 ? PTP : NTP;
    }

    /** @return {@code field} with this format's Z bit. */
    public int markErrorEstimate(int field) {
        return this == PTP ? field | Z_BIT : field & ~Z_BIT;
    }

    /** @return the wire value of an NTP Num64 in this format, PTP seconds taken as UTC (offset unknown). */
    public long fromNtp(long ntp) {
        return fromNtp(ntp, 0);
    }

    /** @return the wire value of an NTP Num64 (UTC) in this format; PTP seconds are TAI: UTC + {@code taiSeconds}. */
    public long fromNtp(long ntp, int taiSeconds) {
        if (this == NTP) {
            return ntp;
        }
        return fromEpochNanos(NtpTime.toEpochNanos(ntp), taiSeconds);
    }

    /** @return the wire value of an instant in epoch nanoseconds, PTP seconds taken as UTC (offset unknown). */
    public long fromEpochNanos(long epochNs) {
        return fromEpochNanos(epochNs, 0);
    }

    /**
     * @return the wire value of an instant given in UTC epoch nanoseconds (full nanosecond precision for PTP, whose
     *         seconds are TAI: UTC + {@code taiSeconds})
     */
    public long fromEpochNanos(long epochNs, int taiSeconds) {
        if (this == NTP) {
            return NtpTime.fromEpochNanos(epochNs);
        }
        return ptp(Math.floorDiv(epochNs, NANOS_PER_SECOND) + taiSeconds, Math.floorMod(epochNs, NANOS_PER_SECOND));
    }

    /** @return the NTP Num64 of a wire value in this format, PTP seconds taken as UTC (offset unknown). */
    public long toNtp(long wire) {
        return toNtp(wire, 0);
    }

    /**
     * @return the NTP Num64 (UTC) of a wire value in this format: PTP seconds are TAI, UTC = TAI - {@code taiSeconds}
     *         (a PTP nanoseconds field above 999,999,999 saturates)
     */
    public long toNtp(long wire, int taiSeconds) {
        if (this == NTP) {
            return wire;
        }
        long seconds = (wire >>> 32) - taiSeconds;
        long nanos = Math.min(wire & 0xFFFF_FFFFL, NANOS_PER_SECOND - 1);
        return NtpTime.fromEpochNanos(seconds * NANOS_PER_SECOND + nanos);
    }

    private static long ptp(long seconds, long nanos) {
        return ((seconds & 0xFFFF_FFFFL) << 32) | nanos;
    }
}
