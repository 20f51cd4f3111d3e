package io.github.twping.stamp;

import io.github.twping.protocol.StampLayouts;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.github.twping.protocol.Mode;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.TestPacketLayout;
import io.github.twping.time.NtpTime;
import org.junit.jupiter.api.Test;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/** The STAMP descriptors against the figures of RFC 8762 §4.2.1, §4.2.2, §4.3.1, §4.3.2 and RFC 8972 §3. */
class StampLayoutsTest {
    private static final byte[] KEY = "stamp shared key".getBytes(StandardCharsets.US_ASCII);

    @Test
    void unauthenticatedSenderMatchesFigure1() {
        TestPacketLayout l = StampLayouts.UNAUTHENTICATED_SENDER;
        assertEquals(44, l.length());
        assertEquals(0, l.sequenceOffset());
        assertEquals(4, l.timestampOffset());
        assertEquals(12, l.errorEstimateOffset());
        assertEquals(TestPacketLayout.ABSENT, l.hmacOffset());
        assertEquals(14, StampLayouts.SSID_UNAUTHENTICATED);
        assertEquals(14, l.ssidOffset());
        // the SSID (14..15) is a field; MBZ is 16..43
        assertEquals(1, l.mbzRanges());
        assertEquals(16, l.mbzOffset(0));
        assertEquals(28, l.mbzLength(0));
    }

    @Test
    void authenticatedSenderMatchesFigure2() {
        TestPacketLayout l = StampLayouts.AUTHENTICATED_SENDER;
        assertEquals(112, l.length());
        assertEquals(0, l.sequenceOffset());
        assertEquals(16, l.timestampOffset());
        assertEquals(24, l.errorEstimateOffset());
        assertEquals(96, l.hmacOffset());
        assertEquals(26, StampLayouts.SSID_AUTHENTICATED);
        assertEquals(26, l.ssidOffset());
        assertEquals(2, l.mbzRanges());
        assertEquals(4, l.mbzOffset(0));
        assertEquals(12, l.mbzLength(0));
        assertEquals(28, l.mbzOffset(1));
        assertEquals(68, l.mbzLength(1));
        TestPacketLayout.Protection p = l.protection(Mode.AUTHENTICATED);
        assertEquals(0, p.encryptedTo() - p.encryptedFrom(), "STAMP encrypts nothing");
        assertEquals(0, p.hmacFrom());
        assertEquals(96, p.hmacTo());
    }

    @Test
    void unauthenticatedReflectorMatchesFigure4() {
        TestPacketLayout l = StampLayouts.UNAUTHENTICATED_REFLECTOR;
        assertEquals(44, l.length());
        assertEquals(0, l.sequenceOffset());
        assertEquals(4, l.timestampOffset());
        assertEquals(12, l.errorEstimateOffset());
        assertEquals(16, l.receiveTimestampOffset());
        assertEquals(24, l.senderSequenceOffset());
        assertEquals(28, l.senderTimestampOffset());
        assertEquals(36, l.senderErrorEstimateOffset());
        assertEquals(40, l.senderTtlOffset());
        assertEquals(14, l.ssidOffset());
        int[][] mbz = {{38, 2}, {41, 3}};
        assertEquals(mbz.length, l.mbzRanges());
        for (int i = 0; i < mbz.length; i++) {
            assertEquals(mbz[i][0], l.mbzOffset(i));
            assertEquals(mbz[i][1], l.mbzLength(i));
        }
    }

    @Test
    void authenticatedReflectorMatchesFigure5() {
        TestPacketLayout l = StampLayouts.AUTHENTICATED_REFLECTOR;
        assertEquals(112, l.length());
        assertEquals(0, l.sequenceOffset());
        assertEquals(16, l.timestampOffset());
        assertEquals(24, l.errorEstimateOffset());
        assertEquals(32, l.receiveTimestampOffset());
        assertEquals(48, l.senderSequenceOffset());
        assertEquals(64, l.senderTimestampOffset());
        assertEquals(72, l.senderErrorEstimateOffset());
        assertEquals(80, l.senderTtlOffset());
        assertEquals(96, l.hmacOffset());
        assertEquals(26, l.ssidOffset());
        int[][] mbz = {{4, 12}, {28, 4}, {40, 8}, {52, 12}, {74, 6}, {81, 15}};
        assertEquals(mbz.length, l.mbzRanges());
        for (int i = 0; i < mbz.length; i++) {
            assertEquals(mbz[i][0], l.mbzOffset(i), "range " + i);
            assertEquals(mbz[i][1], l.mbzLength(i), "range " + i);
        }
    }

    @Test
    void senderCodecSignsBytesZeroTo95WithTruncatedHmacSha256() throws Exception {
        StampSenderSpec spec = new StampSenderSpec(true, KEY, TimestampFormat.NTP, 0xBEEF, 0);
        StampSenderCodec codec = new StampSenderCodec(spec);
        MemorySegment packet = MemorySegment.ofArray(new byte[112]);
        SenderPacket fields = new SenderPacket(StampLayouts.AUTHENTICATED_SENDER).wrap(packet);
        fields.clearMbz().sequenceNumber(7);
        codec.sealSenderHead(packet);
        fields.timestampNtp(0x0123_4567_89AB_CDEFL).errorEstimate(0x8105);
        codec.sealSenderTail(packet);
        byte[] bytes = packet.toArray(ValueLayout.JAVA_BYTE);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        assertEquals(7, b.getInt(0));
        assertEquals(0x0123_4567_89AB_CDEFL, b.getLong(16));
        assertEquals(0x8105, b.getShort(24) & 0xFFFF);
        assertEquals(0xBEEF, b.getShort(26) & 0xFFFF);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
        mac.update(bytes, 0, 96);
        byte[] expected = Arrays.copyOf(mac.doFinal(), 16);
        assertArrayEquals(expected, Arrays.copyOfRange(bytes, 96, 112));
    }

    @Test
    void replyHmacCoversExactlyBytesZeroTo95() throws Exception {
        StampSenderCodec codec = new StampSenderCodec(new StampSenderSpec(true, KEY, TimestampFormat.NTP, 0, 0));
        byte[] reply = new byte[120];
        for (int i = 0; i < 96; i++) {
            reply[i] = (byte) (i * 7);
        }
        reply[25] = 1;   // valid reflector error estimate (multiplier 1), Z = 0
        reply[73] = 1;   // valid sender error estimate
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
        mac.update(reply, 0, 96);
        System.arraycopy(mac.doFinal(), 0, reply, 96, 16);
        byte[] tail = {9, 9, 9, 9, 9, 9, 9, 9};
        System.arraycopy(tail, 0, reply, 112, 8);   // bytes after the HMAC are not covered
        assertTrue(codec.openReflector(MemorySegment.ofArray(reply.clone()), 120));
        for (int i = 0; i < 112; i++) {
            byte[] tampered = reply.clone();
            tampered[i] ^= 0x01;
            assertFalse(codec.openReflector(MemorySegment.ofArray(tampered), 120), "byte " + i);
        }
        byte[] tailChanged = reply.clone();
        tailChanged[115] ^= 0x55;
        assertTrue(codec.openReflector(MemorySegment.ofArray(tailChanged), 120));
        assertFalse(codec.openReflector(MemorySegment.ofArray(reply.clone()), 111), "short datagram");
    }

    @Test
    void ptpFormatSetsZAndIsConvertedBackToNtp() {
        long epochNs = 1_764_600_000_123_456_789L;
        long ntp = NtpTime.fromEpochNanos(epochNs);
        long ptp = TimestampFormat.PTP.fromNtp(ntp);
        assertEquals(1_764_600_000L, ptp >>> 32, "seconds since 1970");
        long nanos = ptp & 0xFFFF_FFFFL;
        assertTrue(Math.abs(nanos - 123_456_789L) <= 1, "nanoseconds: " + nanos);
        assertEquals(TimestampFormat.PTP.fromEpochNanos(epochNs), (1_764_600_000L << 32) | 123_456_789L);
        long back = TimestampFormat.PTP.toNtp(ptp);
        assertTrue(Math.abs(NtpTime.toEpochNanos(back) - epochNs) <= 2);
        assertEquals(0xC105, TimestampFormat.PTP.markErrorEstimate(0x8105));
        assertEquals(0x8105, TimestampFormat.NTP.markErrorEstimate(0xC105));
        assertEquals(TimestampFormat.PTP, TimestampFormat.ofErrorEstimate(0x4001));

        StampSenderCodec codec = new StampSenderCodec(new StampSenderSpec(false, null, TimestampFormat.PTP, 3, 0));
        MemorySegment packet = MemorySegment.ofArray(new byte[44]);
        SenderPacket fields = new SenderPacket(StampLayouts.UNAUTHENTICATED_SENDER).wrap(packet);
        fields.clearMbz().sequenceNumber(1);
        codec.sealSenderHead(packet);
        fields.timestampNtp(ntp).errorEstimate(0x0001);
        codec.sealSenderTail(packet);
        ByteBuffer b = ByteBuffer.wrap(packet.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(ptp, b.getLong(4));
        assertEquals(0x4001, b.getShort(12) & 0xFFFF);
        assertEquals(3, b.getShort(14) & 0xFFFF);
    }

    @Test
    void extraPaddingTlvHeaderFollowsTheBasePacket() {
        StampSenderSpec spec = new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 20);
        assertEquals(24, spec.tlvBytes());
        StampSenderCodec codec = new StampSenderCodec(spec);
        MemorySegment packet = MemorySegment.ofArray(new byte[44 + 24]);
        codec.sealSenderHead(packet);
        ByteBuffer b = ByteBuffer.wrap(packet.toArray(ValueLayout.JAVA_BYTE));
        assertEquals((byte) StampTlv.FLAG_U, b.get(44));  // flags: U = 1 from a Session-Sender (RFC 8972 §4)
        assertEquals(StampTlv.EXTRA_PADDING, b.get(45));  // type 1
        assertEquals(20, b.getShort(46));                 // value octets
    }
}
