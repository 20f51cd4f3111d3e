package io.github.twping.stamp;

import io.github.twping.protocol.StampLayouts;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import io.github.twping.protocol.ReflectorPacket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Assertions;

/**
 * The RFC 8972 TLVs: the sender's byte layout of each TLV (§4.3 to §4.8) with U = 1 (§4), the reflector's answers
 * to hand-built requests over a real socket (Timestamp Information, Class of Service with the reply's DSCP,
 * Direct Measurement, Access Report, Follow-Up Telemetry with the kernel TX stamp of the previous reply, the HMAC
 * TLV and its I flag, U for unknown types, M for bad lengths), and the command-line list.
 */
class StampTlvTest {
    private static final byte[] KEY = "tlv key".getBytes(StandardCharsets.US_ASCII);
    private static final StampTlvRequest ALL = new StampTlvRequest(true, 46, true, 2, 1, true, false);
    private static final StampTlvRequest ALL_HMAC = new StampTlvRequest(true, 46, true, 2, 1, true, true);

    private StampReflector reflector;
    private UdpSocket client;
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (reflector != null) {
            reflector.close();
        }
        arena.close();
    }

    private static byte[] hmac(byte[] data, int from, int to, byte[] prefix) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
        if (prefix != null) {
            mac.update(prefix);
        }
        mac.update(data, from, to - from);
        return Arrays.copyOf(mac.doFinal(), 16);
    }

    /** A sender packet from our codec with sequence number {@code seq}. */
    private static byte[] senderPacket(StampSenderSpec spec, long seq) {
        StampSenderCodec codec = new StampSenderCodec(spec);
        int length = codec.senderLayout().length() + spec.tlvBytes();
        MemorySegment packet = MemorySegment.ofArray(new byte[length]);
        SenderPacket fields = new SenderPacket(codec.senderLayout()).wrap(packet);
        fields.clearMbz().sequenceNumber(seq);
        codec.sealSenderHead(packet);
        fields.timestampNtp(WallClock.system().nowNtp()).errorEstimate(0x0001);
        codec.sealSenderTail(packet);
        return packet.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void senderTlvsFollowTheBasePacketWithTheirRfcLayouts() {
        StampSenderSpec spec = new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 8, ALL);
        assertEquals(12 + 8 + 8 + 16 + 8 + 20, spec.tlvBytes());
        ByteBuffer b = ByteBuffer.wrap(senderPacket(spec, 41));
        StampSenderCodec codec = new StampSenderCodec(spec);
        int[][] expected = {                       // type, offset, value length
                {StampTlv.EXTRA_PADDING, 44, 8},
                {StampTlv.TIMESTAMP_INFORMATION, 56, 4},
                {StampTlv.CLASS_OF_SERVICE, 64, 4},
                {StampTlv.DIRECT_MEASUREMENT, 72, 12},
                {StampTlv.ACCESS_REPORT, 88, 4},
                {StampTlv.FOLLOW_UP_TELEMETRY, 96, 16}};
        for (int[] e : expected) {
            assertEquals(e[1], codec.tlvOffset(e[0]), "offset of type " + e[0]);
            assertEquals((byte) 0x80, b.get(e[1]), "U = 1, M = I = 0 from the Session-Sender (RFC 8972 §4)");
            assertEquals(e[0], b.get(e[1] + 1));
            assertEquals(e[2], b.getShort(e[1] + 2));
        }
        assertEquals(116, b.capacity());
        assertEquals(0, b.getInt(60), "Timestamp Information: the reflector fills all four octets");
        assertEquals(46, (b.get(68) & 0xFF) >> 2, "Class of Service: DSCP1 in the top six bits");
        assertEquals(0, b.get(68) & 3);
        assertEquals(0, b.getShort(70) | b.get(69), "DSCP2, ECN, RP, Reserved are the reflector's");
        assertEquals(42, b.getInt(76), "Direct Measurement: S_TxC counts this packet");
        assertEquals(0, b.getLong(80), "R_RxC and R_TxC are the reflector's");
        assertEquals(2, (b.get(92) & 0xFF) >> 4, "Access Report: ID in the top four bits");
        assertEquals(0, b.get(92) & 0x0F);
        assertEquals(1, b.get(93), "Return Code");
        assertEquals(0, b.getShort(94));
        assertEquals(0, b.getLong(100) | b.getLong(108), "Follow-Up Telemetry: the reflector's");
    }

    @Test
    void senderPutsItsEcnInEc1OfTheClassOfServiceTlv() {
        // twping --stamp --ecn 2 --tlv cos=34: DSCP1 34, EC1 2 (ECT(0)), RPE 0 (draft-ietf-ippm-stamp-cos-ecn §3.1)
        StampSenderSpec spec = new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0,
                StampTlvRequest.parse("cos=34", false), 2, 0);
        ByteBuffer b = ByteBuffer.wrap(senderPacket(spec, 0));
        int at = new StampSenderCodec(spec).tlvOffset(StampTlv.CLASS_OF_SERVICE);
        assertEquals(0x80040004, b.getInt(at), "U, type 4, length 4");
        assertEquals(0x88008000, b.getInt(at + 4), "DSCP1 34 | DSCP2 0 EC2 0 RPD 0 | EC1 2 RPE 0 | Reserved 0");
        StampSenderSpec notEct = new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0,
                StampTlvRequest.parse("cos=34", false));
        assertEquals(0x88000000, ByteBuffer.wrap(senderPacket(notEct, 0)).getInt(at + 4), "no --ecn: EC1 Not-ECT");
    }

    @Test
    void reflectorAnswersEc1WithTheReplyEcnAndRpe() throws Exception {
        InetSocketAddress to = startReflector(false);
        assumeTrue(client.isNative() && client.capabilities().receiveTos(), "needs the FFM socket (TOS received)");
        byte[] base = senderPacket(new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0), 0);
        for (int request : new int[] {0xB8004000, 0xB8008000}) {       // DSCP1 46 with EC1 1, then EC1 2
            int ec1 = (request >>> 14) & 3;
            byte[] packet = Arrays.copyOf(base, base.length + 8);
            ByteBuffer.wrap(packet, base.length, 8).putInt(0x80040004).putInt(request);
            ByteBuffer reply = exchange(to, packet);
            assertEquals(0, reply.get(44), "recognised, well formed: no flags");
            // DSCP1 kept | DSCP2 10, EC2 1: what the reflector received (RFC 8972 erratum 8199) | RPD 0
            // | EC1 kept, RPE 0b11: the reply's ECN is EC1 (draft-ietf-ippm-stamp-cos-ecn §3.2) | Reserved 0
            int expected = 46 << 26 | 10 << 20 | 1 << 18 | ec1 << 14 | 3 << 12;
            assertEquals(Integer.toHexString(expected), Integer.toHexString(reply.getInt(48)));
            assertEquals(46 << 2 | ec1, meta.tos(), "the reply left with DSCP1 and EC1, not the ECN received");
        }
    }

    @Test
    void hmacTlvCoversTheSequenceNumberAndThePrecedingTlvs() throws Exception {
        StampSenderSpec spec = new StampSenderSpec(true, KEY, TimestampFormat.NTP, 0, 0, ALL_HMAC);
        byte[] p = senderPacket(spec, 7);
        int at = 112 + 8 + 8 + 16 + 8 + 20;
        assertEquals(at + 20, p.length);
        assertEquals((byte) 0x80, p[at]);
        assertEquals(StampTlv.HMAC, p[at + 1]);
        assertEquals(16, p[at + 3]);
        byte[] seq = Arrays.copyOfRange(p, 0, 4);
        assertArrayEquals(hmac(p, 112, at, seq), Arrays.copyOfRange(p, at + 4, at + 20));
        assertArrayEquals(hmac(p, 0, 96, null), Arrays.copyOfRange(p, 96, 112), "the base HMAC is unchanged");
        assertThrows(IllegalArgumentException.class,
                () -> new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0, ALL_HMAC));
    }

    private InetSocketAddress startReflector(boolean authenticated) throws Exception {
        reflector = new StampReflector(new StampReflectorSpec(false, authenticated, authenticated ? KEY : null,
                false, TimestampFormat.NTP, List.of(), 0, 16), StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null);
        reflector.start();
        client = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .tos(10 << 2 | 1).receiveTos(true).timestamping(Timestamping.RX_SOFTWARE).build());
        return reflector.localAddress();
    }

    private final ReceivedPacket meta = new ReceivedPacket();

    private ByteBuffer exchange(InetSocketAddress to, byte[] request) throws Exception {
        MemorySegment out = arena.allocate(request.length);
        MemorySegment.copy(request, 0, out, ValueLayout.JAVA_BYTE, 0, request.length);
        MemorySegment in = arena.allocate(2048);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        client.send(out, request.length, to);
        while (System.nanoTime() < deadline) {
            int n = client.receive(in, meta, TimeUnit.SECONDS.toNanos(1));
            if (n > 0) {
                return ByteBuffer.wrap(in.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE));
            }
        }
        throw new AssertionError("no reply");
    }

    @Test
    void reflectorAnswersEveryTlvAndReportsTheKernelTxStampOfItsPreviousReply() throws Exception {
        InetSocketAddress to = startReflector(false);
        assumeTrue(client.isNative() && client.capabilities().receiveTos(), "needs the FFM socket (TOS received)");
        StampSenderSpec spec = new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0, ALL);
        byte[] base = senderPacket(spec, 0);
        // an unknown type and a Class of Service TLV of a bad length after the sender's TLVs
        byte[] request = Arrays.copyOf(base, base.length + 8 + 6);
        ByteBuffer.wrap(request, base.length, 14).put((byte) 0x80).put((byte) 200).putShort((short) 4).putInt(0x5A5A5A5A)
                .put((byte) 0x80).put((byte) StampTlv.CLASS_OF_SERVICE).putShort((short) 2).putShort((short) 0x1234);
        ByteBuffer first = exchange(to, request);
        assertEquals(request.length, first.capacity(), "symmetric: the reply has the request's size");
        assertEquals(46 << 2, meta.tos() & 0xFC, "the reply left with the requested DSCP1");
        int ts = 44;
        int cos = 52;
        int dm = 60;
        int ar = 76;
        int fut = 84;
        int unknown = 104;
        int bad = 112;
        for (int at : new int[] {ts, cos, dm, ar, fut}) {
            assertEquals(0, first.get(at), "recognised, well formed: U = M = I = 0 at " + at);
        }
        int sync = first.get(ts + 4);
        assertTrue(sync == StampTlv.SYNC_NTP || sync == StampTlv.SYNC_FREE_RUNNING, "Sync Src In " + sync);
        int expectedIn = reflector.localAddress() != null && client.isNative() ? StampTlv.METHOD_SW_LOCAL : 0;
        assertEquals(expectedIn, first.get(ts + 5), "Timestamp In: the kernel's software RX stamp");
        assertEquals(sync, first.get(ts + 6));
        assertEquals((byte) StampTlv.METHOD_USER_SPACE, first.get(ts + 7), "Timestamp Out: the user-space field");
        int word = first.getShort(cos + 4) & 0xFFFF;
        assertEquals(46, word >> 10, "DSCP1 kept");
        assertEquals(10, (word >> 4) & 0x3F, "DSCP2: the DSCP the reflector received");
        assertEquals(1, (word >> 2) & 3, "ECN received");
        assertEquals(0, word & 3, "RP = 0: DSCP1 used on the reply");
        assertEquals(1, first.getInt(dm + 4), "S_TxC copied");
        assertEquals(1, first.getInt(dm + 8), "R_RxC");
        assertEquals(1, first.getInt(dm + 12), "R_TxC");
        assertEquals(0x2001, first.getShort(ar + 4), "Access Report copied");
        assertEquals(0, first.getLong(fut + 4) | first.getInt(fut + 12) | first.getInt(fut + 16),
                "no previous reply: Follow-Up Telemetry zero");
        assertEquals((byte) StampTlv.FLAG_U, first.get(unknown), "unknown type: U");
        assertEquals(0x5A5A5A5A, first.getInt(unknown + 4), "unknown value copied");
        assertEquals((byte) StampTlv.FLAG_M, first.get(bad), "bad length: M");
        assertEquals(0x1234, first.getShort(bad + 4));
        long firstT3 = first.getLong(4);

        ByteBuffer second = exchange(to, Arrays.copyOf(senderPacket(spec, 1), base.length));
        assertEquals(2, second.getInt(dm + 8), "R_RxC counts the session's packets");
        assertEquals(2, second.getInt(dm + 12), "R_TxC counts the session's replies");
        assertEquals(0, second.getInt(fut + 4), "Follow-Up: the previous reply's sequence number");
        long kernelT3 = second.getLong(fut + 8);
        long aheadNs = NtpTime.signedDurationToNanos(kernelT3 - firstT3);
        assertTrue(aheadNs >= 0 && aheadNs < TimeUnit.SECONDS.toNanos(1),
                "kernel TX stamp after the user-space t3 it replaces: " + aheadNs + " ns");
        assertEquals(StampTlv.METHOD_SW_LOCAL, second.get(fut + 16), "Timestamp mode: kernel software");
        assertEquals(1, reflector.followUpsReported());
        assertEquals(46 << 2, meta.tos() & 0xFC);
        assertEquals(2, reflector.classOfServiceApplied(), "one well-formed Class of Service TLV per request");
        exchange(to, Arrays.copyOf(senderPacket(spec, 2), 44));
        assertEquals(0, meta.tos() & 0xFC, "no Class of Service TLV: the reflector's own DSCP again");
        assertEquals(1, reflector.unknownTlvs());
        assertEquals(1, reflector.malformedTlvs());
        assertEquals(2, reflector.accessReports());
        assertEquals(0x2001, reflector.lastAccessReport());
    }

    @Test
    void hmacTlvIsVerifiedAndRecomputedAndAFailureSetsTheIFlag() throws Exception {
        InetSocketAddress to = startReflector(true);
        StampSenderSpec spec = new StampSenderSpec(true, KEY, TimestampFormat.NTP, 0, 0, ALL_HMAC);
        byte[] good = senderPacket(spec, 3);
        int hmacAt = good.length - 20;
        ByteBuffer reply = exchange(to, good);
        byte[] r = new byte[reply.capacity()];
        reply.get(0, r);
        for (int at = 112; at < r.length; at += 4 + ((r[at + 2] & 0xFF) << 8 | r[at + 3] & 0xFF)) {
            assertEquals(0, r[at], "no U, M or I at " + at);
        }
        assertArrayEquals(hmac(r, 112, hmacAt, Arrays.copyOfRange(r, 0, 4)),
                Arrays.copyOfRange(r, hmacAt + 4, hmacAt + 20), "reply HMAC TLV over its seq and TLVs");
        assertArrayEquals(hmac(r, 0, 96, null), Arrays.copyOfRange(r, 96, 112));

        byte[] forged = good.clone();
        forged[112 + 8 + 4] ^= 0x04;                       // CoS DSCP1 changed after signing
        ByteBuffer bad = exchange(to, forged);
        for (int at = 112; at < bad.capacity(); at += 4 + (bad.getShort(at + 2) & 0xFFFF)) {
            assertEquals(StampTlv.FLAG_I, bad.get(at) & StampTlv.FLAG_I, "I on every TLV at " + at);
        }
        assertEquals(1, reflector.badTlvHmac(), "a failed HMAC TLV is still answered (RFC 8972 §4.8)");
    }

    /** A reply as a reflector builds it from {@code request}: TLVs copied with {@code tlvFlags}, base HMAC signed. */
    private static MemorySegment replyTo(byte[] request, int tlvFlags) throws Exception {
        byte[] r = request.clone();
        for (int at = 112; at < r.length; at += 4 + ((r[at + 2] & 0xFF) << 8 | r[at + 3] & 0xFF)) {
            r[at] = (byte) tlvFlags;
        }
        MemorySegment m = MemorySegment.ofArray(r);
        new ReflectorPacket(StampLayouts.AUTHENTICATED_REFLECTOR).wrap(m).clearMbz()
                .sequenceNumber(3).senderSequenceNumber(3).errorEstimate(1).senderErrorEstimate(1);
        System.arraycopy(hmac(r, 0, 96, null), 0, r, 96, 16);
        return m;
    }

    @Test
    void senderAcceptsAnUnsupportedHmacTlvAndRejectsABadOne() throws Exception {
        StampSenderSpec spec = new StampSenderSpec(true, KEY, TimestampFormat.NTP, 0, 0, ALL_HMAC);
        byte[] request = senderPacket(spec, 3);
        int hmacAt = request.length - 20;
        StampTelemetry telemetry = new StampTelemetry(10, ALL_HMAC);
        StampSenderCodec codec = new StampSenderCodec(spec, telemetry);
        MemorySegment copiedWithU = replyTo(request, StampTlv.FLAG_U);
        assertTrue(codec.openReflector(copiedWithU, request.length),
                "a reflector without TLV support copies our HMAC TLV with U: accepted (the base HMAC holds)");
        assertEquals(6, telemetry.unrecognised());
        MemorySegment answered = replyTo(request, 0);
        byte[] r = answered.toArray(ValueLayout.JAVA_BYTE);
        byte[] tag = hmac(r, 112, hmacAt, Arrays.copyOfRange(r, 0, 4));
        MemorySegment.copy(tag, 0, answered, ValueLayout.JAVA_BYTE, hmacAt + 4, 16);
        assertTrue(codec.openReflector(answered, request.length), "a recognised HMAC TLV that verifies");
        MemorySegment forged = replyTo(request, 0);
        forged.set(ValueLayout.JAVA_BYTE, hmacAt + 4, (byte) (forged.get(ValueLayout.JAVA_BYTE, hmacAt + 4) ^ 1));
        Assertions.assertFalse(codec.openReflector(forged, request.length),
                "a recognised HMAC TLV that does not verify drops the reply");
    }

    @Test
    void tlvListParsesAndRejectsBadElements() {
        assertEquals(new StampTlvRequest(true, 0, true, -1, 0, true, false), StampTlvRequest.parse("all", false));
        assertEquals(new StampTlvRequest(true, 0, true, -1, 0, true, true), StampTlvRequest.parse("all", true));
        assertEquals(new StampTlvRequest(false, 34, false, 1, 7, false, false),
                StampTlvRequest.parse("cos=34,ar=1:7", false));
        for (String bad : new String[] {"", "x", "cos=64", "cos=", "ar=1", "ar=16:1", "ar=1:256", "ts,,dm"}) {
            assertThrows(IllegalArgumentException.class, () -> StampTlvRequest.parse(bad, false), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> StampTlvRequest.parse("hmac", false));
    }
}
