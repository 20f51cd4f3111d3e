package io.github.twping.report.owamp;

import java.util.Locale;

/** Language of the human summary: English (byte-identical to C) or Russian. */
public enum Language {
    EN,
    RU;

    /** Parses {@code en}/{@code ru} (case-insensitive); anything else gives {@code null}. */
    public static Language parse(String s) {
        if (s == null) {
            return null;
        }
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "en" -> EN;
            case "ru" -> RU;
            default -> null;
        };
    }
}
