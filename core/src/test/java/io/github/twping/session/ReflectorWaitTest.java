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
        assertEquals("ahead:100", ReflectorWait.parse("ahead").toString());
        assertEquals(ReflectorWait.Mode.AHEAD, ReflectorWait.parse("ahead:250").mode());
        assertEquals(TimeUnit.MICROSECONDS.toNanos(250), ReflectorWait.parse("ahead:250").spinNs());
        assertEquals(ReflectorWait.Mode.BLOCK, ReflectorWait.parse("ahead:0").mode());
        for (String bad : new String[] {"", "spin:", "spin:-1", "spin:1000001", "spin:1e3", "poll", "ahead:", "ahead:x", null}) {
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
                ReflectorWait.Waiter wait = ReflectorWait.parse(mode).newWaiter();
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

    /**
     * {@code ahead}: with a learnt interval the waiter takes an early packet at once, a packet in its window, a
     * late one after blocking, and still honours the timeout when nothing comes; it never loses a datagram.
     */
    @Test
    void aheadTakesEarlyOnTimeAndLatePacketsAndTimesOut() throws Exception {
        UdpSocketOptions o = UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .timestamping(Timestamping.RX_SOFTWARE).build();
        try (UdpSocket a = UdpSocket.open(o); UdpSocket b = UdpSocket.open(o); Arena arena = Arena.ofConfined();
             DatagramBatch batch = new DatagramBatch(4, 256)) {
            MemorySegment buffer = arena.allocate(256);
            ReflectorWait.Waiter wait = ReflectorWait.parse("ahead:200").newWaiter();
            long tenSeconds = TimeUnit.SECONDS.toNanos(10);
            // teach it an interval of about 20 ms: two packets 20 ms apart (paced by a blocking receive timeout)
            a.send(buffer, 30, b.localAddress());
            assertEquals(1, wait.receiveBatch(b, batch, tenSeconds, () -> false));
            assertEquals(UdpSocket.TIMEOUT, b.receiveBatch(batch, TimeUnit.MILLISECONDS.toNanos(20)));
            a.send(buffer, 31, b.localAddress());
            assertEquals(1, wait.receiveBatch(b, batch, tenSeconds, () -> false));
            assertEquals(31, batch.length(0));
            // early: sent at once, long before the predicted arrival
            a.send(buffer, 32, b.localAddress());
            assertEquals(1, wait.receiveBatch(b, batch, tenSeconds, () -> false));
            assertEquals(32, batch.length(0));
            // nothing comes: the timeout still ends the wait
            assertEquals(UdpSocket.TIMEOUT, wait.receiveBatch(b, batch, TimeUnit.MILLISECONDS.toNanos(50), () -> false));
            // late after a timeout (interval forgotten): blocks as block does
            a.send(buffer, 33, b.localAddress());
            assertEquals(1, wait.receiveBatch(b, batch, tenSeconds, () -> false));
            assertEquals(33, batch.length(0));
            // a stop request ends a wait in the poll window (a window of 1 s: the next call is in it however slow
            // this machine is)
            ReflectorWait.Waiter wide = ReflectorWait.parse("ahead:1000000").newWaiter();
            for (int i = 0; i < 2; i++) {
                a.send(buffer, 40 + i, b.localAddress());
                assertEquals(1, wide.receiveBatch(b, batch, tenSeconds, () -> false));
            }
            assertEquals(UdpSocket.CLOSED, wide.receiveBatch(b, batch, tenSeconds, () -> true));
        }
    }
}
