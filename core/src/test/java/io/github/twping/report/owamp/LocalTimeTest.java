package io.github.twping.report.owamp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.SplittableRandom;
import java.util.TimeZone;

import org.junit.jupiter.api.Test;

/**
 * The summary's {@code first:}/{@code last:} in the system's zone are computed from {@code java.util.TimeZone}'s
 * offset (no zone-rules providers loaded); they must be the local times {@code java.time} gives for the same zone,
 * across daylight-saving changes, half-hour and 45-minute offsets, and the years a session can carry.
 */
class LocalTimeTest {
    private static final String[] ZONES = {"UTC", "Europe/Berlin", "Europe/Moscow", "America/New_York",
        "America/St_Johns", "Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Chatham", "Africa/Casablanca"};

    @Test
    void shouldGiveTheLocalTimeOfJavaTimeForTheSameZone() {
        SplittableRandom rnd = new SplittableRandom(20261205L);
        for (String id : ZONES) {
            TimeZone system = TimeZone.getTimeZone(id);
            ZoneId zone = ZoneId.of(id);
            // every transition of 2026 and the minutes around it, then random instants from 1970 to 2100
            ZonedDateTime from = ZonedDateTime.of(2026, 1, 1, 0, 0, 0, 0, zone);
            for (var t = zone.getRules().nextTransition(from.toInstant()); t != null
                    && t.getInstant().isBefore(from.plusYears(1).toInstant());
                    t = zone.getRules().nextTransition(t.getInstant())) {
                long at = t.getInstant().getEpochSecond();
                for (long s = at - 3600; s <= at + 3600; s += 61) {
                    assertSame(s, zone, system);
                }
            }
            for (int i = 0; i < 5_000; i++) {
                assertSame(rnd.nextLong(0, 4_102_444_800L), zone, system);
            }
        }
    }

    @Test
    void shouldPrintTheSameFirstLineWithTheSystemZoneAsWithItsZoneId() {
        long ntp = (1_796_000_000L + 2_208_988_800L) << 32 | 0x8000_0000L;   // 2026-11-29, half a second
        StringBuilder viaTimeZone = new StringBuilder();
        HumanSummaryWriter.appendLocalTime(viaTimeZone, ntp, null);
        StringBuilder viaZoneId = new StringBuilder();
        HumanSummaryWriter.appendLocalTime(viaZoneId, ntp, ZoneId.systemDefault());
        assertEquals(viaZoneId.toString(), viaTimeZone.toString());
    }

    private static void assertSame(long epochSeconds, ZoneId zone, TimeZone system) {
        LocalDateTime expected = LocalDateTime.ofInstant(Instant.ofEpochSecond(epochSeconds), zone);
        assertEquals(expected, HumanSummaryWriter.local(epochSeconds, system), () -> zone + " at " + epochSeconds);
    }
}
