package io.github.twping.session;

import io.github.twping.ffm.DatagramBatch;
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
        try (UdpSocket a = UdpSocket.open(o); UdpSocket b = UdpSocket.open(o); Arena arena = Arena.ofConfined();
             DatagramBatch batch = new DatagramBatch(4, 256)) {
            MemorySegment buffer = arena.allocate(256);
            for (String mode : new String[] {"block", "spin:100", "busy-poll"}) {
                ReflectorWait wait = ReflectorWait.parse(mode);
                a.send(buffer, 17, b.localAddress());
                assertEquals(1, wait.receiveBatch(b, batch, TimeUnit.SECONDS.toNanos(10), () -> false), mode);
                assertEquals(17, batch.length(0), mode);
                assertEquals(UdpSocket.TIMEOUT, wait.receiveBatch(b, batch, TimeUnit.MILLISECONDS.toNanos(5), () -> false), mode);
                for (int i = 0; i < 3; i++) {
                    a.send(buffer, 20 + i, b.localAddress());
                }
                int got = 0;
                for (int k = 0; k < 3 && got < 3; k++) { // the three may be taken by one call or by several
                    int n = wait.receiveBatch(b, batch, TimeUnit.SECONDS.toNanos(10), () -> false);
                    for (int i = 0; i < n; i++) {
                        assertEquals(20 + got + i, batch.length(i), mode);
                    }
                    got += n;
                }
                assertEquals(3, got, mode);
            }
            assertEquals(UdpSocket.CLOSED, ReflectorWait.parse("busy-poll").receiveBatch(b, batch, -1, () -> true));
        }
    }
}
