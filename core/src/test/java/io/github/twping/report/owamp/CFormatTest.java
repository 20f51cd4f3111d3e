package io.github.twping.report.owamp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CFormatTest {

    private static String g3(double v) {
        return CFormat.g(new StringBuilder(), v, 3).toString();
    }

    private static String g(double v) {
        return CFormat.g(new StringBuilder(), v).toString();
    }

    @Test
    void shouldFormatAppendixAExamples() {
        assertEquals("0.1", g3(0.0999999974737875));
        assertEquals("9.31e-07", g3(9.313225746154785e-07));
        assertEquals("9.31323e-10", g(9.313225746154785e-10));
        assertEquals("0.0001", g(9.99999974737875e-05));
        assertEquals("0.000162", g(0.000162));
        assertEquals("7.15e-05", g(7.15e-05));
        assertEquals("9.298325e-02", CFormat.e(new StringBuilder(), 0.09298325).toString());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0|0", "-0.0|-0", "1|1", "100000|100000", "1000000|1e+06", "123456.5|123456", "123457.5|123458",
        "0.0001|0.0001", "0.00001|1e-05", "2.5|2.5", "1e100|1e+100", "-1.5e-300|-1.5e-300",
        "2.3283064365386963e-10|2.32831e-10", "0.5|0.5", "999999.5|1e+06"})
    void shouldFormatPercentG(double v, String expected) {
        assertEquals(expected, g(v));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0.125|0.125", "0.1255|0.126", "1000|1e+03", "999.5|1e+03", "99.95|100", "99.949|99.9",
        "0.0001|0.0001", "0.00009995|0.0001", "-25.55|-25.6", "3000.1|3e+03", "0|0"})
    void shouldFormatPercentDot3G(double v, String expected) {
        assertEquals(expected, g3(v));
    }

    @Test
    void shouldRoundHalfEvenOnExactTiesOnly() {
        // exact binary ties
        assertEquals("0", CFormat.f(new StringBuilder(), 0.5, 0).toString());
        assertEquals("2", CFormat.f(new StringBuilder(), 1.5, 0).toString());
        assertEquals("2", CFormat.f(new StringBuilder(), 2.5, 0).toString());
        assertEquals("0.12", CFormat.f(new StringBuilder(), 0.125, 2).toString());
        assertEquals("0.38", CFormat.f(new StringBuilder(), 0.375, 2).toString());
        // 0.15 is below the tie in binary, 0.35 above
        assertEquals("0.1", CFormat.f(new StringBuilder(), 0.15, 1).toString());
        assertEquals("0.3", CFormat.f(new StringBuilder(), 0.35, 1).toString());
        assertEquals("1.2e+00", CFormat.e(new StringBuilder(), 1.25, 1).toString());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0|000", "5|005", "288|288", "999.5|1000", "998.5|998", "0.4|000", "12.5|012", "13.5|014"})
    void shouldZeroPadPercent03Dot0F(double v, String expected) {
        assertEquals(expected, CFormat.fZeroPadded(new StringBuilder(), v, 3, 0).toString());
    }

    @Test
    void shouldFormatFixedAndExponentForms() {
        assertEquals("1700000007.245000", CFormat.f(new StringBuilder(), 1700000007.245).toString());
        assertEquals("-0.000", CFormat.f(new StringBuilder(), -0.0001, 3).toString());
        assertEquals("16.000", CFormat.f(new StringBuilder(), 16.0, 3).toString());
        assertEquals("99.9", CFormat.f(new StringBuilder(), 99.9f, 1).toString());
        assertEquals("5.6", CFormat.f(new StringBuilder(), 5.55f, 1).toString());
        assertEquals("0.000000e+00", CFormat.e(new StringBuilder(), 0.0).toString());
        assertEquals("-2.555000e+01", CFormat.e(new StringBuilder(), -25.55).toString());
        assertEquals("1.000000e+100", CFormat.e(new StringBuilder(), 1e100).toString());
        assertEquals("nan", CFormat.g(new StringBuilder(), Double.NaN).toString());
        assertEquals("-inf", CFormat.e(new StringBuilder(), Double.NEGATIVE_INFINITY).toString());
    }

    @Test
    void shouldFormatIntegerConversions() {
        assertEquals("00000000000000000000", CFormat.u64ZeroPadded(new StringBuilder(), 0, 20).toString());
        assertEquals("17201472098561643460",
            CFormat.u64ZeroPadded(new StringBuilder(), Long.parseUnsignedLong("17201472098561643460"), 20).toString());
        assertEquals("00000000008592082075", CFormat.u64ZeroPadded(new StringBuilder(), 8592082075L, 20).toString());
        assertEquals("18446744073709551615", CFormat.u64(new StringBuilder(), -1L).toString());
        assertEquals("57        ", CFormat.u32LeftJustified(new StringBuilder(), 57, 10).toString());
        assertEquals("4294967295", CFormat.u32LeftJustified(new StringBuilder(), 0xFFFF_FFFFL, 10).toString());
        assertEquals("4294967295", CFormat.u32(new StringBuilder(), -1L).toString());
        assertEquals("00", CFormat.hex(new StringBuilder(), 0, 2).toString());
        assertEquals("2e", CFormat.hex(new StringBuilder(), 0x2e, 2).toString());
        assertEquals("1ff", CFormat.hex(new StringBuilder(), 0x1ff, 2).toString());
    }

    private static final Pattern E_FORM = Pattern.compile("^(-?)(\\d)(?:\\.(\\d+))?e([+-])(\\d{2,3})$");

    @Test
    void shouldMatchBigDecimalRoundingForRandomDoubles() {
        SplittableRandom rnd = new SplittableRandom(20261130L);
        for (int i = 0; i < 4_000; i++) {
            double v = switch (i % 3) {
                case 0 -> Double.longBitsToDouble(rnd.nextLong()); // any bit pattern
                case 1 -> (rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(-12, 12));
                default -> Math.scalb((double) rnd.nextInt(1 << 20), -rnd.nextInt(0, 30)); // many exact ties
            };
            if (!Double.isFinite(v)) {
                continue;
            }
            for (int p : new int[] {1, 3, 6}) {
                checkE(v, p);
                checkG(v, p);
            }
            checkF(v, 3);
            checkF(v, 6);
        }
    }

    @Test
    void shouldFormatFixedNotationAsTheExactBinaryValueRoundedHalfEven() {
        // %.Nf takes a fast path without BigDecimal where double arithmetic decides the rounding; every string must
        // equal the exact expansion of the double rounded half-even, sign included, at every N it is used with
        SplittableRandom rnd = new SplittableRandom(20261205L);
        double[] edges = {0.0, -0.0, 0.5, 1.5, 2.5, 0.125, 0.375, 1.0 / 3, 2.675, 1.005, 0.0005, 999.9995, 9.5, 99.95,
            1e15 - 0.5, 1e15, 1e15 + 1, 4.35, 0.045, 123456789.125, Double.MIN_VALUE, 1e-300, 5e-324, 1e300};
        for (double v : edges) {
            for (int d = 0; d <= 22; d++) {
                checkFixedExactly(v, d);
                checkFixedExactly(-v, d);
            }
        }
        for (int i = 0; i < 20_000; i++) {
            double v = switch (i % 4) {
                case 0 -> (rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(-8, 16));
                case 1 -> Math.scalb((double) rnd.nextLong(1L << 40), -rnd.nextInt(0, 45));   // exact ties at many N
                case 2 -> rnd.nextInt(1_000_000) / 1000.0 + 0.0005;                            // near-ties of %.3f
                default -> Double.longBitsToDouble(rnd.nextLong());
            };
            if (Double.isFinite(v)) {
                checkFixedExactly(v, rnd.nextInt(0, 10));
            }
        }
    }

    @Test
    void shouldPrintUnsigned64BitValuesAsLongToUnsignedStringDoes() {
        SplittableRandom rnd = new SplittableRandom(20261205L);
        long[] edges = {0, 1, 9, 10, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 9, -10, -9, -1};
        for (long v : edges) {
            assertEquals(Long.toUnsignedString(v), CFormat.u64(new StringBuilder(), v).toString());
        }
        for (int i = 0; i < 10_000; i++) {
            long v = rnd.nextLong();
            assertEquals(Long.toUnsignedString(v), CFormat.u64(new StringBuilder(), v).toString());
        }
        assertEquals("00000000000000000042", CFormat.u64ZeroPadded(new StringBuilder(), 42, 20).toString());
        assertEquals("18446744073709551615", CFormat.u64ZeroPadded(new StringBuilder(), -1, 20).toString());
    }

    @Test
    void shouldTakeTheFastFixedPathUnlessATieOrTooManyDigitsNeedsBigDecimal() {
        assertEquals(12346, CFormat.fastScaled(12.3456, 3));
        assertEquals(0, CFormat.fastScaled(0.0004, 3));
        assertEquals(7, CFormat.fastScaled(7.0, 0));
        assertEquals(-1, CFormat.fastScaled(0.125, 2));          // an exact tie: 12.5
        assertEquals(-1, CFormat.fastScaled(2.5, 0));
        assertEquals(-1, CFormat.fastScaled(1e15, 0));           // more than 15 digits
        assertEquals(-1, CFormat.fastScaled(1.0, 23));           // 10^23 is not exact in a double
    }

    private static void checkFixedExactly(double v, int decimals) {
        String expected = (Double.doubleToRawLongBits(v) < 0 ? "-" : "")
                + new BigDecimal(v).abs().setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
        assertEquals(expected, CFormat.f(new StringBuilder(), v, decimals).toString(), () -> v + " with " + decimals);
    }

    private static void checkE(double v, int decimals) {
        String s = CFormat.e(new StringBuilder(), v, decimals).toString();
        Matcher m = E_FORM.matcher(s);
        assertTrue(m.matches(), s);
        assertEquals(decimals, m.group(3) == null ? 0 : m.group(3).length(), s);
        if (v == 0) {
            return;
        }
        BigDecimal expected = new BigDecimal(v).round(new MathContext(decimals + 1, RoundingMode.HALF_EVEN));
        assertEquals(0, new BigDecimal(s).compareTo(expected), () -> v + " -> " + s);
    }

    private static void checkG(double v, int precision) {
        String s = CFormat.g(new StringBuilder(), v, precision).toString();
        if (v == 0) {
            assertEquals(Math.copySign(1, v) < 0 ? "-0" : "0", s);
            return;
        }
        BigDecimal expected = new BigDecimal(v).round(new MathContext(precision, RoundingMode.HALF_EVEN));
        assertEquals(0, new BigDecimal(s).compareTo(expected), () -> v + " -> " + s);
        int x = expected.precision() - expected.scale() - 1;
        boolean exponentForm = x < -4 || x >= precision;
        assertEquals(exponentForm, s.contains("e"), s);
        String mantissa = exponentForm ? s.substring(0, s.indexOf('e')) : s;
        if (mantissa.contains(".")) {
            assertTrue(!mantissa.endsWith("0") && !mantissa.endsWith("."), s);
        }
    }

    private static void checkF(double v, int decimals) {
        String s = CFormat.f(new StringBuilder(), v, decimals).toString();
        BigDecimal expected = new BigDecimal(v).setScale(decimals, RoundingMode.HALF_EVEN);
        assertEquals(0, new BigDecimal(s).compareTo(expected), () -> v + " -> " + s);
        assertEquals(decimals, s.length() - s.indexOf('.') - 1, s);
    }
}
