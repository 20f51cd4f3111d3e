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
