package io.github.twping.ffm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * {@link UdpSocketOptions.Builder#receiveDestination}: a socket bound to a wildcard address learns each datagram's
 * destination address (IPv4, IPv6, IPv4-mapped on a dual-stack socket, given as IPv4); without the option, or on
 * the NIO socket, the length stays 0.
 */
class DestinationAddressTest {
    private static final long FIVE_S = TimeUnit.SECONDS.toNanos(5);

    private static byte[] receiveDestination(UdpSocket receiver, String sendTo) throws Exception {
        try (UdpSocket sender = UdpSocket.open(UdpSocketOptions.builder()
                .bindAddress(InetAddress.getByName(sendTo)).build()); Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(64);
            ReceivedPacket meta = new ReceivedPacket();
            sender.send(buffer, 8, new InetSocketAddress(InetAddress.getByName(sendTo),
                    receiver.localAddress().getPort()));
            assertEquals(8, receiver.receive(buffer, meta, FIVE_S));
            byte[] dst = new byte[meta.destinationAddressLength()];
            meta.destinationAddressBytes(dst, 0);
            return dst;
        }
    }

    @Test
    void wildcardIpv4SocketLearnsTheDestination() throws Exception {
        try (UdpSocket receiver = UdpSocket.open(UdpSocketOptions.builder()
                .bindAddress(InetAddress.getByName("0.0.0.0")).receiveDestination(true).build())) {
            assumeTrue(receiver.isNative(), "needs the FFM socket");
            assertArrayEquals(new byte[] {127, 0, 0, 1}, receiveDestination(receiver, "127.0.0.1"));
            assertArrayEquals(new byte[] {127, 0, 0, 2}, receiveDestination(receiver, "127.0.0.2"),
                    "another loopback address: the one the datagram was sent to");
        }
    }

    @Test
    void dualStackSocketGivesIpv6AndMappedIpv4Destinations() throws Exception {
        try (UdpSocket receiver = UdpSocket.open(UdpSocketOptions.builder().family(StandardProtocolFamily.INET6)
                .receiveDestination(true).build())) {
            assumeTrue(receiver.isNative(), "needs the FFM socket");
            assumeTrue(receiver.localAddress().getAddress().isAnyLocalAddress(), "bound to ::");
            byte[] v6 = receiveDestination(receiver, "::1");
            assertArrayEquals(InetAddress.getByName("::1").getAddress(), v6);
            assertArrayEquals(new byte[] {127, 0, 0, 1}, receiveDestination(receiver, "127.0.0.1"),
                    "IPv4 on a dual-stack socket: 4 octets");
        }
    }

    @Test
    void withoutTheOptionOrOnNioTheDestinationIsUnknown() throws Exception {
        try (UdpSocket plain = UdpSocket.open(UdpSocketOptions.builder()
                .bindAddress(InetAddress.getByName("0.0.0.0")).build());
             UdpSocket nio = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getByName("0.0.0.0"))
                     .receiveDestination(true).forceNio(true).build())) {
            assertEquals(0, receiveDestination(plain, "127.0.0.1").length);
            assertEquals(0, receiveDestination(nio, "127.0.0.1").length);
            assertEquals("[]", Arrays.toString(receiveDestination(plain, "127.0.0.1")));
        }
    }
}
