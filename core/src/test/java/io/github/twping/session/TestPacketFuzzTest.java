package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.fuzz.Fuzz;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.ReflectorPacket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Fuzz: TWAMP-Test packets in every mode, seeded with the packets recorded from C twping/twampd 5.2.3 and
 * their test keys. Reflector side: mutated sender packets of any length go through {@link SessionReflector};
 * each is reflected or counted (bad HMAC, short), the reflector never fails and still answers a genuine
 * packet afterwards. Client side: mutated reflector packets go through the mode's cipher and the reply
 * layout the receiver reads; nothing throws.
 */
class TestPacketFuzzTest {
    /** Keeps the field reads of opened replies from being optimised away. */
    private long sink;

    private static final Pattern KEYS = Pattern.compile("test aes key=([0-9a-f]{32}) test hmac key=([0-9a-f]{64})");

    private static TestSessionKeys keys(String vector, int mode) throws Exception {
        if (mode != 2 && mode != 4) {
            return null;
        }
        Matcher m = KEYS.matcher(Files.readString(io.github.twping.testdata.RecordedVectors.file(
                vector + "-crypto-verify.txt")));
        assertTrue(m.find(), "recorded test keys");
        return TestSessionKeys.of(HexFormat.of().parseHex(m.group(1)), HexFormat.of().parseHex(m.group(2)));
    }

    @ParameterizedTest
    @CsvSource({"open, 1", "auth, 2", "enc, 4", "mixed, 8"})
    @Timeout(300)
    void shouldReflectOrCountEveryMutatedSenderPacket(String vector, int mode) throws Exception {
        List<Fuzz.Datagram> all = Fuzz.testDatagrams(vector);
        int senderPort = all.get(0).srcPort();
        List<byte[]> requests = all.stream().filter(d -> d.srcPort() == senderPort).map(Fuzz.Datagram::data).toList();
        int header = (mode == 2 || mode == 4) ? 48 : 14;
        int padding = requests.get(0).length - header;
        InetSocketAddress sender = new InetSocketAddress(InetAddress.getLoopbackAddress(), senderPort);
        SplittableRandom r = Fuzz.random("reflector-" + vector);
        int inputs = Fuzz.inputs(3000);
        long start = System.nanoTime();
        ScriptedReflectorSocket socket = new ScriptedReflectorSocket();
        try (SessionReflector reflector = new SessionReflector(
                new ReflectorSessionSpec(Mode.fromBits(mode), sender, padding, 0, keys(vector, mode)), socket, null, null)) {
            reflector.start();
            for (int i = 0; i < inputs; i++) {
                socket.offer(Fuzz.mutate(Fuzz.pick(requests, r), Fuzz.pick(requests, r), r), sender, 64);
            }
            socket.offer(requests.get(0), sender, 64); // genuine: must still be answered
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (reflector.reflected() + reflector.badHmac() < inputs + 1L) {
                assertTrue(reflector.isRunning(), () -> "reflector ended: " + reflector.endReason() + " "
                        + reflector.failure());
                assertTrue(System.nanoTime() < deadline, "reflector did not process every packet");
                Thread.sleep(5); // polling interval of a condition wait with a deadline
            }
            reflector.stop();
            assertTrue(reflector.awaitEnd(TimeUnit.SECONDS.toNanos(10)));
            assertNull(reflector.failure());
            assertEquals(inputs + 1L, reflector.reflected() + reflector.badHmac());
            byte[] last = null;
            for (byte[] b; (b = socket.awaitSent(1)) != null; ) {
                last = b;
            }
            assertNotNull(last, "replies were sent");
            if (mode == 1 || mode == 8) {
                assertEquals(reflector.reflected(), reflector.repliesSent());
            }
        }
        Fuzz.report("reflector-" + vector, inputs, 0, start);
    }

    @ParameterizedTest
    @CsvSource({"open, 1", "auth, 2", "enc, 4", "mixed, 8"})
    @Timeout(300)
    void shouldOpenOrRejectEveryMutatedReflectorPacket(String vector, int mode) throws Exception {
        List<Fuzz.Datagram> all = Fuzz.testDatagrams(vector);
        int senderPort = all.get(0).srcPort();
        List<byte[]> replies = all.stream().filter(d -> d.dstPort() == senderPort).map(Fuzz.Datagram::data).toList();
        TestPacketCipher cipher = TestPacketCipher.forMode(Mode.fromBits(mode), keys(vector, mode));
        int headerLength = cipher.reflectorLayout().length();
        SplittableRandom r = Fuzz.random("reply-" + vector);
        int inputs = Fuzz.inputs(20_000);
        long start = System.nanoTime();
        int opened = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(70_000, 16);
            ReflectorPacket reply = new ReflectorPacket(cipher.reflectorLayout()).wrap(buffer);
            for (int i = 0; i < inputs; i++) {
                byte[] input = Fuzz.mutate(Fuzz.pick(replies, r), Fuzz.pick(replies, r), r);
                int length = Math.min(input.length, (int) buffer.byteSize());
                MemorySegment.copy(input, 0, buffer, ValueLayout.JAVA_BYTE, 0, length);
                try {
                    if (length < headerLength || !cipher.openReflector(buffer, length)) {
                        continue; // too short or bad HMAC: counted and ignored by the receiver
                    }
                    opened++;
                    sink += reply.sequenceNumber() + reply.timestampNtp() + reply.errorEstimate()
                            + reply.receiveTimestampNtp() + reply.senderSequenceNumber() + reply.senderTimestampNtp()
                            + reply.senderErrorEstimate() + reply.senderTtl();
                } catch (RuntimeException | Error e) {
                    fail("input " + i + " (seed " + Fuzz.seed() + "): " + e + "\n" + Fuzz.show(input), e);
                }
            }
        }
        assertTrue(opened > 0 || mode == 2 || mode == 4, "some mutated open-mode replies are readable");
        Fuzz.report("reply-" + vector, inputs, 0, start);
    }
}
