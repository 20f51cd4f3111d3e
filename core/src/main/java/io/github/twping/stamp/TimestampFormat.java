package io.github.twping.stamp;

import io.github.twping.time.NtpTime;

/**
 * The two STAMP timestamp formats (RFC 8762 §4.2.1, RFC 8186 §2.3), told apart by the Z bit of the Error Estimate
 * that goes with the timestamp: NTP 64-bit (32-bit seconds since 1900, 32-bit fraction) and the truncated PTPv2
 * format (32-bit seconds since 1970, 32-bit nanoseconds). Inside the program every timestamp is an NTP Num64;
 * conversion happens at the wire only.
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

    /** @return the wire value of an NTP Num64 in this format. */
    public long fromNtp(long ntp) {
        if (this == NTP) {
            return ntp;
        }
        long epochNs = NtpTime.toEpochNanos(ntp);
        return ptp(Math.floorDiv(epochNs, NANOS_PER_SECOND), Math.floorMod(epochNs, NANOS_PER_SECOND));
    }

    /** @return the wire value of an instant given in epoch nanoseconds (full nanosecond precision for PTP). */
    public long fromEpochNanos(long epochNs) {
        if (this == NTP) {
            return NtpTime.fromEpochNanos(epochNs);
        }
        return ptp(Math.floorDiv(epochNs, NANOS_PER_SECOND), Math.floorMod(epochNs, NANOS_PER_SECOND));
    }

    /** @return the NTP Num64 of a wire value in this format (a PTP nanoseconds field above 999,999,999 saturates). */
    public long toNtp(long wire) {
        if (this == NTP) {
            return wire;
        }
        long seconds = wire >>> 32;
        long nanos = Math.min(wire & 0xFFFF_FFFFL, NANOS_PER_SECOND - 1);
        return NtpTime.fromEpochNanos(seconds * NANOS_PER_SECOND + nanos);
    }

    private static long ptp(long seconds, long nanos) {
        return ((seconds & 0xFFFF_FFFFL) << 32) | nanos;
    }
}
