package io.github.twping.report.owamp;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Exact emulation of the glibc printf conversions that twping prints (docs/STATISTICS.md).
 *
 * <p>Floating-point conversions work on the exact binary value of the {@code double} and round
 * half-even on exact ties, as glibc does. Every method appends to a caller-owned
 * {@link StringBuilder}; nothing here goes through {@code String.format}.
 */
public final class CFormat {


    private CFormat() {
    }

    /** {@code %g}: six significant digits, trailing zeros removed. */
    public static StringBuilder g(StringBuilder sb, double value) {
        return g(sb, value, 6);
    }

    /** {@code %.Pg}: {@code precision} significant digits (0 means 1), trailing zeros removed. */
    public static StringBuilder g(StringBuilder sb, double value, int precision) {
        if (appendNonFinite(sb, value)) {
            return sb;
        }
        int p = precision == 0 ? 1 : precision;
        if (value == 0.0) {
            appendSign(sb, value);
            return sb.append('0');
        }
        long packed = fastDigits(Math.abs(value), p);
        if (packed >= 0) {
            appendSign(sb, value);
            appendG(sb, packed >>> EXP_BITS, (int) (packed & EXP_MASK) - EXP_BIAS, p);
            return sb;
        }
        BigDecimal abs = new BigDecimal(value).abs();
        BigDecimal rounded = abs.round(new MathContext(p, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        appendSign(sb, value);
        if (exponent < -4 || exponent >= p) {
            appendExponentForm(sb, rounded, p - 1, exponent, true);
        } else {
            int decimals = p - 1 - exponent;
            String plain = abs.setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
            sb.append(stripTrailingZeros(plain));
        }
        return sb;
    }

    /** {@code %e}: {@code d.dddddde±XX}, six decimals. */
    public static StringBuilder e(StringBuilder sb, double value) {
        return e(sb, value, 6);
    }

    /** {@code %.Pe}: {@code precision} decimals after the point, exponent of at least two digits. */
    public static StringBuilder e(StringBuilder sb, double value, int precision) {
        if (appendNonFinite(sb, value)) {
            return sb;
        }
        appendSign(sb, value);
        if (value == 0.0) {
            sb.append('0');
            if (precision > 0) {
                sb.append('.');
                sb.repeat('0', precision);
            }
            return sb.append("e+00");
        }
        long packed = fastDigits(Math.abs(value), precision + 1);
        if (packed >= 0) {
            appendMantissa(sb, packed >>> EXP_BITS, precision + 1, false);
            appendExponent(sb, (int) (packed & EXP_MASK) - EXP_BIAS);
            return sb;
        }
        BigDecimal rounded = new BigDecimal(value).abs().round(new MathContext(precision + 1, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        appendExponentForm(sb, rounded, precision, exponent, false);
        return sb;
    }

    /** {@code %f}: fixed notation with six decimals. */
    public static StringBuilder f(StringBuilder sb, double value) {
        return f(sb, value, 6);
    }

    /** {@code %.Nf}: fixed notation with {@code decimals} decimals (0: no point). */
    public static StringBuilder f(StringBuilder sb, double value, int decimals) {
        if (appendNonFinite(sb, value)) {
            return sb;
        }
        appendSign(sb, value);
        long scaled = fastScaled(Math.abs(value), decimals);
        if (scaled >= 0) {
            appendFixed(sb, scaled, decimals);
            return sb;
        }
        sb.append(new BigDecimal(value).abs().setScale(decimals, RoundingMode.HALF_EVEN).toPlainString());
        return sb;
    }

    /**
     * {@code abs} times 10^{@code decimals}, rounded half-even to an integer, without BigDecimal, when double
     * arithmetic decides the rounding beyond doubt. Besides the allocation it saves, BigDecimal's class
     * initialisation alone took 13 ms of a {@code twping -c 1} (its tables of powers, computed in the interpreter).
     *
     * @return the rounded value, or -1 to fall back to BigDecimal (near-ties, more than 15 digits, more decimals
     *     than a double power of ten holds exactly)
     */
    static long fastScaled(double abs, int decimals) {
        if (decimals < 0 || decimals >= POW10_DOUBLE.length || !(abs >= 0 && abs < 1e15)) {
            return -1;
        }
        double s = abs * POW10_DOUBLE[decimals];   // one rounding: |s - exact| <= s * 2^-53
        if (!(s < 1e15)) {
            return -1;
        }
        double n = Math.floor(s);
        double frac = s - n;                        // exact
        if (Math.abs(frac - 0.5) <= Math.max(s, 1.0) * 4.0e-16) {
            return -1;                              // a possible tie: decide exactly
        }
        return (long) n + (frac > 0.5 ? 1 : 0);
    }

    /** Appends {@code scaled} / 10^{@code decimals} in fixed notation with exactly {@code decimals} decimals. */
    private static void appendFixed(StringBuilder sb, long scaled, int decimals) {
        if (decimals == 0) {
            sb.append(scaled);
            return;
        }
        if (decimals >= POW10.length) {
            sb.append(0).append('.');               // scaled < 1e15 <= 10^decimals: below 1
            sb.repeat('0', decimals - Long.toString(scaled).length());
            sb.append(scaled);
            return;
        }
        long scale = POW10[decimals];
        sb.append(scaled / scale).append('.');
        long frac = scaled % scale;
        for (long q = scale / 10; q > frac && q > 1; q /= 10) {
            sb.append('0');
        }
        sb.append(frac);
    }

    /** {@code %0W.Nf}: fixed notation, zero-padded on the left (after the sign) to {@code width}. */
    public static StringBuilder fZeroPadded(StringBuilder sb, double value, int width, int decimals) {
        int start = sb.length();
        f(sb, value, decimals);
        if (!Double.isFinite(value)) {
            int pad = width - (sb.length() - start);
            if (pad > 0) {
                sb.insert(start, " ".repeat(pad));
            }
            return sb;
        }
        int pad = width - (sb.length() - start);
        if (pad > 0) {
            int at = Math.copySign(1.0, value) < 0 ? start + 1 : start;
            sb.insert(at, "0".repeat(pad));
        }
        return sb;
    }

    /** {@code %llu} of an unsigned 64-bit value held in a {@code long}. */
    public static StringBuilder u64(StringBuilder sb, long value) {
        if (value >= 0) {
            return sb.append(value);
        }
        // above 2^63 (every NTP timestamp of -R): the leading digits, then the last one, with no String made
        long quotient = (value >>> 1) / 5;
        return sb.append(quotient).append(value - quotient * 10);
    }

    /** {@code %0Wllu}: unsigned 64-bit, zero-padded to {@code width} (e.g. {@code %020llu}). */
    public static StringBuilder u64ZeroPadded(StringBuilder sb, long value, int width) {
        int start = sb.length();
        u64(sb, value);
        int pad = width - (sb.length() - start);
        for (int i = 0; i < pad; i++) {
            sb.insert(start, '0');
        }
        return sb;
    }

    /** {@code %u} of an unsigned 32-bit value (the low 32 bits of {@code value}). */
    public static StringBuilder u32(StringBuilder sb, long value) {
        return sb.append(value & 0xFFFF_FFFFL);
    }

    /** {@code %-Wu}: unsigned 32-bit, left-justified, space-padded on the right to {@code width}. */
    public static StringBuilder u32LeftJustified(StringBuilder sb, long value, int width) {
        int start = sb.length();
        u32(sb, value);
        int pad = width - (sb.length() - start);
        for (int i = 0; i < pad; i++) {
            sb.append(' ');
        }
        return sb;
    }

    /** {@code %d} of a signed 32-bit value. */
    public static StringBuilder d32(StringBuilder sb, int value) {
        return sb.append(value);
    }

    /** {@code %W.Px}: lower-case hex with at least {@code minDigits} digits (e.g. {@code %2.2x}). */
    public static StringBuilder hex(StringBuilder sb, long unsigned32, int minDigits) {
        String digits = Long.toHexString(unsigned32 & 0xFFFF_FFFFL);
        for (int i = digits.length(); i < minDigits; i++) {
            sb.append('0');
        }
        return sb.append(digits);
    }

    private static final int EXP_BITS = 11;
    private static final long EXP_MASK = (1L << EXP_BITS) - 1;
    private static final int EXP_BIAS = 1024;
    private static final int FAST_MAX_DIGITS = 15;
    private static final long[] POW10 = new long[19];
    private static final double[] POW10_DOUBLE = new double[23];

    static {
        long v = 1;
        for (int i = 0; i < POW10.length; i++) {
            POW10[i] = v;
            v *= 10;
        }
        double d = 1;
        for (int i = 0; i < POW10_DOUBLE.length; i++) {
            POW10_DOUBLE[i] = d; // exact up to 1e22
            d *= 10;
        }
    }

    /**
     * Correctly rounded {@code p} significant digits of {@code abs} without allocation, when the
     * double arithmetic below decides the rounding beyond doubt.
     *
     * @return {@code digits << EXP_BITS | (exponent + EXP_BIAS)}, or -1 to fall back to BigDecimal
     *     (exact ties and near-ties, subnormals, huge exponents or precisions)
     */
    static long fastDigits(double abs, int p) {
        if (p > FAST_MAX_DIGITS || !(abs >= 1e-290 && abs <= 1e290)) {
            return -1;
        }
        int e = (int) Math.floor(Math.log10(abs));
        for (int attempt = 0; attempt < 3; attempt++) {
            int k = p - 1 - e;
            double s;
            if (k >= 0 && k < POW10_DOUBLE.length) {
                s = abs * POW10_DOUBLE[k];
            } else if (k < 0 && -k < POW10_DOUBLE.length) {
                s = abs / POW10_DOUBLE[-k];
            } else {
                return -1;
            }
            // s carries one rounding: relative error <= 2^-53, absolute < 10^p * 1.2e-16
            if (s >= POW10[p]) {
                e++;
                continue;
            }
            if (s < POW10[p - 1]) {
                e--;
                continue;
            }
            double n = Math.floor(s);
            double frac = s - n;                    // exact
            double margin = POW10[p] * 4.0e-16;     // far above the error of s
            if (Math.abs(frac - 0.5) <= margin) {
                return -1;                          // possible tie: decide exactly
            }
            long digits = (long) n + (frac > 0.5 ? 1 : 0);
            if (digits == POW10[p]) {
                digits = POW10[p - 1];
                e++;
            }
            return (digits << EXP_BITS) | (e + EXP_BIAS);
        }
        return -1;
    }

    /** Appends %g output for {@code p} rounded significant digits with decimal exponent {@code x}. */
    private static void appendG(StringBuilder sb, long digits, int x, int p) {
        if (x < -4 || x >= p) {
            appendMantissa(sb, digits, p, true);
            appendExponent(sb, x);
            return;
        }
        // strip trailing zeros of the digits that fall after the decimal point
        int fractionDigits = p - 1 - x;
        while (fractionDigits > 0 && digits % 10 == 0) {
            digits /= 10;
            fractionDigits--;
        }
        if (fractionDigits == 0) {
            sb.append(digits);
            return;
        }
        long scale = POW10[fractionDigits];
        long intPart = digits / scale;
        long frac = digits % scale;
        sb.append(intPart).append('.');
        for (long q = scale / 10; q > frac && q > 1; q /= 10) {
            sb.append('0');
        }
        sb.append(frac);
    }

    /** Appends {@code d.ddd} from {@code p} digits, optionally without trailing fraction zeros. */
    private static void appendMantissa(StringBuilder sb, long digits, int p, boolean strip) {
        long scale = POW10[p - 1];
        sb.append(digits / scale);
        long frac = digits % scale;
        int fractionDigits = p - 1;
        if (strip) {
            while (fractionDigits > 0 && frac % 10 == 0) {
                frac /= 10;
                fractionDigits--;
            }
        }
        if (fractionDigits == 0) {
            return;
        }
        sb.append('.');
        for (long q = POW10[fractionDigits - 1]; q > frac && q > 1; q /= 10) {
            sb.append('0');
        }
        sb.append(frac);
    }

    private static void appendExponent(StringBuilder sb, int exponent) {
        sb.append('e').append(exponent < 0 ? '-' : '+');
        int absExp = Math.abs(exponent);
        if (absExp < 10) {
            sb.append('0');
        }
        sb.append(absExp);
    }

    private static boolean appendNonFinite(StringBuilder sb, double value) {
        if (Double.isNaN(value)) {
            sb.append((Double.doubleToRawLongBits(value) < 0) ? "-nan" : "nan");
            return true;
        }
        if (Double.isInfinite(value)) {
            sb.append(value < 0 ? "-inf" : "inf");
            return true;
        }
        return false;
    }

    private static void appendSign(StringBuilder sb, double value) {
        if (Double.doubleToRawLongBits(value) < 0) {
            sb.append('-');
        }
    }

    /** Appends mantissa digits of {@code rounded} as d.ddd with {@code decimals} decimals and the exponent. */
    private static void appendExponentForm(StringBuilder sb, BigDecimal rounded, int decimals, int exponent,
                                           boolean stripZeros) {
        BigInteger unscaled = rounded.unscaledValue();
        String digits = unscaled.toString();
        int wanted = decimals + 1;
        StringBuilder mantissa = new StringBuilder(wanted + 1);
        mantissa.append(digits.charAt(0));
        if (decimals > 0) {
            mantissa.append('.');
            for (int i = 1; i < wanted; i++) {
                mantissa.append(i < digits.length() ? digits.charAt(i) : '0');
            }
        }
        if (stripZeros) {
            sb.append(stripTrailingZeros(mantissa.toString()));
        } else {
            sb.append(mantissa);
        }
        sb.append('e').append(exponent < 0 ? '-' : '+');
        int absExp = Math.abs(exponent);
        if (absExp < 10) {
            sb.append('0');
        }
        sb.append(absExp);
    }

    private static String stripTrailingZeros(String plain) {
        if (plain.indexOf('.') < 0) {
            return plain;
        }
        int end = plain.length();
        while (plain.charAt(end - 1) == '0') {
            end--;
        }
        if (plain.charAt(end - 1) == '.') {
            end--;
        }
        return plain.substring(0, end);
    }
}
