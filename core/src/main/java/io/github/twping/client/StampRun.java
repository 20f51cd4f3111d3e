package io.github.twping.client;

import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.github.twping.ffm.UdpSocket;
import io.github.twping.net.AddressText;
import io.github.twping.report.owamp.HostInfo;
import io.github.twping.report.owamp.Reports;
import io.github.twping.report.extended.ResultOutputs;
import io.github.twping.report.extended.StampReflectorStamps;
import io.github.twping.report.extended.StampTlvAnalysis;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.schedule.StartTimes;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.SplitTestSocket;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.session.SessionOutcome;
import io.github.twping.protocol.StampLayouts;
import io.github.twping.stamp.StampSenderSession;
import io.github.twping.stamp.StampSenderSpec;
import io.github.twping.stamp.StampTelemetry;
import io.github.twping.stamp.StampSenderWarmUp;
import io.github.twping.session.WarmUpPlan;
import io.github.twping.stamp.TaiOffset;
import io.github.twping.stamp.TimestampFormat;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;
import io.github.twping.time.StopTrace;
import io.github.twping.time.WallClock;
import io.github.twping.ffm.SocketException;
import io.github.twping.stamp.ClockSyncSource;

/**
 * One {@code twping --stamp} or {@code twping --light} measurement (docs/STAMP.md): no control connection; the
 * reflector's address and port (default 862) come from the option, the session data file, the test socket, the
 * session engine and the reports are those of a TWAMP run ({@link TwampRun}), so {@code -M}, {@code -R},
 * {@code -v} and the summary read the same. The loss timeout without {@code -L} is 2 s (no control round trip to
 * add); the first packet leaves 1 s after start, or after {@code -z}.
 */
public final class StampRun {
    private final RunContext run;
    private final Path tempDirectory;
    private final TwampRun.ReportSink reportSink;
    private volatile ClientTestSession session;
    private volatile boolean summaryPrinted;
    private final Runnable markSummaryPrinted = () -> summaryPrinted = true;
    /** The report's preparation during the wait for the start time (as {@link TwampRun}'s); null before it. */
    private volatile ReportPreparation preparation;

    /**
     * @param reportSink receives the summary numbers for the CI gates (may be null)
     */
    public StampRun(TwpingOptions options, PrintStream out, PrintStream err, String program, WallClock clock,
                    TwampRun.ReportSink reportSink, Path tempDirectory) {
        this.run = new RunContext(options, out, err, program, clock);
        this.reportSink = reportSink;
        this.tempDirectory = tempDirectory;
    }

    /**
     * Stops the run from another thread (a signal): partial results are printed. As {@link TwampRun#cancel}: the
     * sender leaves its wait for the next send time at once ({@link ClientTestSession#cancel}) and the receiver's
     * socket is woken, so the receiver does not wait for the end of its receive tick.
     */
    public void cancel() {
        run.cancel();
        ClientTestSession s = session;
        if (s != null) {
            s.cancelAndWake();   // the receiver would notice a plain cancel only at its next wake-up
        }
    }

    /** @return true once the summary (partial or not) has been written to stdout; any thread. */
    public boolean summaryPrinted() {
        return summaryPrinted;
    }

    /** @return the running session (null before it is made); tests */
    ClientTestSession session() {
        return session;
    }

    /**
     * @return the deltas of the send schedule the summary's statistics took one by one (-1 before the summary): after
     *         a stop, the end of the schedule comes from its sum taken in the wait for the start time (tests)
     */
    long reportDeltasWalked() {
        ReportPreparation p = preparation;
        return p == null ? -1 : p.reportDeltasWalked();
    }

    /** Runs the measurement; never throws for network or user errors; @return the exit status. */
    public int execute() {
        TwpingOptions.Test test = run.test();
        HostPort target = run.options.testAddress();
        int port = AddressResolver.parseService(target.serviceOr(Integer.toString(StampLayouts.DEFAULT_PORT)));
        InetSocketAddress reflector;
        InetAddress local;
        try {
            if (port <= 0) {
                throw new UnknownHostException(target.typed());
            }
            List<InetAddress> addresses = AddressResolver.controlAddresses(target.node(),
                    run.options.connection().family());
            if (addresses.isEmpty()) {
                throw new UnknownHostException(target.typed());
            }
            reflector = new InetSocketAddress(AddressText.unmapped(addresses.get(0)), port);
            local = localAddress(reflector);
        } catch (UnknownHostException e) {
            return run.fail("getaddrinfo(): " + target.typed() + ": Name or service not known", "Session Failed!");
        }
        if (local == null) {
            return run.fail("no source address for " + target.typed(), "Session Failed!");
        }
        long lossTimeoutNtp = StartTimes.lossTimeoutNtp(test.lossTimeoutSeconds(), 0);
        double lossSeconds = StartTimes.lossTimeoutSeconds(test.lossTimeoutSeconds(), 0);
        float bucketWidth = run.options.output().bucketWidthSeconds();
        if (lossSeconds < bucketWidth) {
            return run.fail(String.format(Locale.ROOT,
                    "Invalid test specification: LossThreshold(%f) '-L' < BucketWidth (%f) '-b'",
                    lossSeconds, (double) bucketWidth));
        }
        if (run.cancelled()) {
            return TwampRun.EXIT_INTERRUPTED;
        }
        SessionDataFile file = SessionDataFile.open(run, tempDirectory);
        if (file == null) {
            return TwampRun.EXIT_FAILURE;
        }
        try (file) {
            UdpSocket socket;
            try {
                socket = TestSocketSetup.open(local, run.options);
            } catch (SocketException e) {
                return run.fail("bind([" + local.getHostAddress() + "]:" + test.portRange().low() + "): "
                        + TwampRun.strerror(e), "Session Failed!");
            }
            try (socket) {
                // one SplitTestSocket over the two (docs/CLIENT.md, "Two sockets"), or the test socket alone
                UdpSocket sender = TestSocketSetup.openSplitSender(socket, reflector, run.options);
                UdpSocket split = sender == null ? null : new SplitTestSocket(socket, sender);
                try {
                    return measure(file, split != null ? split : socket, reflector, lossTimeoutNtp);
                } finally {
                    if (split != null) {
                        split.close();
                    }
                }
            }
        }
    }

    /** The source address the kernel routes to {@code reflector} with (-S when given); no packet is sent. */
    private InetAddress localAddress(InetSocketAddress reflector) throws UnknownHostException {
        String source = run.options.connection().sourceAddress();
        if (source != null) {
            return AddressResolver.sourceAddress(source, reflector.getAddress());
        }
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(reflector);
            InetAddress a = probe.getLocalAddress();
            return a == null || a.isAnyLocalAddress() ? null : AddressText.unmapped(a);
        } catch (IOException e) {
            return null;
        }
    }

    private int measure(SessionDataFile file, UdpSocket socket, InetSocketAddress reflector, long lossTimeoutNtp) {
        TwpingOptions.Test test = run.test();
        TwpingOptions.Stamp stamp = run.options.stamp();
        InetSocketAddress local = new InetSocketAddress(AddressText.unmapped(socket.localAddress().getAddress()),
                socket.localAddress().getPort());
        byte[] sid = new byte[16];
        new SecureRandom().nextBytes(sid);
        ScheduleSlot[] slots = test.scheduleSlots();
        long startTimeNtp = StartTimes.startTimeNtp(run.clock.nowNtp(), 0, test.startDelaySeconds(),
                file.isSaved());
        int ipvn = reflector.getAddress() instanceof Inet6Address ? 6 : 4;
        StampSenderSpec spec = null;
        int padding = test.paddingBytes();
        StampTelemetry telemetry = null;
        int taiSeconds = 0;
        if (stamp.protocol() == TwpingOptions.TestProtocol.STAMP) {
            taiSeconds = TaiOffset.kernel();             // PTP-format stamps, ours or the reflector's, are TAI
            if (stamp.ptp() && taiSeconds == 0) {
                run.err.print(run.program + ": " + TaiOffset.UNKNOWN_NOTE + "\n");
            }
            spec = new StampSenderSpec(stamp.authenticated(),
                    stamp.authenticated() ? run.options.connection().passphrase() : null,
                    stamp.ptp() ? TimestampFormat.PTP : TimestampFormat.NTP, stamp.ssid(), padding, stamp.tlvs(),
                    stamp.ecn(), taiSeconds);
            padding = spec.tlvBytes();
            if (stamp.tlvs().any()) {
                telemetry = new StampTelemetry(test.packetCount(), stamp.tlvs());
            }
        }
        SessionHeader header = SessionDataFile.header(sid, ipvn, local, reflector, test, startTimeNtp,
                lossTimeoutNtp, slots);
        SessionDataWriter writer = file.startWriter(run, header);
        if (writer == null) {
            if (test.packetCount() == 0) {
                run.diag("Invalid test distribution parameters");
            }
            return run.fail("Session Failed!");
        }
        if (run.cancelled()) {
            return TwampRun.EXIT_INTERRUPTED;
        }
        printApproximately(slots, startTimeNtp, lossTimeoutNtp);
        ReportPreparation prepared = ReportPreparation.start(run, file, header, local.getAddress());
        preparation = prepared;
        ResultOutputs results = ResultRun.create(run.options, run.program, run.stdout, run.err);
        run.progressLine(results);
        if (results != null) {
            results.protocol(ResultRun.protocolName(run.options), StampTlvReport.packetSources(telemetry, stamp.tlvs()));
            results.reflectorStamps(StampReflectorStamps.of(telemetry, stamp.tlvs(), false),
                    StampReflectorStamps.of(telemetry, stamp.tlvs(), true));
        }
        TwpingOptions.Extras extras = run.options.extras();
        ClockErrorEstimate errors = ClockErrorEstimate.of(extras.assumeSynchronised(), extras.esterrorMicros());
        SendSchedule schedule = new SendSchedule(sid, slots, test.packetCount());
        long spinNs = extras.spinNs();
        ClientTestSession s = spec != null
                ? StampSenderSession.create(socket, reflector, spec, schedule, test.packetCount(), startTimeNtp,
                lossTimeoutNtp, spinNs, writer, run.clock, errors, run::diag, telemetry)
                : StampSenderSession.createLight(socket, reflector, padding, schedule, test.packetCount(),
                startTimeNtp, lossTimeoutNtp, spinNs, writer, run.clock, errors, run::diag,
                stamp.authenticated() ? run.options.connection().passphrase() : null);
        s.cpus(extras.cpus()).rtPriority(extras.rtPriority());
        session = s;
        // compile the engine while the start time approaches, as much as the session needs; the threads start
        // WarmUpPlan.STOP_BEFORE_START_NS before it (docs/STAMP.md)
        StampSenderWarmUp.Sender warm = spec != null ? StampSenderWarmUp.Sender.stamp(spec, telemetry != null)
                : StampSenderWarmUp.Sender.light(padding,
                        stamp.authenticated() ? run.options.connection().passphrase() : null);
        long startNanos = System.nanoTime() + NtpTime.signedDurationToNanos(startTimeNtp - run.clock.nowNtp());
        StampSenderWarmUp.Running warming = StampSenderWarmUp.beforeSession(warm, reflector.getAddress(), spinNs,
                run.options.extras().kernelSendStamps(), WarmUpPlan.packets(test.packetCount(), slots), startNanos,
                run::cancelled);
        // the report's preparation in the same wait, in steps of at most ReportPreparation.SLICE_NS (bounded: each
        // step advances the schedule's sum or the warming pass, and none is taken in the last RESERVE_NS)
        long prepareEndNs = WarmUpPlan.endNanoTime(startNanos);
        while (!run.cancelled() && prepared.step(prepareEndNs - System.nanoTime())) {
            // next step
        }
        warming.awaitStart();
        ResultRun.prepare(results, s);
        s.start();
        ResultRun.startLive(results, file.channel(), header, writer, s, run.clock,
                StartTimes.sessionDurationSeconds(test.packetCount(), slots, NtpTime.toDouble(lossTimeoutNtp), 0));
        if (run.cancelled()) {
            s.cancelAndWake();
        }
        try {
            while (!s.await(TimeUnit.MILLISECONDS.toNanos(200))) {
                if (run.cancelled()) {
                    s.cancelAndWake();
                }
            }
            StopTrace.mark("session-ended");
            s.join(5_000);
            StopTrace.mark("threads-joined");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            s.cancelAndWake();
            stopResults(results);
            return TwampRun.EXIT_INTERRUPTED;
        }
        SessionOutcome outcome = s.outcome();
        boolean ptpEvidence = telemetry != null && stamp.tlvs().timestampInformation()
                && ClockSyncSource.detect();   // after the session: off its threads' way
        if (outcome == SessionOutcome.SEND_FAILED || outcome == SessionOutcome.RECEIVE_FAILED
                || outcome == SessionOutcome.DATA_FILE_FAILED) {
            stopResults(results);
            run.diag("Test session(s) Failed...");
            file.discard();
            return TwampRun.EXIT_FAILURE;
        }
        stopResults(results);                           // the progress line is erased before the summary
        HostInfo hosts = prepared.hosts();
        StopTrace.mark("hosts");
        Reports.writeChannel(Outputs.of(run.options, run.program), file.channel(), hosts, prepared.deltas(),
                run.out, run.err, markSummaryPrinted);  // before the data file's mapping is released
        run.out.flush();
        summaryPrinted = true;
        StopTrace.mark("summary");
        if (results != null && telemetry != null && results.showsStampTlvs()) {
            try {
                results.stampTlvs(StampTlvAnalysis.results(file.channel(), s.recordSources(), telemetry, stamp.tlvs(),
                        test.dscp(), stamp.ecn(), ptpEvidence, null));
            } catch (IOException e) {
                run.diag("TLV results: " + Reports.strerror(e));
            }
        }
        boolean ptpReplies = spec != null && s.counters().ptpReplies() > 0;
        if (spec != null && spec.format() != TimestampFormat.PTP && ptpReplies && spec.taiSeconds() == 0) {
            run.err.print(run.program + ": " + TaiOffset.REPLY_NOTE + "\n");
        }
        if (results != null && spec != null && (spec.format() == TimestampFormat.PTP || ptpReplies)) {
            results.ptpTaiOffset(spec.taiSeconds());
        }
        boolean written = ResultRun.finish(results, run.options, file.channel(), s, hosts, run.err, run.program);
        if (telemetry != null && !run.options.output().quiet()) {
            try {
                StampTlvReport.write(run.out, file.channel(), s.recordSources(), telemetry, stamp.tlvs(),
                        test.dscp(), stamp.ecn(), ptpEvidence, stamp.tlvPackets());
            } catch (IOException e) {
                run.diag("TLV report: " + e.getMessage());
            }
        }
        if (reportSink != null) {
            reportSink.onSummary(file.channel(), header);
        }
        return written ? TwampRun.EXIT_OK : ResultOutputs.EXIT_OUTPUT_FAILED;
    }

    private static void stopResults(ResultOutputs results) {
        if (results != null) {
            results.stopLive();
        }
    }

    private void printApproximately(ScheduleSlot[] slots, long startTimeNtp, long lossTimeoutNtp) {
        if (run.options.output().quiet()) {
            return;
        }
        double duration = StartTimes.sessionDurationSeconds(run.test().packetCount(), slots,
                NtpTime.toDouble(lossTimeoutNtp), 0);
        double secs = StartTimes.secondsUntilResults(startTimeNtp, run.clock.nowNtp(), duration);
        run.out.print(run.texts().approximately(secs));
        run.out.flush();
    }
}
