package io.github.twping.config;

import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * C library numeric conversions ({@code strtoul}, {@code strtol}, {@code strtod}) with glibc semantics,
 * so that option values are accepted and rejected exactly as the C programs do.
 *
 * <p>Every conversion starts at an index and reports the index where it stopped. As in C, when no
 * number could be converted the end index is the start index (leading white space and a sign are
 * then <em>not</em> counted as consumed).
 */
public final class CNumbers {
    /** Mask of the low 32 bits, for truncating an {@code unsigned long} to a {@code uint32_t}. */
    public static final long UINT32_MASK = 0xFFFF_FFFFL;

    private CNumbers() {
    }

    /** Result of an integer conversion: the value (two's complement bits), where parsing stopped, overflow. */
    public record IntegerParse(long value, int end, boolean overflow) {
    }

    /** Result of {@code strtod}: the value and where parsing stopped. */
    public record DoubleParse(double value, int end) {
    }

    /** C {@code isspace} in the "C" locale: space, \t, \n, \v, \f, \r. */
    public static boolean isSpace(int c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    /**
     * C {@code strtoul}: optional white space, optional sign, digits in {@code base} (0 = auto: 0x hex,
     * leading 0 octal, else decimal). A leading {@code -} negates modulo 2^64; overflow gives all ones.
     */
    public static IntegerParse strtoul(String s, int from, int base) {
        return convert(s, from, base, false);
    }

    /** C {@code strtol}: like {@link #strtoul} but saturating at {@code Long.MIN_VALUE}/{@code MAX_VALUE}. */
    public static IntegerParse strtol(String s, int from, int base) {
        return convert(s, from, base, true);
    }

    /**
     * The C idiom {@code v = strtoul(arg, &end, 10); if (*end != '\0') error;} stored into a
     * {@code uint32_t}: empty strings give 0, a leading minus wraps, the result is truncated to 32 bits.
     *
     * @return the value 0..4294967295, or empty if the argument was not fully consumed
     */
    public static OptionalLong parseUint32(String arg) {
        IntegerParse p = strtoul(arg, 0, 10);
        if (p.end() != arg.length()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(p.value() & UINT32_MASK);
    }

    /**
     * A strict decimal integer in {@code 0..max} for the project's own long options ({@code --spin},
     * {@code --esterror}): ASCII digits only, no sign, no white space, no wrap-around (unlike strtoul, where
     * {@code -1} becomes 4294967295).
     */
    public static OptionalLong parseStrictUnsigned(String arg, long max) {
        if (arg == null || arg.isEmpty() || arg.length() > 19) {
            return OptionalLong.empty();
        }
        long v = 0;
        for (int i = 0; i < arg.length(); i++) {
            char c = arg.charAt(i);
            if (c < '0' || c > '9') {
                return OptionalLong.empty();
            }
            v = v * 10 + (c - '0');
            if (v > max) {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.of(v);
    }

    /**
     * The C idiom {@code d = strtod(arg, &end); if (*end != '\0') error;}: an empty argument converts
     * to 0 and is accepted.
     *
     * @return the value, or empty if the argument was not fully consumed
     */
    public static OptionalDouble parseDoubleWhole(String arg) {
        DoubleParse p = strtod(arg, 0);
        if (p.end() != arg.length()) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(p.value());
    }

    private static IntegerParse convert(String s, int from, int base, boolean signed) {
        int n = s.length();
        int i = from;
        while (i < n && isSpace(s.charAt(i))) {
            i++;
        }
        boolean negative = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        if (base == 0 || base == 16) {
            if (i + 1 < n && s.charAt(i) == '0' && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == 'X')
                    && i + 2 < n && Character.digit(s.charAt(i + 2), 16) >= 0 && s.charAt(i + 2) < 128) {
                i += 2;
                base = 16;
            } else if (base == 0) {
                base = (i < n && s.charAt(i) == '0') ? 8 : 10;
            }
        }
        if (base < 2 || base > 36) {
            return new IntegerParse(0, from, false);
        }
        int digitsStart = i;
        long value = 0;
        boolean overflow = false;
        while (i < n) {
            int d = digitValue(s.charAt(i));
            if (d < 0 || d >= base) {
                break;
            }
            if (!overflow) {
                long hi = Math.unsignedMultiplyHigh(value, base);
                long lo = value * base;
                long sum = lo + d;
                if (hi != 0 || Long.compareUnsigned(sum, lo) < 0) {
                    overflow = true;
                } else {
                    value = sum;
                }
            }
            i++;
        }
        if (i == digitsStart) {
            return new IntegerParse(0, from, false);
        }
        if (signed) {
            if (overflow) {
                return new IntegerParse(negative ? Long.MIN_VALUE : Long.MAX_VALUE, i, true);
            }
            if (negative) {
                if (Long.compareUnsigned(value, Long.MIN_VALUE) > 0) {
                    return new IntegerParse(Long.MIN_VALUE, i, true);
                }
                return new IntegerParse(-value, i, false);
            }
            if (value < 0) {
                return new IntegerParse(Long.MAX_VALUE, i, true);
            }
            return new IntegerParse(value, i, false);
        }
        if (overflow) {
            return new IntegerParse(-1L, i, true);
        }
        return new IntegerParse(negative ? -value : value, i, false);
    }

    private static int digitValue(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'Z') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static boolean isDigit(String s, int i) {
        return i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9';
    }

    private static boolean isHexDigit(String s, int i) {
        return i < s.length() && s.charAt(i) < 128 && Character.digit(s.charAt(i), 16) >= 0;
    }

    private static boolean regionIgnoreCase(String s, int i, String word) {
        return s.regionMatches(true, i, word, 0, word.length());
    }

    /**
     * C {@code strtod}: optional white space and sign, then a decimal float (digits, optional point,
     * optional exponent taken only when digits follow), a hexadecimal float ({@code 0x1.8p3}),
     * {@code inf}/{@code infinity} or {@code nan}/{@code nan(chars)}, all case-insensitive.
     * Decimal and hexadecimal values are rounded correctly, as glibc does.
     */
    public static DoubleParse strtod(String s, int from) {
        int n = s.length();
        int i = from;
        while (i < n && isSpace(s.charAt(i))) {
            i++;
        }
        boolean negative = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        double sign = negative ? -1.0 : 1.0;
        if (regionIgnoreCase(s, i, "inf")) {
            int end = regionIgnoreCase(s, i, "infinity") ? i + 8 : i + 3;
            return new DoubleParse(sign * Double.POSITIVE_INFINITY, end);
        }
        if (regionIgnoreCase(s, i, "nan")) {
            int end = i + 3;
            if (end < n && s.charAt(end) == '(') {
                int j = end + 1;
                while (j < n && (Character.isLetterOrDigit(s.charAt(j)) && s.charAt(j) < 128 || s.charAt(j) == '_')) {
                    j++;
                }
                if (j < n && s.charAt(j) == ')') {
                    end = j + 1;
                }
            }
            return new DoubleParse(negative ? -Double.NaN : Double.NaN, end);
        }
        if (i + 1 < n && s.charAt(i) == '0' && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == 'X')) {
            DoubleParse hex = hexFloat(s, i + 2, sign);
            if (hex != null) {
                return hex;
            }
            // "0x" without hex digits: only the "0" converts
            return new DoubleParse(sign * 0.0, i + 1);
        }
        int start = i;
        int intDigits = 0;
        while (isDigit(s, i)) {
            i++;
            intDigits++;
        }
        int fracDigits = 0;
        if (i < n && s.charAt(i) == '.') {
            int j = i + 1;
            while (isDigit(s, j)) {
                j++;
                fracDigits++;
            }
            if (intDigits + fracDigits > 0) {
                i = j;
            }
        }
        if (intDigits + fracDigits == 0) {
            return new DoubleParse(0.0, from);
        }
        int mantissaEnd = i;
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            int j = i + 1;
            if (j < n && (s.charAt(j) == '+' || s.charAt(j) == '-')) {
                j++;
            }
            if (isDigit(s, j)) {
                while (isDigit(s, j)) {
                    j++;
                }
                i = j;
            }
        }
        String text = s.substring(start, i);
        double magnitude;
        try {
            magnitude = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            magnitude = exponentFallback(s, mantissaEnd + 1, i, !isZeroMantissa(s, start, mantissaEnd));
        }
        return new DoubleParse(sign * magnitude, i);
    }

    private static DoubleParse hexFloat(String s, int i, double sign) {
        int n = s.length();
        int start = i;
        int digits = 0;
        while (isHexDigit(s, i)) {
            i++;
            digits++;
        }
        int intEnd = i;
        String fraction = "";
        if (i < n && s.charAt(i) == '.') {
            int j = i + 1;
            while (isHexDigit(s, j)) {
                j++;
            }
            if (digits + (j - i - 1) > 0) {
                fraction = s.substring(i + 1, j);
                digits += j - i - 1;
                i = j;
            }
        }
        if (digits == 0) {
            return null;
        }
        String intPart = s.substring(start, intEnd);
        int mantissaEnd = i;
        String exponent = "0";
        if (i < n && (s.charAt(i) == 'p' || s.charAt(i) == 'P')) {
            int j = i + 1;
            if (j < n && (s.charAt(j) == '+' || s.charAt(j) == '-')) {
                j++;
            }
            if (isDigit(s, j)) {
                while (isDigit(s, j)) {
                    j++;
                }
                exponent = s.substring(i + 1, j);
                i = j;
            }
        }
        String text = "0x" + (intPart.isEmpty() ? "0" : intPart) + "." + fraction + "p" + exponent;
        double magnitude;
        try {
            magnitude = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            boolean nonZero = !isZeroMantissa(s, start, mantissaEnd);
            magnitude = exponentFallback(s, mantissaEnd + 1, i, nonZero);
        }
        return new DoubleParse(sign * magnitude, i);
    }

    private static boolean isZeroMantissa(String s, int from, int to) {
        for (int k = from; k < to; k++) {
            char c = s.charAt(k);
            if (c != '0' && c != '.') {
                return false;
            }
        }
        return true;
    }

    /** Value for an exponent too large for the JDK parser: overflow to infinity or underflow to zero. */
    private static double exponentFallback(String s, int expFrom, int expTo, boolean nonZeroMantissa) {
        if (!nonZeroMantissa) {
            return 0.0;
        }
        boolean negativeExponent = expFrom < expTo && s.charAt(expFrom) == '-';
        return negativeExponent ? 0.0 : Double.POSITIVE_INFINITY;
    }
}
