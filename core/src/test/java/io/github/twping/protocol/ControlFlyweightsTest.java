package io.github.twping.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

class ControlFlyweightsTest {
    private static String hex(MemorySegment s, int len) {
        return HexFormat.of().formatHex(s.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void shouldEncodeSpecRequestExample() {
        // RFC 5357 §3.5 example: 192.0.2.10 -> 198.51.100.20, port 8800, padding 27, DSCP EF.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(RequestTwSession.LENGTH);
            new RequestTwSession().wrap(seg).clear()
                    .command(RequestTwSession.COMMAND).ipvn(4)
                    .senderPort(8800).receiverPort(8800)
                    .senderAddress(new byte[] {(byte) 192, 0, 2, 10})
                    .receiverAddress(new byte[] {(byte) 198, 51, 100, 20})
                    .paddingLength(27).startTimeNtp(0xE8FE6F8500000000L)
                    .timeoutNtp(0x000000020020c49bL).typePDescriptor(0x2e000000);
            assertEquals("05040000000000000000000022602260"
                    + "c000020a000000000000000000000000"
                    + "c6336414000000000000000000000000"
                    + "00000000000000000000000000000000"
                    + "0000001be8fe6f850000000000000002"
                    + "0020c49b2e0000000000000000000000"
                    + "00000000000000000000000000000000", hex(seg, RequestTwSession.LENGTH));
            RequestTwSession req = new RequestTwSession().wrap(seg);
            assertEquals(8800, req.receiverPort());
            assertEquals(0x000000020020c49bL, req.timeoutNtp());
            assertEquals(27, req.paddingLength());
            assertEquals(0x2e000000, req.typePDescriptor());
        }
    }

    @Test
    void shouldDecodeSpecAcceptSessionExample() {
        MemorySegment seg = MemorySegment.ofArray(HexFormat.of().parseHex(
                "00002260c6336414e8fe6f83400000005f607182000000000000000000000000"
                        + "00000000000000000000000000000000"));
        AcceptSession a = new AcceptSession().wrap(seg);
        byte[] sid = new byte[16];
        a.copySidTo(sid);
        assertEquals(0, a.accept());
        assertEquals(8800, a.port());
        assertEquals("c6336414e8fe6f83400000005f607182", HexFormat.of().formatHex(sid));
    }

    @Test
    void shouldEncodeStopSessionsAndSetUpResponse() {
        MemorySegment stop = MemorySegment.ofArray(new byte[StopSessions.LENGTH]);
        new StopSessions().wrap(stop).reset().accept(2).numberOfSessions(1);
        assertEquals("03020000000000010000000000000000", hex(stop, 16));

        MemorySegment su = MemorySegment.ofArray(new byte[SetUpResponse.LENGTH]);
        SetUpResponse r = new SetUpResponse().wrap(su).clear().mode(Mode.ENCRYPTED.bits())
                .keyId("alice".getBytes(StandardCharsets.US_ASCII));
        assertEquals(5, r.keyIdLength());
        assertEquals("00000004616c69636500", hex(su, 10));
        r.keyId(new byte[100]);
        assertEquals(0, r.keyIdLength());
        byte[] longId = new byte[100];
        Arrays.fill(longId, (byte) 'x');
        assertEquals(80, r.keyId(longId).keyIdLength());
    }

    @Test
    void shouldReadServerStartAndGreetingFields() {
        MemorySegment ss = MemorySegment.ofArray(new byte[ServerStart.LENGTH]);
        new ServerStart().wrap(ss).accept(3).startTimeNtp(0xeeb7dd07fb1ca7d6L);
        assertEquals(3, ss.get(ValueLayout.JAVA_BYTE, 15));
        assertEquals(0xeeb7dd07fb1ca7d6L, new ServerStart().wrap(ss).startTimeNtp());
        MemorySegment g = MemorySegment.ofArray(new byte[ServerGreeting.LENGTH]);
        new ServerGreeting().wrap(g).modes(0xF).count(0xFFFFFFFFL);
        assertEquals(0xFFFFFFFFL, new ServerGreeting().wrap(g).count());
        assertEquals(0xF, new ServerGreeting().wrap(g).modes());
        assertEquals(112, ControlMessage.requestLength(5));
        assertEquals(32, ControlMessage.requestLength(3));
        assertEquals(-1, ControlMessage.requestLength(9));
    }
}
