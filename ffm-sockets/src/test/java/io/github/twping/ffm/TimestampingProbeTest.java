package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The probe over loopback: on this machine software RX and TX timestamps must really arrive. */
class TimestampingProbeTest {
    @Test
    void shouldSeeSoftwareTimestampsOverIpv4Loopback() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TimestampingProbe.Result r = TimestampingProbe.run(null, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);

        assertTrue(r.nativeSockets(), text);
        assertEquals(TimestampingProbe.PACKETS, r.received(), text);
        assertEquals(TimestampingProbe.PACKETS, r.rxSoftware(), text);
        assertEquals(TimestampingProbe.PACKETS, r.txSoftware(), text);
        assertEquals(0, r.rxHardware(), "no hardware stamps on loopback");
        assertTrue(text.contains("RX software    yes (5/5)"), text);
        assertTrue(text.contains("TX software    yes (5/5)"), text);
        assertTrue(text.contains("clock "), text);
        assertTrue(text.lines().count() <= 10, "short report:\n" + text);
    }

    @Test
    void shouldProbeIpv6Loopback() throws Exception {
        assumeTrue(ipv6LoopbackWorks(), "no IPv6 loopback on this machine");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TimestampingProbe.Result r = TimestampingProbe.run(InetAddress.getByName("::1"),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertEquals(TimestampingProbe.PACKETS, r.rxSoftware(), bytes.toString(StandardCharsets.UTF_8));
        assertEquals(TimestampingProbe.PACKETS, r.txSoftware());
    }

    private static boolean ipv6LoopbackWorks() {
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("::1"), 0))) {
            return probe.getLocalPort() > 0;
        } catch (IOException e) {
            return false;
        }
    }
}
