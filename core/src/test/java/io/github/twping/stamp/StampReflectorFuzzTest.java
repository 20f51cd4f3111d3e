package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.github.twping.ffm.TimestampSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A bounded, seeded fuzz pass over the reflector's per-datagram path: random, truncated, oversize and mutated
 * STAMP packets with bad TLV lengths and nested garbage are fed to {@code handle} directly (replies go to a sink
 * socket on loopback); no exception may escape, and afterwards the started reflector still answers a good
 * sender over the network with a correct reply.
 */
class StampReflectorFuzzTest {
    private static final int ROUNDS = 20_000;
    private static final byte[] KEY = "fuzz key".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @Timeout(120)
    @ParameterizedTest(name = "seed={0} auth={1} stateful={2} light={3}")
    @CsvSource({"1, false, false, false", "2, true, true, false", "3, false, true, false", "4, false, false, true"})
    void mutatedPacketsNeverCrashOrDesynchronise(long seed, boolean auth, boolean stateful, boolean light)
            throws Exception {
        StampReflectorSpec spec = new StampReflectorSpec(light, auth, auth ? KEY : null, stateful,
                TimestampFormat.NTP, List.of(), 0, 64);
        SplittableRandom random = new SplittableRandom(seed);
        try (DatagramSocket sink = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             StampReflector reflector = new StampReflector(spec, StampReflector.openSocket(
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null)) {
            MemorySegment buffer = reflector.requestBuffer();
            InetSocketAddress[] sources = new InetSocketAddress[200];
            for (int i = 0; i < sources.length; i++) {
                sources[i] = new InetSocketAddress(InetAddress.getLoopbackAddress(), sink.getLocalPort());
            }
            int base = light ? 14 : auth ? 112 : 44;
            for (int round = 0; round < ROUNDS; round++) {
                byte[] packet = mutate(random, base, auth);
                int n = packet.length;
                MemorySegment.copy(packet, 0, buffer, ValueLayout.JAVA_BYTE, 0, Math.min(n, (int) buffer.byteSize()));
                reflector.metadata().record(n, n > StampReflector.MAX_DATAGRAM,
                        sources[random.nextInt(sources.length)], random.nextInt(-1, 256), random.nextInt(-1, 256),
                        random.nextBoolean() ? System.currentTimeMillis() * 1_000_000L : 0,
                        TimestampSource.KERNEL_SOFTWARE);
                reflector.handle(n);
            }
            long handled = reflector.reflected() + reflector.shortPackets() + reflector.truncated()
                    + reflector.badHmac();
            assertEquals(ROUNDS, handled, "every datagram answered or counted as dropped");
            assertTrue(reflector.reflected() > 0, "the mutations include valid packets");

            reflector.start();
            try (DatagramSocket good = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                good.setSoTimeout(10_000);
                byte[] request = valid(base, auth, 0xC0FFEE, new byte[0]);
                good.send(new DatagramPacket(request, request.length, reflector.localAddress()));
                byte[] reply = new byte[512];
                DatagramPacket p = new DatagramPacket(reply, reply.length);
                good.receive(p);
                int senderSeqOffset = light ? 24 : auth ? 48 : 24;
                assertEquals(0xC0FFEE, ByteBuffer.wrap(reply).getInt(senderSeqOffset));
                assertEquals(light ? 41 : base, p.getLength());
            }
            assertNull(reflector.failure());
        }
    }

    private static byte[] mutate(SplittableRandom r, int base, boolean auth) throws Exception {
        switch (r.nextInt(7)) {
            case 0 -> {                                   // pure noise of any length
                byte[] b = new byte[r.nextInt(0, 1500)];
                r.nextBytes(b);
                return b;
            }
            case 1 -> {                                   // a valid packet truncated
                byte[] v = valid(base, auth, r.nextInt(), tlvs(r, 3));
                return Arrays.copyOf(v, r.nextInt(0, v.length + 1));
            }
            case 2 -> {                                   // oversize claim (kernel truncation flag)
                return new byte[StampReflector.MAX_DATAGRAM + 1 + r.nextInt(100)];
            }
            case 3 -> {                                   // TLVs with lengths running anywhere
                byte[] t = new byte[r.nextInt(0, 300)];
                r.nextBytes(t);
                return valid(base, auth, r.nextInt(), t);
            }
            case 4 -> {                                   // well-formed TLVs, one length corrupted
                byte[] t = tlvs(r, 6);
                if (t.length >= 4) {
                    int at = r.nextInt(t.length - 3) & ~3;
                    t[at + 2] = (byte) r.nextInt();
                    t[at + 3] = (byte) r.nextInt();
                }
                return valid(base, auth, r.nextInt(), t);
            }
            case 5 -> {                                   // bit flips anywhere in a valid packet
                byte[] v = valid(base, auth, r.nextInt(), tlvs(r, 4));
                for (int i = r.nextInt(1, 8); i > 0; i--) {
                    v[r.nextInt(v.length)] ^= (byte) (1 << r.nextInt(8));
                }
                return v;
            }
            default -> {
                return valid(base, auth, r.nextInt(), tlvs(r, 4));
            }
        }
    }

    /** Well-formed TLVs of random known (mostly with their RFC 8972 lengths) and unknown types. */
    private static byte[] tlvs(SplittableRandom r, int max) {
        ByteBuffer b = ByteBuffer.allocate(max * (4 + 64));
        for (int i = r.nextInt(max + 1); i > 0; i--) {
            int type = r.nextBoolean() ? r.nextInt(1, 9) : r.nextInt(256);
            int known = StampTlv.valueLength(type);
            int length = known >= 0 && r.nextInt(4) != 0 ? known : r.nextInt(0, 64);
            b.put((byte) 0x80).put((byte) type).putShort((short) length);
            byte[] value = new byte[length];
            r.nextBytes(value);
            b.put(value);
        }
        return Arrays.copyOf(b.array(), b.position());
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
