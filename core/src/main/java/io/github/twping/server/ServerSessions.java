package io.github.twping.server;

import io.github.twping.control.ControlCloseReason;
import io.github.twping.control.ControlPeer;
import io.github.twping.control.ControlServerConnection;
import io.github.twping.control.ControlServerSettings;
import io.github.twping.control.ServerPolicy;
import io.github.twping.protocol.AcceptCode;
import io.github.twping.protocol.Mode;
import io.github.twping.session.ReflectorFaultInjection;
import io.github.twping.session.SessionReflector;
import io.github.twping.time.DebugTimeOffset;
import io.github.twping.time.WallClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.SecureRandom;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import io.github.twping.ffm.NativeMemory;
import io.github.twping.metrics.TwampdMetrics;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The daemon-wide side of TWAMP-Control for twampd: the {@link ServerPolicy} (modes offered per peer, the
 * PBKDF2 count, exact pass-phrase lookup, the limits check) and the factory of per-connection handlers
 * ({@link ServerConnection}) wired to the control layer's {@link ControlServerConnection}.
 */
final class ServerSessions implements ServerPolicy {
    private final ServerConfig config;
    private final LimitsConfig limits;
    private final ServerPassphrases passphrases;
    private final ServerLog log;
    private final ReflectorFaultInjection faults;
    private final SecureRandom random = new SecureRandom();
    private final ControlServerSettings settings;
    private final TestPortAllocator ports;
    private final WallClock wallClock;
    private final ScheduledThreadPoolExecutor scheduler;
    /** How long the server must be idle before the C heap is trimmed. */
    private static final long TRIM_DELAY_MS = 1_000;
    private TwampServer server;
    private final AtomicInteger heldSessions = new AtomicInteger();
    private final AtomicLongArray refusals =
            new AtomicLongArray(Refusal.values().length);

    /** Why a Request-TW-Session was refused by a server-wide rule (counted, docs/SERVER.md). */
    enum Refusal {
        /** {@code maxsessions} reached. */
        SERVER_SESSIONS,
        /** Padding above {@code maxpadding}. */
        PADDING,
        /** Sender address other than the control peer without {@code anysender}. */
        SENDER_ADDRESS,
        /** Every port of {@code testports} in use. */
        TEST_PORTS
    }

    ServerSessions(ServerConfig config, LimitsConfig limits, ServerPassphrases passphrases, ServerLog log,
            ReflectorFaultInjection faults) {
        this.config = config;
        this.limits = limits;
        this.passphrases = passphrases;
        this.log = log;
        this.faults = faults == null ? ReflectorFaultInjection.NONE : faults;
        DebugTimeOffset offset = DebugTimeOffset.parse(System.getenv(DebugTimeOffset.ENVIRONMENT_VARIABLE));
        this.wallClock = WallClock.system(offset == null ? DebugTimeOffset.NONE : offset);
        long startNtp = wallClock.nowNtp();
        this.settings = new ControlServerSettings(startNtp, (int) Math.min(Integer.MAX_VALUE, config.controlTimeoutMs()),
                random);
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon(true)
                .name("twampd-timers").unstarted(r));
        this.scheduler.setRemoveOnCancelPolicy(true);
        boolean kernelRx = config.reflectorKernelRxStamps();
        this.ports = new TestPortAllocator(config.testPortLow(), config.testPortHigh(),
                (bind, tos) -> SessionReflector.openSocket(bind, tos, kernelRx), random);
    }

    void attach(TwampServer owner) {
        this.server = owner;
    }

    /** Creates the served connection for an accepted control socket. */
    ServedConnection connection(Socket socket) throws IOException {
        InetSocketAddress remote = (InetSocketAddress) socket.getRemoteSocketAddress();
        ServerConnection handler = new ServerConnection(this, remote);
        ControlServerConnection control = new ControlServerConnection(socket, this, handler, settings);
        handler.controlCloser(control::close);
        return new ServedConnection() {
            @Override
            public String serve() {
                ControlCloseReason reason = control.run();
                metrics().connectionClosed(reason.name());
                return reason.name();
            }

            @Override
            public void close() {
                control.close();
            }
        };
    }

    @Override
    public int offeredModes(InetSocketAddress peer) {
        int modes = limits.offeredModes(config.authModes(), peer.getAddress());
        if (modes == 0) {
            log.info("Control request from " + TwampServer.describe(peer) + " denied: no mode allowed by policy");
        }
        return modes;
    }

    @Override
    public int pbkdf2Count() {
        return config.pbkdf2Count();
    }

    @Override
    public byte[] passphrase(String identity) {
        byte[] p = passphrases.lookup(identity);
        if (p == null) {
            log.info("userid \"" + identity + "\" unknown");
        }
        return p;
    }

    @Override
    public AcceptCode authorize(ControlPeer peer) {
        String who = TwampServer.describe(peer.remote());
        LimitsConfig.LimitClass c = classify(peer);
        if (c == null) {
            log.info("Control request from " + who + " denied: no limit class (no assign default)");
            metrics().connection(TwampdMetrics.REFUSED_LIMITS);
            return AcceptCode.REJECT;
        }
        if (peer.mode() == Mode.OPEN && !c.openModeAllowed()) {
            log.info("Control request from " + who + " denied: open mode not allowed for class " + c.name());
            metrics().connection(TwampdMetrics.REFUSED_MODE);
            return AcceptCode.REJECT;
        }
        log.info("Connection from " + who + ": mode " + peer.mode().letter()
                + (peer.identity() == null ? "" : ", user " + peer.identity()) + ", class " + c.name());
        metrics().connection(TwampdMetrics.ACCEPTED);
        return AcceptCode.ACCEPT;
    }

    /** The limit class of an authenticated connection (identity only counts in modes with keys). */
    LimitsConfig.LimitClass classify(ControlPeer peer) {
        String identity = peer.mode() == Mode.OPEN ? null : peer.identity();
        return limits.classify(identity, peer.remote().getAddress());
    }

    /** The server's metrics (docs/FLEET.md). */
    TwampdMetrics metrics() {
        TwampServer s = server;
        return s == null ? TwampdMetrics.detached() : s.metrics();
    }

    ServerConfig config() {
        return config;
    }

    ServerLog log() {
        return log;
    }

    ReflectorFaultInjection faults() {
        return faults;
    }

    SecureRandom random() {
        return random;
    }

    /** The daemon's wall clock (with {@code OWAMP_DEBUG_TIMEOFFSET}). */
    WallClock wallClock() {
        return wallClock;
    }

    /** Timers of the daemon (REFWAIT follow-up); one daemon thread. */
    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** Stops the timer thread (server shutdown). */
    void shutdown() {
        scheduler.shutdownNow();
    }

    /** Takes one of the {@code maxsessions} slots; false when none is left. */
    boolean reserveSession() {
        int max = config.maxSessions();
        while (true) {
            int held = heldSessions.get();
            if (max > 0 && held >= max) {
                return false;
            }
            if (heldSessions.compareAndSet(held, held + 1)) {
                return true;
            }
        }
    }

    /**
     * Returns a slot taken by {@link #reserveSession()}. When the last one is returned, the C heap the sessions'
     * sockets used is handed back to the kernel a second later if no session came meanwhile (glibc keeps freed
     * memory mapped otherwise: 20 x 256 sessions left the server 320-380 MB larger; docs/SERVER.md).
     */
    void releaseSession() {
        if (heldSessions.decrementAndGet() == 0) {
            try {
                scheduler.schedule(this::trimIfIdle, TRIM_DELAY_MS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException shuttingDown) {
                // the server is closing: the process ends anyway
            }
        }
    }

    private void trimIfIdle() {
        if (heldSessions.get() == 0) {
            NativeMemory.trim();
        }
    }

    /** Test sessions held now by all connections. */
    int heldSessions() {
        return heldSessions.get();
    }

    /** Counts a refusal; returns the count so far. */
    long countRefusal(Refusal why) {
        return refusals.incrementAndGet(why.ordinal());
    }

    /** Refusals so far for one reason. */
    long refusals(Refusal why) {
        return refusals.get(why.ordinal());
    }

    TestPortAllocator ports() {
        return ports;
    }

    boolean shuttingDown() {
        return server != null && server.isClosing();
    }
}
