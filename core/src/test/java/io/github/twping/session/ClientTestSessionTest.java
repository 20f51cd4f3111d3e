package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.twping.ffm.ClockStatus;
import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.ForwardingUdpSocket;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.TestPacketLayout;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import com.sun.management.ThreadMXBean;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.ThreadTuning;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;
import io.github.twping.testsupport.Wait;

/**
 * The client's test session against a scripted open-mode reflector that misbehaves on purpose: short,
 * duplicated, invalid and late replies (docs/PROTOCOL-TEST.md).
 */
class ClientTestSessionTest {
    private static final int PACKETS = 8;
    private static final long INTERVAL_NTP = NtpTime.fromSeconds(0.005);
    /** Generous: a cold first session on a loaded machine can stall for hundreds of milliseconds. */
    private static final long LOSS_NTP = NtpTime.fromSeconds(3);
    /** The late-reply test's own loss timeout, and how long its reflector holds the late reply. */
    private static final long SHORT_LOSS_NTP = NtpTime.fromSeconds(0.3);
    private static final byte[] SID = new byte[16];

    @TempDir
    Path dir;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<String> diagnostics = new CopyOnWriteArrayList<>();
    /** Whether the session under test uses kernel TX stamps as send times (the default of twping). */
    private boolean kernelTxStamps = true;
    /** SCHED_FIFO priority asked of the session under test (0: the default scheduler). */
    private int rtPriority;
    /** Applied to the session under test before it starts, or null. */
    private Consumer<ClientTestSession> beforeStart;
    /** Wraps the client socket of the session under test, or null. */
    private java.util.function.UnaryOperator<UdpSocket> clientDecorator;
    /** Whether the session under test keeps the delay breakdown's stamps (as a run with an extended output). */
    private boolean keepStamps = true;
    /** The last session {@link #run} ran. */
    private ClientTestSession lastSession;

    /**
     * One throw-away session before each test's own: the first session in a JVM links the native calls and
     * loads the session classes on its threads, which on a loaded 2-core machine took longer than a loss
     * timeout and made every packet of the first test "more than L late" (skipped). What the tests assert is
     * the behaviour of a running session, not the JVM's start-up.
     */
    @BeforeEach
    void warmUp() throws Exception {
        run((seq, request, reply, out) -> out.send(41), null, PACKETS, INTERVAL_NTP, NtpTime.fromSeconds(0.05), null);
        closeAll();
        closeables.clear();
        diagnostics.clear();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    /** How the scripted reflector answers sender packet {@code seq}: the replies to send (possibly none). */
    private interface Script {
        void reply(long seq, MemorySegment request, MemorySegment reply, Replies out) throws IOException;
    }

    private interface Replies {
        void send(int length) throws IOException;
    }

    private List<TwoWayRecord> run(Script script, SessionOutcome expectedOutcome) throws Exception {
        return run(script, expectedOutcome, PACKETS, INTERVAL_NTP, LOSS_NTP, null);
    }

    private List<TwoWayRecord> run(Script script, SessionOutcome expectedOutcome, long packets, long intervalNtp,
                                   long lossNtp, Consumer<ClientTestSession> whileRunning)
            throws Exception {
        UdpSocket client = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .unicastTtl(255).receiveTtl(true).timestamping(Timestamping.RX_TX_SOFTWARE).build());
        if (clientDecorator != null) {
            client = clientDecorator.apply(client);
        }
        UdpSocket reflector = UdpSocket.open(UdpSocketOptions.builder()
                .bindAddress(InetAddress.getLoopbackAddress()).unicastTtl(255).receiveTtl(true).build());
        closeables.add(client);
        closeables.add(reflector);
        Thread reflectorThread = Thread.ofPlatform().daemon(true).start(() -> reflect(reflector, script));
        closeables.add(() -> {
            reflector.wakeup();
            reflectorThread.join(5_000);
        });

        WallClock clock = WallClock.system();
        long startNtp = clock.nowNtp() + NtpTime.fromSeconds(0.5);
        ScheduleSlot[] slots = {new ScheduleSlot(true, intervalNtp)};
        byte[] local = client.localAddress().getAddress().getAddress();
        SessionHeader header = new SessionHeader(SID, 4, local, client.localAddress().getPort(), local,
                reflector.localAddress().getPort(), packets, 27, startNtp, lossNtp, 0, new boolean[] {true},
                new long[] {intervalNtp}, SessionHeader.FINISHED_INCOMPLETE);
        Path file = dir.resolve("session.owp");
        SessionDataWriter writer = SessionDataWriter.create(file, header);
        ClientTestSession session = new ClientTestSession(new ClientTestSession.Parameters(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), reflector.localAddress().getPort()),
                new SendSchedule(SID, slots, packets), packets, 27, startNtp, lossNtp, 20_000, kernelTxStamps),
                client, Mode.OPEN, null, writer, clock, ClockErrorEstimate.fromKernel(), diagnostics::add);
        session.rtPriority(rtPriority);
        // with the delay breakdown's stamps kept, as a run with an extended output: the allocation test covers them
        if (keepStamps) {
            session.keepStamps();
        }
        if (beforeStart != null) {
            beforeStart.accept(session);
        }
        lastSession = session;
        session.start();
        if (whileRunning != null) {
            whileRunning.accept(session);
        }
        assertTrue(session.await(TimeUnit.SECONDS.toNanos(30)), "session did not end");
        session.join(5_000);
        writer.close();
        if (expectedOutcome != null) {
            assertEquals(expectedOutcome, session.outcome(), diagnostics.toString());
        }
        List<TwoWayRecord> records = new ArrayList<>();
        try (SessionDataReader reader = SessionDataReader.open(file)) {
            for (long i = 0; i < reader.recordCount(); i++) {
                records.add(reader.read(i, new TwoWayRecord()));
            }
        }
        return records;
    }

    private static void reflect(UdpSocket socket, Script script) {
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
                InetSocketAddress source = meta.sourceAddress();
                sender.wrap(request);
                long seq = sender.sequenceNumber();
                long nowNtp = NtpTime.fromEpochNanos(meta.rxTimestampEpochNs());
                packet.wrap(reply).sequenceNumber(reflectorSeq++).timestampNtp(nowNtp + 1).errorEstimate(1)
                        .receiveTimestampNtp(nowNtp).senderSequenceNumber(seq)
                        .senderTimestampNtp(sender.timestampNtp()).senderErrorEstimate(sender.errorEstimate())
                        .senderTtl(255);
                script.reply(seq, request, reply, length -> socket.send(reply, length, source));
            }
        } catch (IOException e) {
            // socket closed by the test
        }
    }

    private static long count(List<TwoWayRecord> records, Predicate<TwoWayRecord> p) {
        return records.stream().filter(p).count();
    }

    @Test
    void shouldRecordTheSendLatenessOfEveryPacketUnlessToldNotTo() throws Exception {
        run((seq, request, reply, out) -> out.send(41), SessionOutcome.COMPLETED);
        ClientTestSession recorded = lastSession;
        assertTrue(recorded.threadsEnded(), "joined: both threads ended");
        assertEquals(PACKETS, recorded.sentCount());
        assertEquals(PACKETS, recorded.latenessNs().getTotalCount(), "one lateness per packet sent");

        beforeStart = ClientTestSession::withoutLateness;   // the agent's sessions
        List<TwoWayRecord> records = run((seq, request, reply, out) -> out.send(41), SessionOutcome.COMPLETED);
        assertNull(lastSession.latenessNs(), "no histogram made");
        assertEquals(PACKETS, lastSession.sentCount(), "and every packet still sent");
        assertEquals(PACKETS, count(records, r -> !r.isLost()), "and answered");
        assertTrue(lastSession.threadsEnded());
    }

    @Test
    void shouldNotAllocatePerPacketOnTheSenderAndReceiverThreads() throws Exception {
        ThreadMXBean threads =
                (ThreadMXBean) ManagementFactory.getThreadMXBean();
        // Consecutive windows of 8,000 sent packets. A window's figure is the bytes the sender and receiver threads
        // allocated divided by the packets sent in it, so it does not depend on how long the window took: nothing
        // that happens per unit of time allocates (the clock-state refresh reuses its buffers). Until the JIT has
        // compiled the loops (seconds on a loaded machine) the FFM downcalls allocate; the session is long enough
        // for that and is cancelled at the first window without allocation. A loss timeout of 2 s keeps a slowed
        // sender sending.
        long windowPackets = 8_000;
        List<String> figures = new ArrayList<>();
        double[] cheapest = {Double.MAX_VALUE};
        run((seq, request, reply, out) -> out.send(41), null, 400_000, NtpTime.fromSeconds(0.0001),
                NtpTime.fromSeconds(2), session -> {
                    long sent = session.sentCount();
                    long allocated = allocatedByThreads(threads, "twping-sender", "twping-receiver");
                    while (!session.isDone() && cheapest[0] >= 1.0) {
                        long target = sent + windowPackets;
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                        while (session.sentCount() < target && !session.isDone() && System.nanoTime() < deadline) {
                            LockSupport.parkNanos(1_000_000);
                        }
                        long nowSent = session.sentCount();
                        long nowAllocated = allocatedByThreads(threads, "twping-sender", "twping-receiver");
                        if (nowSent - sent >= windowPackets / 2) {
                            double perPacket = (double) (nowAllocated - allocated) / (nowSent - sent);
                            cheapest[0] = Math.min(cheapest[0], perPacket);
                            figures.add(String.format(Locale.ROOT, "%.2f", perPacket));
                        }
                        sent = nowSent;
                        allocated = nowAllocated;
                    }
                    session.cancel(); // ends the session early once the figure is known
                });
        // One object per packet would be at least 16 bytes per packet in every window.
        assertTrue(cheapest[0] < 1.0, "bytes allocated per packet in windows of " + windowPackets + ": " + figures);
    }

    @Test
    void shouldRefreshTheClockErrorEstimateWithoutAllocating() {
        ClockErrorEstimate estimate = ClockErrorEstimate.fromKernel();
        ThreadMXBean threads =
                (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long fewestBytes = Long.MAX_VALUE;
        // Repeated until the JIT has compiled the refresh (bounded in rounds and time: on a loaded machine the
        // compiler may take seconds to get to it).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int round = 0; round < 5_000 && fewestBytes > 0 && System.nanoTime() < deadline; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 1_000; i++) {
                estimate.refresh();
            }
            fewestBytes = Math.min(fewestBytes, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertEquals(0, fewestBytes, "bytes allocated by 1000 refreshes");
        assertEquals(ClockStatus.read().synchronised(), estimate.synchronised());
    }

    private static long allocatedByThreads(ThreadMXBean threads, String... names) {
        long total = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (Arrays.asList(names).contains(t.getName())) {
                total += threads.getThreadAllocatedBytes(t.threadId());
            }
        }
        return total;
    }

    @Test
    void shouldRunTheSenderAndReceiverUnderSchedFifoWhenAskedTo() throws Exception {
        String refused = ThreadTuning.fifoRefusal(3);
        Assumptions.assumeTrue(refused == null, "SCHED_FIFO not permitted here: " + refused);
        rtPriority = 3;
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        runUntilBothThreadsSeen(seen, () -> ThreadPolicies.collect(seen));
        assertEquals(ThreadPolicies.fifo(3), seen.get("twping-sender"), "sender policy/priority: " + seen);
        assertEquals(ThreadPolicies.fifo(3), seen.get("twping-receiver"), "receiver policy/priority: " + seen);
        assertTrue(diagnostics.isEmpty(), diagnostics.toString());
    }

    /**
     * Runs a 10 s session and cancels it once {@code collect} has put both the sender and the receiver into
     * {@code seen} after the first reply (both threads are alive until then); at most 20 s of polling.
     */
    private void runUntilBothThreadsSeen(Map<String, ?> seen, Runnable collect) throws Exception {
        run((seq, request, reply, out) -> out.send(41), null, 2_000, INTERVAL_NTP, LOSS_NTP,
                session -> {
                    long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (!session.isDone() && System.nanoTime() - deadlineNs < 0) {
                        collect.run();
                        if (session.sequencesHandled() > 0 && seen.containsKey("twping-sender")
                                && seen.containsKey("twping-receiver")) {
                            break;
                        }
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                    }
                    session.cancel();
                });
    }

    /**
     * The sender asks for the scheduler's shortest slice (ThreadTuning.sliceNs, Linux 6.12+), so that it preempts a
     * longer-sliced thread when it wakes for a send; the receiver keeps the default.
     */
    @Test
    void shouldGiveTheSenderTheShortestSchedulerSlice() throws Exception {
        long[] probed = new long[1];
        Thread probe = Thread.ofPlatform().start(() -> {
            try {
                ThreadTuning.sliceNs(ThreadTuning.MIN_SLICE_NS);
                probed[0] = ThreadTuning.sliceNs();
            } catch (SocketException | RuntimeException e) {
                probed[0] = -1;
            }
        });
        probe.join(TimeUnit.SECONDS.toMillis(30));
        Assumptions.assumeTrue(probed[0] == ThreadTuning.MIN_SLICE_NS,
                "this kernel keeps no slice per thread (Linux 6.12 and later do): read " + probed[0]);
        Map<String, Long> seen = new ConcurrentHashMap<>();
        runUntilBothThreadsSeen(seen, () -> ThreadPolicies.collectSlices(seen));
        assertEquals(ThreadTuning.MIN_SLICE_NS, seen.get("twping-sender"), "sender slice: " + seen);
        assertNotEquals(ThreadTuning.MIN_SLICE_NS, seen.get("twping-receiver"), "receiver slice: " + seen);
        assertTrue(diagnostics.isEmpty(), diagnostics.toString());
    }

    /**
     * A Ctrl-C's partial results wait for the sender to leave (docs/CLI.md, signals): a cancel interrupts its wait
     * for the next send time. One packet per 1000 s: without that interrupt, the sender stayed parked in the wait
     * for its first send time long after the cancel, and the bounded join returned with it alive.
     */
    @Test
    void shouldEndTheSenderAtOnceWhenCancelledInItsWaitForTheNextSendTime() throws Exception {
        Thread[] sender = new Thread[1];
        run((seq, request, reply, out) -> out.send(41), SessionOutcome.CANCELLED, 3, NtpTime.fromSeconds(1000),
                NtpTime.fromSeconds(0.05), session -> {
                    try {
                        Wait.until(() -> {
                            sender[0] = liveThread("twping-sender");
                            return sender[0] != null && sender[0].getState() == Thread.State.TIMED_WAITING;
                        }, "the sender waiting for its first send time");
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                    session.cancel();
                });
        assertFalse(sender[0].isAlive(), "the sender is still waiting for its send time after the cancel");
    }

    /**
     * The agent's sessions send from its one shared sender thread ({@link ClientTestSession#sharedSender}): every
     * packet sent and answered once, the same records as with the session's own sender thread, no sender thread of
     * the session's own, and a cancel in the wait for a send time 1000 s away still hands the session back at once.
     */
    @Test
    void shouldSendFromASharedSenderWhenAskedToWithTheSameRecords() throws Exception {
        List<TwoWayRecord> platform = run((seq, request, reply, out) -> out.send(41), SessionOutcome.COMPLETED);
        ClientTestSession platformSession = lastSession;
        try (SharedSender shared = new SharedSender("twping-shared-sender-test", diagnostics::add)) {
            beforeStart = s -> s.withoutLateness().sharedSender(shared);   // the agent's sessions
            List<TwoWayRecord> stepped = run((seq, request, reply, out) -> out.send(41), SessionOutcome.COMPLETED);
            assertFalse(lastSession.ownSenderStarted(), "a sender thread of the session's own");
            assertTrue(platformSession.ownSenderStarted());
            assertEquals(PACKETS, lastSession.sentCount());
            assertEquals(PACKETS, count(stepped, r -> !r.isLost()), "every packet answered");
            assertEquals(platform.stream().map(r -> r.sentSeq).toList(),
                    stepped.stream().map(r -> r.sentSeq).toList(), "the same records as the platform sender");
            assertTrue(lastSession.threadsEnded());

            run((seq, request, reply, out) -> out.send(41), SessionOutcome.CANCELLED, 3, NtpTime.fromSeconds(1000),
                    NtpTime.fromSeconds(0.05), ClientTestSession::cancel);
            assertTrue(lastSession.threadsEnded(), "the shared sender still holds the session after the cancel");
            assertEquals(0, shared.sessions());
        }
    }

    private static Thread liveThread(String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name) && t.isAlive()) {
                return t;
            }
        }
        return null;
    }

    @Test
    void shouldRecordEveryAnsweredPacketOnce() throws Exception {
        List<TwoWayRecord> records = run((seq, request, reply, out) -> out.send(41), SessionOutcome.COMPLETED);
        assertEquals(PACKETS, records.size());
        assertEquals(0, count(records, TwoWayRecord::isLost));
        for (int i = 0; i < PACKETS; i++) {
            assertEquals(i, records.get(i).sentSeq);
            assertEquals(255, records.get(i).reflTtl, "received TTL of the reply");
        }
    }

    @Test
    void shouldTreatAShortReplyAsNothingReceived() throws Exception {
        List<TwoWayRecord> records = run((seq, request, reply, out) -> out.send(seq == 3 ? 40 : 41),
                SessionOutcome.COMPLETED);
        assertEquals(PACKETS, records.size());
        assertEquals(1, count(records, TwoWayRecord::isLost));
        assertTrue(count(records, r -> r.isLost() && r.sentSeq == 3) == 1);
    }

    @Test
    void shouldRecordDuplicatedReplies() throws Exception {
        List<TwoWayRecord> records = run((seq, request, reply, out) -> {
            out.send(41);
            if (seq % 2 == 0) {
                out.send(41);
            }
        }, SessionOutcome.COMPLETED);
        assertEquals(PACKETS + PACKETS / 2, records.size());
        assertEquals(0, count(records, TwoWayRecord::isLost));
    }

    @Test
    void shouldEndTheTestOnASenderSequenceNumberThatWasNeverSent() throws Exception {
        List<TwoWayRecord> records = run((seq, request, reply, out) -> {
            if (seq == 3) {
                new ReflectorPacket(TestPacketLayout.UNAUTHENTICATED_REFLECTOR).wrap(reply).senderSequenceNumber(1003);
            }
            out.send(41);
        }, SessionOutcome.ENDED_BY_REPLY);
        assertTrue(diagnostics.contains("Invalid reflected sender sequence number!"), diagnostics.toString());
        assertEquals(3, count(records, r -> !r.isLost()), "replies before the bad one are kept");
    }

    @Test
    void shouldEndTheTestOnAnInvalidErrorEstimate() throws Exception {
        run((seq, request, reply, out) -> {
            if (seq == 2) {
                new ReflectorPacket(TestPacketLayout.UNAUTHENTICATED_REFLECTOR).wrap(reply).errorEstimate(0);
            }
            out.send(41);
        }, SessionOutcome.ENDED_BY_REPLY);
        assertTrue(diagnostics.contains("Invalid sent recv timestamp!"), diagnostics.toString());
    }

    @Test
    void shouldNeverRecordASendTimeLaterThanTheLossTimeoutAfterTheSchedule() throws Exception {
        // A send time more than L after a packet's scheduled time makes the owamp statistics flush the packet's
        // own node before its record and reject the file (found at high rates, where a kernel TX stamp taken
        // after the sender's lateness check passed the bound). Here the reflector echoes a send stamp an hour in
        // the future for packet 2, and the session uses the echoed stamps (no kernel TX stamps).
        kernelTxStamps = false;
        long hourNtp = NtpTime.fromSeconds(3600);
        List<TwoWayRecord> records = run((seq, request, reply, out) -> {
            if (seq == 2) {
                ReflectorPacket p = new ReflectorPacket(TestPacketLayout.UNAUTHENTICATED_REFLECTOR).wrap(reply);
                p.senderTimestampNtp(p.senderTimestampNtp() + hourNtp);
            }
            out.send(41);
        }, SessionOutcome.COMPLETED);
        assertEquals(PACKETS, records.size());
        for (TwoWayRecord r : records) {
            assertTrue(r.sentSendNtp - r.sentRecvNtp < LOSS_NTP, "packet " + r.sentSeq + " recorded a send time "
                    + NtpTime.toDouble(r.sentSendNtp - r.sentRecvNtp) + " s after the reflector received it");
        }
    }

    @Test
    void shouldRecordALateReplyAsLostAndIgnoreIt() throws Exception {
        // Packet 1 is answered only after the loss timeout has expired for it (while answering packet 7).
        MemorySegment held = MemorySegment.ofArray(new byte[64]);
        List<TwoWayRecord> records = run((seq, request, reply, out) -> {
            if (seq == 1) {
                MemorySegment.copy(reply, 0, held, 0, 41);
                return;
            }
            out.send(41);
            if (seq == PACKETS - 1) {
                parkUntilLossTimeoutPassed();
                MemorySegment.copy(held, 0, reply, 0, 41);
                out.send(41);
            }
        }, SessionOutcome.COMPLETED, PACKETS, INTERVAL_NTP, SHORT_LOSS_NTP, null);
        assertEquals(PACKETS, records.size(), "the late reply produces no record");
        assertEquals(1, count(records, r -> r.isLost() && r.sentSeq == 1));
    }

    /** Counts the receiver's receive calls and how often their timeout changed (each change: a probe and a setsockopt). */
    /**
     * {@code packets} (200) at 5 ms with L = 0.3 s, the replies to 7, 87 and 167 not sent: the records, checked to be
     * all there with exactly those three lost.
     */
    private List<TwoWayRecord> runLosingThree(long packets) throws Exception {
        List<TwoWayRecord> records = run((seq, request, reply, out) -> {
            if (seq % 80 != 7) {
                out.send(41);
            }
        }, SessionOutcome.COMPLETED, packets, INTERVAL_NTP, SHORT_LOSS_NTP, null);
        assertEquals(packets, records.size());
        assertEquals(List.of(7L, 87L, 167L), records.stream().filter(TwoWayRecord::isLost).map(r -> r.sentSeq).toList());
        return records;
    }

    private static final class CountingReceives extends ForwardingUdpSocket {
        final AtomicLong calls = new AtomicLong();
        final AtomicLong deliveries = new AtomicLong();
        final AtomicLong timeoutChanges = new AtomicLong();
        final AtomicLong wakeups = new AtomicLong();
        private long lastTimeoutNs = -1;
        volatile long lastCallTimeoutNs = -1;

        CountingReceives(UdpSocket delegate) {
            super(delegate);
        }

        @Override
        public void wakeup() {
            wakeups.incrementAndGet();
            delegate.wakeup();
        }

        @Override
        public int receiveBatch(DatagramBatch batch, long timeoutNs) throws SocketException {
            calls.incrementAndGet();
            lastCallTimeoutNs = timeoutNs;
            if (timeoutNs != lastTimeoutNs) {
                timeoutChanges.incrementAndGet();
                lastTimeoutNs = timeoutNs;
            }
            int n = delegate.receiveBatch(batch, timeoutNs);
            if (n > 0) {
                deliveries.incrementAndGet();
            }
            return n;
        }
    }

    @Test
    void shouldGatherRepliesIntoFewerReceivesAndKeepEveryRecord() throws Exception {
        // 200 packets at 5 ms with a 20 ms window: about four replies per receive call instead of one, each reply
        // still with its kernel RX stamp, and the losses declared as before
        long packets = 200;
        CountingReceives[] counting = new CountingReceives[1];
        clientDecorator = socket -> counting[0] = new CountingReceives(socket);
        beforeStart = session -> session.receiverGatherNs(20_000_000L);
        keepStamps = false;                      // the breakdown's stamps time this thread's wake-up: no gathering
        List<TwoWayRecord> records = runLosingThree(packets);
        long answered = records.stream().filter(r -> !r.isLost()).count();
        assertEquals(packets - 3, answered);
        assertEquals(answered, lastSession.counters().kernelRxStamps(), "every reply keeps its kernel RX stamp");
        long deliveries = counting[0].deliveries.get();
        assertTrue(deliveries <= answered / 2, deliveries + " receive calls delivered the " + answered + " replies");
    }

    @Test
    void shouldEndWithAPreciseSleepAndAReceiveThatDoesNotBlock() throws Exception {
        // the last wait, to the last packet's loss timeout, is a sleep and not a socket timeout (counted in jiffies)
        long packets = 20;
        CountingReceives[] counting = new CountingReceives[1];
        clientDecorator = socket -> counting[0] = new CountingReceives(socket);
        List<TwoWayRecord> records = run((seq, request, reply, out) -> out.send(41), SessionOutcome.COMPLETED,
                packets, INTERVAL_NTP, SHORT_LOSS_NTP, null);
        assertEquals(packets, records.size());
        assertTrue(records.stream().noneMatch(TwoWayRecord::isLost));
        assertEquals(0, counting[0].lastCallTimeoutNs, "the session's last receive call");
    }

    @Test
    void shouldWaitOutTheLossTimeoutInAFewReceives() throws Exception {
        // One packet, answered, then the 3 s loss timeout to wait out (the session's end): with nothing due the
        // receiver waits up to MAX_WAIT_NS (160 ms) per receive. One 20 ms tick at a time it made about 175 calls.
        CountingReceives[] counting = new CountingReceives[1];
        clientDecorator = socket -> counting[0] = new CountingReceives(socket);
        List<TwoWayRecord> records = run((seq, request, reply, out) -> out.send(41), SessionOutcome.COMPLETED,
                1, INTERVAL_NTP, LOSS_NTP, null);
        assertEquals(1, records.size());
        assertFalse(records.get(0).isLost());
        long calls = counting[0].calls.get();
        assertTrue(calls <= 45, calls + " receive calls for a 3.5 s session with one reply");
        assertEquals(0, counting[0].wakeups.get(), "a session that ends by itself leaves its socket usable");
    }

    @Test
    void shouldWakeTheReceiverOnlyWhenCancelledWithAWakeUp() throws Exception {
        // A plain cancel leaves the socket usable (the agent runs its next session on it); cancelAndWake (a warm-up's)
        // shuts it down, which ends a receive blocked for up to 160 ms at once.
        CountingReceives[] counting = new CountingReceives[1];
        clientDecorator = socket -> counting[0] = new CountingReceives(socket);
        run((seq, request, reply, out) -> out.send(41), SessionOutcome.CANCELLED, 100, NtpTime.fromSeconds(0.2),
                LOSS_NTP, session -> awaitFirstReplyThen(session, session::cancel));
        assertEquals(0, counting[0].wakeups.get(), "a plain cancel woke the socket");
        run((seq, request, reply, out) -> out.send(41), SessionOutcome.CANCELLED, 100, NtpTime.fromSeconds(0.2),
                LOSS_NTP, session -> awaitFirstReplyThen(session, session::cancelAndWake));
        assertEquals(1, counting[0].wakeups.get(), "cancelAndWake did not wake the receiving socket");
    }

    private static void awaitFirstReplyThen(ClientTestSession session, Runnable action) {
        try {
            Wait.until(() -> session.sequencesHandled() > 0, "the first reply");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        action.run();
    }

    @Test
    void shouldRoundReceiveWaitsToATickTimesAPowerOfTwo() {
        long tick = 20_000_000L;
        assertEquals(1_000, ReplyReceiver.quantisedWaitNs(-5));
        assertEquals(1_000, ReplyReceiver.quantisedWaitNs(500));
        assertEquals(5_000_000L, ReplyReceiver.quantisedWaitNs(5_000_000L));          // under a tick: as it is
        assertEquals(tick, ReplyReceiver.quantisedWaitNs(tick));
        assertEquals(tick, ReplyReceiver.quantisedWaitNs(2 * tick - 1));
        assertEquals(2 * tick, ReplyReceiver.quantisedWaitNs(2 * tick));
        assertEquals(4 * tick, ReplyReceiver.quantisedWaitNs(7 * tick + 5));
        assertEquals(ReplyReceiver.MAX_WAIT_NS, ReplyReceiver.quantisedWaitNs(8 * tick));
        assertEquals(ReplyReceiver.MAX_WAIT_NS, ReplyReceiver.quantisedWaitNs(TimeUnit.SECONDS.toNanos(10)));
        assertEquals(8 * tick, ReplyReceiver.MAX_WAIT_NS);
    }

    @Test
    void shouldGatherOnlyWhereAWindowHoldsTwoPacketsAndTheRateIsAtMost2000PerSecond() {
        assertEquals(20_000_000L, ClientTestSession.gatherNs(2_000_000L, 20_000_000L));   // 500/s
        assertEquals(20_000_000L, ClientTestSession.gatherNs(500_000L, 20_000_000L));     // 2000/s
        assertEquals(0, ClientTestSession.gatherNs(499_999L, 20_000_000L));               // faster
        assertEquals(20_000_000L, ClientTestSession.gatherNs(10_000_000L, 20_000_000L));  // 100/s: two per window
        assertEquals(0, ClientTestSession.gatherNs(10_000_001L, 20_000_000L));            // fewer than two
        assertEquals(0, ClientTestSession.gatherNs(100_000_000L, 20_000_000L));           // twping's default 10/s
        assertEquals(0, ClientTestSession.gatherNs(2_000_000L, 0));                       // switched off
    }

    @Test
    void shouldKeepTheReceiveTimeoutWhileNoLossIsDue() throws Exception {
        // The flush frontier stays a loss timeout behind the replies; a timeout aimed at its expiry changed on
        // every receive call (a probe and a setsockopt more per reply). It must change only near the moment a
        // lost record or the session's end is due, while losses are still declared and recorded.
        long packets = 200;                      // 1 s at 5 ms: the frontier lags the replies by L = 0.3 s
        CountingReceives[] counting = new CountingReceives[1];
        clientDecorator = socket -> counting[0] = new CountingReceives(socket);
        List<TwoWayRecord> records = runLosingThree(packets);
        long changes = counting[0].timeoutChanges.get();
        // a few on the way to each loss and to the end (waits rounded to 20 ms times a power of two); it was about
        // one per reply
        assertTrue(changes <= packets / 5, changes + " timeout changes in " + counting[0].calls.get()
                + " receive calls for " + packets + " packets");
    }

    @Test
    void shouldDeclareLossesWhileTheSendLogIsHalfFull() throws Exception {
        // 60 packets: a send log of 64 slots, and 0.3 s at 5 ms keeps about 60 in flight, more than half of it, so the
        // receiver follows the flush frontier packet by packet (the sender's back-pressure) instead of the next loss.
        long packets = 60;
        List<TwoWayRecord> records = run((seq, request, reply, out) -> {
            if (seq != 7 && seq != 40) {
                out.send(41);
            }
        }, SessionOutcome.COMPLETED, packets, INTERVAL_NTP, SHORT_LOSS_NTP, null);
        assertEquals(packets, records.size());
        assertEquals(List.of(7L, 40L), records.stream().filter(TwoWayRecord::isLost).map(r -> r.sentSeq).toList());
    }

    private static void parkUntilLossTimeoutPassed() {
        // The reflector (not the code under test) delays its answer beyond L = 0.3 s.
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(350);
        while (System.nanoTime() < until) {
            LockSupport.parkNanos(until - System.nanoTime());
        }
    }
}
