package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.twping.ffm.TimestampSource;
import io.github.twping.fuzz.FuzzSeeds;
import io.github.twping.fuzz.FuzzDetectors;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz (Jazzer, coverage-guided): the STAMP reflector's per-datagram path ({@code handle}) in four
 * configurations (unauthenticated stateless, authenticated stateful, unauthenticated stateful, TWAMP-Light).
 * The first input byte selects the configuration, the second is the received TTL (0 = unknown), the rest is
 * the datagram; seeds are valid packets with TLVs of every RFC 8972 type. Every datagram is answered or
 * counted as dropped, nothing escapes, and after the run each reflector, started, still answers a good
 * sender over loopback with a correct reply.
 */
@Tag("fuzz-stamp")
class StampReflectorFuzzTest {
    private static final byte[] KEY = "fuzz key".getBytes(StandardCharsets.US_ASCII);
    /** auth, stateful, light of each configuration. */
    private static final boolean[][] CONFIGS = {{false, false, false}, {true, true, false}, {false, true, false},
        {false, false, true}};
    private static final List<StampReflector> REFLECTORS = new ArrayList<>();
    private static DatagramSocket sink;
    private static InetSocketAddress source;

    private static int base(int config) {
        return CONFIGS[config][2] ? 14 : CONFIGS[config][0] ? 112 : 44;
    }

    static Stream<Arguments> validPackets() throws Exception {
        List<Arguments> seeds = new ArrayList<>();
        for (int c = 0; c < CONFIGS.length; c++) {
            boolean auth = CONFIGS[c][0];
            seeds.add(seed("config " + c + " bare", c, valid(base(c), auth, 1, new byte[0])));
            for (int type = 1; type <= 8; type++) {
                seeds.add(seed("config " + c + " tlv " + type, c, valid(base(c), auth, type, tlv(type))));
            }
        }
        return seeds.stream();
    }

    private static Arguments seed(String name, int config, byte[] packet) {
        byte[] payload = new byte[packet.length + 1];
        payload[0] = 64;
        System.arraycopy(packet, 0, payload, 1, packet.length);
        return FuzzSeeds.seed(name, config, payload);
    }

    @BeforeAll
    static void openReflectors() throws IOException {
        sink = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        source = new InetSocketAddress(InetAddress.getLoopbackAddress(), sink.getLocalPort());
        for (boolean[] c : CONFIGS) {
            StampReflectorSpec spec = new StampReflectorSpec(c[2], c[0], c[0] ? KEY : null, c[1], TimestampFormat.NTP,
                    List.of(), 0, 64);
            REFLECTORS.add(new StampReflector(spec, StampReflector.openSocket(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null));
        }
    }

    @MethodSource("validPackets")
    @FuzzTest
    void answerOrCount(byte[] input) throws IOException {
        FuzzDetectors.allowLoopback();
        StampReflector reflector = REFLECTORS.get(FuzzSeeds.selector(input, CONFIGS.length));
        byte[] rest = FuzzSeeds.payload(input);
        int ttl = rest.length == 0 || rest[0] == 0 ? -1 : Byte.toUnsignedInt(rest[0]);
        byte[] packet = FuzzSeeds.payload(rest);
        long before = handled(reflector);
        MemorySegment buffer = reflector.requestBuffer();
        int n = packet.length;
        MemorySegment.copy(packet, 0, buffer, ValueLayout.JAVA_BYTE, 0, Math.min(n, (int) buffer.byteSize()));
        reflector.metadata().record(n, n > StampReflector.MAX_DATAGRAM, source, ttl, -1,
                System.currentTimeMillis() * 1_000_000L, TimestampSource.KERNEL_SOFTWARE);
        reflector.handle(n);
        if (handled(reflector) != before + 1) {
            throw new AssertionError("datagram neither answered nor counted\n" + FuzzSeeds.show(packet));
        }
    }

    private static long handled(StampReflector r) {
        return r.reflected() + r.shortPackets() + r.truncated() + r.badHmac() + r.suppressed();
    }

    @AfterAll
    static void reflectorsStillAnswer() throws Exception {
        try (DatagramSocket s = sink;
             DatagramSocket good = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            good.setSoTimeout(10_000);
            for (int c = 0; c < CONFIGS.length; c++) {
                try (StampReflector reflector = REFLECTORS.get(c)) {
                    reflector.start();
                    boolean auth = CONFIGS[c][0];
                    boolean light = CONFIGS[c][2];
                    byte[] request = valid(base(c), auth, 0xC0FFEE, new byte[0]);
                    good.send(new DatagramPacket(request, request.length, reflector.localAddress()));
                    byte[] reply = new byte[512];
                    DatagramPacket p = new DatagramPacket(reply, reply.length);
                    good.receive(p);
                    assertEquals(0xC0FFEE, ByteBuffer.wrap(reply).getInt(light ? 24 : auth ? 48 : 24));
                    assertEquals(light ? 41 : base(c), p.getLength());
                    assertNull(reflector.failure());
                }
            }
        }
    }

    /** One well-formed TLV of {@code type} with its RFC 8972 length (or 8 bytes for a type without one). */
    private static byte[] tlv(int type) {
        int known = StampTlv.valueLength(type);
        int length = known >= 0 ? known : 8;
        ByteBuffer b = ByteBuffer.allocate(4 + length);
        b.put((byte) 0x80).put((byte) type).putShort((short) length);
        return b.array();
    }

    private static byte[] valid(int base, boolean auth, int seq, byte[] tail) throws Exception {
        byte[] p = new byte[base + tail.length];
        ByteBuffer.wrap(p).putInt(0, seq);
        p[auth ? 25 : 13] = 1;
        System.arraycopy(tail, 0, p, base, tail.length);
        if (auth) {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
            mac.update(p, 0, 96);
            System.arraycopy(mac.doFinal(), 0, p, 96, 16);
        }
        return p;
    }
}
