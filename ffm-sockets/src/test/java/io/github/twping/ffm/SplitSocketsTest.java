package io.github.twping.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * A sending and a receiving socket on one port (SO_REUSEPORT): the connected receiver gets the peer's replies,
 * the sender (every received datagram dropped by its filter) keeps its TX timestamps to itself.
 */
class SplitSocketsTest {
    private static final long FIVE_S = TimeUnit.SECONDS.toNanos(5);

    @Test
    void repliesReachTheConnectedSocketAndStampsStayWithTheSender() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (UdpSocket peer = UdpSocket.open(UdpSocketOptions.builder().bindAddress(lo).build());
             UdpSocket rx = UdpSocket.open(UdpSocketOptions.builder().bindAddress(lo).reusePort(true)
                     .timestamping(Timestamping.RX_SOFTWARE).build());
             Arena arena = Arena.ofConfined()) {
            assumeTrue(rx.isNative(), "needs the FFM socket");
            try (UdpSocket tx = UdpSocket.open(UdpSocketOptions.builder().bindAddress(lo).port(rx.localAddress().getPort())
                    .reusePort(true).dropReceived(true).timestamping(Timestamping.RX_TX_SOFTWARE).build());
                 UdpSocket stranger = UdpSocket.open(UdpSocketOptions.builder().bindAddress(lo).build())) {
                assumeTrue(tx.capabilities().txTimestamps(), "no TX timestamps here");
                rx.connect(peer.localAddress());
                MemorySegment buffer = arena.allocate(256);
                ReceivedPacket meta = new ReceivedPacket();
                assertEquals(12, tx.send(buffer, 12, peer.localAddress()));
                assertEquals(12, peer.receive(buffer, meta, FIVE_S));
                assertTrue(meta.sourceIs(rx.localAddress()), "sent from the shared port");
                AtomicInteger stamps = new AtomicInteger();
                long deadline = System.nanoTime() + FIVE_S;
                while (stamps.get() == 0 && System.nanoTime() < deadline) {
                    tx.pollTxTimestamps((id, epochNs, hardware) -> stamps.incrementAndGet());
                }
                assertEquals(1, stamps.get(), "the TX stamp is on the sending socket");
                assertEquals(0, rx.pollTxTimestamps((id, epochNs, hardware) -> { }), "none on the receiving one");
                stranger.send(buffer, 5, rx.localAddress());              // not the peer: dropped by the sender's filter
                assertEquals(9, peer.send(buffer, 9, rx.localAddress())); // the reply
                assertEquals(9, rx.receive(buffer, meta, FIVE_S), "the reply, not the stranger's datagram");
                assertTrue(meta.sourceIs(peer.localAddress()));
                assertEquals(UdpSocket.TIMEOUT, rx.receive(buffer, meta, TimeUnit.MILLISECONDS.toNanos(50)));
                assertTrue(meta.kernelTimestamp() || !rx.capabilities().kernelRxTimestamps());
            }
        }
    }
}
