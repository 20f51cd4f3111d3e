package io.github.twping.server;

import io.github.twping.control.ControlCloseReason;
import io.github.twping.control.ControlPeer;
import io.github.twping.control.ControlSessionHandler;
import io.github.twping.control.SessionAcceptance;
import io.github.twping.control.SessionIds;
import io.github.twping.control.SessionRequest;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.protocol.AcceptCode;
import io.github.twping.session.FaultInjectingSocket;
import io.github.twping.session.ReflectorClock;
import io.github.twping.session.ReflectorSessionSpec;
import io.github.twping.session.SessionReflector;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.Arrays;

/**
 * The twampd side of one control connection: binds a reflector per accepted Request-TW-Session, starts
 * them on Start-Sessions, stops them on Stop-Sessions or when the connection ends. Called from the
 * connection's thread only (the control layer's contract); nothing here is shared with other connections.
 */
final class ServerConnection implements ControlSessionHandler {
    private static final long STOP_WAIT_NS = TimeUnit.SECONDS.toNanos(2);
    /** Hard cap of sessions held by one connection when the limits set none (robustness; C has no cap). */
    static final int MAX_SESSIONS_PER_CONNECTION = 256;

    private final ServerSessions daemon;
    private final InetSocketAddress remote;
    private final List<SessionReflector> sessions = new CopyOnWriteArrayList<>();
    private final Object timerLock = new Object();
    private ScheduledFuture<?> refwaitTimer;
    private volatile Runnable closeControl = () -> { };

    ServerConnection(ServerSessions daemon, InetSocketAddress remote) {
        this.daemon = daemon;
        this.remote = remote;
    }

    /** Sets how to close this control connection (used after a REFWAIT timeout, docs/PROTOCOL.md, C quirks item 45). */
    void controlCloser(Runnable closer) {
        this.closeControl = closer;
    }

    @Override
    public SessionAcceptance requestSession(ControlPeer peer, SessionRequest request) {
        ServerLog log = daemon.log();
        ServerConfig config = daemon.config();
        LimitsConfig.LimitClass limitClass = daemon.classify(peer);
        long limit = limitClass == null ? 0 : limitClass.testSessionLimit();
        if (limitClass == null || (limit > 0 && sessions.size() >= limit)) {
            log.info("Test session from " + TwampServer.describe(remote) + " denied: test_sessions limit ("
                    + limit + ") of class " + limitClass);
            return SessionAcceptance.refused(AcceptCode.REJECT.code());
        }
        if (!daemon.reserveSession()) {
            long n = daemon.countRefusal(ServerSessions.Refusal.SERVER_SESSIONS);
            log.info("Test session from " + TwampServer.describe(remote) + " refused: maxsessions ("
                    + config.maxSessions() + ") reached (" + n + " refused so far)");
            return SessionAcceptance.refused(AcceptCode.UNAVAILABLE_TEMP.code());
        }
        SessionAcceptance accepted = null;
        try {
            accepted = admit(peer, request, log, config);
            return accepted;
        } finally {
            if (accepted == null || accepted.acceptCode() != AcceptCode.ACCEPT.code()) {
                daemon.releaseSession();
            }
        }
    }

    private SessionAcceptance admit(ControlPeer peer, SessionRequest request, ServerLog log, ServerConfig config) {
        int cap = daemon.ports().perConnection(MAX_SESSIONS_PER_CONNECTION);
        if (sessions.size() >= cap) {
            log.info("Test session from " + TwampServer.describe(remote) + " refused: " + cap
                    + " sessions already held by this connection");
            return SessionAcceptance.refused(AcceptCode.UNAVAILABLE_TEMP.code());
        }
        if (request.paddingLength() > Math.min(config.maxPadding(), ReflectorSessionSpec.MAX_PADDING)) {
            long n = daemon.countRefusal(ServerSessions.Refusal.PADDING);
            log.info("Test session from " + TwampServer.describe(remote) + " refused: padding "
                    + request.paddingLength() + " above maxpadding " + config.maxPadding() + " (" + n
                    + " refused so far)");
            return SessionAcceptance.refused(AcceptCode.UNSUPPORTED.code());
        }
        InetAddress receiver;
        InetAddress sender;
        try {
            receiver = scoped(request.receiverAddress(), peer.local().getAddress());
            sender = scoped(request.senderAddress(), peer.local().getAddress());
        } catch (UnknownHostException e) {
            receiver = null;
            sender = null;
        }
        if (receiver == null || sender == null) {
            log.debug("Test session from " + TwampServer.describe(remote)
                    + " refused: link-local test address without a link-local control connection");
            return SessionAcceptance.refused(AcceptCode.UNSUPPORTED.code());
        }
        if (!config.anySender() && !sameHost(sender, remote.getAddress())) {
            long n = daemon.countRefusal(ServerSessions.Refusal.SENDER_ADDRESS);
            log.info("Test session from " + TwampServer.describe(remote) + " refused: sender address "
                    + sender.getHostAddress() + " is not the control peer (anysender not set; " + n
                    + " refused so far)");
            return SessionAcceptance.refused(AcceptCode.REJECT.code());
        }
        int tos = ((request.typePDescriptor() >>> 24) & 0x3F) << 2;
        byte[] sid = SessionIds.create(receiver, daemon.random());
        TestSessionKeys keys = peer.mode().authenticatedTestPackets()
                ? peer.deriveFromSessionKeys((aes, hmac) -> TestSessionKeys.derive(sid, aes, hmac)) : null;
        if (peer.mode().authenticatedTestPackets() && keys == null) {
            log.error("Test session from " + TwampServer.describe(remote)
                    + " failed: test keys for mode " + peer.mode().letter() + " are not available");
            return SessionAcceptance.refused(AcceptCode.FAILURE.code());
        }
        UdpSocket socket;
        try {
            socket = daemon.ports().bind(receiver, request.receiverPort(), tos);
        } catch (TestPortAllocator.PortsExhausted e) {
            long n = daemon.countRefusal(ServerSessions.Refusal.TEST_PORTS);
            log.info("Test session from " + TwampServer.describe(remote) + " refused: no free test port ("
                    + e.getMessage() + "; " + n + " refused so far)");
            return SessionAcceptance.refused(AcceptCode.UNAVAILABLE_TEMP.code());
        } catch (IOException e) {
            log.error("Test session from " + TwampServer.describe(remote) + ": reflector bind on "
                    + receiver.getHostAddress() + " failed: " + e.getMessage());
            return null; // C closes the connection without an Accept-Session
        }
        InetSocketAddress senderAddress = new InetSocketAddress(sender, request.senderPort());
        ReflectorSessionSpec spec = new ReflectorSessionSpec(peer.mode(), senderAddress,
                (int) request.paddingLength(), TimeUnit.MILLISECONDS.toNanos(config.testTimeoutMs()),
                keys);
        String sidHex = HexFormat.of().formatHex(sid);
        FaultInjectingSocket faulty = daemon.faults().active()
                ? FaultInjectingSocket.forMode(socket, daemon.faults(), spec.mode()) : null;
        SessionReflector reflector = new SessionReflector(spec, faulty == null ? socket : faulty,
                ReflectorClock.system(daemon.wallClock()),
                log.verbose() ? new RateLimitedWarning(log, RateLimitedWarning.INTERVAL_NS) : null)
                .waitStrategy(config.reflectorWait()).cpus(config.reflectorCpus())
                .rtPriority(config.reflectorRtPriority());
        reflector.processingTime(daemon.metrics().processingTime());
        reflector.onEnd(r -> {
            daemon.metrics().sessionEnded(r);
            logEnd(sidHex, peer, r, faulty);
            if (r.endReason() == SessionReflector.EndReason.REFWAIT_TIMEOUT && noOtherRunning(r)) {
                armRefwaitTimer();
            }
        });
        sessions.add(reflector);
        daemon.metrics().sessionStarted(reflector);
        log.debug("Test session " + sidHex + " accepted: reflector " + TwampServer.describe(socket.localAddress())
                + ", sender " + TwampServer.describe(senderAddress) + ", padding " + request.paddingLength()
                + ", DSCP " + (tos >>> 2));
        return SessionAcceptance.accepted(socket.localAddress().getPort(), sid);
    }

    /** Whether two addresses are the same host (an IPv4-mapped IPv6 address equals its IPv4 address). */
    static boolean sameHost(InetAddress a, InetAddress b) {
        return Arrays.equals(unmapped(a), unmapped(b));
    }

    private static byte[] unmapped(InetAddress a) {
        byte[] raw = a.getAddress();
        if (raw.length == 16) {
            boolean mapped = raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
            for (int i = 0; i < 10 && mapped; i++) {
                mapped = raw[i] == 0;
            }
            if (mapped) {
                return Arrays.copyOfRange(raw, 12, 16);
            }
        }
        return raw;
    }

    /** Applies the C rule for IPv6 link-local test addresses: accepted only with a link-local control connection. */
    private static InetAddress scoped(InetAddress address, InetAddress controlLocal) throws UnknownHostException {
        if (address instanceof Inet6Address a6 && a6.isLinkLocalAddress()) {
            if (!(controlLocal instanceof Inet6Address c6) || !c6.isLinkLocalAddress()) {
                return null;
            }
            return Inet6Address.getByAddress(null, a6.getAddress(), c6.getScopeId());
        }
        return address;
    }

    private void logEnd(String sidHex, ControlPeer peer, SessionReflector r, FaultInjectingSocket faulty) {
        ServerLog log = daemon.log();
        if (r.endReason() == SessionReflector.EndReason.REFWAIT_TIMEOUT) {
            log.warning(SessionReflector.REFWAIT_MESSAGE);
        }
        log.info("Test session " + sidHex + " from " + TwampServer.describe(r.spec().sender()) + " ended ("
                + r.endReason() + "): mode " + peer.mode().letter()
                + (peer.identity() == null ? "" : ", user " + peer.identity())
                + ", reflected " + r.reflected() + ", ignored " + r.ignoredForeign() + ", bad HMAC " + r.badHmac()
                + ", short " + r.shortPackets()
                + (r.kernelDrops() > 0 ? ", dropped by the kernel at the reflector socket (receive buffer full) "
                        + r.kernelDrops() : "")
                + (r.lastReceivedDscp() < 0 ? "" : String.format(", DSCP received 0x%02x", r.lastReceivedDscp()))
                + (faulty != null ? ", faults: dropped " + faulty.dropped() + ", duplicated "
                        + faulty.duplicated() + ", corrupted " + faulty.corrupted() : "")
                + (r.failure() == null ? "" : ", error " + r.failure().getMessage()));
    }

    @Override
    public AcceptCode startSessions(ControlPeer peer) {
        for (SessionReflector r : sessions) {
            r.start();
            daemon.log().debug("Test session to " + TwampServer.describe(r.localAddress()) + " started");
        }
        return AcceptCode.ACCEPT;
    }

    @Override
    public void stopSessions(ControlPeer peer, int acceptCode) {
        disarmRefwaitTimer();
        releaseAll();
    }

    @Override
    public void closed(ControlPeer peer, ControlCloseReason reason) {
        disarmRefwaitTimer();
        releaseAll();
        String who = TwampServer.describe(remote);
        switch (reason) {
            case UNKNOWN_IDENTITY -> daemon.log().info("Unknown userid from (" + who + ")");
            case INVALID_TOKEN -> daemon.log().info("Control request from (" + who
                    + ") denied: Invalid challenge encryption");
            case PROTOCOL_ERROR, HMAC_FAILURE, IO_ERROR -> {
                if (peer != null) {
                    daemon.log().warning("Control session terminated abnormally: " + who + " (" + reason + ")");
                }
            }
            default -> { }
        }
        if (peer == null) {
            daemon.log().debug("Connection from " + who + " closed before set-up completed: " + reason);
        } else {
            daemon.log().info("Connection from " + who + " closed: " + reason);
        }
    }

    private boolean noOtherRunning(SessionReflector ended) {
        for (SessionReflector r : sessions) {
            if (r != ended && r.isRunning()) {
                return false;
            }
        }
        return true;
    }

    /**
     * C twampd: once the reflectors have ended by REFWAIT the sessions no longer count as running, so the
     * control inactivity timer applies again and the connection is closed {@code controltimeout} later unless
     * Stop-Sessions arrives.
     */
    private void armRefwaitTimer() {
        long ms = daemon.config().controlTimeoutMs();
        if (ms <= 0) {
            return;
        }
        synchronized (timerLock) {
            if (refwaitTimer != null) {
                refwaitTimer.cancel(false);
            }
            refwaitTimer = daemon.scheduler().schedule(() -> {
                daemon.log().warning("Control session terminated abnormally: from " + TwampServer.describe(remote)
                        + ", no Stop-Sessions within controltimeout after REFWAIT");
                closeControl.run();
            }, ms, TimeUnit.MILLISECONDS);
        }
    }

    private void disarmRefwaitTimer() {
        synchronized (timerLock) {
            if (refwaitTimer != null) {
                refwaitTimer.cancel(false);
                refwaitTimer = null;
            }
        }
    }

    private void releaseAll() {
        for (SessionReflector r : sessions) {
            r.stop();
        }
        for (SessionReflector r : sessions) {
            try {
                r.awaitEnd(STOP_WAIT_NS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            r.close();
            daemon.metrics().sessionEnded(r);
            daemon.releaseSession();
        }
        sessions.clear();
    }
}
