package io.github.twping.client;

import io.github.twping.config.DscpParser;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.twping.control.ControlActivity;
import io.github.twping.control.ControlCancellation;
import io.github.twping.control.ControlClient;
import io.github.twping.control.ControlClientOptions;
import io.github.twping.control.ControlException;
import io.github.twping.control.ControlStage;
import io.github.twping.control.SessionAcceptance;
import io.github.twping.control.SessionRequest;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.ffm.AddressInUseException;
import io.github.twping.ffm.RealtimeClock;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.net.AddressText;
import io.github.twping.protocol.Mode;
import io.github.twping.report.owamp.HostInfo;
import io.github.twping.report.owamp.Reports;
import io.github.twping.report.extended.ResultOutputs;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.schedule.StartTimes;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.session.TwampSessionWarmUp;
import io.github.twping.session.WarmUpPlan;
import io.github.twping.session.SessionOutcome;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;
import io.github.twping.time.StopTrace;
import io.github.twping.time.WallClock;
import io.github.twping.report.owamp.CFormat;

/**
 * One twping measurement with the C client's semantics (docs/CLI.md, docs/CLIENT.md): control connection,
 * session data file, test socket, session request, test, Stop-Sessions, then the statistics from the
 * session data file. Each step is one method; the roles they use are their own classes
 * ({@link AddressResolver}, {@link TestSocketSetup}, {@link SessionDataFile}, {@link ControlWatch}) over
 * the shared {@link RunContext}.
 *
 * <p>Returns the C exit status; prints what the C client prints (diagnostics on {@code err} prefixed with
 * the program name). Cancellable from another thread with {@link #cancel()}: before the test starts the
 * run ends with status 2 (1 when a control read was interrupted), from the Start-Ack on the partial results are
 * printed and the status is 0.
 */
public final class TwampRun {
    /** Exit status: success. */
    public static final int EXIT_OK = 0;
    /** Exit status: failure. */
    public static final int EXIT_FAILURE = 1;
    /** Exit status: interrupted before the test. */
    public static final int EXIT_INTERRUPTED = 2;
    /** Exit status: a {@code --max-loss}/{@code --max-median-rtt} gate was exceeded. */
    public static final int EXIT_GATE_FAILED = 3;

    private static final String SESSION_FAILED = "Session Failed!";
    private static final String TEST_FAILED = "Test session(s) Failed...";
    /** How long the session waits for a stopped warm-up to leave (one round trip, bounded by its receive timeout). */
    private static final long WARM_UP_STOP_MS = 400;
    /** The read timeout of one look at the control connection between two steps (ControlClient's shortest). */
    private static final long PREPARE_POLL_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How often the wait for the start time looks at the cancellation between control-connection polls. */
    private static final long START_WATCH_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(50);

    private final RunContext run;
    private final ReportSink reportSink;
    private final Path tempDirectory;
    private volatile ClientTestSession session;
    /** The report's preparation during the wait for the start time; null before it. */
    private ReportPreparation preparation;
    private volatile boolean summaryPrinted;
    /** Sets {@link #summaryPrinted}; made with the run, so that no lambda is linked between the signal and the summary. */
    private final Runnable markSummaryPrinted = () -> summaryPrinted = true;
    private final ControlCancellation controlCancellation = new ControlCancellation();
    private ResultOutputs results;                 // the result outputs (docs/CLI.md), or null
    private Thread warmUp;
    private volatile boolean warmUpDone;

    /**
     * @param options    the parsed options
     * @param out        standard output (results)
     * @param err        standard error (diagnostics)
     * @param program    program name for diagnostics ({@code twping})
     * @param clock      the wall clock (with any {@code OWAMP_DEBUG_TIMEOFFSET})
     * @param reportSink receives the summary numbers for the CI gates (may be null)
     * @param tempDirectory where the anonymous session data file is created when there is no {@code -F}
     */
    public TwampRun(TwpingOptions options, PrintStream out, PrintStream err, String program, WallClock clock,
                     ReportSink reportSink, Path tempDirectory) {
        this.run = new RunContext(options, out, err, program, clock);
        this.reportSink = reportSink;
        this.tempDirectory = tempDirectory;
    }

    /** Receives what the statistics pass computed, for the regression gates. */
    @FunctionalInterface
    public interface ReportSink {
        void onSummary(FileChannel dataFile, SessionHeader header);
    }

    /** @return the directory of the anonymous data file: {@code $TMPDIR}, else {@code /tmp} (docs/CLI.md). */
    public static Path tempDirectory(Map<String, String> environment) {
        return SessionDataFile.tempDirectory(environment);
    }

    /**
     * Stops the run from another thread (Ctrl-C), at once whatever step it is in (docs/CLI.md, signals): from
     * the Start-Ack on (the wait for the start time and the test) gracefully, with Stop-Sessions and the partial
     * results; from the connect to the Start-Ack a blocked connect or read fails at once, as the signal's
     * EINTR does in C, and between two steps the next one is not begun (exit 2).
     */
    public void cancel() {
        run.cancel();
        ClientTestSession s = session;
        if (s != null) {
            s.cancelAndWake();   // the receiver would notice a plain cancel only at its next wake-up
            return;
        }
        controlCancellation.cancel();
    }

    /** @return true once the summary (partial or not) has been written to stdout; any thread. */
    public boolean summaryPrinted() {
        return summaryPrinted;
    }

    /** The times a session is requested with (RFC 4656 §3.5): the control RTT bound, loss timeout and start. */
    private record Timing(long rttBoundNtp, long lossTimeoutNtp, long startTimeNtp) {
    }

    /** Runs the measurement; never throws for network or user errors. */
    public int execute() {
        HostPort server = run.options.serverAddress();
        // the start time's clock, linked while the control connection is made (docs/CLIENT.md, "Start-up")
        RealtimeClock.linkInBackground();
        ControlClient control;
        try {
            control = connect(server);
        } catch (ControlException e) {
            e.lines().forEach(run::diag);
            return run.fail("Unable to open control connection to " + server.typed() + ".");
        } catch (UnknownHostException e) {
            return run.fail("getaddrinfo(): Name or service not known",
                    "Unable to open control connection to " + server.typed() + ".");
        }
        try (control) {
            return withControl(control);
        } finally {
            warmUpDone = true;
        }
    }

    /** Step 1: the control connection (RFC 4656 §3.1) to servaddr's addresses in the C client's order. */
    private ControlClient connect(HostPort server) throws ControlException, UnknownHostException {
        TwpingOptions.Connection conn = run.options.connection();
        if (conn.bindInterface() != null && !AddressResolver.interfaceExists(conn.bindInterface())) {
            // C binds the control socket to -B's device first and fails there, before connecting
            throw new ControlException(ControlStage.OPEN_CONNECTION, ControlException.NO_ACCEPT_CODE,
                    List.of("SO_BINDTODEVICE " + conn.bindInterface() + ": No such device"));
        }
        int port = AddressResolver.parseService(server.serviceOr(HostPort.DEFAULT_CONTROL_PORT));
        if (port < 0) {
            // getaddrinfo's EAI_SERVICE for a port with trailing garbage ("host:862x")
            throw new ControlException(ControlStage.OPEN_CONNECTION, ControlException.NO_ACCEPT_CODE,
                    List.of("getaddrinfo(): Servname not supported for ai_socktype"));
        }
        List<InetAddress> addresses = AddressResolver.controlAddresses(server.node(), conn.family());
        if (addresses.isEmpty()) {
            throw new ControlException(ControlStage.OPEN_CONNECTION, ControlException.NO_ACCEPT_CODE, List.of());
        }
        boolean v4 = conn.family() != TwpingOptions.AddressFamily.IPV6_ONLY;
        boolean v6 = conn.family() != TwpingOptions.AddressFamily.IPV4_ONLY;
        ControlClientOptions o = ControlClientOptions.of(server.node(), port).addresses(addresses)
                .requestedModes(conn.modeMask()).ipv4Only(!v6).ipv6Only(!v4);
        if (conn.identity() != null && conn.passphrase() != null) {
            o.identity(conn.keyIdBytes(), conn.passphrase());
        }
        if (conn.sourceAddress() != null) {
            InetAddress source = AddressResolver.sourceAddress(conn.sourceAddress(), addresses.get(0));
            if (source == null) {
                throw new ControlException(ControlStage.OPEN_CONNECTION, ControlException.NO_ACCEPT_CODE,
                        List.of("getaddrinfo(): " + conn.sourceAddress() + ": Name or service not known"));
            }
            o.bindAddress(source);
        }
        o.cancellation(controlCancellation);
        double timeout = run.options.extras().controlTimeoutSeconds();
        if (timeout > 0) {
            int ms = (int) Math.min(Integer.MAX_VALUE, Math.round(timeout * 1000));
            o.connectTimeoutMs(ms).readTimeoutMs(ms);
        }
        return ControlClient.connect(o);
    }

    /** Step 2: the loss timeout against {@code -b}, then the session data file (-F or anonymous). */
    private int withControl(ControlClient control) {
        TwpingOptions.Test test = run.test();
        long rttBoundNtp = control.rttBoundNtp();
        long lossTimeoutNtp = StartTimes.lossTimeoutNtp(test.lossTimeoutSeconds(), rttBoundNtp);
        double lossSeconds = StartTimes.lossTimeoutSeconds(test.lossTimeoutSeconds(), rttBoundNtp);
        float bucketWidth = run.options.output().bucketWidthSeconds();
        if (lossSeconds < bucketWidth) {
            // C's %f: "inf" for -b 1e40 (a float overflow), never Java's "Infinity"
            StringBuilder line = new StringBuilder("Invalid test specification: LossThreshold(");
            CFormat.f(line, lossSeconds, 6).append(") '-L' < BucketWidth (");
            CFormat.f(line, bucketWidth, 6).append(") '-b'");
            return run.fail(line.toString());
        }
        if (run.cancelled()) {
            return EXIT_INTERRUPTED;
        }
        SessionDataFile file = SessionDataFile.open(run, tempDirectory);
        if (file == null) {
            return EXIT_FAILURE;
        }
        try (file) {
            return withDataFile(control, file, rttBoundNtp, lossTimeoutNtp);
        }
    }

    /**
     * Step 3: the local test socket on the control connection's local address (RFC 5357 §3.5), then the start
     * time. The start time is taken after the socket is open, as the C client takes it just before its request:
     * the first native socket of the JVM links its calls, which took 0.2-0.9 s on a loaded machine and moved the
     * "Approximately" line below C's (docs/CLIENT.md).
     */
    private int withDataFile(ControlClient control, SessionDataFile file, long rttBoundNtp, long lossTimeoutNtp) {
        InetAddress localAddress = AddressText.unmapped(control.localAddress().getAddress());
        UdpSocket socket;
        try {
            socket = TestSocketSetup.open(localAddress, run.options);
        } catch (SocketException e) {
            if (e instanceof AddressInUseException) {
                run.diag("Full port range exhausted");
            }
            return run.fail("bind([" + localAddress.getHostAddress() + "]:" + run.test().portRange().low() + "): "
                    + strerror(e), "Test failed", SESSION_FAILED);
        }
        try (socket) {
            long startTimeNtp = StartTimes.startTimeNtp(run.clock.nowNtp(), rttBoundNtp, run.test().startDelaySeconds(),
                    file.isSaved());
            return withSocket(control, file, socket, localAddress, new Timing(rttBoundNtp, lossTimeoutNtp, startTimeNtp));
        }
    }

    /** Step 4: Request-TW-Session, Start-Sessions, the test, Stop-Sessions and the reports. */
    private int withSocket(ControlClient control, SessionDataFile file, UdpSocket socket, InetAddress localAddress,
                           Timing timing) {
        TwpingOptions.Test test = run.test();
        InetSocketAddress local = new InetSocketAddress(localAddress, socket.localAddress().getPort());
        InetAddress reflectorAddress;
        try {
            reflectorAddress = AddressResolver.reflectorAddress(run.options.testAddress().node(), localAddress);
        } catch (UnknownHostException e) {
            return run.fail("getaddrinfo(): Name or service not known", SESSION_FAILED);
        }
        if (reflectorAddress == null) {
            return run.fail("OWPSessionRequest called with incompatible addresses", SESSION_FAILED);
        }
        int ipvn = localAddress instanceof Inet6Address ? 6 : 4;
        if (run.cancelled()) {
            return EXIT_INTERRUPTED;
        }
        SessionAcceptance acceptance;
        try {
            acceptance = control.requestSession(request(ipvn, local, reflectorAddress, timing));
        } catch (ControlException e) {
            e.lines().forEach(run::diag);
            return run.fail(SESSION_FAILED);
        }
        if (acceptance.acceptCode() != 0) {
            return run.fail("Server denied test: " + control.serverIp(), SESSION_FAILED);
        }
        byte[] sid = acceptance.sid();
        TestSessionKeys keys = control.deriveFromSessionKeys((aes, hmac) -> TestSessionKeys.derive(sid, aes, hmac));
        ScheduleSlot[] slots = test.scheduleSlots();
        InetSocketAddress reflector = new InetSocketAddress(reflectorAddress, acceptance.port());
        SessionHeader header = SessionDataFile.header(sid, ipvn, local, reflector, test, timing.startTimeNtp(),
                timing.lossTimeoutNtp(), slots);
        SessionDataWriter writer = file.startWriter(run, header);
        if (run.cancelled()) {
            return EXIT_INTERRUPTED;
        }
        try {
            control.startSessions();
        } catch (ControlException e) {
            e.lines().forEach(run::diag);
            return run.fail(SESSION_FAILED);
        }
        // From here a signal stops the test gracefully (Stop-Sessions, partial results) instead of failing I/O.
        control.endCancellableSetUp();
        printApproximately(slots, timing);  // first: the warm-up's threads would delay the line's "now"
        startWarmUp(control.mode(), slots, timing.startTimeNtp());
        StopTrace.mark("start-wait");
        preparation = ReportPreparation.start(run, file, header, localAddress);

        SessionOutcome outcome;
        results = ResultRun.create(run.options, run.program, run.stdout, run.err);
        run.progressLine(results);
        if (writer == null) {
            // -c 0 (or an unwritable data file): the C worker fails at once (docs/CLI.md, -c).
            if (test.packetCount() == 0) {
                run.diag("Invalid test distribution parameters");
                run.diag("run_tw_test: Unable to write data file header");
            }
            outcome = SessionOutcome.DATA_FILE_FAILED;
        } else {
            outcome = test(control, socket, reflector, sid, slots, keys, writer, timing, file, header);
            if (outcome == null) {
                stopResults();
                run.diag(TEST_FAILED);
                file.discard();
                return EXIT_FAILURE;
            }
        }
        try {
            control.stopSessions(outcome.stopSessionsAccept());
        } catch (ControlException e) {
            stopResults();
            run.diag(TEST_FAILED);
            file.discard();
            return run.cancelled() ? EXIT_INTERRUPTED : EXIT_FAILURE;
        }
        StopTrace.mark("stop-sessions");
        control.close();
        StopTrace.mark("control-closed");
        return report(file, header, localAddress) ? EXIT_OK : ResultOutputs.EXIT_OUTPUT_FAILED;
    }

    private SessionRequest request(int ipvn, InetSocketAddress local, InetAddress reflectorAddress, Timing timing) {
        TwpingOptions.Test test = run.test();
        boolean zero = run.options.connection().zeroAddresses();
        return SessionRequest.forTwping(ipvn, zero ? null : local.getAddress(), local.getPort(),
                zero ? null : reflectorAddress, local.getPort(), test.paddingBytes(), timing.startTimeNtp(),
                timing.lossTimeoutNtp(), DscpParser.typeP(test.dscp()));
    }

    private void printApproximately(ScheduleSlot[] slots, Timing timing) {
        if (run.options.output().quiet()) {
            return;
        }
        double duration = StartTimes.sessionDurationSeconds(run.test().packetCount(), slots,
                NtpTime.toDouble(timing.lossTimeoutNtp()), timing.rttBoundNtp());
        double secs = StartTimes.secondsUntilResults(timing.startTimeNtp(), run.clock.nowNtp(), duration);
        run.out.print(run.texts().approximately(secs));
        run.out.flush();
    }

    /** How the wait for the start time ended. */
    private enum StartWait {
        /** Shortly before the start time: start the session. */
        REACHED,
        /** A signal (or {@link #cancel()}) came first: no packet is sent, the results are those of 0 packets. */
        CANCELLED,
        /** The server closed the control connection or sent something: the test has failed. */
        CONTROL_FAILED
    }

    /**
     * Compiles the session engine in the negotiated mode while the start time approaches (docs/PERFORMANCE.md,
     * "What perturbs a session"), as much as the session needs ({@link WarmUpPlan}: none for fewer than 100
     * packets). Started once the sessions are started, not earlier: its threads would slow the control exchange
     * on a small host, which the C client does not have to share.
     */
    private void startWarmUp(Mode mode, ScheduleSlot[] slots, long startTimeNtp) {
        long packets = WarmUpPlan.packets(run.test().packetCount(), slots);
        long now = System.nanoTime();
        long maxNs = WarmUpPlan.maxNs(now + NtpTime.signedDurationToNanos(startTimeNtp - run.clock.nowNtp()), now);
        if (packets == 0 || maxNs <= 0) {
            return;
        }
        int padding = run.test().paddingBytes();
        long spinNs = run.options.extras().spinNs();
        boolean kernelTxStamps = run.options.extras().kernelSendStamps();
        warmUp = Thread.ofPlatform().daemon(true).name("twping-warmup").start(() -> TwampSessionWarmUp.run(mode,
                padding, spinNs, kernelTxStamps, packets, maxNs, () -> warmUpDone));
    }

    /**
     * Waits until shortly before {@code startTimeNtp} while watching the control connection and the
     * cancellation (as the C client waits for its worker from Start-Ack on, docs/CLI.md, signals), then stops
     * the warm-up so that it never runs beside the session's threads. A cancelled run returns within one
     * watch interval, whatever the start delay ({@code -z}).
     */
    private StartWait awaitStart(ControlClient control, long startTimeNtp) {
        long endNs = WarmUpPlan.endNanoTime(System.nanoTime()
                + NtpTime.signedDurationToNanos(startTimeNtp - run.clock.nowNtp()));
        StartWait result = StartWait.REACHED;
        while (true) {
            if (run.cancelled()) {
                result = StartWait.CANCELLED;
                break;
            }
            long leftNs = endNs - System.nanoTime();
            if (leftNs <= 0) {
                break;
            }
            boolean stepped = preparation.step(leftNs);
            ControlActivity activity = control.awaitActivity(stepped ? PREPARE_POLL_NS
                    : Math.min(leftNs, START_WATCH_INTERVAL_NS));
            if (activity != ControlActivity.QUIET && !run.cancelled()) {
                result = StartWait.CONTROL_FAILED;
                break;
            }
        }
        Thread w = warmUp;
        if (w != null) {
            warmUpDone = true;
            try {
                w.join(Duration.ofMillis(WARM_UP_STOP_MS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return result;
    }

    /**
     * Says on stderr when the kernel dropped replies at our test socket (receive buffer full): those packets
     * count as lost in the C-identical outputs, but were lost in this host, not in the network. When every packet
     * sent was answered no reply counted as lost, so the socket is not asked (a drop could then only be a duplicate
     * or a stranger's datagram); a run without loss then never links getsockopt (docs/notes/2026-12-05-ffm-link.md).
     */
    private void reportKernelDrops(UdpSocket socket, ClientTestSession s) {
        String line = kernelDropsLine(run.program, s.counters().received(), s.sentCount(), socket);
        if (line != null) {
            run.errLine(line);
        }
    }

    /**
     * The line of {@link #reportKernelDrops}, or null: the socket's drop count is read only when fewer replies
     * were received than packets sent.
     */
    static String kernelDropsLine(String program, long received, long sent, UdpSocket socket) {
        if (received >= sent) {
            return null;
        }
        long drops = socket.kernelDrops();
        if (drops <= 0) {
            return null;
        }
        return program + ": " + drops + " replies were dropped by this host's kernel at the test socket"
                + " (receive buffer full): counted as lost, but a measurement fault, not network loss";
    }

    /** Step 5: the test session under the control watch; @return its outcome, or null when control failed */
    private SessionOutcome test(ControlClient control, UdpSocket socket, InetSocketAddress reflector, byte[] sid,
                                ScheduleSlot[] slots, TestSessionKeys keys, SessionDataWriter writer, Timing timing,
                                SessionDataFile file, SessionHeader header) {
        StartWait wait = awaitStart(control, timing.startTimeNtp());
        if (wait == StartWait.CONTROL_FAILED) {
            return null;
        }
        if (wait == StartWait.CANCELLED) {
            // C's worker, stopped before its first packet, finishes its file normally: "0 sent", exit 0
            try {
                writer.finish(true);
            } catch (IOException e) {
                run.diag("OWPWriteTWDataRecord(): " + strerror(e));
                return SessionOutcome.DATA_FILE_FAILED;
            }
            return SessionOutcome.CANCELLED;
        }
        UdpSocket sendSocket = TestSocketSetup.openSplitSender(socket, reflector, run.options);
        try {
            return runSession(control, socket, sendSocket, reflector, sid, slots, keys, writer, timing, file, header);
        } finally {
            if (sendSocket != null) {
                sendSocket.close();
            }
        }
    }

    private SessionOutcome runSession(ControlClient control, UdpSocket socket, UdpSocket sendSocket,
                                      InetSocketAddress reflector, byte[] sid, ScheduleSlot[] slots, TestSessionKeys keys,
                                      SessionDataWriter writer, Timing timing, SessionDataFile file, SessionHeader header) {
        TwpingOptions.Test test = run.test();
        TwpingOptions.Extras extras = run.options.extras();
        ClockErrorEstimate errors = ClockErrorEstimate.of(extras.assumeSynchronised(), extras.esterrorMicros());
        ClientTestSession s = new ClientTestSession(new ClientTestSession.Parameters(reflector,
                new SendSchedule(sid, slots, test.packetCount()), test.packetCount(), test.paddingBytes(),
                timing.startTimeNtp(), timing.lossTimeoutNtp(), extras.spinNs(),
                extras.kernelSendStamps()), socket, sendSocket, control.mode(), keys, writer, run.clock, errors,
                run::diag);
        s.cpus(extras.cpus()).rtPriority(extras.rtPriority());
        session = s;
        ResultRun.prepare(results, s);
        s.start();
        ResultRun.startLive(results, file.channel(), header, writer, s, run.clock,
                StartTimes.sessionDurationSeconds(test.packetCount(), slots, NtpTime.toDouble(timing.lossTimeoutNtp()),
                        timing.rttBoundNtp()));
        if (run.cancelled()) {
            s.cancelAndWake();
        }
        if (ControlWatch.watch(run, control, s)) {
            s.cancelAndWake();
            ControlWatch.awaitQuietly(s);
            return null;
        }
        reportKernelDrops(socket, s);
        return s.outcome();
    }

    /**
     * Step 6: statistics from the data file (docs/STATISTICS.md); their failures do not change the status.
     * Then the result outputs (docs/CLI.md, result outputs).
     *
     * @return false when a result output could not be written
     */
    private boolean report(SessionDataFile file, SessionHeader header, InetAddress localAddress) {
        stopResults();                                  // the progress line is erased before the summary
        ReportPreparation prepared = preparation != null ? preparation
                : ReportPreparation.start(run, file, header, localAddress);
        HostInfo hosts = prepared.hosts();
        StopTrace.mark("hosts");
        Reports.writeChannel(Outputs.of(run.options, run.program), file.channel(), hosts, prepared.deltas(),
                run.out, run.err,
                markSummaryPrinted);  // before the data file's mapping is released (milliseconds)
        run.out.flush();
        summaryPrinted = true;
        StopTrace.mark("summary");
        boolean written = ResultRun.finish(results, run.options, file.channel(), session, hosts, run.err, run.program);
        StopTrace.mark("results");
        if (reportSink != null) {
            reportSink.onSummary(file.channel(), header);
        }
        return written;
    }

    private void stopResults() {
        if (results != null) {
            results.stopLive();
        }
    }

    static String strerror(IOException e) {
        if (e instanceof SocketException se) {
            String m = se.getMessage();
            return m.substring(Math.min(m.length(), se.call().length() + 2));  // "call: text" -> "text"
        }
        return Reports.strerror(e);
    }
}
