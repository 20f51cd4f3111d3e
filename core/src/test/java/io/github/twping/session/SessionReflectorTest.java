package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.ffm.UdpSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import com.sun.management.ThreadMXBean;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.ffm.ThreadTuning;
import io.github.twping.protocol.Mode;
import io.github.twping.time.ErrorEstimate;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/** Reflector behaviour over loopback UDP; {@link SessionReflectorNioTest} runs the same suite over NIO. */
class SessionReflectorTest {
    private static final long FIVE_S_NS = TimeUnit.SECONDS.toNanos(5);
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private byte[] aesKey;
    private byte[] hmacKey;
    private UdpSocket lastSocket;

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    /** Whether the suite runs over the NIO fallback ({@code forceNio}) instead of the native socket. */
    boolean forceNio() {
        return false;
    }

    /** The transport under test: the ffm socket with the reflector's options and a TOS byte. */
    final UdpSocket openSocket(InetSocketAddress bind, int tos) throws IOException {
        return UdpSocket.open(SessionReflector.socketOptions(bind, tos).forceNio(forceNio()).build());
    }

    /** The Sender TTL the reflector should report: the sender's IP TTL when the transport reads it, else 255. */
    int expectedSenderTtl(UdpSocket socket, HandBuiltSender sender) {
        if (socket.capabilities().receiveTtl() && sender.ttlSet()) {
            return HandBuiltSender.SENDER_TTL;
        }
        return 255;
    }

    private HandBuiltSender sender(int mode) throws Exception {
        Random r = new Random(mode);
        aesKey = new byte[16];
        hmacKey = new byte[32];
        r.nextBytes(aesKey);
        r.nextBytes(hmacKey);
        HandBuiltSender s = new HandBuiltSender(mode, aesKey.clone(), hmacKey.clone());
        toClose.add(s);
        return s;
    }

    private SessionReflector reflector(HandBuiltSender s, int padding, long refwaitNs, ReflectorFaultInjection faults)
            throws Exception {
        UdpSocket socket = openSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        if (faults != null) {
            socket = FaultInjectingSocket.forMode(socket, faults, Mode.fromBits(s.mode));
        }
        ReflectorSessionSpec spec = new ReflectorSessionSpec(Mode.fromBits(s.mode), s.address(), padding, refwaitNs,
                s.auth ? TestSessionKeys.of(aesKey, hmacKey) : null);
        SessionReflector r = new SessionReflector(spec, socket, ReflectorClock.system(), warnings::add);
        toClose.add(r);
        lastSocket = socket;
        return r;
    }

    @ParameterizedTest
    @CsvSource({"1,0,41", "1,5,41", "1,27,41", "1,100,114", "8,0,41", "8,100,114",
        "4,0,112", "4,20,112", "4,64,112", "4,200,248", "2,0,112", "2,100,148"})
    void shouldSizeRepliesAsCTwampd(int mode, int padding, int expectedReply) throws Exception {
        HandBuiltSender s = sender(mode);
        SessionReflector r = reflector(s, padding, 0, null);
        r.start();
        byte[] p = s.build(7, 0x1234_5678_9abc_def0L, 0x8587, padding);
        s.send(p, r.localAddress());
        HandBuiltSender.Reply reply = s.receive();
        assertEquals(expectedReply, reply.length());
        assertTrue(reply.hmacOk());
        int copied = Math.min(padding, expectedReply - (s.auth ? 112 : 41));
        assertArrayEquals(Arrays.copyOfRange(p, s.headerLength(), s.headerLength() + copied),
                Arrays.copyOf(reply.padding(), copied), "reply padding is a prefix of the sender's padding");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 8})
    void shouldEchoSenderFieldsAndCountOwnSequence(int mode) throws Exception {
        HandBuiltSender s = sender(mode);
        SessionReflector r = reflector(s, 10, 0, null);
        int expectedTtl = expectedSenderTtl(lastSocket, s);
        boolean kernelSync = ClockErrorEstimate.fromKernel().synchronised();
        r.start();
        for (int i = 0; i < 5; i++) {
            long ts = 0xE8FE_6F80_1F9A_CFFAL + i;
            s.send(s.build(100 + i, ts, 0x0001, 10), r.localAddress());
            HandBuiltSender.Reply reply = s.receive();
            assertTrue(reply.hmacOk());
            assertEquals(i, reply.reflectorSeq());
            assertEquals(100 + i, reply.senderSeq());
            assertEquals(ts, reply.senderNtp());
            assertEquals(0x0001, reply.senderError());
            assertEquals(expectedTtl, reply.senderTtl(), "received TTL, or 255 when unknown");
            assertTrue(ErrorEstimate.isValid(reply.errorEstimate()));
            assertEquals(kernelSync, ErrorEstimate.isSynchronised(reply.errorEstimate()),
                    "S bit follows the kernel clock state");
            assertTrue(Long.compareUnsigned(reply.receiveNtp(), reply.sendNtp()) <= 0, "receive before send");
        }
        r.stop();
        assertTrue(r.awaitEnd(FIVE_S_NS));
        assertEquals(5, r.reflected());
        assertEquals(SessionReflector.EndReason.STOPPED, r.endReason());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 8})
    void shouldIgnoreForeignSourcePort(int mode) throws Exception {
        HandBuiltSender s = sender(mode);
        SessionReflector r = reflector(s, 0, 0, null);
        r.start();
        try (HandBuiltSender other = new HandBuiltSender(mode, aesKey.clone(), hmacKey.clone())) {
            other.send(other.build(1, 1, 1, 0), r.localAddress());
            other.send(other.build(2, 1, 1, 0), r.localAddress());
            s.send(s.build(3, 1, 1, 0), r.localAddress());
            HandBuiltSender.Reply reply = s.receive();
            assertEquals(3, reply.senderSeq());
            assertEquals(0, reply.reflectorSeq(), "ignored datagrams use no reflector sequence number");
            assertNull(other.poll(50), "nothing is sent to a foreign source");
        }
        r.stop();
        assertTrue(r.awaitEnd(FIVE_S_NS));
        assertEquals(2, r.ignoredForeign());
        assertEquals(1, r.reflected());
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void shouldIgnoreAndCountBadHmac(int mode) throws Exception {
        HandBuiltSender s = sender(mode);
        SessionReflector r = reflector(s, 0, 0, null);
        r.start();
        byte[] bad = s.build(1, 5, 1, 0);
        bad[40] ^= 0x55;
        s.send(bad, r.localAddress());
        s.send(s.build(2, 5, 1, 0), r.localAddress());
        HandBuiltSender.Reply reply = s.receive();
        assertEquals(2, reply.senderSeq());
        assertEquals(0, reply.reflectorSeq());
        r.stop();
        assertTrue(r.awaitEnd(FIVE_S_NS));
        assertEquals(1, r.badHmac());
        assertEquals(List.of(SessionReflector.INVALID_HMAC_MESSAGE), warnings);
    }

    @Test
    void shouldAnswerShortAndTruncateLongDatagrams() throws Exception {
        HandBuiltSender s = sender(1);
        SessionReflector r = reflector(s, 27, 0, null);
        r.start();
        s.send(Arrays.copyOf(s.build(1, 9, 1, 27), 24), r.localAddress());
        assertEquals(41, s.receive().length());
        s.send(Arrays.copyOf(s.build(2, 9, 1, 27), 300), r.localAddress());
        assertEquals(41, s.receive().length());
        r.stop();
        assertTrue(r.awaitEnd(FIVE_S_NS));
        assertEquals(1, r.shortPackets());
        assertEquals(2, r.reflected());
    }

    @Test
    void shouldRunTheReflectorThreadUnderSchedFifoWhenAsked() throws Exception {
        String refused = ThreadTuning.fifoRefusal(4);
        Assumptions.assumeTrue(refused == null, "SCHED_FIFO not permitted here: " + refused);
        HandBuiltSender s = sender(1);
        SessionReflector r = reflector(s, 0, 0, null).rtPriority(4);
        r.start();
        s.send(s.build(5, 9, 1, 0), r.localAddress());
        assertEquals(5, s.receive().senderSeq(), "answered, so the thread has set its policy");
        Map<String, Integer> seen = new HashMap<>();
        ThreadPolicies.collect(seen);
        assertEquals(ThreadPolicies.fifo(4), seen.get("reflector-" + r.localAddress().getPort()), seen.toString());
        assertThrows(IllegalArgumentException.class, () -> r.rtPriority(100));
    }

    @Test
    void shouldReflectDatagramsQueuedBeforeStart() throws Exception {
        HandBuiltSender s = sender(1);
        SessionReflector r = reflector(s, 0, 0, null);
        s.send(s.build(11, 9, 1, 0), r.localAddress());
        r.start();
        assertEquals(11, s.receive().senderSeq());
    }

    /** More datagrams queued than one receive call takes (the reflector reads in batches): all answered, in order. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 8})
    void shouldAnswerABacklogLargerThanOneBatchInOrder(int mode) throws Exception {
        HandBuiltSender s = sender(mode);
        SessionReflector r = reflector(s, 8, 0, null);
        int backlog = 100;
        for (int i = 0; i < backlog; i++) {
            s.send(s.build(1000 + i, 0xE8FE_6F80_0000_0000L + i, 1, 8), r.localAddress());
        }
        r.start();
        for (int i = 0; i < backlog; i++) {
            HandBuiltSender.Reply reply = s.receive();
            assertTrue(reply.hmacOk());
            assertEquals(i, reply.reflectorSeq());
            assertEquals(1000 + i, reply.senderSeq());
            assertEquals(0xE8FE_6F80_0000_0000L + i, reply.senderNtp());
        }
        r.stop();
        assertTrue(r.awaitEnd(FIVE_S_NS));
        assertEquals(backlog, r.reflected());
        assertEquals(0, r.shortPackets());
    }

    /** twampd --rx-stamp user: no RX timestamping on the socket; T2 is read after the receive, before T3. */
    @Test
    void shouldStampReceiveTimesInUserSpaceWhenAsked() throws Exception {
        HandBuiltSender s = sender(1);
        UdpSocket socket = SessionReflector.openSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0, false);
        Assumptions.assumeTrue(socket.isNative(), "user stamps are the NIO fallback's only kind");
        assertFalse(socket.capabilities().kernelRxTimestamps());
        SessionReflector r = new SessionReflector(new ReflectorSessionSpec(Mode.OPEN,
                s.address(), 0, 0, null), socket, ReflectorClock.system(), warnings::add);
        toClose.add(r);
        r.start();
        for (int i = 0; i < 3; i++) {
            s.send(s.build(i, 1, 1, 0), r.localAddress());
            HandBuiltSender.Reply reply = s.receive();
            assertEquals(i, reply.senderSeq());
            assertTrue(reply.receiveNtp() != 0 && Long.compareUnsigned(reply.receiveNtp(), reply.sendNtp()) <= 0);
        }
    }

    @Test
    void shouldEndOnRefwaitTimeout() throws Exception {
        HandBuiltSender s = sender(1);
        SessionReflector r = reflector(s, 0, TimeUnit.MILLISECONDS.toNanos(200), null);
        r.start();
        assertTrue(r.awaitEnd(FIVE_S_NS));
        assertEquals(SessionReflector.EndReason.REFWAIT_TIMEOUT, r.endReason());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 8})
    void shouldDropExactlyEveryNth(int mode) throws Exception {
        HandBuiltSender s = sender(mode);
        SessionReflector r = reflector(s, 0, 0, new ReflectorFaultInjection(3, 0, 0, 0));
        r.start();
        int count = 10;
        for (int i = 0; i < count; i++) {
            s.send(s.build(i, 1, 1, 0), r.localAddress());
        }
        List<HandBuiltSender.Reply> replies = collectUntilSenderSeq(s, r, count - 1);
        assertEquals(count - count / 3, replies.size());
        assertEquals(count / 3, ((FaultInjectingSocket) lastSocket).dropped());
        assertEquals(count, r.reflected(), "a dropped reply still uses up a reflector sequence number");
        assertFalse(replies.stream().anyMatch(x -> (x.senderSeq() + 1) % 3 == 0));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 8})
    void shouldDuplicateExactlyEveryNth(int mode) throws Exception {
        HandBuiltSender s = sender(mode);
        SessionReflector r = reflector(s, 0, 0, new ReflectorFaultInjection(0, 3, 0, 0));
        r.start();
        int count = 10;
        for (int i = 0; i < count; i++) {
            s.send(s.build(i, 1, 1, 0), r.localAddress());
        }
        List<HandBuiltSender.Reply> replies = collectUntilSenderSeq(s, r, count - 1);
        assertEquals(count + count / 3, replies.size());
        assertEquals(count / 3, ((FaultInjectingSocket) lastSocket).duplicated());
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void shouldCorruptExactlyEveryNthHmac(int mode) throws Exception {
        HandBuiltSender s = sender(mode);
        SessionReflector r = reflector(s, 0, 0, new ReflectorFaultInjection(0, 0, 0, 2));
        r.start();
        int count = 10;
        for (int i = 0; i < count; i++) {
            s.send(s.build(i, 1, 1, 0), r.localAddress());
        }
        List<HandBuiltSender.Reply> replies = collectUntilSenderSeq(s, r, count - 1);
        assertEquals(count, replies.size());
        assertEquals(count / 2, replies.stream().filter(x -> !x.hmacOk()).count());
        assertEquals(count / 2, ((FaultInjectingSocket) lastSocket).corrupted());
    }

    @Test
    void shouldStillReflectWithDelayInjected() throws Exception {
        HandBuiltSender s = sender(1);
        SessionReflector r = reflector(s, 0, 0, new ReflectorFaultInjection(0, 0, 1_000_000, 0));
        r.start();
        s.send(s.build(5, 1, 1, 0), r.localAddress());
        assertEquals(5, s.receive().senderSeq());
    }

    @Test
    void shouldReflectReceivedTtl() throws Exception {
        ScriptedReflectorSocket socket = new ScriptedReflectorSocket();
        InetSocketAddress from = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40000);
        ReflectorSessionSpec spec = new ReflectorSessionSpec(Mode.OPEN, from, 0, 0, null);
        SessionReflector r = new SessionReflector(spec, socket, ReflectorClock.system(), null);
        toClose.add(r);
        byte[] p = new byte[14];
        p[3] = 9;
        socket.offer(p, from, 64);
        socket.offer(p, from, -1);
        r.start();
        byte[] first = socket.awaitSent(FIVE_S_NS);
        byte[] second = socket.awaitSent(FIVE_S_NS);
        assertEquals(64, first[40] & 0xFF);
        assertEquals(255, second[40] & 0xFF);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void shouldNotAllocatePerPacketOnTheNativeSocket(int mode) throws Exception {
        HandBuiltSender s = sender(mode);
        SessionReflector r = reflector(s, 27, 0, null);
        Assumptions.assumeTrue(lastSocket.isNative(),
                "the NIO transports allocate inside the JDK");
        r.start();
        byte[] packet = s.build(1, 1, 1, 27);
        ThreadMXBean mx =
                (ThreadMXBean) ManagementFactory.getThreadMXBean();
        // Steady state: after the JIT has compiled the loop, a round of packets must allocate (almost) nothing.
        int packets = 2000;
        long allocated = Long.MAX_VALUE;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int round = 0; round < 100 && allocated >= packets && System.nanoTime() < deadline; round++) {
            long before = mx.getThreadAllocatedBytes(r.threadId());
            for (int i = 0; i < packets; i++) {
                s.send(packet, r.localAddress());
                s.receive();
            }
            allocated = mx.getThreadAllocatedBytes(r.threadId()) - before;
        }
        assertTrue(allocated < packets, "reflector thread allocated " + allocated + " bytes for " + packets + " packets");
    }

    @Test
    void shouldSendRepliesWithTtl255AndTheRequestedDscp() throws Exception {
        HandBuiltSender s = sender(1);
        Assumptions.assumeTrue(s.readsTtlAndTos(), "sender socket cannot read TTL/TOS");
        UdpSocket socket = openSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0xb8);
        Assumptions.assumeTrue(socket.capabilities().setTtl(),
                "only the native transport sets the unicast TTL");
        SessionReflector r = new SessionReflector(new ReflectorSessionSpec(Mode.OPEN, s.address(), 0, 0, null), socket,
                null, null);
        toClose.add(r);
        r.start();
        s.send(s.build(1, 1, 1, 0), r.localAddress());
        s.receive();
        assertEquals(255, s.lastReplyTtl());
        assertEquals(0xb8, s.lastReplyTos(), "Type-P EF -> TOS 0xb8 (RFC 5357 §4.2.1)");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void shouldRebuildTheReplyWhenTheKernelRefusesASend(int mode) throws Exception {
        HandBuiltSender s = sender(mode);
        ScriptedReflectorSocket socket = new ScriptedReflectorSocket();
        socket.refuseNextSends(3);
        ReflectorSessionSpec spec = new ReflectorSessionSpec(Mode.fromBits(mode), s.address(), 0, 0,
                s.auth ? TestSessionKeys.of(aesKey, hmacKey) : null);
        SessionReflector r = new SessionReflector(spec, socket, null, null);
        toClose.add(r);
        socket.offer(s.build(42, 7, 1, 0), s.address(), 64);
        r.start();
        HandBuiltSender.Reply reply = s.open(socket.awaitSent(FIVE_S_NS));
        assertTrue(reply.hmacOk(), "the retried reply is sealed once, not twice");
        assertEquals(42, reply.senderSeq());
        assertEquals(0, reply.reflectorSeq());
        r.stop();
        assertTrue(r.awaitEnd(FIVE_S_NS));
        assertEquals(3, r.sendRetries());
    }

    @Test
    void shouldKeepTheFateOfARefusedReplyWhenItIsRetried() throws Exception {
        HandBuiltSender s = sender(1);
        ScriptedReflectorSocket scripted = new ScriptedReflectorSocket();
        scripted.refuseNextSends(1);
        FaultInjectingSocket faulty = FaultInjectingSocket.forMode(scripted, new ReflectorFaultInjection(2, 0, 0, 0),
                Mode.OPEN);
        SessionReflector r = new SessionReflector(new ReflectorSessionSpec(Mode.OPEN, s.address(), 0, 0, null), faulty, null,
                null);
        toClose.add(r);
        for (int i = 0; i < 5; i++) {
            scripted.offer(s.build(i, 7, 1, 0), s.address(), 64);
        }
        r.start();
        assertEquals(0, s.open(scripted.awaitSent(FIVE_S_NS)).senderSeq(), "the refused first reply is retried");
        assertEquals(2, s.open(scripted.awaitSent(FIVE_S_NS)).senderSeq(), "replies 2 and 4 are dropped");
        assertEquals(4, s.open(scripted.awaitSent(FIVE_S_NS)).senderSeq());
        r.stop();
        assertTrue(r.awaitEnd(FIVE_S_NS));
        assertNull(scripted.awaitSent(0));
        assertEquals(5, r.reflected());
        assertEquals(2, faulty.dropped());
        assertEquals(1, r.sendRetries());
    }

    @Test
    void shouldParseFaultSpec() {
        assertEquals(new ReflectorFaultInjection(5, 7, 3000, 2),
                ReflectorFaultInjection.parse("drop=5,dup=7,delay-us=3,corrupt=2"));
        assertEquals(ReflectorFaultInjection.NONE, ReflectorFaultInjection.parse("none"));
        assertFalse(ReflectorFaultInjection.NONE.active());
    }

    /** Reads replies until one for {@code lastSenderSeq} arrives, then stops the reflector and drains the rest. */
    private static List<HandBuiltSender.Reply> collectUntilSenderSeq(HandBuiltSender s, SessionReflector r,
            long lastSenderSeq) throws Exception {
        List<HandBuiltSender.Reply> replies = new ArrayList<>();
        long deadline = System.nanoTime() + FIVE_S_NS;
        while (System.nanoTime() < deadline) {
            HandBuiltSender.Reply x = s.receive();
            replies.add(x);
            if (x.senderSeq() == lastSenderSeq) {
                break;
            }
        }
        r.stop();
        assertTrue(r.awaitEnd(FIVE_S_NS));
        for (HandBuiltSender.Reply x = s.poll(20); x != null; x = s.poll(20)) {
            replies.add(x);
        }
        return replies;
    }
}
