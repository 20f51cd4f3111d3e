package io.github.twping.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ErrorEstimateTest {

    @ParameterizedTest
    @CsvSource({"1, 8587, 1.00583e-06", "16, 8987, 1.60933e-05", "100, 8BD2, ", "1000, 8F84, ", "250000, 9781, 0.251953"})
    void shouldEncodeSpecExamples(long micros, String hex, Double printed) {
        int field = ErrorEstimate.encode(true, micros);
        assertEquals(Integer.parseInt(hex, 16), field);
        assertTrue(ErrorEstimate.isValid(field));
        assertTrue(ErrorEstimate.isSynchronised(field));
        double seconds = ErrorEstimate.seconds(field);
        assertTrue(seconds >= micros / 1e6, "rounds up");
        if (printed != null) {
            assertEquals(String.format("%.6g", printed), String.format("%.6g", seconds));
        }
    }

    @Test
    void shouldEncodeUnsynchronisedAsMultiplierOne() {
        int field = ErrorEstimate.encode(false, 1234);
        assertEquals(0x0001, field);
        assertTrue(ErrorEstimate.isValid(field));
        assertFalse(ErrorEstimate.isSynchronised(field));
        assertEquals("2.32831e-10", String.format("%.5e", ErrorEstimate.seconds(field)));
        assertEquals(Math.scalb(1.0, -32), ErrorEstimate.seconds(field));
    }

    @Test
    void shouldTreatZeroMultiplierAsInvalid() {
        assertFalse(ErrorEstimate.isValid(0x0000));
        assertFalse(ErrorEstimate.isValid(0x8500));
        assertFalse(ErrorEstimate.isSynchronised(0x8500));
        assertEquals(0.0, ErrorEstimate.seconds(0x0000));
    }

    @Test
    void shouldIgnoreZBitWhenDecoding() {
        assertEquals(ErrorEstimate.seconds(0x8587), ErrorEstimate.seconds(0xC587));
        assertEquals(5, ErrorEstimate.scale(0xC587));
        assertEquals(0x87, ErrorEstimate.multiplier(0xC587));
    }

    @Test
    void shouldEncodeEdgeValues() {
        assertEquals(0x8587, ErrorEstimate.encode(true, 0), "zero error is 1 us like C");
        int huge = ErrorEstimate.encode(true, Long.MAX_VALUE);
        assertTrue(ErrorEstimate.isValid(huge));
        assertTrue(ErrorEstimate.seconds(huge) >= 2147483647.0 && ErrorEstimate.seconds(huge) <= 2147483648.0 * 1.01, "saturates near 2^31 s");
        for (long micros = 1; micros < 100_000_000_000L; micros = micros * 3 + 1) {
            int field = ErrorEstimate.encode(true, micros);
            assertTrue(ErrorEstimate.multiplier(field) >= 128 && ErrorEstimate.multiplier(field) <= 255 || ErrorEstimate.scale(field) == 0);
            double seconds = ErrorEstimate.seconds(field);
            assertTrue(seconds >= micros / 1e6 && seconds <= micros / 1e6 * 1.01 + 1e-9, micros + " -> " + seconds);
        }
    }
}
