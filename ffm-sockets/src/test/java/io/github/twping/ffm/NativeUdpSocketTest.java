package io.github.twping.ffm;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.net.StandardProtocolFamily;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assertions;

/** The loopback behaviour suite against the FFM implementation, which must deliver all kernel metadata here. */
class NativeUdpSocketTest extends UdpSocketBehaviour {
    @BeforeAll
    static void requireNative() {
        assertNull(UdpSockets.nativeUnavailableReason(), "FFM sockets must work on this machine");
        assertTrue(UdpSockets.nativeAvailable());
    }

    @Override
    boolean forceNio() {
        return false;
    }

    @Override
    boolean expectsKernelMetadata() {
        return true;
    }

    @Override
    void assertReleased(UdpSocket socket) {
        assertTrue(assertInstanceOf(NativeUdpSocket.class, socket).isReleased(), "descriptor and arena released");
    }

    @Test
    void shouldNotAllocatePerPacketInSteadyState() throws Exception {
        ThreadMXBean threads =
                (ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported());
        UdpSocket receiver = open(options("127.0.0.1").receiveTtl(true).receiveTos(true)
                .timestamping(Timestamping.RX_TX_SOFTWARE));
        UdpSocket sender = open(options("127.0.0.1").unicastTtl(255).tos(TOS_EF)
                .timestamping(Timestamping.RX_TX_SOFTWARE));
        MemorySegment data = payload(64, 0);
        MemorySegment buffer = arena.allocate(2048);
        ReceivedPacket meta = new ReceivedPacket();
        InetSocketAddress destination = receiver.localAddress();
        InetSocketAddress source = sender.localAddress();
        long[] stamps = new long[1];
        TxTimestampHandler handler = (id, epochNs, hardware) -> stamps[0]++;
        long allocatedBytes = -1;
        // JIT warm-up takes a while on a loaded machine, and longer beside tests whose classes or profiles make C2
        // compile the path again: rounds until one allocates nothing, bounded by count and by 60 s
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int round = 0; round < 10_000 && allocatedBytes != 0 && System.nanoTime() - deadline < 0; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 1000; i++) {
                sender.send(data, 64, destination);
                if (receiver.receive(buffer, meta, RECEIVE_TIMEOUT_NS) != 64 || !meta.sourceIs(source)) {
                    throw new AssertionError("round trip failed: " + meta);
                }
                sender.pollTxTimestamps(handler);
            }
            allocatedBytes = threads.getCurrentThreadAllocatedBytes() - before;
        }
        assertEquals(0, allocatedBytes, "bytes allocated by 1000 send/receive/TX-poll round trips once warm");
        assertTrue(stamps[0] > 0, "TX timestamps were drained");
    }

    /**
     * The kernel gets the data's address (on x86-64 as a raw syscall(2) argument, which keeps no arena open), so a
     * send checks first what the FFM linker checks for an ADDRESS argument: memory already freed, or confined to
     * another thread, is refused before anything is sent.
     */
    @Test
    void aSendFromFreedOrAnotherThreadsMemoryIsRefusedAndSendsNothing() throws Exception {
        UdpSocket receiver = open(options("127.0.0.1"));
        UdpSocket sender = open(options("127.0.0.1"));
        InetSocketAddress destination = receiver.localAddress();
        Arena closed = Arena.ofShared();
        MemorySegment freed = closed.allocate(64);
        closed.close();
        assertThrows(IllegalStateException.class, () -> sender.send(freed, 64, destination));

        Throwable[] thrown = new Throwable[1];
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment mine = confined.allocate(64);
            Thread other = Thread.ofPlatform().start(() -> {
                try {
                    sender.send(mine, 64, destination);
                } catch (Throwable t) {
                    thrown[0] = t;
                }
            });
            other.join();
        }
        assertInstanceOf(WrongThreadException.class, thrown[0]);

        MemorySegment buffer = arena.allocate(2048);
        assertEquals(UdpSocket.TIMEOUT, receiver.receive(buffer, new ReceivedPacket(), 0), "nothing was sent");
        assertEquals(64, sender.send(payload(64, 1), 64, destination), "the socket still sends");
        assertEquals(64, receiver.receive(buffer, new ReceivedPacket(), RECEIVE_TIMEOUT_NS));
    }

    @Test
    void shouldAllocateStagingOnFirstHeapUseSizedToItAndNotPerPacket() throws Exception {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        NativeUdpSocket receiver = assertInstanceOf(NativeUdpSocket.class, open(options("127.0.0.1")));
        NativeUdpSocket sender = assertInstanceOf(NativeUdpSocket.class, open(options("127.0.0.1")));
        assertArrayEquals(new long[] {0, 0}, sender.stagingAllocated(), "no staging before heap data is sent");
        assertArrayEquals(new long[] {0, 0}, receiver.stagingAllocated(), "no staging before heap data is received");
        assertTrue(sender.trafficClass(TOS_EF), "IP_TOS needs no staging memory");
        assertArrayEquals(new long[] {0, 0}, sender.stagingAllocated());

        byte[] bytes = new byte[100];
        bytes[99] = 42;
        MemorySegment heapData = MemorySegment.ofArray(bytes);
        MemorySegment heapBuffer = MemorySegment.ofArray(new byte[1500]);
        ReceivedPacket meta = new ReceivedPacket();
        sender.send(heapData, 100, receiver.localAddress());
        assertEquals(100, receiver.receive(heapBuffer, meta, RECEIVE_TIMEOUT_NS));
        assertEquals(42, heapBuffer.get(ValueLayout.JAVA_BYTE, 99), "the datagram reached the heap buffer");
        assertArrayEquals(new long[] {NativeUdpSocket.MIN_STAGING_BYTES, 0}, sender.stagingAllocated());
        assertArrayEquals(new long[] {0, NativeUdpSocket.MIN_STAGING_BYTES}, receiver.stagingAllocated());

        // a larger datagram and buffer replace the staging once, by the next power of two
        MemorySegment large = MemorySegment.ofArray(new byte[3000]);
        MemorySegment largeBuffer = MemorySegment.ofArray(new byte[5000]);
        sender.send(large, 3000, receiver.localAddress());
        assertEquals(3000, receiver.receive(largeBuffer, meta, RECEIVE_TIMEOUT_NS));
        assertArrayEquals(new long[] {4096, 0}, sender.stagingAllocated());
        assertArrayEquals(new long[] {0, 8192}, receiver.stagingAllocated());

        // then per packet nothing: rounds of 1000 until one allocates 0 bytes once the JIT is warm (bounded)
        long allocatedBytes = -1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int round = 0; round < 10_000 && allocatedBytes != 0 && System.nanoTime() - deadline < 0; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 1000; i++) {
                sender.send(heapData, 100, receiver.localAddress());
                if (receiver.receive(heapBuffer, meta, RECEIVE_TIMEOUT_NS) != 100) {
                    throw new AssertionError("round trip failed: " + meta);
                }
            }
            allocatedBytes = threads.getCurrentThreadAllocatedBytes() - before;
        }
        assertEquals(0, allocatedBytes, "bytes allocated by 1000 heap-segment round trips once warm");
        assertArrayEquals(new long[] {4096, 0}, sender.stagingAllocated(), "the staging is kept, not reallocated");
        assertArrayEquals(new long[] {0, 8192}, receiver.stagingAllocated());
    }

    @Test
    void stagingSizesArePowersOfTwoWithinBounds() {
        assertEquals(2048, NativeUdpSocket.stagingBytes(0));
        assertEquals(2048, NativeUdpSocket.stagingBytes(2048));
        assertEquals(4096, NativeUdpSocket.stagingBytes(2049));
        assertEquals(65536, NativeUdpSocket.stagingBytes(65000));
        assertEquals(65536, NativeUdpSocket.stagingBytes(65536));
    }

    @Test
    void shouldReceiveTtlAndTosOfIpv4MappedTraffic() throws Exception {
        UdpSocket receiver = open(UdpSocketOptions.builder().family(StandardProtocolFamily.INET6)
                .receiveTtl(true).receiveTos(true).timestamping(Timestamping.RX_SOFTWARE));
        UdpSocket sender = open(options("127.0.0.1").unicastTtl(255).tos(TOS_EF));
        ReceivedPacket meta = new ReceivedPacket();

        sender.send(payload(16, 0), 16, loopback("127.0.0.1", receiver.localAddress().getPort()));
        receiveOne(receiver, arena.allocate(64), meta);

        assertEquals(255, meta.ttl());
        assertEquals(TOS_EF, meta.tos());
        assertEquals(TimestampSource.KERNEL_SOFTWARE, meta.timestampSource());
        assertTrue(meta.sourceIs(sender.localAddress()), "mapped source compares as IPv4: " + meta.sourceAddress());
        assertEquals(4, meta.sourceAddressLength());
    }

    @Test
    void shouldSendToIpv4DestinationFromDualStackSocket() throws Exception {
        UdpSocket receiver = open(options("127.0.0.1"));
        UdpSocket sender = open(UdpSocketOptions.builder().family(StandardProtocolFamily.INET6));
        ReceivedPacket meta = new ReceivedPacket();

        assertEquals(16, sender.send(payload(16, 0), 16, receiver.localAddress()));
        receiveOne(receiver, arena.allocate(64), meta);

        assertEquals(InetAddress.getByName("127.0.0.1"), meta.sourceAddress().getAddress());
    }

    @Test
    void shouldApplyBufferSizes() throws Exception {
        UdpSocket socket = open(options("127.0.0.1").receiveBufferBytes(1 << 17).sendBufferBytes(1 << 16));
        NativeUdpSocket nativeSocket = (NativeUdpSocket) socket;
        // Linux doubles the requested size for bookkeeping (socket(7)); the cap is net.core.rmem_max.
        assertTrue(nativeSocket.getIntOption(SocketConstants.SOL_SOCKET, SocketConstants.SO_RCVBUF) >= 4096);
        assertTrue(nativeSocket.getIntOption(SocketConstants.SOL_SOCKET, SocketConstants.SO_SNDBUF) >= 4096);
        assertEquals(255, ((NativeUdpSocket) open(options("::1").unicastTtl(255)))
                .getIntOption(SocketConstants.SOL_IPV6, SocketConstants.IPV6_UNICAST_HOPS));
    }

    @Test
    void shouldExceedTheSysctlCapOnlyWithCapNetAdmin() throws Exception {
        long rmemMax = Long.parseLong(Files.readString(Path.of("/proc/sys/net/core/rmem_max")).trim());
        int wanted = (int) Math.min(Integer.MAX_VALUE / 2, Math.max(rmemMax * 2, 1 << 20));
        NativeUdpSocket socket = (NativeUdpSocket) open(options("127.0.0.1").receiveBufferBytes(wanted));
        int got = socket.getIntOption(SocketConstants.SOL_SOCKET, SocketConstants.SO_RCVBUF);
        // Linux doubles the value it stores (socket(7)); SO_RCVBUFFORCE needs CAP_NET_ADMIN (bit 12 of CapEff)
        boolean capNetAdmin = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("CapEff:")).map(l -> Long.parseUnsignedLong(l.substring(7).trim(), 16))
                .anyMatch(mask -> (mask >>> 12 & 1) == 1);
        assertEquals(capNetAdmin ? 2L * wanted : 2L * rmemMax, got, "CAP_NET_ADMIN " + capNetAdmin);
    }

    @Test
    void shouldReportUnknownDeviceAsTypedError() throws Exception {
        SocketException e = Assertions.assertThrows(SocketException.class,
                () -> open(options("127.0.0.1").bindToDevice("nosuchdev0")));
        assertTrue(e.errno() == Errno.ENODEV || e.errno() == Errno.EPERM, "ENODEV (or EPERM without CAP_NET_RAW): " + e);
        assertTrue(e.getMessage().startsWith("setsockopt(SO_BINDTODEVICE nosuchdev0): "), e.getMessage());
    }
}
