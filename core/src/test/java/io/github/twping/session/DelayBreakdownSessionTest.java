package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.ForwardingUdpSocket;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.TestPacketLayout;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.stats.breakdown.BreakdownSummary;
import io.github.twping.stats.breakdown.Component;
import io.github.twping.stats.breakdown.PacketBreakdown;
import io.github.twping.stats.breakdown.ReflectorStamps;
import io.github.twping.stats.exact.DelayDistribution;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The delay breakdown of real sessions over loopback (docs/STATISTICS.md, delay breakdown) with a known delay
 * injected at one place: a test reflector that holds each request 100 ms between its receive stamp t2 and its send
 * stamp t3 (the delay must show in the reflector residence alone), or holds the stamped reply 100 ms before sending
 * it (in back alone), and a sender socket that sleeps 100 ms between the packet's user-space stamp and sendmsg (in
 * the sender stack alone). The bounds are one-sided where the delay is (at least the injected 100 ms: the holds never
 * end early) and medians under a quarter of it elsewhere (loopback parts take microseconds, a woken thread on a
 * loaded 2-CPU machine milliseconds; a few packets may stall, not half of them). The hold is 100 ms, not 20, so that the dominant component of the p99 (here the one
 * slowest packet) is still the injected one when a loaded 2-CPU machine also stalls a thread for tens of ms.
 */
class DelayBreakdownSessionTest {
    private static final byte[] SID = new byte[16];
    private static final long HOLD_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** A part the delay was not injected into stays below a quarter of it (its median: a few packets may stall). */
    private static final long FLAT_MEDIAN_NS = HOLD_NS / 4;
    private static final int PACKETS = 10;
    /** Longer than the injected delay, so that a held sender does not fall behind its schedule. */
    private static final long INTERVAL_NTP = NtpTime.fromSeconds(0.15);
    private static final long LOSS_NTP = NtpTime.fromSeconds(2);

    @TempDir
    Path dir;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<String> diagnostics = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    /** What one finished session left: its data file and the side tables. */
    private record Measured(Path file, ClientTestSession session) {
        BreakdownSummary summary() throws IOException {
            try (SessionDataReader reader = SessionDataReader.open(file)) {
                return BreakdownSummary.of(reader, session.recordSources(), session.recordStamps(),
                        ReflectorStamps.NONE, 3);
            }
        }

        /** Every received record's breakdown, checking the identities on each. */
        List<PacketBreakdown> packets() throws IOException {
            List<PacketBreakdown> all = new ArrayList<>();
            try (SessionDataReader reader = SessionDataReader.open(file)) {
                TwoWayRecord r = new TwoWayRecord();
                for (long i = 0; i < reader.recordCount(); i++) {
                    reader.read(i, r);
                    if (r.isLost()) {
                        continue;
                    }
                    PacketBreakdown b = new PacketBreakdown().compute(i, r, session.recordSources().get(i),
                            session.recordStamps(), ReflectorStamps.NONE);
                    assertEquals(b.spanNs(), b.pathSumNs(), "record " + i + ": the components add up to the span");
                    assertTrue(Math.abs(b.roundTripNs() - b.recordRttNs()) <= 3,
                            "record " + i + ": forward + back = rtt: " + b.roundTripNs() + " vs " + b.recordRttNs());
                    assertTrue(session.recordStamps().recorded(i), "record " + i + " has its stamps");
                    all.add(b);
                }
            }
            return all;
        }
    }

    /**
     * One session of {@link #PACKETS} packets against the test reflector.
     *
     * @param beforeT3Ns the reflector's hold between t2 and stamping t3
     * @param afterT3Ns  the reflector's hold between stamping t3 and sending the reply
     * @param sendHoldNs the client socket's sleep before each sendmsg (after the packet was stamped)
     */
    private Measured run(long beforeT3Ns, long afterT3Ns, long sendHoldNs) throws Exception {
        ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
        closeables.add(() -> {                              // first: no delayed reply after the sockets closed
            later.shutdownNow();
            later.awaitTermination(5, TimeUnit.SECONDS);
        });
        UdpSocket client = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .unicastTtl(255).receiveTtl(true).timestamping(Timestamping.RX_TX_SOFTWARE).build());
        UdpSocket reflector = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .unicastTtl(255).receiveTtl(true).timestamping(Timestamping.RX_SOFTWARE).build());
        closeables.add(client);
        closeables.add(reflector);
        WallClock clock = WallClock.system();
        Thread reflectorThread = Thread.ofPlatform().daemon(true)
                .start(() -> reflect(reflector, clock, beforeT3Ns, afterT3Ns, later));
        closeables.add(() -> {
            reflector.wakeup();
            reflectorThread.join(5_000);
        });
        long startNtp = clock.nowNtp() + NtpTime.fromSeconds(1);
        byte[] local = client.localAddress().getAddress().getAddress();
        SessionHeader header = new SessionHeader(SID, 4, local, client.localAddress().getPort(), local,
                reflector.localAddress().getPort(), PACKETS, 27, startNtp, LOSS_NTP, 0, new boolean[] {true},
                new long[] {INTERVAL_NTP}, SessionHeader.FINISHED_INCOMPLETE);
        Path file = dir.resolve("session-" + beforeT3Ns + "-" + afterT3Ns + "-" + sendHoldNs + ".owp");
        SessionDataWriter writer = SessionDataWriter.create(file, header);
        UdpSocket sending = sendHoldNs > 0 ? new SlowSendSocket(client, sendHoldNs) : client;
        ClientTestSession session = new ClientTestSession(new ClientTestSession.Parameters(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), reflector.localAddress().getPort()),
                new SendSchedule(SID, new ScheduleSlot[] {new ScheduleSlot(true, INTERVAL_NTP)}, PACKETS), PACKETS,
                27, startNtp, LOSS_NTP, 20_000, true), sending, Mode.OPEN, null, writer, clock,
                ClockErrorEstimate.fromKernel(), diagnostics::add);
        session.keepStamps();
        session.start();
        assertTrue(session.await(TimeUnit.SECONDS.toNanos(60)), "session did not end");
        session.join(5_000);
        writer.close();
        assertEquals(SessionOutcome.COMPLETED, session.outcome(), diagnostics.toString());
        assertNotNull(session.recordStamps());
        return new Measured(file, session);
    }

    private static void sendQuietly(UdpSocket socket, byte[] reply, InetSocketAddress to) {
        try {
            socket.send(MemorySegment.ofArray(reply), reply.length, to);
        } catch (SocketException e) {
            // closed by the test
        }
    }

    /**
     * The test reflector: t2 is the kernel's RX stamp, t3 the clock read when the reply is built (after the hold
     * before t3); a hold after t3 delays the send on {@code later}'s thread.
     */
    private static void reflect(UdpSocket socket, WallClock clock, long beforeT3Ns, long afterT3Ns,
                                ScheduledExecutorService later) {
        MemorySegment request = MemorySegment.ofArray(new byte[2048]);
        MemorySegment reply = MemorySegment.ofArray(new byte[2048]);
        ReceivedPacket meta = new ReceivedPacket();
        SenderPacket sender = new SenderPacket(TestPacketLayout.UNAUTHENTICATED_SENDER);
        ReflectorPacket packet = new ReflectorPacket(TestPacketLayout.UNAUTHENTICATED_REFLECTOR);
        long reflectorSeq = 0;
        try {
            while (true) {
                int n = socket.receive(request, meta, TimeUnit.SECONDS.toNanos(60));
                if (n < 0) {
                    return;
                }
                long rxEpochNs = meta.rxTimestampEpochNs();
                long t2 = rxEpochNs > 0 ? NtpTime.fromEpochNanos(rxEpochNs + clock.offsetNs()) : clock.nowNtp();
                hold(beforeT3Ns);                                   // the injected reflector residence
                sender.wrap(request);
                packet.wrap(reply).sequenceNumber(reflectorSeq++).receiveTimestampNtp(t2).errorEstimate(1)
                        .senderSequenceNumber(sender.sequenceNumber()).senderTimestampNtp(sender.timestampNtp())
                        .senderErrorEstimate(sender.errorEstimate()).senderTtl(255).timestampNtp(clock.nowNtp());
                if (afterT3Ns > 0) {
                    // the injected delay on the way back, on another thread: the next request is not held up by it
                    byte[] copy = reply.asSlice(0, 41).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                    InetSocketAddress to = meta.sourceAddress();
                    later.schedule(() -> sendQuietly(socket, copy, to), afterT3Ns, TimeUnit.NANOSECONDS);
                } else {
                    socket.send(reply, 41, meta.sourceAddress());
                }
            }
        } catch (IOException e) {
            // socket closed by the test
        }
    }

    /** Sleeps at least {@code ns} (a park may end early: it is repeated until the time has passed). */
    private static void hold(long ns) {
        long deadline = System.nanoTime() + ns;
        for (long left = ns; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    private static long median(List<PacketBreakdown> packets, Component c) {
        DelayDistribution d = new DelayDistribution();
        for (PacketBreakdown b : packets) {
            if (b.known(c)) {
                d.record(b.ns(c));
            }
        }
        assertTrue(d.count() > 0, c.key() + " never known");
        return d.percentile(50);
    }

    private static void assertFlat(List<PacketBreakdown> packets, Component... components) {
        for (Component c : components) {
            long m = median(packets, c);
            assertTrue(m < FLAT_MEDIAN_NS, c.key() + " median " + m + " ns: not flat");
        }
    }

    @Test
    void aReflectorHoldBetweenT2AndT3ShowsInTheResidenceAlone() throws Exception {
        Measured m = run(HOLD_NS, 0, 0);
        List<PacketBreakdown> packets = m.packets();
        assertTrue(packets.size() >= PACKETS / 2, "replies: " + packets.size());
        for (PacketBreakdown b : packets) {
            assertTrue(b.ns(Component.REFLECTOR_RESIDENCE) >= HOLD_NS,
                    "seq " + b.seq() + ": residence " + b.ns(Component.REFLECTOR_RESIDENCE) + " ns");
        }
        assertFlat(packets, Component.FORWARD, Component.BACK, Component.RECEIVER_WAKEUP);
        BreakdownSummary summary = m.summary();
        assertEquals(Component.REFLECTOR_RESIDENCE, summary.dominant(), "dominant component of the p99");
        assertTrue(summary.tailMeanNs(Component.REFLECTOR_RESIDENCE) >= HOLD_NS);
        assertEquals(Math.min(3, packets.size()), summary.slowest().size());
    }

    @Test
    void aReplyHeldAfterItsT3StampShowsInBackAlone() throws Exception {
        Measured m = run(0, HOLD_NS, 0);
        List<PacketBreakdown> packets = m.packets();
        assertTrue(packets.size() >= PACKETS / 2, "replies: " + packets.size());
        for (PacketBreakdown b : packets) {
            assertTrue(b.ns(Component.BACK) >= HOLD_NS, "seq " + b.seq() + ": back " + b.ns(Component.BACK) + " ns");
        }
        assertFlat(packets, Component.FORWARD, Component.REFLECTOR_RESIDENCE, Component.RECEIVER_WAKEUP);
        assertEquals(Component.BACK, m.summary().dominant());
    }

    @Test
    void aSenderHeldBetweenItsStampAndSendmsgShowsInTheSenderStackAlone() throws Exception {
        Measured m = run(0, 0, HOLD_NS);
        List<PacketBreakdown> packets = m.packets();
        assertTrue(packets.size() >= PACKETS / 2, "replies: " + packets.size());
        int withTxStamp = 0;
        for (PacketBreakdown b : packets) {
            if (b.known(Component.SENDER_STACK)) {
                withTxStamp++;
                assertTrue(b.ns(Component.SENDER_STACK) >= HOLD_NS,
                        "seq " + b.seq() + ": sender stack " + b.ns(Component.SENDER_STACK) + " ns");
            }
        }
        assertTrue(withTxStamp > 0, "no packet had a kernel TX stamp");
        // the record's t1 is the kernel TX stamp: the forward part (and the RTT) start after the held send
        assertFlat(packets, Component.FORWARD, Component.REFLECTOR_RESIDENCE, Component.BACK,
                Component.RECEIVER_WAKEUP);
        assertEquals(Component.SENDER_STACK, m.summary().dominant());
    }

    /** The client's socket with a sleep before each send: after the sender stamped the packet, before sendmsg. */
    private static final class SlowSendSocket extends ForwardingUdpSocket {
        private final long holdNs;

        SlowSendSocket(UdpSocket socket, long holdNs) {
            super(socket);
            this.holdNs = holdNs;
        }

        @Override
        public int send(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
            hold(holdNs);
            return delegate.send(data, length, destination);
        }

        @Override
        public int sendBatch(DatagramBatch batch) throws SocketException {
            return sendEach(batch);
        }
    }
}
