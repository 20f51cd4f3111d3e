package io.github.twping.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
        SenderPacket packet = new SenderPacket(TestPacketLayout.UNAUTHENTICATED_SENDER).wrap(MemorySegment.ofArray(bytes));
        assertEquals(0L, packet.sequenceNumber());
        assertEquals(0xeeb7dd31442adc4cL, packet.timestampNtp());
        assertEquals(0x0001, packet.errorEstimate());
        assertEquals(41, TestPacketLayout.UNAUTHENTICATED_SENDER.packetLength(27));
    }

    @Test
    void shouldEncodeUnsignedFieldsAtOffsets() {
        MemorySegment segment = MemorySegment.ofArray(new byte[20]);
        new SenderPacket(TestPacketLayout.UNAUTHENTICATED_SENDER).wrap(segment, 3).sequenceNumber(0xFFFF_FFFEL)
            .timestampNtp(0xE8FE6F801F9ACFFAL).errorEstimate(0x8587);
        assertEquals("000000" + "fffffffe" + "e8fe6f801f9acffa" + "8587" + "000000",
            HexFormat.of().formatHex(segment.toArray(ValueLayout.JAVA_BYTE)));
        SenderPacket view = new SenderPacket(TestPacketLayout.UNAUTHENTICATED_SENDER).wrap(segment, 3);
        assertEquals(0xFFFF_FFFEL, view.sequenceNumber());
        assertEquals(0x8587, view.errorEstimate());
        assertEquals(0xE8FE6F801F9ACFFAL, view.timestampNtp());
    }

    @Test
    void shouldEncodeAuthenticatedLayoutOfRfc5357() {
        MemorySegment segment = MemorySegment.ofArray(new byte[TestPacketLayout.AUTHENTICATED_SENDER.packetLength(4)]);
        segment.fill((byte) 0xEE);
        SenderPacket.forMode(Mode.ENCRYPTED).wrap(segment).clearMbz().sequenceNumber(0x01020304L)
            .timestampNtp(0xeeb7dd4989b18548L).errorEstimate(0x0001);
        String hex = HexFormat.of().formatHex(segment.toArray(ValueLayout.JAVA_BYTE));
        assertEquals("01020304" + "000000000000000000000000" + "eeb7dd4989b18548" + "0001" + "000000000000"
            + "ee".repeat(16) + "ee".repeat(4), hex, "MBZ zeroed, HMAC and padding untouched");
        SenderPacket view = SenderPacket.forMode(Mode.AUTHENTICATED).wrap(segment);
        assertEquals(0x01020304L, view.sequenceNumber());
        assertEquals(0xeeb7dd4989b18548L, view.timestampNtp());
        assertEquals(1, view.errorEstimate());
        assertEquals(52, TestPacketLayout.AUTHENTICATED_SENDER.packetLength(4));
    }

    @Test
    void shouldChooseTheLayoutByMode() {
        assertSame(TestPacketLayout.UNAUTHENTICATED_SENDER, SenderPacket.forMode(Mode.OPEN).layout());
        assertSame(TestPacketLayout.UNAUTHENTICATED_SENDER, SenderPacket.forMode(Mode.MIXED).layout());
        assertSame(TestPacketLayout.AUTHENTICATED_SENDER, SenderPacket.forMode(Mode.AUTHENTICATED).layout());
        assertSame(TestPacketLayout.AUTHENTICATED_SENDER, SenderPacket.forMode(Mode.ENCRYPTED).layout());
    }

    @Test
    void shouldRefuseAReflectorLayout() {
        assertThrows(IllegalArgumentException.class, () -> new SenderPacket(TestPacketLayout.AUTHENTICATED_REFLECTOR));
    }
}
