package io.github.twping.time;

/**
 * The {@code OWAMP_DEBUG_TIMEOFFSET} test aid (docs/CLI.md): a signed offset added to every timestamp.
 *
 * <p>The value is parsed like C {@code strtod}: leading white space, then the longest decimal
 * floating-point prefix ({@code "1.5xyz"} is 1.5); no number at all is invalid. The absolute value is
 * split like C: {@code sec = trunc(|v|)}, {@code usec = trunc((|v| - sec) * 1e6)}, so the effective
 * offset has microsecond resolution. Deviations from C (which has undefined behaviour there):
 * {@code inf}, {@code nan}, hexadecimal floats and offsets of 10^9 s or more are rejected as invalid.
 *
 * @param sign    +1, -1, or 0 for no offset
 * @param seconds the truncated whole seconds of the absolute value
 * @param micros  the truncated microseconds of the rest, 0..999999
 */
public record DebugTimeOffset(int sign, long seconds, long micros) {
    /** The environment variable name. */
    public static final String ENVIRONMENT_VARIABLE = "OWAMP_DEBUG_TIMEOFFSET";
    /** No offset (variable unset or 0). */
    public static final DebugTimeOffset NONE = new DebugTimeOffset(0, 0, 0);
    /** The two stderr lines C prints after the invalid-value line, before exiting with status 1. */
    public static final String[] INIT_FAILURE_LINES = {
        "Unable to initialize clock interface.", "Unable to initialize OWP library."};

    private static final double MAX_SECONDS = 1e9;

    /**
     * Parses the variable's value.
     *
     * @param value the value, or null when the variable is not set
     * @return the offset ({@link #NONE} for null or zero), or null when the value is not a number
     *         (then print {@link #invalidMessage(String)} and {@link #INIT_FAILURE_LINES}, exit 1)
     */
    public static DebugTimeOffset parse(String value) {
        if (value == null) {
            return NONE;
        }
        int end = decimalPrefixEnd(value);
        if (end < 0) {
            return null;
        }
        double parsed = Double.parseDouble(value.substring(skipSpace(value), end));
        if (parsed == 0.0) {
            return NONE;
        }
        double magnitude = Math.abs(parsed);
        if (!(magnitude < MAX_SECONDS)) {
            return null;
        }
        long seconds = (long) magnitude;
        long micros = (long) ((magnitude - seconds) * 1_000_000.0);
        return new DebugTimeOffset(parsed > 0 ? 1 : -1, seconds, micros);
    }

    /** Returns the stderr line for a value that is not a number. */
    public static String invalidMessage(String value) {
        return "Invalid " + ENVIRONMENT_VARIABLE + " env var: " + value;
    }

    /** Returns the signed offset in nanoseconds to add to epoch time. */
    public long offsetNs() {
        return sign * (seconds * 1_000_000_000L + micros * 1_000L);
    }

    /** Returns whether this is no offset at all. */
    public boolean isZero() {
        return sign == 0;
    }

    /**
     * Returns the start-up stderr line {@code OWAMP_DEBUG_TIMEOFFSET: sec=<+|-><sec>, usec=<usec>}
     * (without newline), or null when the offset is zero (C prints nothing then).
     */
    public String startupLine() {
        if (sign == 0) {
            return null;
        }
        return ENVIRONMENT_VARIABLE + ": sec=" + (sign > 0 ? '+' : '-') + seconds + ", usec=" + micros;
    }

    private static int skipSpace(String s) {
        int i = 0;
        while (i < s.length() && isCSpace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private static boolean isCSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }

    /** Returns the end index of the strtod decimal prefix, or -1 when there is no number. */
    private static int decimalPrefixEnd(String s) {
        int i = skipSpace(s);
        int n = s.length();
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            i++;
        }
        int digits = 0;
        while (i < n && isDigit(s.charAt(i))) {
            i++;
            digits++;
        }
        if (i < n && s.charAt(i) == '.') {
            int afterPoint = i + 1;
            int fractionDigits = 0;
            while (afterPoint < n && isDigit(s.charAt(afterPoint))) {
                afterPoint++;
                fractionDigits++;
            }
            if (digits + fractionDigits > 0) {
                i = afterPoint;
                digits += fractionDigits;
            }
        }
        if (digits == 0) {
            return -1;
        }
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            int j = i + 1;
            if (j < n && (s.charAt(j) == '+' || s.charAt(j) == '-')) {
                j++;
            }
            int exponentDigits = 0;
            while (j < n && isDigit(s.charAt(j))) {
                j++;
                exponentDigits++;
            }
            if (exponentDigits > 0) {
                i = j;
            }
        }
        return i;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
