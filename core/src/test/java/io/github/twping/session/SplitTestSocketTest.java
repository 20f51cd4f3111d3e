package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import org.junit.jupiter.api.Test;

/**
 * {@link SplitTestSocket}: sends and TX stamps on the sending socket, receives on the connected receiving one
 * (the reply reaches it, not the sending socket), the combined capabilities, close and wakeup of the right socket.
 */
class SplitTestSocketTest {
    private static final long FIVE_S = TimeUnit.SECONDS.toNanos(5);

    @Test
    void sendsOnOneSocketAndReceivesOnTheOther() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (UdpSocket peer = UdpSocket.open(UdpSocketOptions.builder().bindAddress(lo).receiveTtl(true).build());
             UdpSocket rx = UdpSocket.open(UdpSocketOptions.builder().bindAddress(lo).reusePort(true).receiveTtl(true)
                     .timestamping(Timestamping.RX_SOFTWARE).build());
             Arena arena = Arena.ofConfined()) {
            assumeTrue(rx.isNative(), "needs the FFM socket");
            UdpSocket tx = UdpSocket.open(UdpSocketOptions.builder().bindAddress(lo).port(rx.localAddress().getPort())
                    .reusePort(true).dropReceived(true).unicastTtl(255).timestamping(Timestamping.RX_TX_SOFTWARE)
                    .build());
            assumeTrue(tx.capabilities().txTimestamps(), "no TX timestamps here");
            rx.connect(peer.localAddress());
            SplitTestSocket split = new SplitTestSocket(rx, tx);
            assertEquals(rx.localAddress(), split.localAddress());
            assertTrue(split.isNative());
            assertTrue(split.capabilities().txTimestamps(), "TX stamps: the sending socket's");
            assertTrue(split.capabilities().receiveTtl(), "received TTL: the receiving socket's");
            assertTrue(split.capabilities().setTtl(), "TTL set: the sending socket's");
            assertFalse(rx.capabilities().txTimestamps());

            MemorySegment buffer = arena.allocate(256);
            ReceivedPacket meta = new ReceivedPacket();
            assertEquals(16, split.send(buffer, 16, peer.localAddress()));
            assertEquals(1, split.sentPacketCount());
            assertEquals(1, tx.sentPacketCount(), "sent through the sending socket");
            assertEquals(0, rx.sentPacketCount());
            assertEquals(16, peer.receive(buffer, meta, FIVE_S));
            assertTrue(meta.sourceIs(rx.localAddress()), "from the shared port");
            assertEquals(255, meta.ttl(), "with the sending socket's TTL");

            long[] stamps = new long[1];
            long deadline = System.nanoTime() + FIVE_S;
            while (stamps[0] == 0 && System.nanoTime() - deadline < 0) {
                split.pollTxTimestamps((id, epochNs, hardware) -> stamps[0] = epochNs);
            }
            assertTrue(stamps[0] > 0, "the TX stamp of the send, from the sending socket's error queue");

            assertEquals(8, peer.send(buffer, 8, rx.localAddress()));
            assertEquals(8, split.receive(buffer, meta, FIVE_S), "the reply reaches the receiving socket");
            assertEquals(UdpSocket.TIMEOUT, tx.receive(buffer, meta, 0), "and not the sending one");

            split.close();
            assertEquals(UdpSocket.CLOSED, tx.receive(buffer, meta, 0), "close: the sending socket");
            assertEquals(UdpSocket.TIMEOUT, rx.receive(buffer, meta, 0), "the receiving one stays open");
            split.wakeup();
            assertEquals(UdpSocket.CLOSED, rx.receive(buffer, meta, FIVE_S), "wakeup: the receiving socket");
        }
    }
}
