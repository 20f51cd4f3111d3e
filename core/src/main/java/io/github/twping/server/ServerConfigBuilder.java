package io.github.twping.server;

import io.github.twping.protocol.Mode;

import io.github.twping.config.PortRange;
import io.github.twping.ffm.ThreadTuning;
import io.github.twping.session.ReflectorWait;
import java.nio.file.Path;
import java.util.BitSet;
import io.github.twping.session.ReflectorSessionSpec;

/**
 * Builds a {@link ServerConfig}: starts from the C twampd 5.2.3 defaults; the configuration file
 * ({@link ServerConfigParser}) and the command line set values on it. Setters validate and throw
 * {@link IllegalArgumentException} with a clear message.
 */
public final class ServerConfigBuilder {
    // Package-private: ServerConfig copies them, ServerConfigParser sets the keys that have no setter.
    String facility = "daemon";
    String logLevel;
    boolean logLocation;
    boolean rootFolly;
    boolean verbose;
    Path confDir;
    Path dataDir;
    Path varDir;
    String user;
    String group;
    int authModes = Mode.ALL_BITS;
    String listenHost;
    int listenPort = ServerConfig.DEFAULT_PORT;
    int testPortLow;
    int testPortHigh;
    long diebySeconds = 5;
    long controlTimeoutMs = 900_000;
    long testTimeoutMs = 900_000;
    int pbkdf2Count = 2048;
    double endDelaySeconds = 1.0;
    double diskFudge = 1.0;
    int maxControlSessions;
    ReflectorWait reflectorWait = ReflectorWait.DEFAULT;
    BitSet reflectorCpus;
    boolean reflectorKernelRxStamps = true;
    int reflectorRtPriority;
    int maxPadding = ServerConfig.DEFAULT_MAX_PADDING;
    int maxSessions = ServerConfig.DEFAULT_MAX_SESSIONS;
    boolean anySender;

    ServerConfigBuilder() {
    }

    public ServerConfigBuilder facility(String name) {
        facility = SyslogNames.facility(name);
        return this;
    }

    public ServerConfigBuilder logLevel(String name) {
        logLevel = SyslogNames.level(name);
        return this;
    }

    public ServerConfigBuilder verbose(boolean on) {
        verbose = on;
        return this;
    }

    public ServerConfigBuilder rootFolly(boolean on) {
        rootFolly = on;
        return this;
    }

    public ServerConfigBuilder confDir(Path dir) {
        confDir = dir;
        return this;
    }

    public ServerConfigBuilder dataDir(Path dir) {
        dataDir = dir;
        return this;
    }

    public ServerConfigBuilder varDir(Path dir) {
        varDir = dir;
        return this;
    }

    public ServerConfigBuilder user(String name) {
        user = name;
        return this;
    }

    public ServerConfigBuilder group(String name) {
        group = name;
        return this;
    }

    /** Mode bit mask (1..15). */
    public ServerConfigBuilder authModes(int mask) {
        if (mask < 1 || mask > Mode.ALL_BITS) {
            throw new IllegalArgumentException("Invalid authmode mask: " + mask);
        }
        authModes = mask;
        return this;
    }

    /** Mode letters as for {@code -a}. */
    public ServerConfigBuilder authModes(String letters) {
        authModes = ServerConfig.parseAuthModes(letters);
        return this;
    }

    /** {@code nodename:port}, {@code [v6]:port}, {@code :port} or {@code nodename} (docs/SERVER.md). */
    public ServerConfigBuilder srcNode(String spec) {
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
                v = ServerConfigParser.parseUnsigned("srcnode port", port);
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
    public ServerConfigBuilder listen(String host, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("Invalid port: " + port);
        }
        listenHost = host;
        listenPort = port;
        return this;
    }

    /** {@code 0} or {@code low-high} (docs/CLI.md syntax). */
    public ServerConfigBuilder testPorts(String spec) {
        int[] r = parsePortRange(spec);
        testPortLow = r[0];
        testPortHigh = r[1];
        return this;
    }

    public ServerConfigBuilder testPorts(int low, int high) {
        if (low < 0 || high > 65535 || high < low || (low == 0 && high != 0)) {
            throw new IllegalArgumentException("Invalid port range: " + low + "-" + high);
        }
        testPortLow = low;
        testPortHigh = high;
        return this;
    }

    public ServerConfigBuilder diebySeconds(long s) {
        diebySeconds = s;
        return this;
    }

    public ServerConfigBuilder controlTimeoutMs(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("Invalid controltimeout: " + ms);
        }
        controlTimeoutMs = ms;
        return this;
    }

    /** How reflector threads wait for packets: {@code block}, {@code spin[:MICROS]}, {@code busy-poll}. */
    public ServerConfigBuilder reflectorWait(String text) {
        reflectorWait = ReflectorWait.parse(text);
        return this;
    }

    /** Receive time of sender packets: {@code kernel} (RX timestamp, the default) or {@code user} (clock after the receive call). */
    public ServerConfigBuilder reflectorRxStamp(String text) {
        reflectorKernelRxStamps = switch (text == null ? "" : text.trim()) {
            case "kernel" -> true;
            case "user" -> false;
            default -> throw new IllegalArgumentException("invalid receive stamp '" + text + "' (kernel, user)");
        };
        return this;
    }

    /**
     * SCHED_FIFO priority of the reflector threads, 1..99, or 0 for the default scheduler; refused when this
     * process may not use it (no CAP_SYS_NICE, RLIMIT_RTPRIO too low).
     */
    public ServerConfigBuilder reflectorRtPriority(String text) {
        String s = text == null ? "" : text.trim();
        if (!s.matches("[0-9]{1,2}")) {
            throw new IllegalArgumentException("invalid real-time priority '" + text + "' (0..99)");
        }
        int priority = Integer.parseInt(s);
        if (priority > 0) {
            String refused = ThreadTuning.fifoRefusal(priority);
            if (refused != null) {
                throw new IllegalArgumentException(refused);
            }
        }
        reflectorRtPriority = priority;
        return this;
    }

    /** CPUs the reflector threads run on (a CPU list, {@code 1} or {@code 0,2-3}); null = wherever the system puts them. */
    public ServerConfigBuilder reflectorCpus(String list) {
        if (list == null) {
            reflectorCpus = null;
            return this;
        }
        BitSet cpus = ThreadTuning.parseCpuList(list);
        String unavailable = ThreadTuning.unavailableReason(cpus);
        if (unavailable != null) {
            throw new IllegalArgumentException(unavailable);
        }
        reflectorCpus = cpus;
        return this;
    }

    public ServerConfigBuilder testTimeoutMs(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("Invalid testtimeout: " + ms);
        }
        testTimeoutMs = ms;
        return this;
    }

    public ServerConfigBuilder pbkdf2Count(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("Invalid pbkdf2_count: " + count);
        }
        pbkdf2Count = count;
        return this;
    }

    public ServerConfigBuilder maxControlSessions(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("Invalid maxcontrolsessions: " + max);
        }
        maxControlSessions = max;
        return this;
    }

    public ServerConfigBuilder maxPadding(int max) {
        if (max < 0 || max > ReflectorSessionSpec.MAX_PADDING) {
            throw new IllegalArgumentException("Invalid maxpadding: " + max + " (0.."
                    + ReflectorSessionSpec.MAX_PADDING + ")");
        }
        maxPadding = max;
        return this;
    }

    public ServerConfigBuilder maxSessions(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("Invalid maxsessions: " + max);
        }
        maxSessions = max;
        return this;
    }

    public ServerConfigBuilder anySender(boolean on) {
        anySender = on;
        return this;
    }

    /** @return the configuration with this builder's values */
    public ServerConfig build() {
        if (reflectorRtPriority > 0 && reflectorWait.mode() == ReflectorWait.Mode.BUSY_POLL) {
            // a real-time thread that never sleeps is throttled by the kernel and starves its CPU meanwhile
            throw new IllegalArgumentException("--rt-priority (reflectorrtpriority) cannot be combined with "
                    + "--reflector-wait busy-poll: a real-time thread that never sleeps starves its CPU");
        }
        return new ServerConfig(this);
    }

    /** Port range syntax of docs/CLI.md (via {@link PortRange#parse}); returns {low, high}. */
    static int[] parsePortRange(String spec) {
        PortRange r = PortRange.parse(spec)
                .orElseThrow(() -> new IllegalArgumentException("Invalid port range \"" + spec + "\""));
        return new int[] {r.low(), r.high()};
    }
}
