package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import com.sun.management.ThreadMXBean;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.pacing.ParkThenSpinPacer;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.TestPacketLayout;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.testsupport.Wait;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's one sender thread for many sessions ({@link SharedSender}): each session's packets in order, all of
 * them, at its own rate; sessions leave when they end, are cancelled or the sender closes; and nothing is allocated
 * on the shared thread per packet.
 */
class SharedSenderTest {
    private static final byte[] SID = new byte[16];
    /** Generous: a cold session on a loaded machine can stall for hundreds of milliseconds. */
    private static final long LOSS_NTP = NtpTime.fromSeconds(3);

    @TempDir
    Path dir;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<String> diagnostics = new CopyOnWriteArrayList<>();
    private final WallClock clock = WallClock.system();
    private int files;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    /** A session of {@code packets} at {@code perSecond}, its first packet {@code leadSeconds} from now. */
    private record Session(ClientTestSession session, SessionDataWriter writer, Path file, long packets,
                           long startNtp, long intervalNtp) {
    }

    private Session session(SharedSender shared, InetSocketAddress to, long packets, double perSecond,
                            double leadSeconds, long spinNs, long lossNtp) throws IOException {
        UdpSocket client = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .unicastTtl(255).receiveTtl(true).build());
        closeables.add(client);
        long intervalNtp = NtpTime.fromSeconds(1 / perSecond);
        long startNtp = clock.nowNtp() + NtpTime.fromSeconds(leadSeconds);
        ScheduleSlot[] slots = {new ScheduleSlot(true, intervalNtp)};
        byte[] local = client.localAddress().getAddress().getAddress();
        SessionHeader header = new SessionHeader(SID, 4, local, client.localAddress().getPort(), local,
                to.getPort(), packets, 27, startNtp, lossNtp, 0, new boolean[] {true},
                new long[] {intervalNtp}, SessionHeader.FINISHED_INCOMPLETE);
        Path file = dir.resolve("session-" + files++ + ".owp");
        SessionDataWriter writer = SessionDataWriter.create(file, header);
        closeables.add(writer);
        ClientTestSession s = new ClientTestSession(new ClientTestSession.Parameters(to,
                new SendSchedule(SID, slots, packets), packets, 27, startNtp, lossNtp, spinNs, false),
                client, Mode.OPEN, null, writer, clock, ClockErrorEstimate.fromKernel(), diagnostics::add)
                .withoutLateness().sharedSender(shared);
        return new Session(s, writer, file, packets, startNtp, intervalNtp);
    }

    /** A reflector on loopback answering every packet, on its own thread until the test ends. */
    private InetSocketAddress reflector() throws IOException {
        UdpSocket socket = UdpSocket.open(UdpSocketOptions.builder()
                .bindAddress(InetAddress.getLoopbackAddress()).unicastTtl(255).receiveTtl(true).build());
        closeables.add(socket);
        Thread t = Thread.ofPlatform().daemon(true).start(() -> reflect(socket));
        closeables.add(() -> {
            socket.wakeup();
            t.join(5_000);
        });
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.localAddress().getPort());
    }

    private static void reflect(UdpSocket socket) {
        MemorySegment request = MemorySegment.ofArray(new byte[2048]);
        MemorySegment reply = MemorySegment.ofArray(new byte[2048]);
        ReceivedPacket meta = new ReceivedPacket();
        SenderPacket sender = new SenderPacket(TestPacketLayout.UNAUTHENTICATED_SENDER);
        ReflectorPacket packet = new ReflectorPacket(TestPacketLayout.UNAUTHENTICATED_REFLECTOR);
        long reflectorSeq = 0;
        try {
            while (true) {
                int n = socket.receive(request, meta, TimeUnit.SECONDS.toNanos(30));
                if (n < 0) {
                    return;
                }
                sender.wrap(request);
                long nowNtp = NtpTime.fromEpochNanos(meta.rxTimestampEpochNs());
                packet.wrap(reply).sequenceNumber(reflectorSeq++).timestampNtp(nowNtp + 1).errorEstimate(1)
                        .receiveTimestampNtp(nowNtp).senderSequenceNumber(sender.sequenceNumber())
                        .senderTimestampNtp(sender.timestampNtp()).senderErrorEstimate(sender.errorEstimate())
                        .senderTtl(255);
                socket.send(reply, 41, meta.sourceAddress());
            }
        } catch (IOException e) {
            // socket closed by the test
        }
    }

    private static List<TwoWayRecord> records(Session s) throws IOException {
        List<TwoWayRecord> records = new ArrayList<>();
        try (SessionDataReader reader = SessionDataReader.open(s.file())) {
            for (long i = 0; i < reader.recordCount(); i++) {
                records.add(reader.read(i, new TwoWayRecord()));
            }
        }
        return records;
    }

    private static long liveThreads(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive()).count();
    }

    /**
     * Four sessions at 20 to 200 packets/s, with different spin windows, started at once on one shared thread: each
     * sends all its packets, in order, none skipped, none before its scheduled time (not a timing bound: the machine
     * is shared), each answered; the shared thread is the only sender thread, and it is empty once they ended.
     */
    @Test
    void shouldSendEverySessionsPacketsInOrderAtItsOwnRate() throws Exception {
        InetSocketAddress to = reflector();
        try (SharedSender shared = new SharedSender("shared-sender-rates", diagnostics::add)) {
            assertNull(shared.thread(), "no thread before the first session");
            double[] rates = {200, 100, 50, 20};
            long[] counts = {60, 30, 15, 6};
            long[] spins = {20_000, 0, ParkThenSpinPacer.ADAPTIVE, 100_000};
            List<Session> sessions = new ArrayList<>();
            for (int i = 0; i < rates.length; i++) {
                sessions.add(session(shared, to, counts[i], rates[i], 0.3, spins[i], LOSS_NTP));
            }
            for (Session s : sessions) {
                s.session().start();
            }
            assertNotNull(shared.thread());
            assertTrue(shared.thread().isDaemon());
            assertEquals(1, liveThreads("shared-sender-rates"), "one thread for the four sessions");
            for (Session s : sessions) {
                assertTrue(s.session().await(TimeUnit.SECONDS.toNanos(60)), "session ended");
                s.session().join(5_000);
                s.writer().close();
            }
            for (Session s : sessions) {
                ClientTestSession c = s.session();
                String what = s.packets() + " packets: " + diagnostics;
                assertEquals(SessionOutcome.COMPLETED, c.outcome(), what);
                assertEquals(s.packets(), c.sentCount(), what);
                assertEquals(0, c.skippedCount(), what);
                assertTrue(c.threadsEnded(), "handed back by the shared thread");
                assertFalse(c.ownSenderStarted(), "a sender thread of the session's own");
                List<TwoWayRecord> records = records(s);
                assertEquals(s.packets(), records.size(), what);
                for (int i = 0; i < records.size(); i++) {
                    TwoWayRecord r = records.get(i);
                    assertEquals(i, r.sentSeq, "in order: " + what);
                    assertFalse(r.isLost(), "answered: " + what);
                    long scheduledNtp = s.startNtp() + i * s.intervalNtp();
                    // the stamp is taken after the deadline on the monotonic clock; 1 ms for the clocks' pairing
                    assertTrue(r.sentSendNtp - scheduledNtp > -NtpTime.fromSeconds(0.001),
                            "packet " + i + " sent before its time: " + what);
                    if (i > 0) {
                        assertTrue(r.sentSendNtp - records.get(i - 1).sentSendNtp > 0, "send times rise: " + what);
                    }
                }
            }
            Wait.until(() -> shared.sessions() == 0, "every session handed back");
            assertTrue(shared.thread().isAlive(), "the thread stays for the next sessions");
        }
    }

    /**
     * A session whose first packet is 1000 s away is handed back at once when cancelled (the sender's park is woken),
     * while a session sending on the same thread goes on; a session that stops by itself (the receiver's loss timeout
     * after a cancel) leaves too, and nothing stays registered.
     */
    @Test
    void shouldHandBackACancelledSessionAtOnceWhileTheOthersGoOn() throws Exception {
        InetSocketAddress to = reflector();
        try (SharedSender shared = new SharedSender("shared-sender-cancel", diagnostics::add)) {
            Session slow = session(shared, to, 3, 0.001, 0.2, 20_000, NtpTime.fromSeconds(0.05));
            Session busy = session(shared, to, 40, 100, 0.2, 20_000, LOSS_NTP);
            slow.session().start();
            busy.session().start();
            // a packet of the busy session: the thread has looked at its arrivals since both were registered
            Wait.until(() -> busy.session().sequencesHandled() > 0, "the busy session's first packet");
            slow.session().cancel();
            assertTrue(slow.session().await(TimeUnit.SECONDS.toNanos(30)));
            slow.session().join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(slow.session().threadsEnded(), "the cancelled session is still in the shared thread");
            assertEquals(SessionOutcome.CANCELLED, slow.session().outcome());
            assertTrue(busy.session().await(TimeUnit.SECONDS.toNanos(60)));
            busy.session().join(5_000);
            assertEquals(SessionOutcome.COMPLETED, busy.session().outcome(), diagnostics.toString());
            assertEquals(40, busy.session().sentCount());
            Wait.until(() -> shared.sessions() == 0, "nothing left registered");
        }
    }

    /** Closing the shared sender fails the sessions still in it and any registered later; its thread ends. */
    @Test
    void shouldFailTheSessionsStillInItWhenClosed() throws Exception {
        InetSocketAddress to = reflector();
        SharedSender shared = new SharedSender("shared-sender-close", diagnostics::add);
        Session waiting = session(shared, to, 3, 0.001, 0.2, 20_000, NtpTime.fromSeconds(0.05));
        waiting.session().start();
        Thread thread = shared.thread();
        Wait.until(() -> thread.getState() == Thread.State.TIMED_WAITING, "the thread parked for the first packet");
        shared.close();
        assertFalse(thread.isAlive(), "the thread ended");
        assertTrue(waiting.session().await(TimeUnit.SECONDS.toNanos(30)));
        waiting.session().join(5_000);
        assertEquals(SessionOutcome.SEND_FAILED, waiting.session().outcome());
        assertTrue(waiting.session().threadsEnded());
        assertEquals(0, shared.sessions());

        Session late = session(shared, to, 3, 10, 0.2, 20_000, NtpTime.fromSeconds(0.05));
        late.session().start();
        assertTrue(late.session().await(TimeUnit.SECONDS.toNanos(30)));
        assertEquals(SessionOutcome.SEND_FAILED, late.session().outcome());
        assertEquals(0, late.session().sentCount());
        assertTrue(diagnostics.stream().anyMatch(d -> d.contains("the shared sender is closed")), diagnostics.toString());
    }

    /**
     * Nothing allocated on the shared thread per packet: four sessions of 2,000 packets/s each to a socket nobody
     * reads (the sends succeed, the receivers record losses), in consecutive windows of 8,000 packets handled (sent or
     * skipped); until the JIT has compiled the step the FFM downcalls allocate, so the test ends at the first window
     * under 1 byte per packet. One object per packet would be at least 16 bytes per packet in every window. The
     * agent's senders on virtual threads allocated the JDK's timer task per timed park (about 112 bytes per packet
     * on their carrier threads).
     */
    @Test
    void shouldNotAllocatePerPacketOnTheSharedThread() throws Exception {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        UdpSocket sink = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress()).build());
        closeables.add(sink);
        InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), sink.localAddress().getPort());
        try (SharedSender shared = new SharedSender("shared-sender-alloc", diagnostics::add)) {
            List<ClientTestSession> sessions = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                sessions.add(session(shared, to, 400_000, 2_000, 0.2, 20_000, NtpTime.fromSeconds(2)).session());
            }
            for (ClientTestSession s : sessions) {
                s.start();
            }
            long tid = shared.thread().threadId();
            long windowPackets = 8_000;
            List<String> figures = new ArrayList<>();
            double cheapest = Double.MAX_VALUE;
            long handled = handled(sessions);
            long allocated = threads.getThreadAllocatedBytes(tid);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (cheapest >= 1.0 && System.nanoTime() - deadline < 0 && !sessions.getFirst().isDone()) {
                long target = handled + windowPackets;
                long windowDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (handled(sessions) < target && System.nanoTime() - windowDeadline < 0) {
                    LockSupport.parkNanos(1_000_000);
                }
                long nowHandled = handled(sessions);
                long nowAllocated = threads.getThreadAllocatedBytes(tid);
                if (nowHandled - handled >= windowPackets / 2) {
                    double perPacket = (double) (nowAllocated - allocated) / (nowHandled - handled);
                    cheapest = Math.min(cheapest, perPacket);
                    figures.add(String.format(Locale.ROOT, "%.2f", perPacket));
                }
                handled = nowHandled;
                allocated = nowAllocated;
            }
            for (ClientTestSession s : sessions) {
                s.cancel();
            }
            for (ClientTestSession s : sessions) {
                assertTrue(s.await(TimeUnit.SECONDS.toNanos(30)));
                s.join(5_000);
            }
            assertTrue(cheapest < 1.0, "bytes allocated per packet in windows of " + windowPackets + ": " + figures);
            Wait.until(() -> shared.sessions() == 0, "every session handed back", Duration.ofSeconds(30));
        }
    }

    private static long handled(List<ClientTestSession> sessions) {
        long n = 0;
        for (ClientTestSession s : sessions) {
            n += s.sequencesHandled();
        }
        return n;
    }
}
