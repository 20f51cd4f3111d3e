package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.StandardProtocolFamily;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Option validation and defaults. */
class UdpSocketOptionsTest {
    @Test
    void shouldDeriveFamilyFromBindAddress() throws Exception {
        assertEquals(StandardProtocolFamily.INET, UdpSocketOptions.builder().build().family());
        assertEquals(StandardProtocolFamily.INET6,
                UdpSocketOptions.builder().bindAddress(InetAddress.getByName("::1")).build().family());
        UdpSocketOptions o = UdpSocketOptions.builder().build();
        assertEquals(UdpSocketOptions.DEFAULT, o.unicastTtl());
        assertEquals(Timestamping.NONE, o.timestamping());
    }

    /** Each check says what it rejected (the messages are built only when a check fails). */
    @Test
    void eachRejectionNamesTheValue() throws Exception {
        assertEquals("busy poll must be >= 0 µs: -2", message(UdpSocketOptions.builder().busyPollMicros(-2)));
        assertEquals("port range must satisfy 0 <= low <= high <= 65535: 10..5",
                message(UdpSocketOptions.builder().portRange(10, 5, 10)));
        assertEquals("first port 30 outside 10..20", message(UdpSocketOptions.builder().portRange(10, 20, 30)));
        assertEquals("ttl must be 1..255: 256", message(UdpSocketOptions.builder().unicastTtl(256)));
        assertEquals("tos must be 0..255: -2", message(UdpSocketOptions.builder().tos(-2)));
        assertEquals("bad interface name: a/b", message(UdpSocketOptions.builder().bindToDevice("a/b")));
        assertEquals("bind address /0:0:0:0:0:0:0:1 does not match family INET", message(UdpSocketOptions.builder()
                .family(StandardProtocolFamily.INET).bindAddress(InetAddress.getByName("::1"))));
    }

    private static String message(UdpSocketOptions.Builder builder) {
        return assertThrows(IllegalArgumentException.class, builder::build).getMessage();
    }

    @Test
    void shouldRejectBadValuesWithClearMessages() throws Exception {
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> UdpSocketOptions.builder().portRange(10, 5, 10).build()).getMessage().contains("port range"));
        assertThrows(IllegalArgumentException.class, () -> UdpSocketOptions.builder().portRange(10, 20, 30).build());
        assertThrows(IllegalArgumentException.class, () -> UdpSocketOptions.builder().unicastTtl(256).build());
        assertThrows(IllegalArgumentException.class, () -> UdpSocketOptions.builder().tos(-2).build());
        assertThrows(IllegalArgumentException.class, () -> UdpSocketOptions.builder().bindToDevice("a/b").build());
        assertThrows(IllegalArgumentException.class, () -> UdpSocketOptions.builder()
                .family(StandardProtocolFamily.INET).bindAddress(InetAddress.getByName("::1")).build());
        assertThrows(IllegalArgumentException.class, () -> UdpSocketOptions.builder().family(StandardProtocolFamily.UNIX));
    }
}
