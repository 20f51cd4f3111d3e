package io.github.twping.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** A decorator on {@link ForwardingUdpSocket} changes the calls it overrides and passes the others on. */
class ForwardingUdpSocketTest {
    private static final long FIVE_S = TimeUnit.SECONDS.toNanos(5);

    /** Counts the datagrams that go through its own {@code send}; batches go through it by {@code sendEach}. */
    private static final class CountingSocket extends ForwardingUdpSocket {
        int sends;

        CountingSocket(UdpSocket delegate) {
            super(delegate);
        }

        @Override
        public int send(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
            sends++;
            return delegate.send(data, length, destination);
        }

        @Override
        public int sendBatch(DatagramBatch batch) throws SocketException {
            return sendEach(batch);
        }
    }

    @Test
    void overriddenCallsChangeAndTheRestPassThrough() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (UdpSocket peer = UdpSocket.open(UdpSocketOptions.builder().bindAddress(lo).build());
             CountingSocket socket = new CountingSocket(UdpSocket.open(UdpSocketOptions.builder().bindAddress(lo).build()));
             DatagramBatch batch = new DatagramBatch(4, 64)) {
            assertEquals(socket.delegate.localAddress(), socket.localAddress());
            assertEquals(socket.delegate.isNative(), socket.isNative());
            assertEquals(socket.delegate.capabilities(), socket.capabilities());
            for (int i = 0; i < 3; i++) {
                batch.prepareSend(i, 10 + i, peer.localAddress());
            }
            batch.count(3);
            assertEquals(3, socket.sendBatch(batch), "every datagram of the batch sent");
            assertEquals(3, socket.sends, "each through the decorator's send");
            ReceivedPacket meta = new ReceivedPacket();
            for (int i = 0; i < 3; i++) {
                assertEquals(10 + i, peer.receive(batch.buffer(0), meta, FIVE_S));
                assertEquals(socket.localAddress().getPort(), meta.sourcePort());
            }
            assertEquals(7, peer.send(batch.buffer(0), 7, socket.localAddress()));
            assertEquals(7, socket.receive(batch.buffer(1), meta, FIVE_S), "receive passes through");
            assertEquals(socket.delegate.sentPacketCount(), socket.sentPacketCount());
            socket.close();
            assertEquals(UdpSocket.CLOSED, socket.delegate.receive(batch.buffer(1), meta, 0),
                    "closing the decorator closes the socket it owns");
        }
    }
}
