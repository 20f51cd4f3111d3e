package io.github.twping.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** {@link UdpSocket#trafficClass}: the FFM socket changes the TOS of later sends; the NIO fallback says it cannot. */
class TrafficClassTest {
    private static int sendAndReadTos(UdpSocket sender, UdpSocket receiver, MemorySegment data, MemorySegment buffer,
                                      ReceivedPacket meta) throws Exception {
        sender.send(data, 16, receiver.localAddress());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (receiver.receive(buffer, meta, TimeUnit.SECONDS.toNanos(1)) > 0) {
                return meta.tos();
            }
        }
        throw new AssertionError("nothing received");
    }

    @Test
    void laterSendsCarryTheNewTos() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (Arena arena = Arena.ofConfined();
             UdpSocket receiver = UdpSocket.open(UdpSocketOptions.builder().bindAddress(loopback).receiveTos(true)
                     .build());
             UdpSocket sender = UdpSocket.open(UdpSocketOptions.builder().bindAddress(loopback).tos(0x28).build())) {
            assertTrue(sender.isNative() && receiver.capabilities().receiveTos(), "FFM sockets must work here");
            MemorySegment data = arena.allocate(16);
            MemorySegment buffer = arena.allocate(256);
            ReceivedPacket meta = new ReceivedPacket();
            assertEquals(0x28, sendAndReadTos(sender, receiver, data, buffer, meta));
            assertTrue(sender.trafficClass(0xB8));
            assertEquals(0xB8, sendAndReadTos(sender, receiver, data, buffer, meta));
            assertTrue(sender.trafficClass(0));
            assertEquals(0, sendAndReadTos(sender, receiver, data, buffer, meta));
        }
        try (UdpSocket nio = UdpSocket.open(UdpSocketOptions.builder().bindAddress(loopback).forceNio(true).build())) {
            assertFalse(nio.trafficClass(0xB8), "the NIO fallback cannot change it");
        }
    }
}
