package io.github.twping.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Reads {@code twamp-server.conf} (docs/SERVER.md) into a {@link ServerConfigBuilder}: one key per line,
 * the C twampd 5.2.3 keys; a bad line is a {@link ConfigException} naming the file and line.
 */
public final class ServerConfigParser {
    private ServerConfigParser() {
    }

    /**
     * Applies the settings of {@code file} to {@code into}. A missing file is not an error (C twampd runs
     * with defaults then) and returns false.
     */
    public static boolean load(Path file, ServerConfigBuilder into) throws ConfigException {
        if (!Files.exists(file)) {
            return false;
        }
        List<ConfigLines.Line> lines = ConfigLines.read(file);
        apply(file.toString(), lines, into);
        return true;
    }

    /**
     * Loads a configuration file that must exist (twampd's {@code twamp-server.conf}): a missing or unreadable
     * file is refused with C twampd's line {@code Unable to open <file>: <reason>}.
     */
    public static void loadRequired(Path file, ServerConfigBuilder into) throws ConfigException {
        apply(file.toString(), ConfigLines.read(file), into);
    }

    /** Parses configuration text (the contents of a file called {@code name}) into {@code into}. */
    public static void parse(String name, String text, ServerConfigBuilder into) throws ConfigException {
        apply(name, ConfigLines.split(name, text), into);
    }

    private static void apply(String name, List<ConfigLines.Line> lines, ServerConfigBuilder b) throws ConfigException {
        for (ConfigLines.Line line : lines) {
            String[] words = line.text().split("\\s+", 2);
            String key = words[0].toLowerCase(Locale.ROOT);
            String value = words.length > 1 ? words[1].strip() : null;
            try {
                applyKey(b, key, value, words[0]);
            } catch (IllegalArgumentException e) {
                throw ConfigException.at(name, line.number(), e.getMessage());
            }
        }
    }

    private static void applyKey(ServerConfigBuilder b, String key, String value, String rawKey) {
        switch (key) {
            case "verbose" -> b.verbose = true;
            case "rootfolly" -> b.rootFolly = true;
            case "loglocation" -> b.logLocation = true;
            case "facility" -> b.facility(require(key, value));
            case "loglevel", "priority" -> b.logLevel(require(key, value));
            case "datadir" -> b.dataDir = Path.of(require(key, value));
            case "vardir" -> b.varDir = Path.of(require(key, value));
            case "user" -> b.user = require(key, value);
            case "group" -> b.group = require(key, value);
            case "authmode" -> b.authModes = ServerConfig.parseAuthModes(require(key, value));
            case "srcnode" -> b.srcNode(require(key, value));
            case "testports" -> b.testPorts(require(key, value));
            case "dieby" -> b.diebySeconds = parseUnsigned(key, require(key, value));
            case "controltimeout" -> b.controlTimeoutMs = parseUnsigned(key, require(key, value)) * 1000L;
            case "testtimeout" -> b.testTimeoutMs = parseUnsigned(key, require(key, value)) * 1000L;
            case "reflectorwait" -> b.reflectorWait(require(key, value));
            case "reflectorcpus" -> b.reflectorCpus(require(key, value));
            case "reflectorrxstamp" -> b.reflectorRxStamp(require(key, value));
            case "reflectorrtpriority" -> b.reflectorRtPriority(require(key, value));
            case "pbkdf2_count" -> b.pbkdf2Count(positiveInt(key, require(key, value)));
            case "maxcontrolsessions" -> b.maxControlSessions = intValue(key, parseUnsigned(key, require(key, value)));
            case "maxpadding" -> b.maxPadding((int) Math.min(Integer.MAX_VALUE, parseUnsigned(key, require(key, value))));
            case "maxsessions" -> b.maxSessions(intValue(key, parseUnsigned(key, require(key, value))));
            case "anysender" -> b.anySender = true;
            case "enddelay" -> b.endDelaySeconds = parseDouble(key, require(key, value), 0.0, Double.MAX_VALUE);
            case "diskfudge" -> b.diskFudge = parseDouble(key, require(key, value), 1.0, 10.0);
            default -> throw new IllegalArgumentException("Unknown key=" + rawKey);
        }
    }

    private static String require(String key, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("Invalid value for " + key + ": a value is required");
        }
        return value;
    }

    /** Parses a C-style unsigned decimal (0..2^32-1). */
    static long parseUnsigned(String key, String value) {
        if (value.isEmpty() || value.length() > 10 || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("Invalid value for " + key + ": " + value);
        }
        long v = Long.parseLong(value);
        if (v > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("Invalid value for " + key + ": " + value + " (too large)");
        }
        return v;
    }

    private static int intValue(String key, long v) {
        if (v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Invalid value for " + key + ": " + v + " (too large)");
        }
        return (int) v;
    }

    private static int positiveInt(String key, String value) {
        long v = parseUnsigned(key, value);
        if (v == 0) {
            throw new IllegalArgumentException("Invalid value for " + key + ": must be at least 1");
        }
        return intValue(key, v);
    }

    private static double parseDouble(String key, String value, double min, double max) {
        try {
            double v = Double.parseDouble(value);
            if (!(v >= min && v <= max)) {
                throw new IllegalArgumentException("Invalid value for " + key + ": " + value
                        + " (allowed " + min + ".." + max + ")");
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid value for " + key + ": " + value);
        }
    }
}
