package io.github.twping.testing.perf;

import io.github.twping.control.ControlClient;
import io.github.twping.control.ControlClientOptions;
import io.github.twping.control.SessionAcceptance;
import io.github.twping.control.SessionRequest;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.protocol.Mode;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.server.EmbeddedServer;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.session.ReceiverCounters;
import io.github.twping.session.SessionOutcome;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs one open-mode TWAMP test session of our client ({@link ClientTestSession}, the engine twping uses)
 * against an in-process {@link EmbeddedServer} on 127.0.0.1, and reads the RTTs back from its session
 * data file.
 */
public final class LoopbackSessionRun {
    private static final int PADDING_BYTES = 27;
    private static final int SOCKET_BUFFER_BYTES = 4 << 20; // as twping (client) and twampd (reflector)
    private static final long SAMPLE_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final double START_DELAY_SECONDS = 0.5;

    private final EmbeddedServer server;
    private final PrintStream diagnostics;

    /** Runs sessions against {@code server}; the client's diagnostic lines go to {@code diagnostics}. */
    public LoopbackSessionRun(EmbeddedServer server, PrintStream diagnostics) {
        this.server = server;
        this.diagnostics = diagnostics;
    }

    /** Runs one session as configured; bounded by the configuration's deadline. */
    public RunResult run(RunConfig config) throws IOException, InterruptedException {
        ControlClientOptions options = ControlClientOptions.of(server.address().getAddress().getHostAddress(),
                server.port()).requestedModes(Mode.OPEN.bits()).connectTimeoutMs(5_000).readTimeoutMs(30_000);
        try (ControlClient control = ControlClient.connect(options);
             UdpSocket socket = openSocket(control.localAddress().getAddress(), config);
             FileChannel channel = SessionDataWriter.openAnonymousTempFile(null)) {
            return runSession(control, socket, channel, config);
        }
    }

    private static UdpSocket openSocket(InetAddress local, RunConfig config) throws IOException {
        return UdpSocket.open(UdpSocketOptions.builder().bindAddress(local).unicastTtl(255).receiveTtl(true)
                .receiveBufferBytes(SOCKET_BUFFER_BYTES).sendBufferBytes(SOCKET_BUFFER_BYTES)
                .timestamping(config.timestamping()).forceNio(config.forceNio()).build());
    }

    private RunResult runSession(ControlClient control, UdpSocket socket, FileChannel channel, RunConfig config)
            throws IOException, InterruptedException {
        WallClock clock = WallClock.system();
        InetAddress local = socket.localAddress().getAddress();
        int localPort = socket.localAddress().getPort();
        long startNtp = clock.nowNtp() + NtpTime.fromSeconds(START_DELAY_SECONDS
                + 3 * NtpTime.toDouble(control.rttBoundNtp()));
        long lossNtp = NtpTime.fromSeconds(config.lossTimeoutSeconds());
        ScheduleSlot[] slots = {ScheduleSlot.fixedOffset(NtpTime.fromSeconds(config.intervalSeconds()))};
        SessionAcceptance ok = control.requestSession(SessionRequest.forTwping(4, local, localPort, local, localPort,
                PADDING_BYTES, startNtp, lossNtp, 0));
        if (ok.acceptCode() != 0) {
            throw new IOException("server refused the session, accept code " + ok.acceptCode());
        }
        SessionHeader header = new SessionHeader(ok.sid(), 4, local.getAddress(), localPort, local.getAddress(),
                ok.port(), config.packetCount(), PADDING_BYTES, startNtp, lossNtp, 0,
                SessionHeader.fixedFlags(slots), SessionHeader.values(slots), SessionHeader.FINISHED_INCOMPLETE);
        SessionDataWriter writer = SessionDataWriter.onChannel(channel, header, SessionDataWriter.DEFAULT_BATCH_RECORDS);
        control.startSessions();

        ClientTestSession session = new ClientTestSession(new ClientTestSession.Parameters(
                new InetSocketAddress(local, ok.port()), new SendSchedule(ok.sid(), slots, config.packetCount()),
                config.packetCount(), PADDING_BYTES, startNtp, lossNtp, config.spinNs(), true),
                socket, control.mode(), null, writer, clock, ClockErrorEstimate.fromKernel(),
                line -> diagnostics.println("twping: " + line));
        ThreadCpuSampler cpu = new ThreadCpuSampler(Set.of("twping-sender", "twping-receiver"));
        long processCpuBefore = ThreadCpuSampler.processCpuNs();
        long wallStart = System.nanoTime();
        long deadline = wallStart + TimeUnit.SECONDS.toNanos((long) Math.ceil(START_DELAY_SECONDS + 1))
                + config.deadlineNs();
        session.start();
        boolean timedOut = false;
        while (!session.await(SAMPLE_INTERVAL_NS)) {
            cpu.sample();
            if (System.nanoTime() - deadline > 0) {
                timedOut = true;
                session.cancel();
                session.await(TimeUnit.SECONDS.toNanos((long) Math.ceil(config.lossTimeoutSeconds()) + 5));
                break;
            }
        }
        long wallNs = System.nanoTime() - wallStart;
        long processCpuNs = ThreadCpuSampler.processCpuNs() - processCpuBefore;
        session.join(5_000);
        long clientDrops = UdpSocketDrops.read(localPort);
        long reflectorDrops = UdpSocketDrops.read(ok.port());
        SessionOutcome outcome = session.outcome();
        control.stopSessions(outcome == null ? 1 : outcome.stopSessionsAccept());

        RttStatistics rtt = new RttStatistics();
        long records;
        long lost;
        try (SessionDataReader reader = SessionDataReader.open(channel)) {
            records = reader.recordCount();
            lost = RttStatistics.addRecords(reader, rtt);
        }
        ReceiverCounters counters = session.counters();
        return new RunResult(config, socket.isNative(), session.sentCount(), session.skippedCount(), records, lost,
                counters.kernelRxStamps(), counters.kernelTxStamps(), counters.late(), clientDrops, reflectorDrops, rtt, session.latenessNs(), cpu.totalCpuNs(),
                processCpuNs, wallNs, String.valueOf(outcome), timedOut);
    }
}
