package io.github.twping.config;

/**
 * Control characters made visible, so that text from a peer or a file (a client's name, a YAML key) cannot break a
 * log or message line, or move the terminal's cursor: every character below 0x20, DEL and the C1 controls
 * (0x80-0x9f) become {@code \xNN}, and {@code \} becomes {@code \\}.
 */
public final class ControlCharacters {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private ControlCharacters() {
    }

    /** @return {@code text} with its control characters escaped; {@code text} itself when it has none */
    public static String escape(String text) {
        int i = 0;
        int n = text.length();
        while (i < n && !needsEscape(text.charAt(i))) {
            i++;
        }
        if (i == n) {
            return text;
        }
        StringBuilder b = new StringBuilder(n + 16).append(text, 0, i);
        for (; i < n; i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                b.append("\\\\");
            } else if (needsEscape(c)) {
                b.append("\\x").append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static boolean needsEscape(char c) {
        return c < 0x20 || c == 0x7f || c == '\\' || (c >= 0x80 && c <= 0x9f);
    }
}
