package io.github.twping.server;

import io.github.twping.config.PortRange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The twampd settings: {@code twamp-server.conf} (docs/SERVER.md) merged with command-line overrides.
 * Immutable; build one with {@link #builder()}, fill it from a file with {@link #load(Path, Builder)},
 * then apply overrides. Defaults are those of C twampd 5.2.3.
 */
public final class ServerConfig {
    /** Mode bits as on the wire (RFC 5357 §3.1, RFC 5618). */
    public static final int MODE_OPEN = 1;
    public static final int MODE_AUTHENTICATED = 2;
    public static final int MODE_ENCRYPTED = 4;
    public static final int MODE_MIXED = 8;
    public static final int MODE_ALL = 15;
    public static final int DEFAULT_PORT = 862;
    public static final String CONF_FILE = "twamp-server.conf";
    public static final String LIMITS_FILE = "twamp-server.limits";
    public static final String PFS_FILE = "twamp-server.pfs";
    public static final String PID_FILE = "twamp-server.pid";
    public static final String INFO_FILE = "twamp-server.info";

    private static final Set<String> FACILITIES = Set.of("auth", "authpriv", "cron", "daemon", "ftp", "kern",
            "lpr", "mail", "news", "syslog", "user", "uucp", "local0", "local1", "local2", "local3", "local4",
            "local5", "local6", "local7");
    private static final Set<String> LEVELS = Set.of("emerg", "alert", "crit", "err", "error", "warning", "warn",
            "notice", "info", "debug", "none");

    private final String facility;
    private final String logLevel;
    private final boolean logLocation;
    private final boolean rootFolly;
    private final boolean verbose;
    private final Path confDir;
    private final Path dataDir;
    private final Path varDir;
    private final String user;
    private final String group;
    private final int authModes;
    private final String listenHost;
    private final int listenPort;
    private final int testPortLow;
    private final int testPortHigh;
    private final long diebySeconds;
    private final long controlTimeoutMs;
    private final long testTimeoutMs;
    private final int pbkdf2Count;
    private final double endDelaySeconds;
    private final double diskFudge;
    private final int maxControlSessions;
    private final int maxPadding;
    private final int maxSessions;
    private final boolean anySender;

    /** Default {@code maxpadding}: enough for a 9000-byte jumbo frame (docs/SERVER.md). */
    public static final int DEFAULT_MAX_PADDING = 9000;
    /** Default {@code maxsessions}: test sessions held at once by the whole server. */
    public static final int DEFAULT_MAX_SESSIONS = 1024;

    private ServerConfig(Builder b) {
        facility = b.facility;
        logLevel = b.logLevel;
        logLocation = b.logLocation;
        rootFolly = b.rootFolly;
        verbose = b.verbose;
        confDir = b.confDir;
        dataDir = b.dataDir;
        varDir = b.varDir;
        user = b.user;
        group = b.group;
        authModes = b.authModes;
        listenHost = b.listenHost;
        listenPort = b.listenPort;
        testPortLow = b.testPortLow;
        testPortHigh = b.testPortHigh;
        diebySeconds = b.diebySeconds;
        controlTimeoutMs = b.controlTimeoutMs;
        testTimeoutMs = b.testTimeoutMs;
        pbkdf2Count = b.pbkdf2Count;
        endDelaySeconds = b.endDelaySeconds;
        diskFudge = b.diskFudge;
        maxControlSessions = b.maxControlSessions;
        maxPadding = b.maxPadding;
        maxSessions = b.maxSessions;
        anySender = b.anySender;
    }

    /** A builder holding the C defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults as one value. */
    public static ServerConfig defaults() {
        return builder().build();
    }

    /** A builder preloaded with this configuration's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.facility = facility;
        b.logLevel = logLevel;
        b.logLocation = logLocation;
        b.rootFolly = rootFolly;
        b.verbose = verbose;
        b.confDir = confDir;
        b.dataDir = dataDir;
        b.varDir = varDir;
        b.user = user;
        b.group = group;
        b.authModes = authModes;
        b.listenHost = listenHost;
        b.listenPort = listenPort;
        b.testPortLow = testPortLow;
        b.testPortHigh = testPortHigh;
        b.diebySeconds = diebySeconds;
        b.controlTimeoutMs = controlTimeoutMs;
        b.testTimeoutMs = testTimeoutMs;
        b.pbkdf2Count = pbkdf2Count;
        b.endDelaySeconds = endDelaySeconds;
        b.diskFudge = diskFudge;
        b.maxControlSessions = maxControlSessions;
        b.maxPadding = maxPadding;
        b.maxSessions = maxSessions;
        b.anySender = anySender;
        return b;
    }

    /**
     * Applies the settings of {@code file} to {@code into}. A missing file is not an error (C twampd runs
     * with defaults then) and returns false.
     */
    public static boolean load(Path file, Builder into) throws ConfigException {
        if (!Files.exists(file)) {
            return false;
        }
        List<ConfigLines.Line> lines = ConfigLines.read(file);
        apply(file.toString(), lines, into);
        return true;
    }

    /** Parses configuration text (the contents of a file called {@code name}) into {@code into}. */
    public static void parse(String name, String text, Builder into) throws ConfigException {
        apply(name, ConfigLines.split(name, text), into);
    }

    private static void apply(String name, List<ConfigLines.Line> lines, Builder b) throws ConfigException {
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

    private static void applyKey(Builder b, String key, String value, String rawKey) {
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
            case "authmode" -> b.authModes = parseAuthModes(require(key, value));
            case "srcnode" -> b.srcNode(require(key, value));
            case "testports" -> b.testPorts(require(key, value));
            case "dieby" -> b.diebySeconds = parseUnsigned(key, require(key, value));
            case "controltimeout" -> b.controlTimeoutMs = parseUnsigned(key, require(key, value)) * 1000L;
            case "testtimeout" -> b.testTimeoutMs = parseUnsigned(key, require(key, value)) * 1000L;
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

    /** Parses an authmode letter string ({@code O A E M}, case-insensitive) into a mode bit mask. */
    public static int parseAuthModes(String letters) {
        int mask = 0;
        for (int i = 0; i < letters.length(); i++) {
            char c = Character.toUpperCase(letters.charAt(i));
            mask |= switch (c) {
                case 'O' -> MODE_OPEN;
                case 'A' -> MODE_AUTHENTICATED;
                case 'E' -> MODE_ENCRYPTED;
                case 'M' -> MODE_MIXED;
                default -> throw new IllegalArgumentException("Invalid authmode \"" + letters
                        + "\": use the letters O, A, E and M");
            };
        }
        if (mask == 0) {
            throw new IllegalArgumentException("Invalid authmode \"\": use the letters O, A, E and M");
        }
        return mask;
    }

    /** Renders a mode mask as letters in the order O A E M. */
    public static String authModeLetters(int mask) {
        StringBuilder sb = new StringBuilder();
        if ((mask & MODE_OPEN) != 0) {
            sb.append('O');
        }
        if ((mask & MODE_AUTHENTICATED) != 0) {
            sb.append('A');
        }
        if ((mask & MODE_ENCRYPTED) != 0) {
            sb.append('E');
        }
        if ((mask & MODE_MIXED) != 0) {
            sb.append('M');
        }
        return sb.toString();
    }

    public String facility() {
        return facility;
    }

    /** Syslog level name or null (not set). */
    public String logLevel() {
        return logLevel;
    }

    public boolean logLocation() {
        return logLocation;
    }

    public boolean rootFolly() {
        return rootFolly;
    }

    public boolean verbose() {
        return verbose;
    }

    /** Directory of the .conf/.limits/.pfs files (null = current directory). */
    public Path confDir() {
        return confDir;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Directory of the pid file (null = current directory). */
    public Path varDir() {
        return varDir;
    }

    public String user() {
        return user;
    }

    public String group() {
        return group;
    }

    /** Mode bit mask offered in the greeting (before the per-peer limits). */
    public int authModes() {
        return authModes;
    }

    /** Listen host name or literal; null = wildcard. */
    public String listenHost() {
        return listenHost;
    }

    /** Listen port; 0 = ephemeral (embedded use). */
    public int listenPort() {
        return listenPort;
    }

    /** Lowest test port; 0 with {@link #testPortHigh()} 0 = ephemeral. */
    public int testPortLow() {
        return testPortLow;
    }

    public int testPortHigh() {
        return testPortHigh;
    }

    /** The test port range ({@link PortRange#EPHEMERAL} when 0). */
    public PortRange testPorts() {
        return new PortRange(testPortLow, testPortHigh);
    }

    public long diebySeconds() {
        return diebySeconds;
    }

    /** Control inactivity timeout in milliseconds; 0 = none. */
    public long controlTimeoutMs() {
        return controlTimeoutMs;
    }

    /** REFWAIT: reflector idle timeout in milliseconds; 0 = none. */
    public long testTimeoutMs() {
        return testTimeoutMs;
    }

    public int pbkdf2Count() {
        return pbkdf2Count;
    }

    public double endDelaySeconds() {
        return endDelaySeconds;
    }

    public double diskFudge() {
        return diskFudge;
    }

    /** 0 = unlimited. */
    public int maxControlSessions() {
        return maxControlSessions;
    }

    /** Largest padding accepted in Request-TW-Session ({@code maxpadding}); larger requests get Accept 3. */
    public int maxPadding() {
        return maxPadding;
    }

    /** Test sessions held at once by the whole server ({@code maxsessions}); 0 = unlimited. */
    public int maxSessions() {
        return maxSessions;
    }

    /**
     * Whether a session's sender address may differ from the control connection's peer ({@code anysender};
     * off by default: a third-party sender turns the reflector into an amplifier towards that address).
     */
    public boolean anySender() {
        return anySender;
    }

    /** Resolves a file name against {@link #confDir()}. */
    public Path confFile(String name) {
        return confDir == null ? Path.of(name) : confDir.resolve(name);
    }

    /** Resolves a file name against {@link #varDir()}. */
    public Path varFile(String name) {
        return varDir == null ? Path.of(name) : varDir.resolve(name);
    }

    @Override
    public String toString() {
        return "authmode " + authModeLetters(authModes) + ", srcnode "
                + (listenHost == null ? "*" : listenHost) + ":" + listenPort
                + ", testports " + testPortLow + "-" + testPortHigh
                + ", controltimeout " + controlTimeoutMs / 1000.0 + " s, testtimeout " + testTimeoutMs / 1000.0
                + " s, pbkdf2_count " + pbkdf2Count + ", maxcontrolsessions " + maxControlSessions
                + ", maxsessions " + maxSessions + ", maxpadding " + maxPadding + (anySender ? ", anysender" : "");
    }

    /** Mutable builder; setters validate and throw {@link IllegalArgumentException} with a clear message. */
    public static final class Builder {
        private String facility = "daemon";
        private String logLevel;
        private boolean logLocation;
        private boolean rootFolly;
        private boolean verbose;
        private Path confDir;
        private Path dataDir;
        private Path varDir;
        private String user;
        private String group;
        private int authModes = MODE_ALL;
        private String listenHost;
        private int listenPort = DEFAULT_PORT;
        private int testPortLow;
        private int testPortHigh;
        private long diebySeconds = 5;
        private long controlTimeoutMs = 900_000;
        private long testTimeoutMs = 900_000;
        private int pbkdf2Count = 2048;
        private double endDelaySeconds = 1.0;
        private double diskFudge = 1.0;
        private int maxControlSessions;
        private int maxPadding = DEFAULT_MAX_PADDING;
        private int maxSessions = DEFAULT_MAX_SESSIONS;
        private boolean anySender;

        private Builder() {
        }

        public Builder facility(String name) {
            String f = name.toLowerCase(Locale.ROOT);
            if (f.startsWith("log_")) {
                f = f.substring(4);
            }
            if (!FACILITIES.contains(f)) {
                throw new IllegalArgumentException("Invalid syslog facility: " + name);
            }
            facility = f;
            return this;
        }

        public Builder logLevel(String name) {
            String l = name.toLowerCase(Locale.ROOT);
            if (l.startsWith("log_")) {
                l = l.substring(4);
            }
            if (!LEVELS.contains(l)) {
                throw new IllegalArgumentException("Invalid log level: " + name);
            }
            logLevel = l;
            return this;
        }

        public Builder verbose(boolean on) {
            verbose = on;
            return this;
        }

        public Builder rootFolly(boolean on) {
            rootFolly = on;
            return this;
        }

        public Builder confDir(Path dir) {
            confDir = dir;
            return this;
        }

        public Builder dataDir(Path dir) {
            dataDir = dir;
            return this;
        }

        public Builder varDir(Path dir) {
            varDir = dir;
            return this;
        }

        public Builder user(String name) {
            user = name;
            return this;
        }

        public Builder group(String name) {
            group = name;
            return this;
        }

        /** Mode bit mask (1..15). */
        public Builder authModes(int mask) {
            if (mask < 1 || mask > MODE_ALL) {
                throw new IllegalArgumentException("Invalid authmode mask: " + mask);
            }
            authModes = mask;
            return this;
        }

        /** Mode letters as for {@code -a}. */
        public Builder authModes(String letters) {
            authModes = parseAuthModes(letters);
            return this;
        }

        /** {@code nodename:port}, {@code [v6]:port}, {@code :port} or {@code nodename} (docs/SERVER.md). */
        public Builder srcNode(String spec) {
            String host;
            String port = null;
            if (spec.startsWith("[")) {
                int close = spec.indexOf(']');
                if (close < 0) {
                    throw new IllegalArgumentException("Invalid srcnode \"" + spec + "\": missing ']'");
                }
                host = spec.substring(1, close);
                String rest = spec.substring(close + 1);
                if (!rest.isEmpty()) {
                    if (!rest.startsWith(":")) {
                        throw new IllegalArgumentException("Invalid srcnode \"" + spec + "\"");
                    }
                    port = rest.substring(1);
                }
            } else {
                int first = spec.indexOf(':');
                if (first >= 0 && first == spec.lastIndexOf(':')) {
                    host = spec.substring(0, first);
                    port = spec.substring(first + 1);
                } else {
                    host = spec; // no colon, or a bare IPv6 literal
                }
            }
            int p = listenPort;
            if (port != null) {
                long v;
                try {
                    v = parseUnsigned("srcnode port", port);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("Invalid srcnode \"" + spec + "\": bad port \"" + port + "\"");
                }
                if (v > 65535) {
                    throw new IllegalArgumentException("Invalid srcnode \"" + spec + "\": port out of range");
                }
                p = (int) v;
            }
            listenHost = host.isEmpty() ? null : host;
            listenPort = p;
            return this;
        }

        /** Sets the listen address directly (null = wildcard). */
        public Builder listen(String host, int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("Invalid port: " + port);
            }
            listenHost = host;
            listenPort = port;
            return this;
        }

        /** {@code 0} or {@code low-high} (docs/CLI.md syntax). */
        public Builder testPorts(String spec) {
            int[] r = parsePortRange(spec);
            testPortLow = r[0];
            testPortHigh = r[1];
            return this;
        }

        public Builder testPorts(int low, int high) {
            if (low < 0 || high > 65535 || high < low || (low == 0 && high != 0)) {
                throw new IllegalArgumentException("Invalid port range: " + low + "-" + high);
            }
            testPortLow = low;
            testPortHigh = high;
            return this;
        }

        public Builder diebySeconds(long s) {
            diebySeconds = s;
            return this;
        }

        public Builder controlTimeoutMs(long ms) {
            if (ms < 0) {
                throw new IllegalArgumentException("Invalid controltimeout: " + ms);
            }
            controlTimeoutMs = ms;
            return this;
        }

        public Builder testTimeoutMs(long ms) {
            if (ms < 0) {
                throw new IllegalArgumentException("Invalid testtimeout: " + ms);
            }
            testTimeoutMs = ms;
            return this;
        }

        public Builder pbkdf2Count(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("Invalid pbkdf2_count: " + count);
            }
            pbkdf2Count = count;
            return this;
        }

        public Builder maxControlSessions(int max) {
            if (max < 0) {
                throw new IllegalArgumentException("Invalid maxcontrolsessions: " + max);
            }
            maxControlSessions = max;
            return this;
        }

        public Builder maxPadding(int max) {
            if (max < 0 || max > io.github.twping.session.ReflectorSessionSpec.MAX_PADDING) {
                throw new IllegalArgumentException("Invalid maxpadding: " + max + " (0.."
                        + io.github.twping.session.ReflectorSessionSpec.MAX_PADDING + ")");
            }
            maxPadding = max;
            return this;
        }

        public Builder maxSessions(int max) {
            if (max < 0) {
                throw new IllegalArgumentException("Invalid maxsessions: " + max);
            }
            maxSessions = max;
            return this;
        }

        public Builder anySender(boolean on) {
            anySender = on;
            return this;
        }

        public ServerConfig build() {
            return new ServerConfig(this);
        }
    }

    /** Port range syntax of docs/CLI.md (via {@link PortRange#parse}); returns {low, high}. */
    static int[] parsePortRange(String spec) {
        PortRange r = PortRange.parse(spec)
                .orElseThrow(() -> new IllegalArgumentException("Invalid port range \"" + spec + "\""));
        return new int[] {r.low(), r.high()};
    }
}
