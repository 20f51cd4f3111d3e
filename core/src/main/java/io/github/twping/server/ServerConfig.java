package io.github.twping.server;

import io.github.twping.config.PortRange;
import io.github.twping.protocol.Mode;
import io.github.twping.session.ReflectorWait;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * The twampd settings: {@code twamp-server.conf} (docs/SERVER.md) merged with command-line overrides.
 * Immutable; build one with {@link #builder()} ({@link ServerConfigBuilder}), fill it from a file with
 * {@link ServerConfigParser#load(Path, ServerConfigBuilder)}, then apply overrides. Defaults are those of
 * C twampd 5.2.3.
 */
public final class ServerConfig {
    public static final int DEFAULT_PORT = 862;
    public static final String CONF_FILE = "twamp-server.conf";
    public static final String LIMITS_FILE = "twamp-server.limits";
    public static final String PFS_FILE = "twamp-server.pfs";
    public static final String PID_FILE = "twamp-server.pid";
    public static final String INFO_FILE = "twamp-server.info";

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
    private final ReflectorWait reflectorWait;
    private final BitSet reflectorCpus;
    private final boolean reflectorKernelRxStamps;
    private final int reflectorRtPriority;
    private final int maxPadding;
    private final int maxSessions;
    private final boolean anySender;

    /** Default {@code maxpadding}: enough for a 9000-byte jumbo frame (docs/SERVER.md). */
    public static final int DEFAULT_MAX_PADDING = 9000;
    /** Default {@code maxsessions}: test sessions held at once by the whole server. */
    public static final int DEFAULT_MAX_SESSIONS = 1024;

    ServerConfig(ServerConfigBuilder b) {
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
        reflectorWait = b.reflectorWait;
        reflectorCpus = b.reflectorCpus == null ? null : (BitSet) b.reflectorCpus.clone();
        reflectorKernelRxStamps = b.reflectorKernelRxStamps;
        reflectorRtPriority = b.reflectorRtPriority;
        pbkdf2Count = b.pbkdf2Count;
        endDelaySeconds = b.endDelaySeconds;
        diskFudge = b.diskFudge;
        maxControlSessions = b.maxControlSessions;
        maxPadding = b.maxPadding;
        maxSessions = b.maxSessions;
        anySender = b.anySender;
    }

    /** A builder holding the C defaults. */
    public static ServerConfigBuilder builder() {
        return new ServerConfigBuilder();
    }

    /** The defaults as one value. */
    public static ServerConfig defaults() {
        return builder().build();
    }

    /** A builder preloaded with this configuration's values. */
    public ServerConfigBuilder toBuilder() {
        ServerConfigBuilder b = new ServerConfigBuilder();
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
        b.reflectorWait = reflectorWait;
        b.reflectorCpus = reflectorCpus == null ? null : (BitSet) reflectorCpus.clone();
        b.reflectorKernelRxStamps = reflectorKernelRxStamps;
        b.reflectorRtPriority = reflectorRtPriority;
        b.pbkdf2Count = pbkdf2Count;
        b.endDelaySeconds = endDelaySeconds;
        b.diskFudge = diskFudge;
        b.maxControlSessions = maxControlSessions;
        b.maxPadding = maxPadding;
        b.maxSessions = maxSessions;
        b.anySender = anySender;
        return b;
    }

    /** Parses an authmode letter string ({@code O A E M}, case-insensitive) into a {@link Mode} mask. */
    public static int parseAuthModes(String letters) {
        int mask = Mode.parseLetters(letters);
        if (mask <= 0) {
            throw new IllegalArgumentException("Invalid authmode \"" + letters + "\": use the letters O, A, E and M");
        }
        return mask;
    }

    /** Renders a mode mask as letters in the order O A E M. */
    public static String authModeLetters(int mask) {
        return Mode.letters(mask);
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

    /** How reflector threads wait for sender packets ({@code reflectorwait}, {@code --reflector-wait}). */
    public ReflectorWait reflectorWait() {
        return reflectorWait;
    }

    /** CPUs the reflector threads are pinned to ({@code reflectorcpus}, {@code --cpu}), or null. */
    public BitSet reflectorCpus() {
        return reflectorCpus == null ? null : (BitSet) reflectorCpus.clone();
    }

    /**
     * Whether T2 is the kernel's RX timestamp ({@code reflectorrxstamp kernel}, the default) or the clock read after
     * the receive call returned ({@code user}, as C twampd: the thread's wake-up then counts in the forward leg).
     */
    public boolean reflectorKernelRxStamps() {
        return reflectorKernelRxStamps;
    }

    /** SCHED_FIFO priority of the reflector threads ({@code reflectorrtpriority}, {@code --rt-priority}); 0 = none. */
    public int reflectorRtPriority() {
        return reflectorRtPriority;
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

}
