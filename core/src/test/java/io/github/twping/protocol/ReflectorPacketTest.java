package io.github.twping.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class ReflectorPacketTest {
    // first open-mode reflector packet of open-test-udp.tsv
    private static final String RECORDED =
        "00000000eeb7dd31443ea70400010000eeb7dd31443b70ef00000000eeb7dd31442adc4c00010000ff";

    @Test
    void shouldDecodeRecordedPacket() {
        ReflectorPacket packet = new ReflectorPacket().wrap(MemorySegment.ofArray(HexFormat.of().parseHex(RECORDED)));
        assertEquals(0L, packet.sequenceNumber());
        assertEquals(0xeeb7dd31443ea704L, packet.timestampNtp());
        assertEquals(1, packet.errorEstimate());
        assertEquals(0xeeb7dd31443b70efL, packet.receiveTimestampNtp());
        assertEquals(0L, packet.senderSequenceNumber());
        assertEquals(0xeeb7dd31442adc4cL, packet.senderTimestampNtp());
        assertEquals(1, packet.senderErrorEstimate());
        assertEquals(255, packet.senderTtl());
    }

    @Test
    void shouldEncodeRecordedPacket() {
        MemorySegment segment = MemorySegment.ofArray(new byte[ReflectorPacket.LENGTH]);
        segment.fill((byte) 0x77);
        new ReflectorPacket().wrap(segment).clearMbz().sequenceNumber(0).timestampNtp(0xeeb7dd31443ea704L).errorEstimate(1)
            .receiveTimestampNtp(0xeeb7dd31443b70efL).senderSequenceNumber(0).senderTimestampNtp(0xeeb7dd31442adc4cL)
            .senderErrorEstimate(1).senderTtl(255);
        assertEquals(RECORDED, HexFormat.of().formatHex(segment.toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void shouldSizeRepliesLikeTwampd() {
        assertEquals(41, ReflectorPacket.replyLength(14));
        assertEquals(41, ReflectorPacket.replyLength(41));
        assertEquals(114, ReflectorPacket.replyLength(114));
    }
}
