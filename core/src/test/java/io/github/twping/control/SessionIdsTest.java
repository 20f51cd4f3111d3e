package io.github.twping.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.github.twping.protocol.RequestTwSession;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import java.net.Inet6Address;

class SessionIdsTest {
    @Test
    void shouldBuildSidFromReceiverAddressTimeAndRandomTail() throws Exception {
        ScriptedRandom random = new ScriptedRandom(HexFormat.of().parseHex("db08cf87"));
        byte[] sid = SessionIds.create(InetAddress.getByName("127.0.0.1"), 0xeeb7dd60cb77c02aL, random);
        // The SID of the recorded encrypted session (docs/PROTOCOL-TEST.md).
        assertEquals("7f000001eeb7dd60cb77c02adb08cf87", HexFormat.of().formatHex(sid));
    }

    @Test
    void shouldUseLastFourBytesOfIpv6Receiver() throws Exception {
        byte[] sid = SessionIds.create(InetAddress.getByName("::1"), 0L, new ScriptedRandom(new byte[4]));
        assertEquals("00000001", HexFormat.of().formatHex(sid, 0, 4));
    }

    @Test
    void shouldRoundTripIpv6RequestAndTreatZeroAddressesAsUnspecified() throws Exception {
        InetAddress v6 = InetAddress.getByName("2001:db8::5");
        SessionRequest r = SessionRequest.forTwping(6, v6, 1000, null, 2000, 0, 1L, 2L, 0x2e000000);
        byte[] wire = new byte[RequestTwSession.LENGTH];
        RequestTwSession m = new RequestTwSession().wrap(MemorySegment.ofArray(wire));
        r.encode(m);
        assertEquals(6, wire[1]);
        assertEquals("20010db8000000000000000000000005", HexFormat.of().formatHex(wire, 16, 32));
        assertEquals("00000000000000000000000000000000", HexFormat.of().formatHex(wire, 32, 48));
        SessionRequest back = SessionRequest.decode(m);
        assertEquals(r, back);
        assertNull(back.receiverAddress());
        // An IPv4-mapped address stays an IPv6 test address under IPVN 6.
        byte[] mapped = HexFormat.of().parseHex("00000000000000000000ffff7f000001");
        m.senderAddress(mapped);
        assertEquals(Inet6Address.class, SessionRequest.decode(m).senderAddress().getClass());
    }
}
