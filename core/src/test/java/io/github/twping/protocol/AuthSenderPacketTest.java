package io.github.twping.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class AuthSenderPacketTest {

    @Test
    void shouldEncodeLayoutOfSpec31() {
        MemorySegment segment = MemorySegment.ofArray(new byte[AuthSenderPacket.length(4)]);
        segment.fill((byte) 0xEE);
        new AuthSenderPacket().wrap(segment).clearMbz().sequenceNumber(0x01020304L).timestampNtp(0xeeb7dd4989b18548L)
            .errorEstimate(0x0001);
        String hex = HexFormat.of().formatHex(segment.toArray(ValueLayout.JAVA_BYTE));
        assertEquals("01020304" + "000000000000000000000000" + "eeb7dd4989b18548" + "0001" + "000000000000"
            + "ee".repeat(16) + "ee".repeat(4), hex);
        AuthSenderPacket view = new AuthSenderPacket().wrap(segment);
        assertEquals(0x01020304L, view.sequenceNumber());
        assertEquals(0xeeb7dd4989b18548L, view.timestampNtp());
        assertEquals(1, view.errorEstimate());
        assertEquals(52, AuthSenderPacket.length(4));
    }
}
