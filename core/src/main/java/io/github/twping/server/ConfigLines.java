package io.github.twping.server;

import io.github.twping.config.BoundedFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;

/**
 * Splits a twampd configuration file into logical lines: {@code #} comment and blank lines are skipped,
 * a {@code \} immediately followed by a newline joins the next physical line, and a {@code \} anywhere
 * else is a syntax error (as the C parser). Each logical line keeps the number of its first physical line.
 */
final class ConfigLines {
    /** One logical (continued) line and the 1-based number of its first physical line. */
    record Line(int number, String text) {
    }

    private ConfigLines() {
    }

    /**
     * Reads and splits {@code file}; a missing, unreadable, non-regular (FIFO, device: never opened, so
     * start-up cannot block) or oversized file becomes the one-line {@link ConfigException}
     * {@code Unable to open <file>: <reason>}.
     */
    static List<Line> read(Path file) throws ConfigException {
        final String text;
        try {
            text = new String(BoundedFile.readRegular(file, BoundedFile.MAX_BYTES), StandardCharsets.ISO_8859_1);
        } catch (BoundedFile.Refused e) {
            throw new ConfigException("Unable to open " + file + ": " + e.reason());
        }
        return split(file.toString(), text);
    }

    static String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** Splits {@code text} (the contents of {@code name}) into logical lines. */
    static List<Line> split(String name, String text) throws ConfigException {
        String[] physical = text.split("\n", -1);
        List<Line> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int start = -1;
        for (int i = 0; i < physical.length; i++) {
            String raw = physical[i];
            if (raw.endsWith("\r")) {
                raw = raw.substring(0, raw.length() - 1);
            }
            int lineNo = i + 1;
            boolean continued = raw.endsWith("\\");
            String body = continued ? raw.substring(0, raw.length() - 1) : raw;
            if (body.indexOf('\\') >= 0) {
                throw ConfigException.at(name, lineNo, "syntax error: '\\' is only allowed before a newline");
            }
            if (start < 0) {
                String trimmed = body.strip();
                if (!continued && (trimmed.isEmpty() || trimmed.startsWith("#"))) {
                    continue;
                }
                if (trimmed.startsWith("#")) {
                    continue; // a comment line ending in '\' is still just a comment
                }
                start = lineNo;
            }
            current.append(body).append(' ');
            if (!continued) {
                out.add(new Line(start, current.toString().strip()));
                current.setLength(0);
                start = -1;
            }
        }
        if (start >= 0 && !current.toString().isBlank()) {
            out.add(new Line(start, current.toString().strip()));
        }
        return out;
    }
}
