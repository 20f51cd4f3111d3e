package io.github.twping.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import java.math.BigDecimal;

class NtpTimeTest {
    private static final BigInteger TWO_POW_32 = BigInteger.ONE.shiftLeft(32);
    private static final BigInteger TWO_POW_64 = BigInteger.ONE.shiftLeft(64);

    private static long epochNs(String iso) {
        Instant instant = Instant.parse(iso);
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    @Test
    void shouldConvertSpecExample() {
        // RFC 4656 §4.1.2: Unix 1700000000.123456 -> 0xE8FE6F80.1F9ACFFA
        long ntp = NtpTime.fromEpochMicros(1_700_000_000_123_456L);
        assertEquals(0xE8FE6F801F9ACFFAL, ntp);
        assertEquals("16788979056960524282", Long.toUnsignedString(ntp));
        assertEquals(ntp, NtpTime.fromEpochNanos(1_700_000_000_123_456_000L));
        // floor both ways: C prints .123455 for this value too
        assertEquals(1_700_000_000_123_455L, NtpTime.toEpochMicros(ntp));
        assertEquals(1_700_000_000L, NtpTime.toUnixSeconds(ntp));
    }

    @Test
    void shouldUseFloorForFractionBothWays() {
        for (long nanos : new long[] {0, 1, 2, 3, 232, 233, 499_999_999, 500_000_000, 999_999_999}) {
            long ntp = NtpTime.fromEpochNanos(1_000_000_000L * 1_700_000_000L + nanos);
            long expectedFrac = BigInteger.valueOf(nanos).shiftLeft(32).divide(BigInteger.valueOf(1_000_000_000L)).longValueExact();
            assertEquals(expectedFrac, NtpTime.fraction(ntp));
            long back = NtpTime.toEpochNanos(ntp) - 1_000_000_000L * 1_700_000_000L;
            long expectedBack = BigInteger.valueOf(expectedFrac).multiply(BigInteger.valueOf(1_000_000_000L)).shiftRight(32).longValueExact();
            assertEquals(expectedBack, back);
            // floor twice loses at most 1 ns
            assertTrue(nanos - back <= 1 && nanos - back >= 0, "nanos " + nanos + " back " + back);
        }
    }

    @Test
    void shouldRollOverAtNtpEra1() {
        long lastOfEra0 = epochNs("2036-02-07T06:28:15.999999999Z");
        long firstOfEra1 = epochNs("2036-02-07T06:28:16Z");
        assertEquals(0xFFFFFFFFL, NtpTime.seconds(NtpTime.fromEpochNanos(lastOfEra0)));
        assertEquals(0L, NtpTime.fromEpochNanos(firstOfEra1));
        assertEquals(firstOfEra1, NtpTime.toEpochNanos(0L));
        assertTrue(NtpTime.toEpochNanos(NtpTime.fromEpochNanos(lastOfEra0)) < firstOfEra1);
    }

    @Test
    void shouldRoundTripAcrossPivotRange() {
        String[] instants = {
            "1968-01-20T03:14:08Z", "1969-12-31T23:59:59.5Z", "1970-01-01T00:00:00Z", "2000-01-01T00:00:00.000000001Z",
            "2026-11-30T15:00:00.123456789Z", "2036-02-07T06:28:16Z", "2050-06-01T12:00:00.75Z", "2104-02-26T09:42:23.999999999Z"};
        for (String iso : instants) {
            long ns = epochNs(iso);
            long back = NtpTime.toEpochNanos(NtpTime.fromEpochNanos(ns));
            assertTrue(ns - back >= 0 && ns - back <= 1, iso + ": " + ns + " vs " + back);
        }
        assertEquals(epochNs("1968-01-20T03:14:08Z"), NtpTime.toEpochNanos(0x8000_0000L << 32));
        assertEquals(epochNs("2104-02-26T09:42:23Z"), NtpTime.toEpochNanos(0x7FFF_FFFFL << 32));
    }

    @Test
    void shouldMultiplyAsBits32To95() {
        long[] values = {0, 1, 0x199999A0L, 0xB17217F8L, 1L << 32, 0xFFFFFFFFL, Long.MAX_VALUE, -1L, 0xDEADBEEFCAFEBABEL};
        for (long x : values) {
            for (long y : values) {
                BigInteger product = new BigInteger(Long.toUnsignedString(x)).multiply(new BigInteger(Long.toUnsignedString(y)));
                long expected = product.shiftRight(32).mod(TWO_POW_64).longValue();
                assertEquals(expected, NtpTime.mul(x, y), Long.toHexString(x) + "*" + Long.toHexString(y));
            }
        }
    }

    @Test
    void shouldConvertToNearestDouble() {
        assertEquals(1.0, NtpTime.toDouble(1L << 32));
        assertEquals(0.5, NtpTime.toDouble(1L << 31));
        assertEquals(2147483648.0, NtpTime.toDouble(Long.MIN_VALUE));
        long[] values = {-1L, 0x8000000000000401L, 0x8000000000000400L, 0x8000000000000C00L, 0xE8FE6F801F9ACFFAL};
        for (long v : values) {
            double expected = new BigDecimal(new BigInteger(Long.toUnsignedString(v))).doubleValue() / 4294967296.0;
            assertEquals(expected, NtpTime.toDouble(v), Long.toHexString(v));
        }
    }

    @Test
    void shouldConvertSecondsWithFloorAndClamp() {
        assertEquals(0x199999A0L, NtpTime.fromSeconds((double) 0.1f));
        assertEquals(0x19999999L, NtpTime.fromSeconds(0.1));
        assertEquals(0L, NtpTime.fromSeconds(-1.0));
        assertEquals(0L, NtpTime.fromSeconds(Double.NaN));
        assertEquals(2L << 32, NtpTime.fromSeconds(2.0));
        // >= 2^31 s: beyond the signed range
        assertEquals(0x8000_0000_0000_0000L, NtpTime.fromSeconds(2147483648.0));
        assertEquals(0xE8FE6F8000000000L, NtpTime.fromSeconds(3908988800.0));
        assertEquals(-1L, NtpTime.fromSeconds(1e30));
    }

    @Test
    void shouldProduceUnixDoubleLikeC() {
        long ntp = NtpTime.fromEpochMicros(1_700_000_000_123_456L);
        assertEquals(NtpTime.toDouble(ntp) - 2208988800.0, NtpTime.toUnixSecondsDouble(ntp));
        assertEquals(1_700_000_000.123456, NtpTime.toUnixSecondsDouble(ntp), 1e-6);
    }

    @Test
    void shouldCompareUnsigned() {
        assertTrue(NtpTime.compareUnsigned(0xE8FE6F8000000000L, 0x10L) > 0);
        assertTrue(NtpTime.compareUnsigned(1L, -1L) < 0);
        assertEquals(0, NtpTime.compareUnsigned(5L, 5L));
    }

    @Test
    void shouldConvertDurations() {
        assertEquals(1_500_000_000L, NtpTime.durationToNanos(NtpTime.durationFromNanos(1_500_000_000L)));
        assertEquals(75_809_409L, NtpTime.durationToNanos(0x13683ED8L)); // 0.0758094097.. s, floor
        assertEquals(4_294_967_295_999_999_999L, NtpTime.durationToNanos(-1L));
    }

    @Test
    void shouldConvertSignedDifferencesOfTimesToNanos() {
        long t = NtpTime.fromEpochNanos(1_700_000_000_123_456_789L);
        long later = t + NtpTime.durationFromNanos(1_500_000_000L);
        assertEquals(1_500_000_000L, NtpTime.signedDurationToNanos(later - t), 1);
        assertEquals(-1_500_000_000L, NtpTime.signedDurationToNanos(t - later), 1);
        assertEquals(0, NtpTime.signedDurationToNanos(0));
    }
}
