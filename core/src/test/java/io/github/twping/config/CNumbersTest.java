package io.github.twping.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.OptionalDouble;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CNumbersTest {

    @ParameterizedTest(name = "strtoul(\"{0}\", {1}) = {2} end {3}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "\"\"|10|0|0",
            "12|10|12|2",
            "\"  12\"|10|12|4",
            "\"12 \"|10|12|2",
            "+5|10|5|2",
            "-1|10|-1|2",
            "-|10|0|0",
            "\"  \"|10|0|0",
            "abc|10|0|0",
            "0x1A|0|26|4",
            "0X1a|16|26|4",
            "010|0|8|3",
            "08|0|0|1",
            "0x|0|0|1",
            "0xg|16|0|1",
            "18446744073709551615|10|-1|20",
            "18446744073709551616|10|-1|20",
            "99999999999999999999999|10|-1|23",
    })
    void shouldConvertLikeStrtoul(String s, int base, long value, int end) {
        CNumbers.IntegerParse p = CNumbers.strtoul(s, 0, base);
        assertEquals(value, p.value());
        assertEquals(end, p.end());
    }

    @Test
    void shouldFlagOverflowAndSaturateStrtol() {
        CNumbers.IntegerParse hi = CNumbers.strtol("9223372036854775808", 0, 10);
        assertEquals(Long.MAX_VALUE, hi.value());
        assertTrue(hi.overflow());
        CNumbers.IntegerParse lo = CNumbers.strtol("-9223372036854775809", 0, 10);
        assertEquals(Long.MIN_VALUE, lo.value());
        assertTrue(lo.overflow());
        assertEquals(Long.MIN_VALUE, CNumbers.strtol("-9223372036854775808", 0, 10).value());
        assertEquals(-42, CNumbers.strtol(" -42x", 0, 10).value());
        assertEquals(4, CNumbers.strtol(" -42x", 0, 10).end());
        assertTrue(CNumbers.strtoul("18446744073709551616", 0, 10).overflow());
    }

    @Test
    void shouldStartAtTheGivenIndex() {
        CNumbers.IntegerParse p = CNumbers.strtoul("10- 20", 3, 10);
        assertEquals(20, p.value());
        assertEquals(6, p.end());
        assertEquals(3, CNumbers.strtoul("10-x", 3, 10).end());
    }

    @ParameterizedTest(name = "uint32(\"{0}\") = {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "\"\"|0",
            "100|100",
            "-1|4294967295",
            "4294967296|0",
            "4294967297|1",
            "99999999999999999999|4294967295",
            "\" 7\"|7",
    })
    void shouldTruncateToUint32(String s, long expected) {
        assertEquals(OptionalLong.of(expected), CNumbers.parseUint32(s));
    }

    @ParameterizedTest(name = "uint32(\"{0}\") rejected")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {"abc", "3x", "\"7 \"", "-", "\" \"", "1.5", "0x10"})
    void shouldRejectPartlyConsumedIntegers(String s) {
        assertEquals(OptionalLong.empty(), CNumbers.parseUint32(s));
    }

    @ParameterizedTest(name = "strtod(\"{0}\") = {1} end {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "1.5|1.5|3",
            "\" -2e3\"|-2000|5",
            "1.0e|1.0|3",
            "1e+|1|1",
            "1e-3x|0.001|4",
            ".5|0.5|2",
            "5.|5|2",
            ".|0|0",
            "\"\"|0|0",
            "\"  \"|0|0",
            "abc|0|0",
            "-|0|0",
            "0x1.8p1|3|7",
            "0x10|16|4",
            "0X.8|0.5|4",
            "0x1p-2|0.25|6",
            "0x1p|1|3",
            "0x|0|1",
            "0xz|0|1",
            "1e400|Infinity|5",
            "-1e400|-Infinity|6",
            "1e-400|0|6",
            "0x1p99999999999|Infinity|15",
            "0x1p-99999999999|0|16",
            "inf|Infinity|3",
            "-Infinity|-Infinity|9",
            "INFINITYx|Infinity|8",
            "infin|Infinity|3",
            "0.1|0.1|3",
    })
    void shouldConvertLikeStrtod(String s, double value, int end) {
        CNumbers.DoubleParse p = CNumbers.strtod(s, 0);
        assertEquals(value, p.value());
        assertEquals(end, p.end());
    }

    @Test
    void shouldParseNan() {
        assertTrue(Double.isNaN(CNumbers.strtod("nan", 0).value()));
        assertEquals(3, CNumbers.strtod("NaN", 0).end());
        assertEquals(8, CNumbers.strtod("nan(12a)", 0).end());
        assertEquals(3, CNumbers.strtod("nan(12", 0).end());
    }

    @Test
    void shouldRoundDecimalAndHexCorrectly() {
        assertEquals(0x1.999999999999ap-4, CNumbers.strtod("0.1", 0).value());
        assertEquals(0x1.fffffffffffffp0, CNumbers.strtod("0x1.fffffffffffff", 0).value());
        assertEquals(Double.MIN_VALUE, CNumbers.strtod("4.9e-324", 0).value());
    }

    @Test
    void shouldAcceptEmptyAndRejectTrailingTextInWholeDoubles() {
        assertEquals(OptionalDouble.of(0.0), CNumbers.parseDoubleWhole(""));
        assertEquals(OptionalDouble.of(-5.0), CNumbers.parseDoubleWhole("-5"));
        assertEquals(OptionalDouble.empty(), CNumbers.parseDoubleWhole("abc"));
        assertEquals(OptionalDouble.empty(), CNumbers.parseDoubleWhole("1.0 "));
        assertEquals(OptionalDouble.empty(), CNumbers.parseDoubleWhole("1.0e"));
    }

    @Test
    void shouldUseCIsSpace() {
        for (char c : new char[] {' ', '\t', '\n', 0x0B, '\f', '\r'}) {
            assertTrue(CNumbers.isSpace(c));
        }
        assertEquals(false, CNumbers.isSpace(0xA0));
        assertEquals(false, CNumbers.isSpace('x'));
    }
}
