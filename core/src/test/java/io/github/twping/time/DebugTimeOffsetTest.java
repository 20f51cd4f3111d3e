package io.github.twping.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.agrona.concurrent.EpochNanoClock;
import org.junit.jupiter.api.Test;

class DebugTimeOffsetTest {

    @Test
    void shouldFormatSpecExamples() {
        assertEquals("OWAMP_DEBUG_TIMEOFFSET: sec=-0, usec=25550", DebugTimeOffset.parse("-0.02555").startupLine());
        assertEquals("OWAMP_DEBUG_TIMEOFFSET: sec=-3, usec=0", DebugTimeOffset.parse("-3").startupLine());
        assertEquals("OWAMP_DEBUG_TIMEOFFSET: sec=+1, usec=500000", DebugTimeOffset.parse("1.5").startupLine());
    }

    @Test
    void shouldReturnNoneForUnsetOrZero() {
        assertSame(DebugTimeOffset.NONE, DebugTimeOffset.parse(null));
        assertSame(DebugTimeOffset.NONE, DebugTimeOffset.parse("0"));
        assertSame(DebugTimeOffset.NONE, DebugTimeOffset.parse("-0.0"));
        assertNull(DebugTimeOffset.NONE.startupLine());
        assertEquals(0L, DebugTimeOffset.NONE.offsetNs());
    }

    @Test
    void shouldParseLikeStrtodPrefix() {
        assertEquals(1_500_000_000L, DebugTimeOffset.parse("  1.5abc").offsetNs());
        assertEquals(100_000_000_000L, DebugTimeOffset.parse("1e2").offsetNs());
        assertEquals(1_000_000_000L, DebugTimeOffset.parse("1e").offsetNs());
        assertEquals(-500_000_000L, DebugTimeOffset.parse("-.5").offsetNs());
        assertEquals(2_000_000_000L, DebugTimeOffset.parse("+2.").offsetNs());
    }

    @Test
    void shouldRejectNonNumbers() {
        for (String bad : new String[] {"", "abc", "-", ".", " e5", "inf", "nan", "1e400"}) {
            assertNull(DebugTimeOffset.parse(bad), bad);
        }
        assertEquals("Invalid OWAMP_DEBUG_TIMEOFFSET env var: abc", DebugTimeOffset.invalidMessage("abc"));
    }

    @Test
    void shouldShiftWallClockReadings() {
        EpochNanoClock fixed = () -> 1_700_000_000_000_000_000L;
        WallClock clock = new WallClock(fixed, DebugTimeOffset.parse("-0.02555").offsetNs());
        assertEquals(1_700_000_000_000_000_000L - 25_550_000L, clock.nowEpochNs());
        assertEquals(NtpTime.fromEpochNanos(1_700_000_000_000_000_000L - 25_550_000L), clock.nowNtp());
    }

    @Test
    void shouldTruncateToMicrosecondsOnRequest() {
        EpochNanoClock fixed = () -> 1_700_000_000_123_456_789L;
        assertEquals(1_700_000_000_123_456_789L, new WallClock(fixed, 0).nowEpochNs());
        assertEquals(1_700_000_000_123_456_000L, new WallClock(fixed, 0).withMicrosecondResolution().nowEpochNs());
        assertEquals(1_700_000_000_097_906_000L, new WallClock(fixed, -25_550_000L).withMicrosecondResolution().nowEpochNs());
    }
}
