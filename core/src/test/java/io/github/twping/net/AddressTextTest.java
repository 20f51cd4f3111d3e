package io.github.twping.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AddressTextTest {

    /** One formatter, glibc's {@code inet_ntop} (issue 26, item 9): C prints addresses with it. */
    @ParameterizedTest
    @CsvSource({
        "0:0:0:0:0:0:0:1, ::1",
        "fe80:0:0:0:1:0:0:2, fe80::1:0:0:2",
        "1:0:2:0:0:0:3:0, 1:0:2::3:0",
        "1:0:2:3:4:5:6:7, 1:0:2:3:4:5:6:7",
        "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",
        "1:0:0:2:0:0:3:4, 1::2:0:0:3:4",
        "0:0:0:0:0:0:0:0, ::",
        "2001:db8::1, 2001:db8::1",
        "::c000:201, ::192.0.2.1",
        "::2, ::2",
        "::1:c000:201, ::1:c000:201",
        "192.0.2.7, 192.0.2.7",
    })
    void shouldPrintLikeGlibcInetNtop(String text, String expected) throws UnknownHostException {
        assertEquals(expected, AddressText.numeric(InetAddress.getByName(text)));
    }

    @Test
    void shouldPrintMappedAddressesLikeGlibc() throws UnknownHostException {
        byte[] mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 192, 0, 2, 1};
        assertEquals("::ffff:192.0.2.1", AddressText.numeric(Inet6Address.getByAddress(null, mapped, -1)));
        assertEquals("unknown", AddressText.numeric(null));
    }

    @Test
    void shouldPrintAddressesWithoutZoneAndCompressed() throws UnknownHostException {
        assertEquals("::1", AddressText.numeric(InetAddress.getByName("::1")));
        assertEquals("fe80::1", AddressText.numeric(InetAddress.getByName("fe80::1%1")));
        assertEquals("198.51.100.3", AddressText.numeric(InetAddress.getByName("198.51.100.3")));
        assertEquals("host", AddressText.withoutZone("host%eth0"));
    }

    @Test
    void shouldUnmapOnlyIpv4MappedAddresses() throws UnknownHostException {
        byte[] mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 203, 0, 113, 9};
        InetAddress mappedV6 = Inet6Address.getByAddress(null, mapped, -1);
        assertInstanceOf(Inet6Address.class, mappedV6);
        assertEquals(InetAddress.getByName("203.0.113.9"), AddressText.unmapped(mappedV6));
        InetAddress v6 = InetAddress.getByName("2001:db8::ffff:cb00:7109");
        assertSame(v6, AddressText.unmapped(v6));
        InetAddress v4 = InetAddress.getByName("192.0.2.1");
        assertSame(v4, AddressText.unmapped(v4));
    }
}
