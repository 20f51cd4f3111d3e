package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import static io.github.twping.ffm.SocketConstants.AF_INET;
import static io.github.twping.ffm.SocketConstants.AF_INET6;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.net.Inet6Address;

/** sockaddr encoding / decoding round trips and allocation-free source comparison. */
class SockAddrsTest {
    private final Arena arena = Arena.ofAuto();

    @Test
    void shouldEncodeIpv4InNetworkOrder() throws Exception {
        MemorySegment sa = arena.allocate(128);
        assertEquals(16, SockAddrs.encode(InetAddress.getByName("192.0.2.10"), 862, AF_INET, sa));
        assertEquals(AF_INET, sa.get(JAVA_SHORT, 0));
        assertEquals((byte) 0x03, sa.get(JAVA_BYTE, 2));
        assertEquals((byte) 0x5e, sa.get(JAVA_BYTE, 3));
        assertEquals((byte) 192, sa.get(JAVA_BYTE, 4));
        assertEquals((byte) 10, sa.get(JAVA_BYTE, 7));

        ReceivedPacket meta = new ReceivedPacket();
        SockAddrs.decodeSource(sa, 16, meta);
        assertEquals(new InetSocketAddress("192.0.2.10", 862), meta.sourceAddress());
        assertTrue(meta.sourceIs(new InetSocketAddress("192.0.2.10", 862)));
        assertFalse(meta.sourceIs(new InetSocketAddress("192.0.2.10", 863)));
        assertFalse(meta.sourceIs(new InetSocketAddress("192.0.2.11", 862)));
    }

    @Test
    void shouldRoundTripIpv6WithScope() throws Exception {
        MemorySegment sa = arena.allocate(128);
        InetAddress linkLocal = Inet6Address.getByAddress(null, InetAddress.getByName("fe80::1").getAddress(), 3);
        assertEquals(28, SockAddrs.encode(linkLocal, 65535, AF_INET6, sa));
        ReceivedPacket meta = new ReceivedPacket();
        SockAddrs.decodeSource(sa, 28, meta);
        assertEquals(16, meta.sourceAddressLength());
        assertEquals(65535, meta.sourcePort());
        assertEquals(new InetSocketAddress(linkLocal, 65535), meta.sourceAddress());
        assertEquals(new InetSocketAddress(linkLocal, 65535), SockAddrs.decode(sa, 28));
    }

    @Test
    void shouldMapIpv4OnIpv6SocketsAndCompareAsIpv4() throws Exception {
        MemorySegment sa = arena.allocate(128);
        assertEquals(28, SockAddrs.encode(InetAddress.getByName("127.0.0.1"), 5000, AF_INET6, sa));
        assertEquals((byte) 0xff, sa.get(JAVA_BYTE, 8 + 10));
        assertEquals((byte) 127, sa.get(JAVA_BYTE, 8 + 12));

        ReceivedPacket meta = new ReceivedPacket();
        SockAddrs.decodeSource(sa, 28, meta);
        assertEquals(4, meta.sourceAddressLength());
        InetSocketAddress expected = new InetSocketAddress("127.0.0.1", 5000);
        assertTrue(meta.sourceIs(expected));
        assertTrue(meta.sourceIs(expected), "second call uses the identity cache");
        assertEquals(expected, meta.sourceAddress());
    }

    @Test
    void shouldRefuseIpv6OnIpv4Socket() throws Exception {
        assertEquals(-Errno.EAFNOSUPPORT, SockAddrs.encode(InetAddress.getByName("::1"), 1, AF_INET, arena.allocate(128)));
    }

    @Test
    void shouldTreatShortOrUnknownAddressesAsNoSource() {
        MemorySegment sa = arena.allocate(128);
        ReceivedPacket meta = new ReceivedPacket();
        SockAddrs.decodeSource(sa, 0, meta);
        assertEquals(0, meta.sourceAddressLength());
        assertEquals(null, meta.sourceAddress());
    }
}
