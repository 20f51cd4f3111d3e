package io.github.twping.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PortRangeTest {

    @ParameterizedTest(name = "-P \"{0}\" = {1}-{2}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "0|0|0", "0-0|0|0", "9100|9100|9100", "9100-9101xyz|9100|9101", "\" 10 - 20\"|10|20",
            "\"10 \"|10|10", "1-65535|1|65535", "+5|5|5", "0-5|0|5", "7-7|7|7",
    })
    void shouldParseValidRanges(String arg, int low, int high) {
        assertEquals(Optional.of(new PortRange(low, high)), PortRange.parse(arg));
    }

    @ParameterizedTest(name = "-P \"{0}\" rejected")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "00", "10-5", "abc", "\"\"", "65536", "1-65536", "5-", "5-x", "5x", "-5", "\" 0\"", "0x10",
    })
    void shouldRejectInvalidRanges(String arg) {
        assertEquals(Optional.empty(), PortRange.parse(arg));
    }

    @Test
    void shouldKnowEphemeral() {
        assertTrue(PortRange.parse("0").orElseThrow().isEphemeral());
        assertTrue(PortRange.parse("0-0").orElseThrow().isEphemeral());
        assertEquals(new PortRange(8760, 9960), PortRange.DEFAULT);
    }

    @Test
    void shouldPickFirstCandidateByTheCFormula() {
        PortRange r = new PortRange(8760, 9960);
        assertEquals(1201, r.size());
        assertEquals(8760, r.firstCandidate(0));
        // r = 2^31: floor(2147483648 / 4294967295 * 1201) = 600
        assertEquals(8760 + 600, r.firstCandidate(Integer.MIN_VALUE));
        // r = 2^32 - 2: floor(0.99999999977 * 1201) = 1200 -> high
        assertEquals(9960, r.firstCandidate(-2));
        // r = 2^32 - 1 gives high + 1 in C; wrapped to low here
        assertEquals(8760, r.firstCandidate(-1));
        assertEquals(9100, new PortRange(9100, 9100).firstCandidate(12345));
    }

    @Test
    void shouldWrapToLowAfterHigh() {
        PortRange r = new PortRange(10, 12);
        assertEquals(11, r.nextCandidate(10));
        assertEquals(12, r.nextCandidate(11));
        assertEquals(10, r.nextCandidate(12));
    }
}
