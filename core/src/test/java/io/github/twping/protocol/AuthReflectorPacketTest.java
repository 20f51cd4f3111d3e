package io.github.twping.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class AuthReflectorPacketTest {
    // appendix C.1: decrypted bytes 0..95 of the first encrypted reflector packet
    private static final String PLAINTEXT = "00000000000000000000000000000000"
        + "eeb7dd61cf393ab40001000000000000"
        + "eeb7dd61cf33fc860000000000000000"
        + "00000000000000000000000000000000"
        + "eeb7dd61cf1ec0b50001000000000000"
        + "ff000000000000000000000000000000";

    @Test
    void shouldDecodeAppendixCPlaintext() {
        AuthReflectorPacket packet = new AuthReflectorPacket().wrap(MemorySegment.ofArray(HexFormat.of().parseHex(PLAINTEXT)));
        assertEquals(0L, packet.sequenceNumber());
        assertEquals(0xeeb7dd61cf393ab4L, packet.timestampNtp());
        assertEquals(1, packet.errorEstimate());
        assertEquals(0xeeb7dd61cf33fc86L, packet.receiveTimestampNtp());
        assertEquals(0L, packet.senderSequenceNumber());
        assertEquals(0xeeb7dd61cf1ec0b5L, packet.senderTimestampNtp());
        assertEquals(1, packet.senderErrorEstimate());
        assertEquals(255, packet.senderTtl());
    }

    @Test
    void shouldEncodeAppendixCPlaintextWithMbzCleared() {
        MemorySegment segment = MemorySegment.ofArray(new byte[96]);
        segment.fill((byte) 0xA5);
        new AuthReflectorPacket().wrap(segment).clearMbz().sequenceNumber(0).timestampNtp(0xeeb7dd61cf393ab4L)
            .errorEstimate(1).receiveTimestampNtp(0xeeb7dd61cf33fc86L).senderSequenceNumber(0)
            .senderTimestampNtp(0xeeb7dd61cf1ec0b5L).senderErrorEstimate(1).senderTtl(255);
        assertEquals(PLAINTEXT, HexFormat.of().formatHex(segment.toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(112, AuthReflectorPacket.replyLength(48));
        assertEquals(248, AuthReflectorPacket.replyLength(248));
    }
}
