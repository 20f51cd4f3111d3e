package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Assertions;

/**
 * The reflector against hand-built datagrams from a plain {@link DatagramSocket}: every reply field at the offsets
 * of RFC 8762 §4.3.1/§4.3.2, stateless and stateful numbering, the Z flag, the HMAC, symmetric size, TLV flags,
 * the allow-list and the rate limit.
 */
class StampReflectorTest {
    private static final byte[] KEY = "reflector key".getBytes(StandardCharsets.US_ASCII);
    private static final int ERROR = 0x8105;   // S=1, scale 1, multiplier 5
    private LoopbackReflector harness;
    private StampReflector reflector;
    private DatagramSocket client;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    private InetSocketAddress start(StampReflectorSpec spec) throws Exception {
        harness = LoopbackReflector.start(spec);
        reflector = harness.reflector();
        client = harness.client();
        return harness.address();
    }

    private static StampReflectorSpec spec(boolean authenticated, boolean stateful, TimestampFormat format) {
        return new StampReflectorSpec(false, authenticated, authenticated ? KEY : null, stateful, format, List.of(),
                0, 64);
    }

    private byte[] exchange(InetSocketAddress to, byte[] request) throws Exception {
        return harness.exchange(to, request);
    }

    /** Nothing comes back within a short wait, then a good packet is still answered. */
    private void assertNoReply(InetSocketAddress to, byte[] request, byte[] good) throws Exception {
        client.send(new DatagramPacket(request, request.length, to));
        byte[] reply = exchange(to, good);
        int senderSeqOffset = good.length >= 112 ? 48 : 24;
        assertEquals(ByteBuffer.wrap(good).getInt(0), ByteBuffer.wrap(reply).getInt(senderSeqOffset),
                "the first reply answers the good packet, not the bad one");
    }

    private static byte[] unauthenticated(long seq, long timestamp, int error, int ssid, int length) {
        ByteBuffer b = ByteBuffer.allocate(length);
        b.putInt(0, (int) seq).putLong(4, timestamp).putShort(12, (short) error).putShort(14, (short) ssid);
        return b.array();
    }

    private static byte[] authenticated(long seq, long timestamp, int error, int ssid) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(112);
        b.putInt(0, (int) seq).putLong(16, timestamp).putShort(24, (short) error).putShort(26, (short) ssid);
        byte[] a = b.array();
        System.arraycopy(hmac(a, 0, 96), 0, a, 96, 16);
        return a;
    }

    private static byte[] hmac(byte[] data, int from, int to) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
        mac.update(data, from, to - from);
        return Arrays.copyOf(mac.doFinal(), 16);
    }

    @Test
    void unauthenticatedReplyHasEveryFieldAtItsRfcOffset() throws Exception {
        InetSocketAddress to = start(spec(false, false, TimestampFormat.NTP));
        long senderTs = WallClock.system().nowNtp();
        long before = WallClock.system().nowNtp();
        byte[] reply = exchange(to, unauthenticated(0x01020304L, senderTs, 0x0001, 0x1234, 44));
        long after = WallClock.system().nowNtp();
        assertEquals(44, reply.length);
        ByteBuffer r = ByteBuffer.wrap(reply);
        assertEquals(0x01020304, r.getInt(0), "stateless: the sender's sequence number");
        long sendTs = r.getLong(4);
        assertEquals(ERROR, r.getShort(12) & 0xFFFF);
        assertEquals(0x1234, r.getShort(14) & 0xFFFF, "SSID copied");
        long receiveTs = r.getLong(16);
        assertEquals(0x01020304, r.getInt(24));
        assertEquals(senderTs, r.getLong(28));
        assertEquals(0x0001, r.getShort(36) & 0xFFFF);
        assertEquals(0, r.getShort(38));
        assertEquals(64, reply[40] & 0xFF, "Sender TTL: a default-TTL (64) sender on loopback");
        assertEquals(0, reply[41] | reply[42] | reply[43]);
        assertTrue(Long.compareUnsigned(receiveTs, before) >= 0 && Long.compareUnsigned(receiveTs, after) <= 0);
        assertTrue(Long.compareUnsigned(sendTs, receiveTs) >= 0 && Long.compareUnsigned(sendTs, after) <= 0);
    }

    @Test
    void kernelDropsAreReadWhenTheReflectorThreadEnds() throws Exception {
        InetSocketAddress to = start(spec(false, false, TimestampFormat.NTP));
        assertEquals(-1, reflector.kernelDrops(), "unknown while the reflector runs");
        assertEquals(44, exchange(to, unauthenticated(1, 1, 1, 0, 44)).length);
        reflector.stop();
        assertTrue(reflector.awaitEnd(TimeUnit.SECONDS.toNanos(10)), "reflector thread ended");
        // the FFM socket reads SO_MEMINFO's drop counter: nothing was dropped by one answered datagram
        assertEquals(0, reflector.kernelDrops());
    }

    @Test
    void ttlIsCopiedFromTheReceivedPacket() throws Exception {
        InetSocketAddress to = start(spec(false, false, TimestampFormat.NTP));
        try (UdpSocket s = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .unicastTtl(17).build())) {
            s.send(MemorySegment.ofArray(unauthenticated(9, 1, 1, 0, 44)), 44, to);
            MemorySegment in = MemorySegment.ofArray(new byte[128]);
            assertEquals(44, s.receive(in, new ReceivedPacket(), TimeUnit.SECONDS.toNanos(10)));
            assertEquals(17, in.get(ValueLayout.JAVA_BYTE, 40) & 0xFF);
        }
    }

    @Test
    void authenticatedReplyIsSignedOverBytesZeroTo95() throws Exception {
        InetSocketAddress to = start(spec(true, false, TimestampFormat.NTP));
        long senderTs = WallClock.system().nowNtp();
        byte[] reply = exchange(to, authenticated(42, senderTs, 0x0001, 0xABCD));
        assertEquals(112, reply.length);
        ByteBuffer r = ByteBuffer.wrap(reply);
        assertEquals(42, r.getInt(0));
        assertEquals(ERROR, r.getShort(24) & 0xFFFF);
        assertEquals(0xABCD, r.getShort(26) & 0xFFFF);
        assertEquals(42, r.getInt(48));
        assertEquals(senderTs, r.getLong(64));
        assertEquals(0x0001, r.getShort(72) & 0xFFFF);
        assertEquals(64, reply[80] & 0xFF);
        for (int[] mbz : new int[][] {{4, 16}, {28, 32}, {40, 48}, {52, 64}, {74, 80}, {81, 96}}) {
            for (int i = mbz[0]; i < mbz[1]; i++) {
                assertEquals(0, reply[i], "MBZ byte " + i);
            }
        }
        assertArrayEquals(hmac(reply, 0, 96), Arrays.copyOfRange(reply, 96, 112));

        byte[] forged = authenticated(43, senderTs, 0x0001, 0);
        forged[100] ^= 1;
        assertNoReply(to, forged, authenticated(44, senderTs, 1, 0));
        assertEquals(1, reflector.badHmac());
    }

    @Test
    void statefulReflectorNumbersEachSessionFromZero() throws Exception {
        InetSocketAddress to = start(spec(false, true, TimestampFormat.NTP));
        assertEquals(0, ByteBuffer.wrap(exchange(to, unauthenticated(100, 1, 1, 5, 44))).getInt(0));
        assertEquals(1, ByteBuffer.wrap(exchange(to, unauthenticated(200, 1, 1, 5, 44))).getInt(0));
        assertEquals(0, ByteBuffer.wrap(exchange(to, unauthenticated(300, 1, 1, 6, 44))).getInt(0),
                "another SSID is another session");
        assertEquals(2, ByteBuffer.wrap(exchange(to, unauthenticated(400, 1, 1, 5, 44))).getInt(0));
        assertEquals(400, ByteBuffer.wrap(exchange(to, unauthenticated(400, 1, 1, 5, 44))).getInt(24));
    }

    @Test
    void ptpReflectorMarksZAndUsesUnixSeconds() throws Exception {
        InetSocketAddress to = start(spec(false, false, TimestampFormat.PTP));
        long unixBefore = System.currentTimeMillis() / 1000;
        byte[] reply = exchange(to, unauthenticated(1, 2, 1, 0, 44));
        long unixAfter = System.currentTimeMillis() / 1000;
        ByteBuffer r = ByteBuffer.wrap(reply);
        assertEquals(ERROR | TimestampFormat.Z_BIT, r.getShort(12) & 0xFFFF);
        for (int offset : new int[] {4, 16}) {
            long seconds = r.getLong(offset) >>> 32;
            long nanos = r.getLong(offset) & 0xFFFF_FFFFL;
            assertTrue(seconds >= unixBefore && seconds <= unixAfter + 1, "seconds at " + offset);
            assertTrue(nanos < 1_000_000_000L);
        }
    }

    @Test
    void replyHasTheRequestSizeAndFlagsTlvs() throws Exception {
        InetSocketAddress to = start(spec(false, false, TimestampFormat.NTP));
        ByteBuffer b = ByteBuffer.allocate(44 + 8 + 6 + 4);
        b.put(0, unauthenticated(3, 1, 1, 0, 44));
        b.put(44, (byte) 0).put(45, (byte) StampTlv.EXTRA_PADDING).putShort(46, (short) 4).putInt(48, 0x11223344);
        b.put(52, (byte) 0).put(53, (byte) 200).putShort(54, (short) 2).putShort(56, (short) 0x5566);
        b.put(58, (byte) 0).put(59, (byte) 201).putShort(60, (short) 40);   // runs past the datagram
        byte[] reply = exchange(to, b.array());
        assertEquals(62, reply.length, "symmetric size");
        assertEquals(0, reply[44], "recognised TLV: no flags");
        assertEquals(0x11223344, ByteBuffer.wrap(reply).getInt(48), "padding value copied");
        assertEquals((byte) StampTlv.FLAG_U, reply[52], "unknown TLV: U");
        assertEquals(0x5566, ByteBuffer.wrap(reply).getShort(56));
        assertEquals((byte) StampTlv.FLAG_M, reply[58], "malformed TLV: M");
        assertEquals(40, ByteBuffer.wrap(reply).getShort(60), "the malformed TLV is copied as received");
        assertEquals(1, reflector.unknownTlvs());
        assertEquals(1, reflector.malformedTlvs());
    }

    @Test
    void shortDatagramsAreDroppedAndTheReflectorKeepsAnswering() throws Exception {
        // 43 octets: dropped with --strict; without it a TWAMP-Light-sized request is answered (StampShortRequestTest)
        InetSocketAddress to = start(spec(false, false, TimestampFormat.NTP).withStrict(true));
        assertNoReply(to, new byte[43], unauthenticated(7, 1, 1, 0, 44));
        assertEquals(1, reflector.shortPackets());
    }

    @Test
    void allowListDropsOtherSources() throws Exception {
        InetSocketAddress to = start(new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP,
                List.of(SourceNetwork.parse("192.0.2.0/24")), 0, 64));
        client.send(new DatagramPacket(unauthenticated(1, 1, 1, 0, 44), 44, to));
        client.setSoTimeout(300);
        Assertions.assertThrows(SocketTimeoutException.class,
                () -> client.receive(new DatagramPacket(new byte[64], 64)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reflector.notAllowed() == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(1, reflector.notAllowed());
        assertTrue(SourceNetwork.parse("127.0.0.0/8").contains(new byte[] {127, 0, 0, 1}, 4));
        assertTrue(!SourceNetwork.parse("127.0.0.0/8").contains(new byte[] {(byte) 128, 0, 0, 1}, 4));
        assertTrue(SourceNetwork.parse("2001:db8::/32").contains(InetAddress.getByName("2001:db8::7").getAddress(),
                16));
    }

    @Test
    void rateLimitDropsABurstAboveTheLimit() throws Exception {
        InetSocketAddress to = start(new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP,
                List.of(), 5, 64));
        for (int i = 0; i < 20; i++) {
            client.send(new DatagramPacket(unauthenticated(i, 1, 1, 0, 44), 44, to));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (reflector.reflected() + reflector.rateLimited() < 20 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(20, reflector.reflected() + reflector.rateLimited());
        assertTrue(reflector.reflected() >= 5 && reflector.reflected() < 20,
                "a burst of 20 at 5/s: the bucket's 5 and what refilled meanwhile; got " + reflector.reflected());
    }

    @Test
    void twampLightRepliesInTheRfc5357Layout() throws Exception {
        InetSocketAddress to = start(new StampReflectorSpec(true, false, null, false, TimestampFormat.NTP,
                List.of(), 0, 64));
        ByteBuffer b = ByteBuffer.allocate(14 + 30);
        b.putInt(0, 77).putLong(4, 0x1111_2222_3333_4444L).putShort(12, (short) 1);
        for (int i = 14; i < 44; i++) {
            b.put(i, (byte) i);
        }
        byte[] reply = exchange(to, b.array());
        assertEquals(44, reply.length, "symmetric: max(request, 41)");
        ByteBuffer r = ByteBuffer.wrap(reply);
        assertEquals(77, r.getInt(0));
        assertEquals(77, r.getInt(24));
        assertEquals(0x1111_2222_3333_4444L, r.getLong(28));
        assertEquals(1, r.getShort(36));
        assertEquals(64, reply[40] & 0xFF);
        for (int i = 41; i < 44; i++) {
            assertEquals((byte) (i - 41 + 14), reply[i], "padding copied from the sender's");
        }
        assertEquals(41, exchange(to, Arrays.copyOf(b.array(), 14)).length);
    }

    @Test
    void twampLightAsymmetricRepliesReflectTheConfiguredOctets() throws Exception {
        InetSocketAddress to = start(new StampReflectorSpec(true, false, null, false, TimestampFormat.NTP,
                List.of(), 0, 64, true, 8));
        byte[] request = new byte[14 + 100];
        ByteBuffer.wrap(request).putInt(0, 5).putShort(12, (short) 1);
        for (int i = 14; i < request.length; i++) {
            request[i] = (byte) (i * 7);
        }
        byte[] reply = exchange(to, request);
        assertEquals(41 + 8, reply.length, "asymmetric: the base reply plus the octets to reflect (RFC 6038)");
        assertArrayEquals(Arrays.copyOfRange(request, 14, 22), Arrays.copyOfRange(reply, 41, 49),
                "the first 8 octets of the sender's padding");
        assertEquals(41 + 3, exchange(to, Arrays.copyOf(request, 14 + 3)).length,
                "no more octets than the sender's padding has");
        assertEquals(41, exchange(to, Arrays.copyOf(request, 14)).length);
        Assertions.assertThrows(IllegalArgumentException.class,
                () -> new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP, List.of(), 0, 64, true, 0),
                "STAMP replies always have the request's size");
    }

    @Test
    void ntpConversionOfReceiveTimestampIsAKernelStamp() {
        assertEquals(NtpTime.JAN_1970 << 32, TimestampFormat.NTP.fromEpochNanos(0));
    }
}
