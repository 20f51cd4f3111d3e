package io.github.twping.agent;

import io.github.twping.config.DscpParser;
import io.github.twping.config.PassphraseStore;
import io.github.twping.control.ControlActivity;
import io.github.twping.control.ControlClient;
import io.github.twping.control.ControlClientOptions;
import io.github.twping.control.ControlException;
import io.github.twping.control.SessionAcceptance;
import io.github.twping.control.SessionRequest;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.metrics.AgentMetrics;
import io.github.twping.metrics.FailureReason;
import io.github.twping.metrics.SessionSample;
import io.github.twping.stats.breakdown.ReflectorStamps;
import io.github.twping.protocol.Mode;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.schedule.StartTimes;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.SharedSender;
import io.github.twping.session.SplitTestSocket;
import io.github.twping.session.TestSocketOptions;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.session.ReceiverCounters;
import io.github.twping.session.SessionOutcome;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import io.github.twping.ffm.SocketException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.util.EnumSet;
import java.util.Set;

/**
 * Measures one target continuously on the twping engine: a control connection ({@link ControlClient}), then
 * back-to-back test sessions on it ({@link ClientTestSession}: the same pacing, kernel stamps and session data
 * file as twping), each analysed by the same statistics engine and recorded in the metrics. Any failure is
 * counted by reason and retried after an exponential backoff with jitter; it never affects other targets.
 *
 * <p>Threads: one virtual thread for the control loop, plus the session's receiver platform thread while a
 * session runs; its packets go out from the agent's one {@link SharedSender} thread. {@link #update} takes effect at the next session boundary; {@link #retire} ends the
 * runner after the running session; {@link #stopNow} cancels the running session, sends Stop-Sessions and
 * records the partial results.
 */
final class TwampTargetRunner extends TargetLoop {
    private static final long WATCH_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final int KEY_ID_BYTES = 80;
    /** Start delay of a runner's first session (twping's minimum of 1 s + 3 RTT applies when larger). */
    private static final double FIRST_START_DELAY_S = 3.0;
    /** Session outcomes that make the attempt a failure. */
    private static final Set<SessionOutcome> FAILING = EnumSet.of(SessionOutcome.SEND_FAILED,
            SessionOutcome.DATA_FILE_FAILED);

    private final int timeoutMs;

    private volatile ControlClient control;
    private double startDelaySeconds = FIRST_START_DELAY_S;

    TwampTargetRunner(TargetConfig config, AgentConfig global, AgentMetrics metrics, AgentJsonStream stream,
                 Consumer<String> log, WallClock clock, SharedSender sender) {
        super(config, global, metrics, stream, log, clock, sender);
        this.timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.round(global.connectTimeoutSeconds() * 1000));
    }

    @Override
    String describe(TargetConfig cfg) {
        return cfg.name() + " (" + cfg.address() + ")";
    }

    /** One control connection, sessions back to back on it; @return null when ended on purpose, else the failure. */
    @Override
    Failure attempt(TargetConfig cfg) {
        ControlClient c;
        try {
            c = connect(cfg);
        } catch (UnknownHostException e) {
            return new Failure(FailureReason.DNS, "cannot resolve " + cfg.host(), false);
        } catch (KeyFileException e) {
            return new Failure(FailureReason.KEY_FILE, e.getMessage(), false);
        } catch (ControlException e) {
            return new Failure(classifyOpen(e), describe(e, "connect"), false);
        }
        control = c;
        boolean measured = false;
        try (c) {
            InetAddress local = unmapped(c.localAddress().getAddress());
            InetAddress remote = unmapped(c.remoteAddress().getAddress());
            UdpSocket socket;
            try {
                socket = openSocket(local, cfg);
            } catch (SocketException e) {
                return new Failure(FailureReason.SOCKET, "test socket: " + e.getMessage(), false);
            }
            try (socket; FileChannel data = SessionDataWriter.openAnonymousTempFile(null)) {
                while (!retiring) {
                    Failure f = oneSession(c, socket, data, local, remote, config);
                    if (f != null) {
                        return new Failure(f.reason(), f.message(), measured);
                    }
                    measured = true;
                    TargetConfig p = pending;
                    if (p != null) {
                        if (!p.sameConnection(config)) {
                            return null; // reconnect with the new settings
                        }
                        applyPending();
                    }
                }
                return null;
            } catch (IOException e) {
                return new Failure(FailureReason.TEST, "session data file: " + e.getMessage(), measured);
            }
        } finally {
            control = null;
        }
    }

    private ControlClient connect(TargetConfig cfg) throws UnknownHostException, ControlException, KeyFileException {
        List<InetAddress> addresses = List.of(InetAddress.getAllByName(cfg.host()));
        ControlClientOptions o = ControlClientOptions.of(cfg.host(), cfg.port()).addresses(addresses)
                .requestedModes(cfg.modeMask()).connectTimeoutMs(timeoutMs).readTimeoutMs(timeoutMs);
        if (cfg.identity() != null) {
            byte[] passphrase = passphrase(cfg);
            byte[] id = cfg.identity().getBytes(StandardCharsets.UTF_8);
            o.identity(id.length <= KEY_ID_BYTES ? id : Arrays.copyOf(id, KEY_ID_BYTES), passphrase);
            Arrays.fill(passphrase, (byte) 0);
        }
        return ControlClient.connect(o);
    }

    static byte[] passphrase(TargetConfig cfg) throws KeyFileException {
        PassphraseStore.Opened opened = PassphraseStore.open(cfg.keyFile());
        if (!opened.ok()) {
            throw new KeyFileException(opened.error());
        }
        if (opened.store().lookupExact(cfg.identity()) instanceof PassphraseStore.Found found) {
            return found.passphrase();
        }
        throw new KeyFileException(cfg.keyFile() + ": no pass-phrase for identity '" + cfg.identity() + "'");
    }

    static final class KeyFileException extends Exception {
        private static final long serialVersionUID = 1L;

        KeyFileException(String message) {
            super(message);
        }
    }

    private static FailureReason classifyOpen(ControlException e) {
        if (e.acceptCode() > 0) {
            return FailureReason.AUTH;
        }
        for (String line : e.lines()) {
            if (line.contains("No Common Modes") || line.contains("denied")) {
                return FailureReason.AUTH;
            }
        }
        return e.getCause() instanceof ConnectException || e.getCause() instanceof SocketTimeoutException
                || e.getCause() instanceof NoRouteToHostException || e.lines().isEmpty()
                ? FailureReason.CONNECT : FailureReason.CONTROL;
    }

    private static String describe(ControlException e, String what) {
        if (!e.lines().isEmpty()) {
            return what + ": " + String.join("; ", e.lines());
        }
        Throwable cause = e.getCause();
        return what + ": " + (cause != null && cause.getMessage() != null ? cause.getMessage() : e.getMessage());
    }

    static UdpSocket openSocket(InetAddress local, TargetConfig cfg) throws SocketException {
        UdpSocketOptions.Builder b = TestSocketOptions.sender(local, bufferBytes(cfg), DscpParser.tosByte(cfg.dscp()),
                        null, true)
                .portRange(0, 0, 0)
                .reusePort(true); // for the sending socket beside it (sendSocket)
        return UdpSocket.open(b.build());
    }

    /** The buffers of a target's sockets: {@link TestSocketOptions#bufferBytes} at its rate. */
    private static int bufferBytes(TargetConfig cfg) {
        return TestSocketOptions.bufferBytes(cfg.paddingBytes(), cfg.rate());
    }

    /**
     * The sending socket beside the target's test socket, as twping opens it (docs/CLIENT.md, "Two sockets"):
     * sends and their kernel TX stamps on it, replies on the test socket connected to {@code reflector}, so that
     * no TX stamp wakes the receiver while a reflector on the path is woken for the packet; null (one socket
     * sends and receives) where the socket cannot.
     */
    static UdpSocket sendSocket(UdpSocket socket, InetSocketAddress reflector, TargetConfig cfg) {
        UdpSocketOptions.Builder b = TestSocketOptions.splitSender(bufferBytes(cfg), DscpParser.tosByte(cfg.dscp()), null);
        UdpSocket sender = SplitTestSocket.openSender(socket, reflector, b);
        if (sender == null && socket.isNative()) {
            // one socket this time: still connected to this session's reflector, not to an earlier session's
            try {
                socket.connect(reflector);
            } catch (SocketException | RuntimeException e) {
                // it stays as it was; a session whose replies do not arrive is reported as such
            }
        }
        return sender;
    }

    private Failure oneSession(ControlClient c, UdpSocket socket, FileChannel data, InetAddress local,
                               InetAddress remote, TargetConfig cfg) {
        int localPort = socket.localAddress().getPort();
        int ipvn = local instanceof Inet6Address ? 6 : 4;
        Mode mode = c.mode();
        int padding = cfg.paddingBytes() >= 0 ? cfg.paddingBytes()
                : (mode == Mode.AUTHENTICATED || mode == Mode.ENCRYPTED ? 64 : 27);
        long rttBound = c.rttBoundNtp();
        long startNtp = StartTimes.startTimeNtp(clock.nowNtp(), rttBound, startDelaySeconds, false);
        long lossNtp = NtpTime.fromSeconds(cfg.lossTimeoutSeconds());
        long count = cfg.packetCount();
        SessionRequest request = SessionRequest.forTwping(ipvn, local, localPort, remote, localPort, padding,
                startNtp, lossNtp, DscpParser.typeP(cfg.dscp()));
        SessionAcceptance acceptance;
        long setupStartNs = System.nanoTime();
        try {
            acceptance = c.requestSession(request);
        } catch (ControlException e) {
            return new Failure(e.acceptCode() > 0 ? FailureReason.SESSION_REFUSED : FailureReason.CONTROL,
                    describe(e, "Request-TW-Session"), false);
        }
        byte[] sid = acceptance.sid();
        TestSessionKeys keys = c.deriveFromSessionKeys((aes, hmac) -> TestSessionKeys.derive(sid, aes, hmac));
        ScheduleSlot[] slots = {new ScheduleSlot(!cfg.exponential(), NtpTime.fromSeconds(1.0 / cfg.rate()))};
        SessionHeader header = new SessionHeader(sid, ipvn, local.getAddress(), localPort, remote.getAddress(),
                acceptance.port(), count, padding, startNtp, lossNtp, DscpParser.typeP(cfg.dscp()),
                new boolean[] {slots[0].fixed()}, new long[] {slots[0].valueNtp()}, SessionHeader.FINISHED_INCOMPLETE);
        SessionDataWriter writer;
        try {
            writer = writer(data, header);
        } catch (IOException e) {
            return new Failure(FailureReason.TEST, "session data file: " + e.getMessage(), false);
        }
        try {
            c.startSessions();
        } catch (ControlException e) {
            return new Failure(FailureReason.CONTROL, describe(e, "Start-Sessions"), false);
        }
        InetSocketAddress reflector = new InetSocketAddress(remote, acceptance.port());
        // a sending socket for this session: a new reflector port each session
        try (UdpSocket sendSocket = sendSocket(socket, reflector, cfg)) {
            List<String> diagnostics = new ArrayList<>();
            ClientTestSession s = new ClientTestSession(new ClientTestSession.Parameters(
                    reflector, new SendSchedule(sid, slots, count), count, padding,
                    startNtp, lossNtp, TimeUnit.MICROSECONDS.toNanos(cfg.spinMicros()), true),
                    socket, sendSocket, mode, keys, writer, clock, ClockErrorEstimate.fromKernel(), line -> {
                        synchronized (diagnostics) {
                            if (diagnostics.size() < 16) {
                                diagnostics.add(line);
                            }
                        }
                    });
            running = s;
            prepare(s);
            s.start();
            SessionIntervals intervals = intervals(cfg, data, writer, header, s);
            // The next start leaves twice this session's set-up time (request to threads started) plus 0.5 s;
            // the first session of the process pays class loading and gets FIRST_START_DELAY_S.
            startDelaySeconds = Math.min(FIRST_START_DELAY_S, 0.5 + 2e-9 * (System.nanoTime() - setupStartNs));
            if (stopping) {
                s.cancel();
            }
            boolean controlLost = watch(c, s, intervals);
            running = null;
            keepTables(s, writer);
            SessionOutcome outcome = s.outcome();
            if (controlLost) {
                return new Failure(FailureReason.CONTROL, "control connection lost during the test session", false);
            }
            try {
                c.stopSessions(outcome == null ? 2 : outcome.stopSessionsAccept());
            } catch (ControlException e) {
                return new Failure(FailureReason.CONTROL, describe(e, "Stop-Sessions"), false);
            }
            ReceiverCounters counters = s.counters();
            metrics.recordBadReplies(cfg.name(), counters.tooShort(), counters.badHmac(), counters.foreign(),
                    counters.malformed());
            Failure failed = sessionFailure(cfg, s, FAILING, diagnostics);
            if (failed != null) {
                return failed;
            }
            boolean completed = outcome == SessionOutcome.COMPLETED;
            SessionSample sample;
            try {
                sample = SessionAnalysis.analyse(data, s.sentCount(), s.skippedCount(), s.counters(), completed,
                        new ArrayList<>());
            } catch (IOException e) {
                return new Failure(FailureReason.TEST, "statistics: " + e.getMessage(), false);
            }
            SessionAnalysis.Breakdown inputs = new SessionAnalysis.Breakdown(s.recordSources(), s.recordStamps(),
                    ReflectorStamps.NONE);
            metrics.recordSession(cfg.name(), sample, rec -> SessionAnalysis.breakdown(data, s.sentCount(),
                    s.skippedCount(), inputs, rec));
            if (intervals != null) {
                intervals.finish();
            }
            if (stream != null) {
                stream.session(cfg, data, s.recordSources());
            }
            if (completed) {
                sessionsDone++;
            }
            return null;
        }
    }

    /**
     * Waits for the session while watching the control connection and writing the interval events (when
     * {@code intervals} is not null); true when the server closed or spoke.
     */
    private boolean watch(ControlClient c, ClientTestSession s, SessionIntervals intervals) {
        try {
            while (!s.await(0)) {
                if (intervals != null) {
                    intervals.poll();
                }
                ControlActivity activity = c.awaitActivity(WATCH_INTERVAL_NS);
                if (activity == ControlActivity.PEER_CLOSED || activity == ControlActivity.DATA_RECEIVED
                        || activity == ControlActivity.LOCALLY_CLOSED) {
                    s.cancel();
                    s.await(TimeUnit.SECONDS.toNanos(5));
                    s.join(TimeUnit.SECONDS.toMillis(5));
                    return true;
                }
                if (stopping) {
                    s.cancel();
                }
            }
            s.join(TimeUnit.SECONDS.toMillis(5));
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            s.cancel();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            return false;
        }
    }

    static InetAddress unmapped(InetAddress a) {
        if (a instanceof Inet6Address v6) {
            byte[] b = v6.getAddress();
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            mapped &= b[10] == (byte) 0xff && b[11] == (byte) 0xff;
            if (mapped) {
                try {
                    return InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16));
                } catch (UnknownHostException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return a;
    }
}
