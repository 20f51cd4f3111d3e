package io.github.twping.server;

import io.github.twping.session.ReflectorFaultInjection;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import io.github.twping.session.ReflectorSessionSpec;
import java.util.HashMap;

/**
 * The twampd server run in-process on an ephemeral loopback port: for tests, the test stand and
 * {@code twping --loopback}. Modes, pass-phrases, limits and fault injection are given in code; nothing is
 * read from disk. Close it to stop every connection and reflector.
 *
 * <pre>{@code
 * try (EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.options().authModes("OAE")
 *         .passphrase("alice", "secret".getBytes()))) {
 *     int port = server.port();   // control port on 127.0.0.1
 * }
 * }</pre>
 */
public final class EmbeddedServer implements AutoCloseable {
    private final TwampServer server;

    private EmbeddedServer(TwampServer server) {
        this.server = server;
    }

    /** Options with the twampd defaults, listening on 127.0.0.1 on an ephemeral port. */
    public static Options options() {
        return new Options();
    }

    /** Starts a server with {@code options}. */
    public static EmbeddedServer start(Options options) throws IOException {
        ServerConfig config = options.config.build();
        TwampServer server = TwampServer.create(config, options.limits, options.passphrases,
                new ServerLog(options.log, options.verbose), options.faults);
        server.start();
        return new EmbeddedServer(server);
    }

    /** Starts a server with a ready-made configuration (its srcnode is used as is; use port 0 for ephemeral). */
    public static EmbeddedServer start(ServerConfig config, LimitsConfig limits, ServerPassphrases passphrases,
            ReflectorFaultInjection faults) throws IOException {
        TwampServer server = TwampServer.create(config, limits == null ? LimitsConfig.permissive() : limits,
                passphrases == null ? ServerPassphrases.none() : passphrases, ServerLog.silent(), faults);
        server.start();
        return new EmbeddedServer(server);
    }

    /** The control port. */
    public int port() {
        return server.port();
    }

    /** The control address (host and port). */
    public InetSocketAddress address() {
        return server.localAddress();
    }

    /** Connections served right now. */
    public int activeConnections() {
        return server.activeConnections();
    }

    /** Connections refused because {@code maxcontrolsessions} was reached. */
    public int refusedConnections() {
        return server.refusedConnections();
    }

    /** Connections served to their end. */
    public int servedConnections() {
        return server.servedConnections();
    }

    @Override
    public void close() {
        server.close();
    }

    /** Settings of an embedded server (mutable builder). */
    public static final class Options {
        // On loopback only, in-process: the padding limit against amplification (twampd's maxpadding 9000)
        // would only refuse `twping --loopback -s 65000`; the sender-address rule stays.
        private final ServerConfigBuilder config = ServerConfig.builder()
                .listen(InetAddress.getLoopbackAddress().getHostAddress(), 0).diebySeconds(2)
                .maxPadding(ReflectorSessionSpec.MAX_PADDING);
        private LimitsConfig limits = LimitsConfig.permissive();
        private ServerPassphrases passphrases = ServerPassphrases.none();
        private final Map<String, byte[]> entries = new HashMap<>();
        private ReflectorFaultInjection faults = ReflectorFaultInjection.NONE;
        private PrintStream log;
        private boolean verbose;

        private Options() {
        }

        /** Mode letters O, A, E, M (default all). */
        public Options authModes(String letters) {
            config.authModes(letters);
            return this;
        }

        /** Adds an identity and its pass-phrase bytes (copied). */
        public Options passphrase(String identity, byte[] passphrase) {
            entries.put(identity, passphrase.clone());
            passphrases = ServerPassphrases.of(entries);
            return this;
        }

        /** Uses a pass-phrase source (replaces any {@link #passphrase} entries). */
        public Options passphrases(ServerPassphrases source) {
            entries.clear();
            passphrases = source;
            return this;
        }

        public Options limits(LimitsConfig policy) {
            limits = policy;
            return this;
        }

        public Options faults(ReflectorFaultInjection injection) {
            faults = injection == null ? ReflectorFaultInjection.NONE : injection;
            return this;
        }

        /** Listen address (default 127.0.0.1, port 0 = ephemeral). */
        public Options listen(String host, int port) {
            config.listen(host, port);
            return this;
        }

        public Options controlTimeoutMs(long ms) {
            config.controlTimeoutMs(ms);
            return this;
        }

        public Options testTimeoutMs(long ms) {
            config.testTimeoutMs(ms);
            return this;
        }

        public Options maxPadding(int max) {
            config.maxPadding(max);
            return this;
        }

        public Options maxSessions(int max) {
            config.maxSessions(max);
            return this;
        }

        public Options anySender(boolean on) {
            config.anySender(on);
            return this;
        }

        public Options maxControlSessions(int max) {
            config.maxControlSessions(max);
            return this;
        }

        public Options testPorts(int low, int high) {
            config.testPorts(low, high);
            return this;
        }

        public Options pbkdf2Count(int count) {
            config.pbkdf2Count(count);
            return this;
        }

        /** Where log lines go (default: nowhere); verbose adds debug lines and per-packet HMAC warnings. */
        public Options log(PrintStream out, boolean verboseLog) {
            log = out;
            verbose = verboseLog;
            return this;
        }
    }
}
