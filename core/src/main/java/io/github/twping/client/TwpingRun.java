package io.github.twping.client;

import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.github.twping.cli.HostPort;
import io.github.twping.cli.TwpingOptions;
import io.github.twping.control.ControlActivity;
import io.github.twping.control.ControlClient;
import io.github.twping.control.ControlClientOptions;
import io.github.twping.control.ControlException;
import io.github.twping.control.SessionAcceptance;
import io.github.twping.control.SessionRequest;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.ffm.AddressInUseException;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.report.HostInfo;
import io.github.twping.report.Reports;
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

/**
 * One twping measurement with the C client's semantics (spec sections 2-8): control connection, test
 * socket, session request, test, Stop-Sessions, then the statistics from the session data file.
 *
 * <p>Returns the C exit status; prints what the C client prints (diagnostics on {@code err} prefixed with
 * the program name). Cancellable from another thread with {@link #cancel()}: before the test starts the
 * run ends with status 2, during the test the partial results are printed and the status is 0.
 */
public final class TwpingRun {
    /** Exit status: success. */
    public static final int EXIT_OK = 0;
    /** Exit status: failure. */
    public static final int EXIT_FAILURE = 1;
    /** Exit status: interrupted before the test. */
    public static final int EXIT_INTERRUPTED = 2;
    /** Exit status: a {@code --max-loss}/{@code --max-median-rtt} gate was exceeded. */
    public static final int EXIT_GATE_FAILED = 3;

    private static final long WATCH_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final String SESSION_FAILED = "Session Failed!";
    private static final String TEST_FAILED = "Test session(s) Failed...";

    private final TwpingOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final String program;
    private final WallClock clock;
    private final ReportSink reportSink;
    private final Path tempDirectory;
    private final RunTexts texts;

    private volatile boolean cancelled;
    private volatile ClientTestSession session;
    private volatile ControlClient control;
    private final io.github.twping.control.ControlCancellation controlCancellation =
            new io.github.twping.control.ControlCancellation();

    /**
     * @param options    the parsed options
     * @param out        standard output (results)
     * @param err        standard error (diagnostics)
     * @param program    program name for diagnostics ({@code twping})
     * @param clock      the wall clock (with any {@code OWAMP_DEBUG_TIMEOFFSET})
     * @param reportSink receives the summary numbers for the CI gates (may be null)
     * @param tempDirectory where the anonymous session data file is created when there is no {@code -F}
     */
    public TwpingRun(TwpingOptions options, PrintStream out, PrintStream err, String program, WallClock clock,
                     ReportSink reportSink, Path tempDirectory) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.program = program;
        this.clock = clock;
        this.reportSink = reportSink;
        this.tempDirectory = tempDirectory;
        this.texts = RunTexts.of(Outputs.of(options, program).language());
    }

    /** Receives what the statistics pass computed, for the regression gates. */
    @FunctionalInterface
    public interface ReportSink {
        void onSummary(FileChannel dataFile, SessionHeader header);
    }

    /**
     * Stops the run from another thread (Ctrl-C): during the test gracefully (partial results); before it, a
     * blocked control connect, read or write fails at once, as the signal's EINTR does in C (docs/CLI.md).
     */
    public void cancel() {
        cancelled = true;
        ClientTestSession s = session;
        if (s != null) {
            s.cancel();
            return;
        }
        controlCancellation.cancel();
        ControlClient c = control;
        if (c != null && session == null) {
            c.abort();
        }
    }

    private void diag(String line) {
        err.println(program + ": " + texts.line(line));
    }

    /** Runs the measurement; never throws for network or user errors. */
    public int execute() {
        TwpingOptions.Connection conn = options.connection();
        TwpingOptions.Test test = options.test();
        HostPort server = options.serverAddress();

        // 1. Control connection (RFC 4656 §3.1).
        ControlClient client;
        try {
            client = connect(server, conn);
        } catch (ControlException e) {
            e.lines().forEach(this::diag);
            diag("Unable to open control connection to " + server.typed() + ".");
            return EXIT_FAILURE;
        } catch (UnknownHostException e) {
            diag("getaddrinfo(): Name or service not known");
            diag("Unable to open control connection to " + server.typed() + ".");
            return EXIT_FAILURE;
        }
        control = client;
        try {
            return runSession(client, test);
        } finally {
            client.close();
        }
    }

    private ControlClient connect(HostPort server, TwpingOptions.Connection conn)
            throws ControlException, UnknownHostException {
        int port = parseService(server.serviceOr(HostPort.DEFAULT_CONTROL_PORT));
        if (port < 0) {
            throw new UnknownHostException(server.typed());
        }
        InetAddress[] resolved = HostPort.resolve(server.node());
        List<InetAddress> addresses = new ArrayList<>();
        boolean v4 = conn.family() != TwpingOptions.AddressFamily.IPV6_ONLY;
        boolean v6 = conn.family() != TwpingOptions.AddressFamily.IPV4_ONLY;
        for (InetAddress a : resolved) {
            if (a instanceof Inet6Address && v6) {
                addresses.add(a);
            }
        }
        for (InetAddress a : resolved) {
            if (a instanceof Inet4Address && v4) {
                addresses.add(a);
            }
        }
        if (addresses.isEmpty()) {
            throw new ControlException(io.github.twping.control.ControlStage.OPEN_CONNECTION,
                    ControlException.NO_ACCEPT_CODE, List.of());
        }
        ControlClientOptions o = ControlClientOptions.of(server.node(), port).addresses(addresses)
                .requestedModes(conn.modeMask()).ipv4Only(!v6).ipv6Only(!v4);
        if (conn.identity() != null && conn.passphrase() != null) {
            o.identity(conn.keyIdBytes(), conn.passphrase());
        }
        if (conn.sourceAddress() != null) {
            InetAddress source = sourceAddress(conn.sourceAddress(), addresses.get(0));
            if (source == null) {
                throw new ControlException(io.github.twping.control.ControlStage.OPEN_CONNECTION,
                        ControlException.NO_ACCEPT_CODE,
                        List.of("getaddrinfo(): " + conn.sourceAddress() + ": Name or service not known"));
            }
            o.bindAddress(source);
        }
        o.cancellation(controlCancellation);
        double timeout = options.extras().controlTimeoutSeconds();
        if (timeout > 0) {
            int ms = (int) Math.min(Integer.MAX_VALUE, Math.round(timeout * 1000));
            o.connectTimeoutMs(ms).readTimeoutMs(ms);
        }
        return ControlClient.connect(o);
    }

    /** -S: an interface name (first address of the server's family) or an address. */
    private static InetAddress sourceAddress(String source, InetAddress serverAddress) {
        try {
            NetworkInterface nif = NetworkInterface.getByName(source);
            if (nif != null) {
                Enumeration<InetAddress> e = nif.getInetAddresses();
                while (e.hasMoreElements()) {
                    InetAddress a = e.nextElement();
                    if (a.getClass() == serverAddress.getClass()) {
                        return a;
                    }
                }
            }
        } catch (SocketException ignored) {
            // not an interface name
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(source)) {
                if (a.getClass() == serverAddress.getClass()) {
                    return a;
                }
            }
        } catch (UnknownHostException ignored) {
            // reported by the caller
        }
        return null;
    }

    private static int parseService(String service) {
        try {
            int p = Integer.parseInt(service.trim());
            return p >= 0 && p <= 65535 ? p : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private int runSession(ControlClient client, TwpingOptions.Test test) {
        TwpingOptions.Output output = options.output();
        long rttBoundNtp = client.rttBoundNtp();
        long lossTimeoutNtp = StartTimes.lossTimeoutNtp(test.lossTimeoutSeconds(), rttBoundNtp);
        double lossSeconds = StartTimes.lossTimeoutSeconds(test.lossTimeoutSeconds(), rttBoundNtp);
        if (lossSeconds < output.bucketWidthSeconds()) {
            diag(String.format(Locale.ROOT, "Invalid test specification: LossThreshold(%f) '-L' < BucketWidth (%f) '-b'",
                    lossSeconds, (double) output.bucketWidthSeconds()));
            return EXIT_FAILURE;
        }
        if (cancelled) {
            return EXIT_INTERRUPTED;
        }

        // 2. The session data file: -F or an anonymous temporary file (Appendix B).
        Path saveFile = test.saveFile() == null ? null : Path.of(test.saveFile());
        FileChannel channel;
        try {
            channel = saveFile != null
                    ? FileChannel.open(saveFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.READ, StandardOpenOption.TRUNCATE_EXISTING)
                    : SessionDataWriter.openAnonymousTempFile(tempDir());
        } catch (IOException e) {
            diag(saveFile != null ? "fopen(" + test.saveFile() + "): " + strerror(e) : "mkstemp(" + tempDir().resolve("owamp.XXXXXX") + "): " + strerror(e));
            return EXIT_FAILURE;
        }
        try {
            return runWithDataFile(client, test, channel, saveFile, lossTimeoutNtp, rttBoundNtp);
        } finally {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing to add
            }
        }
    }

    private Path tempDir() {
        return tempDirectory;
    }

    /** @return the directory of the anonymous data file: {@code $TMPDIR}, else {@code /tmp} (docs/CLI.md). */
    public static Path tempDirectory(java.util.Map<String, String> environment) {
        String tmp = environment.get("TMPDIR");
        return Path.of(tmp == null || tmp.isEmpty() ? "/tmp" : tmp);
    }

    private int runWithDataFile(ControlClient client, TwpingOptions.Test test, FileChannel channel, Path saveFile,
                                long lossTimeoutNtp, long rttBoundNtp) {
        TwpingOptions.Output output = options.output();
        long startTimeNtp = StartTimes.startTimeNtp(clock.nowNtp(), rttBoundNtp, test.startDelaySeconds(),
                saveFile != null);

        // 3. The local test socket: the control connection's local address, a port from -P (RFC 5357 §3.5).
        InetAddress localAddress = unmapped(client.localAddress().getAddress());
        UdpSocket socket;
        try {
            socket = openTestSocket(localAddress, test);
        } catch (io.github.twping.ffm.SocketException e) {
            if (e instanceof AddressInUseException) {
                diag("Full port range exhausted");
            }
            diag("bind([" + localAddress.getHostAddress() + "]:" + test.portRange().low() + "): " + strerror(e));
            diag("Test failed");
            diag(SESSION_FAILED);
            return EXIT_FAILURE;
        }
        try {
            return runWithSocket(client, test, channel, saveFile, socket, localAddress, startTimeNtp,
                    lossTimeoutNtp, rttBoundNtp, output);
        } finally {
            socket.close();
        }
    }

    private UdpSocket openTestSocket(InetAddress localAddress, TwpingOptions.Test test)
            throws io.github.twping.ffm.SocketException {
        int low = test.portRange().low();
        int high = test.portRange().high();
        int first = test.portRange().isEphemeral() ? 0 : test.portRange().firstCandidate(new SecureRandom().nextInt());
        int frame = 48 + test.paddingBytes() + 112 + 128;
        UdpSocketOptions.Builder b = UdpSocketOptions.builder().bindAddress(localAddress)
                .portRange(low, high, first).unicastTtl(255).receiveTtl(true)
                .receiveBufferBytes(Math.max(4 << 20, frame * 64)).sendBufferBytes(Math.max(4 << 20, frame * 64))
                .timestamping(Timestamping.RX_TX_SOFTWARE);
        if (test.dscp() != 0) {
            b.tos(test.dscp() << 2);
        }
        if (options.connection().bindInterface() != null) {
            b.bindToDevice(options.connection().bindInterface());
        }
        return UdpSocket.open(b.build());
    }

    private int runWithSocket(ControlClient client, TwpingOptions.Test test, FileChannel channel, Path saveFile,
                              UdpSocket socket, InetAddress localAddress, long startTimeNtp, long lossTimeoutNtp,
                              long rttBoundNtp, TwpingOptions.Output output) {
        int localPort = socket.localAddress().getPort();
        InetAddress reflectorAddress;
        try {
            reflectorAddress = testAddress(localAddress);
        } catch (UnknownHostException e) {
            diag("getaddrinfo(): Name or service not known");
            diag(SESSION_FAILED);
            return EXIT_FAILURE;
        }
        if (reflectorAddress == null) {
            diag("OWPSessionRequest called with incompatible addresses");
            diag(SESSION_FAILED);
            return EXIT_FAILURE;
        }
        int ipvn = localAddress instanceof Inet6Address ? 6 : 4;
        boolean zero = options.connection().zeroAddresses();
        SessionRequest request = SessionRequest.forTwping(ipvn, zero ? null : localAddress, localPort,
                zero ? null : reflectorAddress, localPort, test.paddingBytes(), startTimeNtp, lossTimeoutNtp,
                test.dscp() << 24);
        if (cancelled) {
            return EXIT_INTERRUPTED;
        }
        SessionAcceptance acceptance;
        try {
            acceptance = client.requestSession(request);
        } catch (ControlException e) {
            e.lines().forEach(this::diag);
            diag(SESSION_FAILED);
            return EXIT_FAILURE;
        }
        if (acceptance.acceptCode() != 0) {
            diag("Server denied test: " + client.serverIp());
            diag(SESSION_FAILED);
            return EXIT_FAILURE;
        }
        byte[] sid = acceptance.sid();
        int modeBits = client.mode().bits();
        TestSessionKeys keys = client.deriveFromSessionKeys((aes, hmac) -> TestSessionKeys.derive(sid, aes, hmac));
        ScheduleSlot[] slots = test.scheduleSlots();
        SessionHeader header = header(sid, ipvn, localAddress, localPort, reflectorAddress, acceptance.port(),
                test, startTimeNtp, lossTimeoutNtp, slots);
        InetSocketAddress reflector = new InetSocketAddress(reflectorAddress, acceptance.port());

        SessionDataWriter writer = null;
        if (test.packetCount() > 0) {
            try {
                writer = SessionDataWriter.onChannel(channel, header, SessionDataWriter.DEFAULT_BATCH_RECORDS);
            } catch (IOException e) {
                diag("run_tw_test: Unable to write data file header");
            }
        }
        if (cancelled) {
            return EXIT_INTERRUPTED;
        }
        try {
            client.startSessions();
        } catch (ControlException e) {
            e.lines().forEach(this::diag);
            diag(SESSION_FAILED);
            return EXIT_FAILURE;
        }
        if (!output.quiet()) {
            double duration = StartTimes.sessionDurationSeconds(test.packetCount(), slots,
                    NtpTime.toDouble(lossTimeoutNtp), rttBoundNtp);
            double secs = StartTimes.secondsUntilResults(startTimeNtp, clock.nowNtp(), duration);
            out.print(texts.approximately(secs));
            out.flush();
        }

        SessionOutcome outcome;
        if (writer == null) {
            // -c 0 (or an unwritable data file): the C worker fails at once (docs/CLI.md -c, 8.4).
            if (test.packetCount() == 0) {
                diag("Invalid test distribution parameters");
                diag("run_tw_test: Unable to write data file header");
            }
            outcome = SessionOutcome.DATA_FILE_FAILED;
        } else {
            ClockErrorEstimate errors = ClockErrorEstimate.of(options.extras().assumeSynchronised(),
                    options.extras().esterrorMicros());
            ClientTestSession s = new ClientTestSession(new ClientTestSession.Parameters(reflector,
                    new SendSchedule(sid, slots, test.packetCount()), test.packetCount(), test.paddingBytes(),
                    startTimeNtp, lossTimeoutNtp, TimeUnit.MICROSECONDS.toNanos(options.extras().spinMicros()),
                    true), socket, modeBits, keys, writer, clock, errors, this::diag);
            session = s;
            s.start();
            if (cancelled) {
                s.cancel();
            }
            boolean controlFailed = watch(client, s);
            if (controlFailed) {
                s.cancel();
                awaitQuietly(s);
                diag(TEST_FAILED);
                deleteQuietly(saveFile);
                return EXIT_FAILURE;
            }
            outcome = s.outcome();
        }
        try {
            client.stopSessions(outcome.stopSessionsAccept());
        } catch (ControlException e) {
            diag(TEST_FAILED);
            deleteQuietly(saveFile);
            return cancelled ? EXIT_INTERRUPTED : EXIT_FAILURE;
        }
        client.close();

        // 4. Statistics from the data file (docs/STATISTICS.md); their failures do not change the status (8.6).
        HostInfo hosts = hostInfo(header, localAddress);
        Reports.writeChannel(Outputs.of(options, program), channel, hosts,
                io.github.twping.stats.ScheduleDeltas.of(header), out, err);
        out.flush();
        if (reportSink != null) {
            reportSink.onSummary(channel, header);
        }
        return EXIT_OK;
    }

    /**
     * Waits for the session while watching the control connection (docs/CLI.md, exit statuses): the server closing it or
     * sending anything during the test fails the test.
     *
     * @return true when the control connection failed
     */
    private boolean watch(ControlClient client, ClientTestSession s) {
        try {
            while (!s.await(0)) {
                ControlActivity activity = client.awaitActivity(WATCH_INTERVAL_NS);
                if (activity == ControlActivity.PEER_CLOSED || activity == ControlActivity.DATA_RECEIVED) {
                    return !s.await(0);
                }
                if (activity == ControlActivity.LOCALLY_CLOSED) {
                    s.await(TimeUnit.SECONDS.toNanos(1));
                    return !s.isDone();
                }
                if (cancelled) {
                    s.cancel();
                }
            }
            s.join(TimeUnit.SECONDS.toMillis(5));
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            s.cancel();
            awaitQuietly(s);
            return false;
        }
    }

    private static void awaitQuietly(ClientTestSession s) {
        try {
            s.await(TimeUnit.SECONDS.toNanos(5));
            s.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private InetAddress testAddress(InetAddress senderAddress) throws UnknownHostException {
        InetAddress[] resolved = HostPort.resolve(options.testAddress().node());
        boolean wantV6 = senderAddress instanceof Inet6Address;
        for (InetAddress a : resolved) {
            InetAddress u = unmapped(a);
            if ((u instanceof Inet6Address) == wantV6) {
                return u;
            }
        }
        return null;
    }

    private static InetAddress unmapped(InetAddress a) {
        if (a instanceof Inet6Address v6) {
            byte[] b = v6.getAddress();
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            mapped &= b[10] == (byte) 0xff && b[11] == (byte) 0xff;
            if (mapped) {
                try {
                    return InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, 12, 16));
                } catch (UnknownHostException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return a;
    }

    private static SessionHeader header(byte[] sid, int ipvn, InetAddress sender, int senderPort,
                                        InetAddress receiver, int receiverPort, TwpingOptions.Test test,
                                        long startTimeNtp, long lossTimeoutNtp, ScheduleSlot[] slots) {
        boolean[] fixed = new boolean[slots.length];
        long[] values = new long[slots.length];
        for (int i = 0; i < slots.length; i++) {
            fixed[i] = slots[i].fixed();
            values[i] = slots[i].valueNtp();
        }
        return new SessionHeader(sid, ipvn, sender.getAddress(), senderPort, receiver.getAddress(), receiverPort,
                test.packetCount(), test.paddingBytes(), startTimeNtp, lossTimeoutNtp, test.dscp() << 24, fixed,
                values, SessionHeader.FINISHED_INCOMPLETE);
    }

    /** fromhost: reverse lookup of the local address; tohost: testaddr as typed (docs/STATISTICS.md). */
    private HostInfo hostInfo(SessionHeader header, InetAddress local) {
        HostInfo numeric = HostInfo.numericFrom(header);
        String fromHost = local.getCanonicalHostName();
        int pct = fromHost.indexOf('%');
        fromHost = pct >= 0 ? fromHost.substring(0, pct) : fromHost;
        if (fromHost.equals(local.getHostAddress())) {
            fromHost = numeric.fromAddr();
        }
        return new HostInfo(fromHost, numeric.fromServ(), numeric.fromAddr(), options.testAddress().node(),
                numeric.toServ(), numeric.toAddr());
    }


    private static void deleteQuietly(Path p) {
        if (p != null) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // best effort
            }
        }
    }

    static String strerror(IOException e) {
        if (e instanceof io.github.twping.ffm.SocketException se) {
            String m = se.getMessage();
            return m.substring(Math.min(m.length(), se.call().length() + 2));  // "call: text" -> "text"
        }
        return Reports.strerror(e);
    }

}
