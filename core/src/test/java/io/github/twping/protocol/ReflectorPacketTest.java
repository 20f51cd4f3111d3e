package io.github.twping.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class ReflectorPacketTest {
    // first open-mode reflector packet of open-test-udp.tsv
    private static final String RECORDED =
        "00000000eeb7dd31443ea70400010000eeb7dd31443b70ef00000000eeb7dd31442adc4c00010000ff";
    // appendix C.1: decrypted bytes 0..95 of the first encrypted reflector packet
    private static final String AUTHENTICATED_PLAINTEXT = "00000000000000000000000000000000"
        + "eeb7dd61cf393ab40001000000000000"
        + "eeb7dd61cf33fc860000000000000000"
        + "00000000000000000000000000000000"
        + "eeb7dd61cf1ec0b50001000000000000"
        + "ff000000000000000000000000000000";

    /** Both recorded first replies: sequence numbers 0, error estimates 1, TTL 255. */
    private static void assertFields(ReflectorPacket packet, long timestamp, long receiveTimestamp, long senderTimestamp) {
        assertEquals(0L, packet.sequenceNumber());
        assertEquals(timestamp, packet.timestampNtp());
        assertEquals(1, packet.errorEstimate());
        assertEquals(receiveTimestamp, packet.receiveTimestampNtp());
        assertEquals(0L, packet.senderSequenceNumber());
        assertEquals(senderTimestamp, packet.senderTimestampNtp());
        assertEquals(1, packet.senderErrorEstimate());
        assertEquals(255, packet.senderTtl());
    }

    @Test
    void shouldDecodeRecordedPacket() {
        ReflectorPacket packet = new ReflectorPacket(TestPacketLayout.UNAUTHENTICATED_REFLECTOR)
            .wrap(MemorySegment.ofArray(HexFormat.of().parseHex(RECORDED)));
        assertFields(packet, 0xeeb7dd31443ea704L, 0xeeb7dd31443b70efL, 0xeeb7dd31442adc4cL);
    }

    @Test
    void shouldEncodeRecordedPacket() {
        MemorySegment segment = MemorySegment.ofArray(new byte[TestPacketLayout.UNAUTHENTICATED_REFLECTOR.length()]);
        segment.fill((byte) 0x77);
        new ReflectorPacket(TestPacketLayout.UNAUTHENTICATED_REFLECTOR).wrap(segment).clearMbz().sequenceNumber(0)
            .timestampNtp(0xeeb7dd31443ea704L).errorEstimate(1).receiveTimestampNtp(0xeeb7dd31443b70efL)
            .senderSequenceNumber(0).senderTimestampNtp(0xeeb7dd31442adc4cL).senderErrorEstimate(1).senderTtl(255);
        assertEquals(RECORDED, HexFormat.of().formatHex(segment.toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void shouldDecodeAppendixCPlaintext() {
        ReflectorPacket packet = ReflectorPacket.forMode(Mode.ENCRYPTED)
            .wrap(MemorySegment.ofArray(HexFormat.of().parseHex(AUTHENTICATED_PLAINTEXT)));
        assertFields(packet, 0xeeb7dd61cf393ab4L, 0xeeb7dd61cf33fc86L, 0xeeb7dd61cf1ec0b5L);
    }

    @Test
    void shouldEncodeAppendixCPlaintextWithMbzCleared() {
        MemorySegment segment = MemorySegment.ofArray(new byte[96]);
        segment.fill((byte) 0xA5);
        ReflectorPacket.forMode(Mode.AUTHENTICATED).wrap(segment).clearMbz().sequenceNumber(0)
            .timestampNtp(0xeeb7dd61cf393ab4L).errorEstimate(1).receiveTimestampNtp(0xeeb7dd61cf33fc86L)
            .senderSequenceNumber(0).senderTimestampNtp(0xeeb7dd61cf1ec0b5L).senderErrorEstimate(1).senderTtl(255);
        assertEquals(AUTHENTICATED_PLAINTEXT, HexFormat.of().formatHex(segment.toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void shouldSizeRepliesLikeTwampd() {
        assertEquals(41, TestPacketLayout.UNAUTHENTICATED_REFLECTOR.replyLength(14));
        assertEquals(41, TestPacketLayout.UNAUTHENTICATED_REFLECTOR.replyLength(41));
        assertEquals(114, TestPacketLayout.UNAUTHENTICATED_REFLECTOR.replyLength(114));
        assertEquals(112, TestPacketLayout.AUTHENTICATED_REFLECTOR.replyLength(48));
        assertEquals(248, TestPacketLayout.AUTHENTICATED_REFLECTOR.replyLength(248));
    }

    @Test
    void shouldChooseTheLayoutByMode() {
        assertSame(TestPacketLayout.UNAUTHENTICATED_REFLECTOR, ReflectorPacket.forMode(Mode.OPEN).layout());
        assertSame(TestPacketLayout.UNAUTHENTICATED_REFLECTOR, ReflectorPacket.forMode(Mode.MIXED).layout());
        assertSame(TestPacketLayout.AUTHENTICATED_REFLECTOR, ReflectorPacket.forMode(Mode.AUTHENTICATED).layout());
        assertSame(TestPacketLayout.AUTHENTICATED_REFLECTOR, ReflectorPacket.forMode(Mode.ENCRYPTED).layout());
        assertThrows(IllegalArgumentException.class, () -> new ReflectorPacket(TestPacketLayout.UNAUTHENTICATED_SENDER));
    }
}
