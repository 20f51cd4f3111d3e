package io.github.twping.config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PercentileListTest {

    @Test
    void shouldParseAListAsFloats() {
        PercentileList.Parsed p = PercentileList.parse("0,5.55,50,90,95,99,99.9,100");
        assertTrue(p.ok());
        assertArrayEquals(new float[] {0f, 5.55f, 50f, 90f, 95f, 99f, 99.9f, 100f}, p.values());
        assertNull(p.error());
    }

    @Test
    void shouldIgnoreTextAfterTheNumber() {
        assertArrayEquals(new float[] {50f}, PercentileList.parse("50abc").values());
    }

    @Test
    void shouldRejectOutOfRangeAndNonNumbers() {
        assertEquals("Invalid numeric value (150) for percentile", PercentileList.parse("150").error());
        assertEquals("Invalid numeric value (abc) for percentile", PercentileList.parse("abc").error());
        assertEquals("Invalid numeric value (-1) for percentile", PercentileList.parse("50,-1").error());
    }

    @Test
    void shouldRejectEmptyItems() {
        assertEquals("Unable to parse percentiles specification", PercentileList.parse("50,,90").error());
        assertEquals("Unable to parse percentiles specification", PercentileList.parse(",50").error());
        assertEquals("Unable to parse percentiles specification", PercentileList.parse("").error());
        // a bad number is reported before the count mismatch
        assertEquals("Invalid numeric value (x) for percentile", PercentileList.parse("50,,x").error());
    }

    @Test
    void shouldLetNanPassTheRangeCheckAsC() {
        assertTrue(Float.isNaN(PercentileList.parse("nan").values()[0]));
    }
}
