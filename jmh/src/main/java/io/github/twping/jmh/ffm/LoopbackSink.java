package io.github.twping.jmh.ffm;

import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A loopback UDP socket whose receive queue is kept full, so datagrams sent to it go through the whole
 * send path and the loopback stack and are dropped at the socket: a destination that never needs draining.
 */
final class LoopbackSink implements AutoCloseable {
    private final UdpSocket socket;

    LoopbackSink() throws SocketException {
        socket = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .receiveBufferBytes(1).build());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fill = arena.allocate(1024);
            try (UdpSocket filler = UdpSocket.open(UdpSocketOptions.builder()
                    .bindAddress(InetAddress.getLoopbackAddress()).build())) {
                for (int i = 0; i < 64; i++) {
                    filler.send(fill, 1024, socket.localAddress());
                }
            }
        }
    }

    InetSocketAddress address() {
        return socket.localAddress();
    }

    @Override
    public void close() {
        socket.close();
    }
}
