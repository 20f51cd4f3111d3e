package io.github.twping.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Parser for the {@code -a} percentile list (docs/CLI.md): comma-separated numbers 0..100 stored as 32-bit
 * floats.
 *
 * <p>Quirks reproduced: text after a number is ignored ({@code 50abc} = 50); empty items
 * ({@code 50,,90}) give "Unable to parse percentiles specification"; the range check is done on the
 * double, so {@code nan} passes it.
 */
public final class PercentileList {
    private PercentileList() {
    }

    /**
     * Outcome of {@link #parse(String)}.
     *
     * @param values the percentiles (null on error)
     * @param error  the message (without the {@code twping: } prefix) printed before
     *               {@code Invalid '-a' alpha list .}, or null
     */
    public record Parsed(float[] values, String error) {
        /** @return true when the list was accepted */
        public boolean ok() {
            return values != null;
        }
    }

    /** Parses a {@code -a} argument. */
    public static Parsed parse(String arg) {
        int expected = commaCount(arg) + 1;
        List<String> tokens = strtokComma(arg);
        float[] values = new float[tokens.size()];
        for (int k = 0; k < tokens.size(); k++) {
            String token = tokens.get(k);
            CNumbers.DoubleParse p = CNumbers.strtod(token, 0);
            if (p.end() == 0 || p.value() < 0.0 || p.value() > 100.0) {
                return new Parsed(null, "Invalid numeric value (" + token + ") for percentile");
            }
            values[k] = (float) p.value();
        }
        if (tokens.size() != expected) {
            return new Parsed(null, "Unable to parse percentiles specification");
        }
        return new Parsed(values, null);
    }

    static int commaCount(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == ',') {
                n++;
            }
        }
        return n;
    }

    /** C {@code strtok(s, ",")}: the non-empty pieces between commas. */
    static List<String> strtokComma(String s) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= s.length(); i++) {
            if (i == s.length() || s.charAt(i) == ',') {
                if (i > start) {
                    out.add(s.substring(start, i));
                }
                start = i + 1;
            }
        }
        return out;
    }
}
