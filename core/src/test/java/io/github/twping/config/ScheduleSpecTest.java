package io.github.twping.config;

import io.github.twping.schedule.ScheduleSlot;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScheduleSpecTest {

    @Test
    void shouldUseFloatPointOneByDefault() {
        ScheduleSpec d = ScheduleSpec.defaultSchedule();
        assertEquals(1, d.slotCount());
        assertFalse(d.isFixed(0));
        assertEquals(0x199999A0L, d.valueNtp(0));
        assertEquals(ScheduleSpec.secondsToNtp((double) 0.1f), d.valueNtp(0));
    }

    @Test
    void shouldDifferForDoublePointOne() {
        ScheduleSpec s = ScheduleSpec.parse("0.1").spec();
        assertEquals(0x19999999L, s.valueNtp(0));
        assertFalse(s.isFixed(0));
    }

    @Test
    void shouldParseSlotTypes() {
        ScheduleSpec s = ScheduleSpec.parse("0.01f,0.02,1.0e,2E,3F").spec();
        assertEquals(5, s.slotCount());
        assertTrue(s.isFixed(0));
        assertFalse(s.isFixed(1));
        assertFalse(s.isFixed(2));
        assertFalse(s.isFixed(3));
        assertTrue(s.isFixed(4));
        assertEquals(0x100000000L, s.valueNtp(2));
        assertEquals(0x300000000L, s.valueNtp(4));
        assertEquals((long) Math.floor(0.01 * 4294967296.0), s.valueNtp(0));
    }

    @Test
    void shouldExposeSlotRecords() {
        ScheduleSlot[] slots = ScheduleSpec.parse("0.01f,0.02").spec().slots();
        assertEquals(2, slots.length);
        assertEquals(new ScheduleSlot(true, (long) Math.floor(0.01 * 4294967296.0)), slots[0]);
        assertEquals(new ScheduleSlot(false, (long) Math.floor(0.02 * 4294967296.0)), slots[1]);
        assertEquals(ScheduleSlot.DEFAULT, ScheduleSpec.defaultSchedule().slots()[0]);
    }

    @Test
    void shouldTurnNegativeValuesIntoZero() {
        assertEquals(0L, ScheduleSpec.parse("-1").spec().valueNtp(0));
        assertEquals(0L, ScheduleSpec.parse("0f").spec().valueNtp(0));
    }

    @Test
    void shouldReportTheThreeErrors() {
        assertEquals("Invalid slot type (x) for schedule", ScheduleSpec.parse("0.1x").error());
        assertEquals("Invalid slot type (g) for schedule", ScheduleSpec.parse("0.1g").error());
        assertEquals("Invalid slot type (fx) for schedule", ScheduleSpec.parse("0.1fx").error());
        assertEquals("Invalid numeric value (abc) for schedule", ScheduleSpec.parse("abc").error());
        assertEquals("Unable to parse schedule specification", ScheduleSpec.parse("1,,2").error());
        assertEquals("Unable to parse schedule specification", ScheduleSpec.parse(",").error());
        assertEquals("Unable to parse schedule specification", ScheduleSpec.parse("").error());
    }

    @Test
    void shouldConvertLargeValues() {
        assertEquals(0xFFFFFFFF00000000L, ScheduleSpec.secondsToNtp(4294967295.0));
        assertEquals(-1L, ScheduleSpec.secondsToNtp(1e30));
        assertEquals(0L, ScheduleSpec.secondsToNtp(Double.NaN));
        assertEquals(0x8000000000000000L, ScheduleSpec.secondsToNtp(2147483648.0));
    }
}
