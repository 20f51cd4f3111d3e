package io.github.twping.agent;

import io.github.twping.config.DscpParser;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.metrics.AgentMetrics;
import io.github.twping.metrics.FailureReason;
import io.github.twping.metrics.SessionSample;
import io.github.twping.report.extended.StampReflectorStamps;
import io.github.twping.protocol.Mode;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.schedule.StartTimes;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.SharedSender;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.session.ReceiverCounters;
import io.github.twping.session.SessionOutcome;
import io.github.twping.session.SplitTestSocket;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.stamp.StampSenderSession;
import io.github.twping.stamp.StampSenderSpec;
import io.github.twping.stamp.TaiOffset;
import io.github.twping.stamp.TimestampFormat;
import io.github.twping.stamp.StampTelemetry;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import io.github.twping.ffm.SocketException;
import java.util.EnumSet;
import java.util.Set;

/**
 * Measures one STAMP (RFC 8762) or TWAMP-Light (RFC 5357 Appendix I) target continuously: no control connection,
 * back-to-back sessions from one UDP test socket on the {@code stamp} package's Session-Sender
 * ({@link StampSenderSession}: {@link ClientTestSession} with the STAMP or open TWAMP-Test layouts, so the same
 * pacing, kernel stamps and session data file as {@code twping --stamp/--light}), each analysed by the same
 * statistics engine and recorded in the metrics with {@code protocol="stamp"} or {@code "light"}. With
 * {@code --json-stream}, a STAMP target with {@code tlv} keeps the replies' TLVs of each session in a
 * {@link StampTelemetry} (as {@code twping --stamp --tlv} does) for the {@code stamp} object of its {@code end} line.
 *
 * <p>Without a control connection nothing tells the sender that the reflector is gone: a session in which not
 * one packet was answered counts its packets (all lost) but is no completed session; it is a failure
 * ({@link FailureReason#NO_REPLY}), retried after the backoff like any other. DNS, the source address and the key file fail as for TWAMP.
 * Threads: one virtual thread, plus the session's receiver platform thread while a session runs; its packets go out
 * from the agent's one {@link SharedSender} thread.
 */
final class StampTargetRunner extends TargetLoop {
    private static final double FIRST_START_DELAY_S = 3.0;
    /** Gap between a session's end (its last loss timeout) and the next one's first packet. */
    private static final double NEXT_START_DELAY_S = 0.5;
    /** How often the loop looks at the session (its end, a stop, the interval events). */
    private static final long INTERVAL_POLL_MS = 100;
    /** TWAMP-Light padding that makes a request as long as its reply (RFC 6038): 14 + 27 = 41, 48 + 64 = 112. */
    private static final int LIGHT_SYMMETRIC_PADDING = 27;
    private static final int LIGHT_SYMMETRIC_PADDING_AUTHENTICATED = 64;
    /** Session outcomes that make the attempt a failure. */
    private static final Set<SessionOutcome> FAILING = EnumSet.of(SessionOutcome.SEND_FAILED,
            SessionOutcome.RECEIVE_FAILED, SessionOutcome.DATA_FILE_FAILED);

    private final SecureRandom random = new SecureRandom();

    private double startDelaySeconds = FIRST_START_DELAY_S;

    StampTargetRunner(TargetConfig config, AgentConfig global, AgentMetrics metrics, AgentJsonStream stream,
                         Consumer<String> log, WallClock clock, SharedSender sender) {
        super(requireConnectionless(config), global, metrics, stream, log, clock, sender);
    }

    private static TargetConfig requireConnectionless(TargetConfig config) {
        if (config.protocol().controlled()) {
            throw new IllegalArgumentException("not a connectionless protocol: " + config.protocol());
        }
        return config;
    }

    @Override
    String describe(TargetConfig cfg) {
        return cfg.name() + " (" + cfg.protocol().configName() + " " + cfg.address() + ")";
    }

    /** One socket, sessions back to back on it; @return null when ended on purpose (reload, retire), else the failure. */
    @Override
    Failure attempt(TargetConfig cfg) {
        InetAddress remote;
        try {
            remote = TwampTargetRunner.unmapped(InetAddress.getAllByName(cfg.host())[0]);
        } catch (UnknownHostException e) {
            return new Failure(FailureReason.DNS, "cannot resolve " + cfg.host(), false);
        }
        InetSocketAddress reflector = new InetSocketAddress(remote, cfg.port());
        InetAddress local = sourceAddress(reflector);
        if (local == null) {
            return new Failure(FailureReason.SOCKET, "no source address towards " + cfg.address(), false);
        }
        byte[] key = null;
        if (cfg.modeMask() == Mode.AUTHENTICATED.bits()) {
            try {
                key = TwampTargetRunner.passphrase(cfg);
            } catch (TwampTargetRunner.KeyFileException e) {
                return new Failure(FailureReason.KEY_FILE, e.getMessage(), false);
            }
            if (cfg.protocol() == Protocol.LIGHT && key.length != StampReflectorSpec.LIGHT_KEY_LENGTH) {
                int length = key.length;
                Arrays.fill(key, (byte) 0);
                return new Failure(FailureReason.KEY_FILE, cfg.keyFile() + ": the pass-phrase of '" + cfg.identity()
                        + "' has " + length + " octets; authenticated TWAMP-Light needs "
                        + StampReflectorSpec.LIGHT_KEY_LENGTH, false);
            }
        }
        UdpSocket socket;
        try {
            socket = TwampTargetRunner.openSocket(local, cfg);
        } catch (SocketException e) {
            return new Failure(FailureReason.SOCKET, "test socket: " + e.getMessage(), false);
        }
        boolean measured = false;
        // a sending socket beside the test socket, connected to the one reflector of this loop (docs/CLIENT.md,
        // "Two sockets"), the two as one socket for the session engine, as twping --stamp/--light does
        UdpSocket sending = TwampTargetRunner.sendSocket(socket, reflector, cfg);
        UdpSocket test = sending == null ? socket : new SplitTestSocket(socket, sending);
        try (socket; sending; FileChannel data = SessionDataWriter.openAnonymousTempFile(null)) {
            while (!retiring) {
                Failure f = oneSession(test, data, reflector, key, config);
                if (f != null) {
                    return new Failure(f.reason(), f.message(), measured);
                }
                measured = true;
                TargetConfig p = pending;
                if (p != null) {
                    if (!p.sameConnection(config)) {
                        return null; // new host, port, mode or key: a new socket
                    }
                    applyPending();
                }
            }
            return null;
        } catch (IOException e) {
            return new Failure(FailureReason.TEST, "session data file: " + e.getMessage(), measured);
        } finally {
            if (key != null) {
                Arrays.fill(key, (byte) 0);
            }
        }
    }

    /** The TWAMP-Light padding without {@code padding}: the symmetric size, or none. */
    static int lightDefaultPadding(StampOptions options, boolean authenticated) {
        if (!options.symmetric()) {
            return 0;
        }
        return authenticated ? LIGHT_SYMMETRIC_PADDING_AUTHENTICATED : LIGHT_SYMMETRIC_PADDING;
    }

    /** The source address the kernel routes to {@code reflector} with; no packet is sent. */
    private static InetAddress sourceAddress(InetSocketAddress reflector) {
        try (DatagramSocket probe = new DatagramSocket(null)) {
            probe.connect(reflector);
            InetAddress a = probe.getLocalAddress();
            return a == null || a.isAnyLocalAddress() ? null : TwampTargetRunner.unmapped(a);
        } catch (IOException e) {
            return null;
        }
    }

    private Failure oneSession(UdpSocket socket, FileChannel data, InetSocketAddress reflector, byte[] key,
                               TargetConfig cfg) {
        InetAddress local = TwampTargetRunner.unmapped(socket.localAddress().getAddress());
        int localPort = socket.localAddress().getPort();
        int ipvn = local instanceof Inet6Address ? 6 : 4;
        byte[] sid = new byte[16];
        random.nextBytes(sid);
        long startNtp = StartTimes.startTimeNtp(clock.nowNtp(), 0, startDelaySeconds, false);
        startDelaySeconds = NEXT_START_DELAY_S;
        long lossNtp = NtpTime.fromSeconds(cfg.lossTimeoutSeconds());
        long count = cfg.packetCount();
        StampSenderSpec spec = null;
        StampTelemetry telemetry = null;
        int padding;
        StampOptions options = cfg.stamp();
        if (cfg.protocol() == Protocol.STAMP) {
            spec = new StampSenderSpec(key != null, key, options.format(), options.ssid(),
                    Math.max(0, cfg.paddingBytes()), options.tlvs(), 0, TaiOffset.kernel());
            padding = spec.tlvBytes();
            // the end line reads it, and the delay breakdown the reflector's stamp methods and Follow-Up stamps
            if (stream != null && options.tlvs().any() || options.tlvs().timestampInformation()
                    || options.tlvs().followUpTelemetry()) {
                telemetry = new StampTelemetry(count, options.tlvs());
            }
        } else {
            padding = cfg.paddingBytes() >= 0 ? cfg.paddingBytes() : lightDefaultPadding(options, key != null);
        }
        ScheduleSlot[] slots = {new ScheduleSlot(!cfg.exponential(), NtpTime.fromSeconds(1.0 / cfg.rate()))};
        SessionHeader header = new SessionHeader(sid, ipvn, local.getAddress(), localPort,
                reflector.getAddress().getAddress(), reflector.getPort(), count, padding, startNtp, lossNtp,
                DscpParser.typeP(cfg.dscp()), new boolean[] {slots[0].fixed()}, new long[] {slots[0].valueNtp()},
                SessionHeader.FINISHED_INCOMPLETE);
        SessionDataWriter writer;
        try {
            writer = writer(data, header);
        } catch (IOException e) {
            return new Failure(FailureReason.TEST, "session data file: " + e.getMessage(), false);
        }
        List<String> diagnostics = new ArrayList<>();
        Consumer<String> diag = line -> {
            synchronized (diagnostics) {
                if (diagnostics.size() < 16) {
                    diagnostics.add(line);
                }
            }
        };
        SendSchedule schedule = new SendSchedule(sid, slots, count);
        long spinNs = TimeUnit.MICROSECONDS.toNanos(cfg.spinMicros());
        ClientTestSession s = spec != null
                ? StampSenderSession.create(socket, reflector, spec, schedule, count, startNtp, lossNtp, spinNs,
                writer, clock, ClockErrorEstimate.fromKernel(), diag, telemetry)
                : StampSenderSession.createLight(socket, reflector, padding, schedule, count, startNtp, lossNtp,
                spinNs, writer, clock, ClockErrorEstimate.fromKernel(), diag, key);
        running = s;
        prepare(s);
        s.start();
        SessionIntervals intervals = intervals(cfg, data, writer, header, s);
        if (stopping) {
            s.cancel();
        }
        try {
            while (!s.await(TimeUnit.MILLISECONDS.toNanos(INTERVAL_POLL_MS))) {
                if (intervals != null) {
                    intervals.poll();
                }
                if (stopping) {
                    s.cancel();
                }
            }
            s.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            s.cancel();
        }
        running = null;
        keepTables(s, writer);
        SessionOutcome outcome = s.outcome();
        ReceiverCounters counters = s.counters();
        metrics.recordBadReplies(cfg.name(), counters.tooShort(), counters.badHmac(), counters.foreign(),
                counters.malformed());
        if (spec != null) {
            metrics.recordPtpTaiOffset(cfg.name(), spec.format() == TimestampFormat.PTP || counters.ptpReplies() > 0,
                    spec.taiSeconds());
        }
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
        boolean unanswered = completed && sample.sent() > 0 && sample.received() == 0;
        if (unanswered) {
            metrics.recordUnansweredSession(cfg.name(), sample);
        } else {
            SessionAnalysis.Breakdown inputs = new SessionAnalysis.Breakdown(s.recordSources(), s.recordStamps(),
                    StampReflectorStamps.of(telemetry, options.tlvs(), false));
            metrics.recordSession(cfg.name(), sample, rec -> SessionAnalysis.breakdown(data, s.sentCount(),
                    s.skippedCount(), inputs, rec));
        }
        if (intervals != null) {
            intervals.finish();
        }
        if (stream != null) {
            stream.session(cfg, data, s.recordSources(), telemetry);
        }
        if (unanswered) {
            return new Failure(FailureReason.NO_REPLY, "no reply to any of the " + sample.sent() + " packets", false);
        }
        if (completed) {
            sessionsDone++;
        }
        return null;
    }
}
