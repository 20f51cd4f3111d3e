package io.github.twping.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class SenderPacketTest {
    // first open-mode sender packet of open-test-udp.tsv (41 bytes: 14 + 27 padding)
    private static final String RECORDED =
        "00000000eeb7dd31442adc4c0001e8330ded57264d291ba5be8dace84aba725c3e899f746ada9ef718";

    @Test
    void shouldDecodeRecordedPacket() {
        byte[] bytes = HexFormat.of().parseHex(RECORDED);
        SenderPacket packet = new SenderPacket().wrap(MemorySegment.ofArray(bytes));
        assertEquals(0L, packet.sequenceNumber());
        assertEquals(0xeeb7dd31442adc4cL, packet.timestampNtp());
        assertEquals(0x0001, packet.errorEstimate());
        assertEquals(41, SenderPacket.length(27));
    }

    @Test
    void shouldEncodeUnsignedFieldsAtOffsets() {
        MemorySegment segment = MemorySegment.ofArray(new byte[20]);
        new SenderPacket().wrap(segment, 3).sequenceNumber(0xFFFF_FFFEL).timestampNtp(0xE8FE6F801F9ACFFAL).errorEstimate(0x8587);
        assertEquals("000000" + "fffffffe" + "e8fe6f801f9acffa" + "8587" + "000000",
            HexFormat.of().formatHex(segment.toArray(ValueLayout.JAVA_BYTE)));
        SenderPacket view = new SenderPacket().wrap(segment, 3);
        assertEquals(0xFFFF_FFFEL, view.sequenceNumber());
        assertEquals(0x8587, view.errorEstimate());
        assertEquals(0xE8FE6F801F9ACFFAL, view.timestampNtp());
    }
}
