package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.fuzz.FuzzSeeds;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.testdata.RecordedVectors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz (Jazzer, coverage-guided): TWAMP-Test packets in every mode, seeded with the packets recorded from C
 * twping/twampd 5.2.3 and their test keys. The first input byte selects the mode and the side, the rest is
 * the datagram. Reflector side: the datagram goes through a running {@link SessionReflector} of that mode;
 * it is reflected or counted (bad HMAC, short), the reflector never fails, and after the run each
 * reflector still answers a genuine packet. Client side: the datagram goes through the mode's
 * {@link TestPacketCipher#openReflector} and the reply layout the receiver reads; nothing throws.
 */
@Tag("fuzz-test-packets")
class TestPacketFuzzTest {
    private static final String[] VECTORS = {"open", "auth", "enc", "mixed"};
    private static final int[] MODES = {1, 2, 4, 8};
    private static final Pattern KEYS = Pattern.compile("test aes key=([0-9a-f]{32}) test hmac key=([0-9a-f]{64})");

    private static final List<ScriptedReflectorSocket> SOCKETS = new ArrayList<>();
    private static final List<SessionReflector> REFLECTORS = new ArrayList<>();
    private static final List<InetSocketAddress> SENDERS = new ArrayList<>();
    private static final List<byte[]> GENUINE = new ArrayList<>();
    private static final List<TestPacketCipher> CIPHERS = new ArrayList<>();
    private static Arena arena;
    private static MemorySegment buffer;
    private static long sink;

    private static TestSessionKeys keys(String vector, int mode) throws Exception {
        if (mode != 2 && mode != 4) {
            return null;
        }
        Matcher m = KEYS.matcher(Files.readString(RecordedVectors.file(vector + "-crypto-verify.txt")));
        assertTrue(m.find(), "recorded test keys");
        return TestSessionKeys.of(HexFormat.of().parseHex(m.group(1)), HexFormat.of().parseHex(m.group(2)));
    }

    /** Selector 2k: sender packets of VECTORS[k] (reflector side); 2k+1: its reflected packets (client side). */
    static Stream<Arguments> recordedPackets() {
        return IntStream.range(0, VECTORS.length).boxed().flatMap(k -> {
            List<FuzzSeeds.Datagram> all = FuzzSeeds.testDatagrams(VECTORS[k]);
            int senderPort = all.get(0).srcPort();
            return all.stream().limit(6).map(d -> d.srcPort() == senderPort
                    ? FuzzSeeds.seed(VECTORS[k] + " request", 2 * k, d.data())
                    : FuzzSeeds.seed(VECTORS[k] + " reply", 2 * k + 1, d.data()));
        });
    }

    @BeforeAll
    static void startReflectors() throws Exception {
        arena = Arena.ofShared();
        buffer = arena.allocate(70_000, 16);
        for (int k = 0; k < VECTORS.length; k++) {
            List<FuzzSeeds.Datagram> all = FuzzSeeds.testDatagrams(VECTORS[k]);
            int senderPort = all.get(0).srcPort();
            byte[] request = all.get(0).data();
            int header = (MODES[k] == 2 || MODES[k] == 4) ? 48 : 14;
            InetSocketAddress sender = new InetSocketAddress(InetAddress.getLoopbackAddress(), senderPort);
            ScriptedReflectorSocket socket = new ScriptedReflectorSocket();
            TestSessionKeys keys = keys(VECTORS[k], MODES[k]);
            SessionReflector reflector = new SessionReflector(new ReflectorSessionSpec(Mode.fromBits(MODES[k]), sender,
                    request.length - header, 0, keys), socket, null, null);
            reflector.start();
            SOCKETS.add(socket);
            REFLECTORS.add(reflector);
            SENDERS.add(sender);
            GENUINE.add(request);
            CIPHERS.add(TestPacketCipher.forMode(Mode.fromBits(MODES[k]), keys));
        }
    }

    @MethodSource("recordedPackets")
    @FuzzTest
    void reflectOrCount(byte[] input) throws InterruptedException {
        int selector = FuzzSeeds.selector(input, 2 * VECTORS.length);
        byte[] datagram = FuzzSeeds.payload(input);
        int k = selector / 2;
        if (selector % 2 == 0) {
            reflect(k, datagram);
        } else {
            open(k, datagram);
        }
    }

    /** One datagram through the running reflector of mode k; waits until it is reflected or counted. */
    private static void reflect(int k, byte[] datagram) throws InterruptedException {
        SessionReflector reflector = REFLECTORS.get(k);
        long before = reflector.reflected() + reflector.badHmac();
        SOCKETS.get(k).offer(datagram, SENDERS.get(k), 64);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (reflector.reflected() + reflector.badHmac() == before) {
            if (!reflector.isRunning()) {
                throw new AssertionError("reflector ended: " + reflector.endReason() + " " + reflector.failure()
                        + "\n" + FuzzSeeds.show(datagram));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("reflector did not process the datagram\n" + FuzzSeeds.show(datagram));
            }
            Thread.onSpinWait();
        }
        while (SOCKETS.get(k).awaitSent(0) != null) {
            // replies are not kept
        }
    }

    /** One datagram as a reply of mode k, read as the client's receiver reads it. */
    private static void open(int k, byte[] datagram) {
        TestPacketCipher cipher = CIPHERS.get(k);
        int length = Math.min(datagram.length, (int) buffer.byteSize());
        MemorySegment.copy(datagram, 0, buffer, ValueLayout.JAVA_BYTE, 0, length);
        if (length < cipher.reflectorLayout().length() || !cipher.openReflector(buffer, length)) {
            return; // too short or bad HMAC: counted and ignored by the receiver
        }
        ReflectorPacket reply = new ReflectorPacket(cipher.reflectorLayout()).wrap(buffer);
        sink += reply.sequenceNumber() + reply.timestampNtp() + reply.errorEstimate() + reply.receiveTimestampNtp()
                + reply.senderSequenceNumber() + reply.senderTimestampNtp() + reply.senderErrorEstimate()
                + reply.senderTtl();
    }

    @AfterAll
    static void reflectorsStillAnswer() throws Exception {
        try (Arena a = arena) {
            for (int k = 0; k < REFLECTORS.size(); k++) {
                try (SessionReflector reflector = REFLECTORS.get(k)) {
                    while (SOCKETS.get(k).awaitSent(0) != null) {
                        // replies to the fuzzed datagrams
                    }
                    long reflected = reflector.reflected();
                    SOCKETS.get(k).offer(GENUINE.get(k), SENDERS.get(k), 64);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (reflector.reflected() == reflected) {
                        assertTrue(System.nanoTime() < deadline, "genuine packet reflected");
                        Thread.sleep(1); // polling interval of a condition wait with a deadline
                    }
                    assertNotNull(SOCKETS.get(k).awaitSent(TimeUnit.SECONDS.toNanos(30)), "genuine packet answered");
                    reflector.stop();
                    assertTrue(reflector.awaitEnd(TimeUnit.SECONDS.toNanos(10)));
                    assertNull(reflector.failure());
                }
            }
        }
    }
}
