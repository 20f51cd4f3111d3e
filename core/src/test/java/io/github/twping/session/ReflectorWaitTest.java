package io.github.twping.session;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Parsing of the reflector's wait strategies and their receive behaviour on a loopback socket. */
class ReflectorWaitTest {

    @Test
    void shouldParseTheStrategies() {
        assertEquals(ReflectorWait.Mode.BLOCK, ReflectorWait.parse("block").mode());
        assertEquals(ReflectorWait.SPIN, ReflectorWait.parse("spin"));
        assertEquals(ReflectorWait.DEFAULT, ReflectorWait.parse("block"));
        assertEquals(TimeUnit.MICROSECONDS.toNanos(200), ReflectorWait.parse("SPIN:200").spinNs());
        assertEquals(ReflectorWait.Mode.BLOCK, ReflectorWait.parse("spin:0").mode());
        assertEquals(ReflectorWait.Mode.BUSY_POLL, ReflectorWait.parse(" busy-poll ").mode());
        assertEquals("spin:50", ReflectorWait.SPIN.toString());
        assertEquals("block", ReflectorWait.DEFAULT.toString());
        assertEquals("busy-poll", ReflectorWait.parse("busy-poll").toString());
        for (String bad : new String[] {"", "spin:", "spin:-1", "spin:1000001", "spin:1e3", "poll", null}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReflectorWait.parse(bad));
            assertEquals(-1, e.getMessage().indexOf('\n'));
        }
    }

    @Test
    void shouldReceiveTimeOutAndStopInEveryMode() throws Exception {
        UdpSocketOptions o = UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .timestamping(Timestamping.RX_SOFTWARE).build();
        try (UdpSocket a = UdpSocket.open(o); UdpSocket b = UdpSocket.open(o); Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(256);
            ReceivedPacket meta = new ReceivedPacket();
            for (String mode : new String[] {"block", "spin:100", "busy-poll"}) {
                ReflectorWait wait = ReflectorWait.parse(mode);
                a.send(buffer, 17, b.localAddress());
                assertEquals(17, wait.receive(b, buffer, meta, TimeUnit.SECONDS.toNanos(10), () -> false), mode);
                assertEquals(UdpSocket.TIMEOUT, wait.receive(b, buffer, meta, TimeUnit.MILLISECONDS.toNanos(5), () -> false), mode);
            }
            assertEquals(UdpSocket.CLOSED, ReflectorWait.parse("busy-poll").receive(b, buffer, meta, -1, () -> true));
        }
    }
}
