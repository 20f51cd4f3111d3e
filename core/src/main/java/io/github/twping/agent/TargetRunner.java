package io.github.twping.agent;

import io.github.twping.config.PassphraseStore;
import io.github.twping.control.ControlActivity;
import io.github.twping.control.ControlClient;
import io.github.twping.control.ControlClientOptions;
import io.github.twping.control.ControlException;
import io.github.twping.control.SessionAcceptance;
import io.github.twping.control.SessionRequest;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.metrics.AgentMetrics;
import io.github.twping.metrics.FailureReason;
import io.github.twping.metrics.SessionSample;
import io.github.twping.protocol.Mode;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.schedule.StartTimes;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.session.SessionOutcome;
import io.github.twping.stats.SessionDataWriter;
import io.github.twping.stats.SessionHeader;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Measures one target continuously on the twping engine: a control connection ({@link ControlClient}), then
 * back-to-back test sessions on it ({@link ClientTestSession}: the same pacing, kernel stamps and session data
 * file as twping), each analysed by the same statistics engine and recorded in the metrics. Any failure is
 * counted by reason and retried after an exponential backoff with jitter; it never affects other targets.
 *
 * <p>Threads: one virtual thread for the control loop, plus the session's sender and receiver platform threads
 * while a session runs. {@link #update} takes effect at the next session boundary; {@link #retire} ends the
 * runner after the running session; {@link #stopNow} cancels the running session, sends Stop-Sessions and
 * records the partial results.
 */
final class TargetRunner implements Runner {
    private static final long WATCH_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final int KEY_ID_BYTES = 80;
    /** Start delay of a runner's first session (twping's minimum of 1 s + 3 RTT applies when larger). */
    private static final double FIRST_START_DELAY_S = 3.0;

    private final AgentMetrics metrics;
    private final AgentJsonStream stream;
    private final Consumer<String> log;
    private final WallClock clock;
    private final double backoffInitial;
    private final double backoffMax;
    private final int timeoutMs;
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Object sleeper = new Object();

    private volatile TargetConfig config;
    private volatile TargetConfig pending;
    private volatile boolean retiring;
    private volatile boolean stopping;
    private volatile ClientTestSession running;
    private volatile ControlClient control;
    private volatile Thread thread;
    private volatile long sessionsDone;
    private volatile long failuresSeen;
    private double startDelaySeconds = FIRST_START_DELAY_S;

    TargetRunner(TargetConfig config, AgentConfig global, AgentMetrics metrics, AgentJsonStream stream,
                 Consumer<String> log, WallClock clock) {
        this.config = config;
        this.metrics = metrics;
        this.stream = stream;
        this.log = log;
        this.clock = clock;
        this.backoffInitial = global.backoffInitialSeconds();
        this.backoffMax = global.backoffMaxSeconds();
        this.timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.round(global.connectTimeoutSeconds() * 1000));
    }

    /** Starts the control loop on a virtual thread. */
    @Override
    public void start() {
        metrics.addTarget(config.name(), config.protocol().configName());
        thread = Thread.ofVirtual().name("agent-" + config.name()).start(this::loop);
    }

    /** @return the current configuration. */
    @Override
    public TargetConfig config() {
        TargetConfig p = pending;
        return p != null ? p : config;
    }

    /** Applies a changed configuration of the same target at the next session boundary. */
    @Override
    public void update(TargetConfig next) {
        pending = next;
        wake();
    }

    /** Ends the runner after the running session (a reload removed the target). */
    @Override
    public void retire() {
        retiring = true;
        wake();
    }

    /** Stops now: the running session is cancelled, Stop-Sessions sent and its partial results recorded. */
    @Override
    public void stopNow() {
        stopping = true;
        retiring = true;
        ClientTestSession s = running;
        if (s != null) {
            s.cancel();
        }
        wake();
    }

    /** Waits for the runner to end; true if it did. */
    @Override
    public boolean await(long timeoutNs) throws InterruptedException {
        return finished.await(timeoutNs, TimeUnit.NANOSECONDS);
    }

    /** @return sessions completed so far. */
    @Override
    public long sessionsDone() {
        return sessionsDone;
    }

    /** @return failed attempts so far. */
    @Override
    public long failures() {
        return failuresSeen;
    }

    private void wake() {
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
    }

    private void loop() {
        try {
            double backoff = backoffInitial;
            while (!retiring) {
                applyPending();
                TargetConfig cfg = config;
                Failure failure = connectAndMeasure(cfg);
                if (failure == null) {
                    backoff = backoffInitial;
                    continue; // connection changed by a reload, or retiring
                }
                failuresSeen++;
                metrics.recordFailure(cfg.name(), failure.reason);
                log.accept("target " + cfg.name() + " (" + cfg.address() + "): " + failure.message
                        + "; retrying in " + String.format(java.util.Locale.ROOT, "%.1f", backoff) + " s");
                if (failure.measured) {
                    backoff = backoffInitial; // the connection worked for a while: start the backoff again
                }
                sleep(backoff * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble()));
                backoff = Math.min(backoffMax, backoff * 2);
            }
        } catch (RuntimeException e) {
            log.accept("target " + config.name() + ": internal error: " + e);
        } finally {
            finished.countDown();
        }
    }

    private void applyPending() {
        TargetConfig p = pending;
        if (p != null) {
            config = p;
            pending = null;
        }
    }

    private void sleep(double seconds) {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        synchronized (sleeper) {
            while (!retiring) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || (pending != null && !pending.sameConnection(config))) {
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(sleeper, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** A failed attempt. {@code measured}: at least one session succeeded on this connection. */
    private record Failure(FailureReason reason, String message, boolean measured) {
    }

    /** @return null when the connection ended on purpose (reload, retire), else the failure. */
    private Failure connectAndMeasure(TargetConfig cfg) {
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
            } catch (io.github.twping.ffm.SocketException e) {
                return new Failure(FailureReason.SOCKET, "test socket: " + e.getMessage(), false);
            }
            try (socket; FileChannel data = SessionDataWriter.openAnonymousTempFile(null)) {
                while (!retiring) {
                    Failure f = oneSession(c, socket, data, local, remote, config);
                    if (f != null) {
                        return new Failure(f.reason, f.message, measured);
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
        return e.getCause() instanceof java.net.ConnectException || e.getCause() instanceof java.net.SocketTimeoutException
                || e.getCause() instanceof java.net.NoRouteToHostException || e.lines().isEmpty()
                ? FailureReason.CONNECT : FailureReason.CONTROL;
    }

    private static String describe(ControlException e, String what) {
        if (!e.lines().isEmpty()) {
            return what + ": " + String.join("; ", e.lines());
        }
        Throwable cause = e.getCause();
        return what + ": " + (cause != null && cause.getMessage() != null ? cause.getMessage() : e.getMessage());
    }

    static UdpSocket openSocket(InetAddress local, TargetConfig cfg) throws io.github.twping.ffm.SocketException {
        UdpSocketOptions.Builder b = UdpSocketOptions.builder().bindAddress(local).portRange(0, 0, 0)
                .unicastTtl(255).receiveTtl(true).receiveBufferBytes(1 << 20).sendBufferBytes(1 << 20)
                .timestamping(Timestamping.RX_TX_SOFTWARE);
        if (cfg.dscp() != 0) {
            b.tos(cfg.dscp() << 2);
        }
        return UdpSocket.open(b.build());
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
                startNtp, lossNtp, cfg.dscp() << 24);
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
                acceptance.port(), count, padding, startNtp, lossNtp, cfg.dscp() << 24,
                new boolean[] {slots[0].fixed()}, new long[] {slots[0].valueNtp()}, SessionHeader.FINISHED_INCOMPLETE);
        SessionDataWriter writer;
        try {
            writer = SessionDataWriter.onChannel(data, header, SessionDataWriter.DEFAULT_BATCH_RECORDS);
        } catch (IOException e) {
            return new Failure(FailureReason.TEST, "session data file: " + e.getMessage(), false);
        }
        try {
            c.startSessions();
        } catch (ControlException e) {
            return new Failure(FailureReason.CONTROL, describe(e, "Start-Sessions"), false);
        }
        List<String> diagnostics = new ArrayList<>();
        ClientTestSession s = new ClientTestSession(new ClientTestSession.Parameters(
                new InetSocketAddress(remote, acceptance.port()), new SendSchedule(sid, slots, count), count, padding,
                startNtp, lossNtp, TimeUnit.MICROSECONDS.toNanos(cfg.spinMicros()), true),
                socket, mode, keys, writer, clock, ClockErrorEstimate.fromKernel(), line -> {
                    synchronized (diagnostics) {
                        if (diagnostics.size() < 16) {
                            diagnostics.add(line);
                        }
                    }
                });
        running = s;
        s.start();
        // The next start leaves twice this session's set-up time (request to threads started) plus 0.5 s;
        // the first session of the process pays class loading and gets FIRST_START_DELAY_S.
        startDelaySeconds = Math.min(FIRST_START_DELAY_S, 0.5 + 2e-9 * (System.nanoTime() - setupStartNs));
        if (stopping) {
            s.cancel();
        }
        boolean controlLost = watch(c, s);
        running = null;
        SessionOutcome outcome = s.outcome();
        if (controlLost) {
            return new Failure(FailureReason.CONTROL, "control connection lost during the test session", false);
        }
        try {
            c.stopSessions(outcome == null ? 2 : outcome.stopSessionsAccept());
        } catch (ControlException e) {
            return new Failure(FailureReason.CONTROL, describe(e, "Stop-Sessions"), false);
        }
        if (outcome == SessionOutcome.SEND_FAILED || outcome == SessionOutcome.DATA_FILE_FAILED) {
            String why;
            synchronized (diagnostics) {
                why = diagnostics.isEmpty() ? outcome.name() : diagnostics.get(0);
            }
            return new Failure(FailureReason.TEST, "test session failed: " + why, false);
        }
        if (s.sentCount() == 0 && !stopping) {
            metrics.recordSkipped(cfg.name(), s.skippedCount());
            return new Failure(FailureReason.TEST, "no packet sent: the sender started more than the loss timeout late ("
                    + s.skippedCount() + " skipped)", false);
        }
        boolean completed = outcome == SessionOutcome.COMPLETED;
        SessionSample sample;
        try {
            sample = SessionAnalysis.analyse(data, s.sentCount(), s.skippedCount(), s.counters(), completed,
                    new ArrayList<>());
        } catch (IOException e) {
            return new Failure(FailureReason.TEST, "statistics: " + e.getMessage(), false);
        }
        metrics.recordSession(cfg.name(), sample);
        if (stream != null) {
            stream.session(cfg, data, s.recordSources());
        }
        if (completed) {
            sessionsDone++;
        }
        return null;
    }

    /** Waits for the session while watching the control connection; true when the server closed or spoke. */
    private boolean watch(ControlClient c, ClientTestSession s) {
        try {
            while (!s.await(0)) {
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
