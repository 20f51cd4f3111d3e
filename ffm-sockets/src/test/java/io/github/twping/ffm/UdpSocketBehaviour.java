package io.github.twping.ffm;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The loopback behaviour every {@link UdpSocket} implementation must show, written once and run by one
 * subclass per implementation over IPv4 (127.0.0.1) and IPv6 (::1). Kernel metadata is guarded by the
 * implementation's declared expectations: the FFM subclass must deliver it, the NIO one must report it absent.
 */
abstract class UdpSocketBehaviour {
    static final long RECEIVE_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);
    static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);
    static final int TOS_EF = 0xb8;

    private final List<UdpSocket> sockets = new ArrayList<>();
    final Arena arena = Arena.ofShared();

    /** True to run against the NIO fallback. */
    abstract boolean forceNio();

    /** True when TTL, TOS and kernel RX/TX timestamps must be delivered. */
    abstract boolean expectsKernelMetadata();

    @AfterEach
    void closeAll() {
        sockets.forEach(UdpSocket::close);
        arena.close();
    }

    UdpSocketOptions.Builder options(String address) throws Exception {
        return UdpSocketOptions.builder().bindAddress(InetAddress.getByName(address)).forceNio(forceNio());
    }

    UdpSocket open(UdpSocketOptions.Builder builder) throws SocketException {
        UdpSocket socket = UdpSocket.open(builder.build());
        sockets.add(socket);
        assertEquals(!forceNio(), socket.isNative(), "implementation selected");
        return socket;
    }

    MemorySegment payload(int length, int seed) {
        MemorySegment segment = arena.allocate(length);
        for (int i = 0; i < length; i++) {
            segment.set(JAVA_BYTE, i, (byte) (seed + i * 7));
        }
        return segment;
    }

    int receiveOne(UdpSocket receiver, MemorySegment buffer, ReceivedPacket meta) throws SocketException {
        int n = receiver.receive(buffer, meta, RECEIVE_TIMEOUT_NS);
        assertTrue(n >= 0, "a datagram arrived (got " + n + ")");
        return n;
    }

    static void await(String what, BooleanSupplier condition) {
        long deadlineNs = System.nanoTime() + DEADLINE_NS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNs > 0) {
                fail("timed out waiting for " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    static long nowEpochNs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldSendAndReceivePayload(String address) throws Exception {
        UdpSocket receiver = open(options(address));
        UdpSocket sender = open(options(address));
        MemorySegment data = payload(300, 3);
        MemorySegment buffer = arena.allocate(2048);
        ReceivedPacket meta = new ReceivedPacket();

        assertEquals(300, sender.send(data, 300, receiver.localAddress()));
        int n = receiveOne(receiver, buffer, meta);

        assertEquals(300, n);
        assertEquals(300, meta.length());
        assertFalse(meta.truncated());
        assertArrayEquals(data.toArray(JAVA_BYTE), buffer.asSlice(0, n).toArray(JAVA_BYTE));
        assertTrue(meta.sourceIs(sender.localAddress()), "source " + meta.sourceAddress() + " is the sender");
        assertEquals(sender.localAddress().getPort(), meta.sourcePort());
        assertEquals(sender.localAddress(), meta.sourceAddress());
        assertFalse(meta.sourceIs(receiver.localAddress()));
        assertEquals(1, sender.sentPacketCount());
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldReceiveIntoHeapSegments(String address) throws Exception {
        UdpSocket receiver = open(options(address));
        UdpSocket sender = open(options(address));
        byte[] sent = new byte[100];
        Arrays.fill(sent, (byte) 0x5a);
        byte[] received = new byte[40];
        ReceivedPacket meta = new ReceivedPacket();

        assertEquals(100, sender.send(MemorySegment.ofArray(sent), 100, receiver.localAddress()));
        int n = receiveOne(receiver, MemorySegment.ofArray(received), meta);

        assertEquals(40, n, "a datagram longer than the buffer is cut to the buffer");
        byte[] expected = new byte[40];
        Arrays.fill(expected, (byte) 0x5a);
        assertArrayEquals(expected, received);
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldReceiveTtlSetBySender(String address) throws Exception {
        UdpSocket receiver = open(options(address).receiveTtl(true));
        UdpSocket sender = open(options(address).unicastTtl(255));
        ReceivedPacket meta = new ReceivedPacket();

        sender.send(payload(20, 1), 20, receiver.localAddress());
        receiveOne(receiver, arena.allocate(64), meta);

        assertEquals(expectsKernelMetadata(), receiver.capabilities().receiveTtl());
        assertEquals(expectsKernelMetadata(), sender.capabilities().setTtl());
        assertEquals(expectsKernelMetadata() ? 255 : ReceivedPacket.UNKNOWN, meta.ttl());
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldReceiveTosSetBySender(String address) throws Exception {
        UdpSocket receiver = open(options(address).receiveTos(true));
        UdpSocket sender = open(options(address).tos(TOS_EF));
        ReceivedPacket meta = new ReceivedPacket();

        sender.send(payload(20, 1), 20, receiver.localAddress());
        receiveOne(receiver, arena.allocate(64), meta);

        assertTrue(sender.capabilities().setTos());
        assertEquals(expectsKernelMetadata(), receiver.capabilities().receiveTos());
        assertEquals(expectsKernelMetadata() ? TOS_EF : ReceivedPacket.UNKNOWN, meta.tos());
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldStampReceiveTimeWithinBound(String address) throws Exception {
        UdpSocket receiver = open(options(address).timestamping(Timestamping.RX_SOFTWARE));
        UdpSocket sender = open(options(address));
        ReceivedPacket meta = new ReceivedPacket();

        long beforeSendNs = nowEpochNs();
        sender.send(payload(20, 1), 20, receiver.localAddress());
        receiveOne(receiver, arena.allocate(64), meta);
        long afterNs = nowEpochNs();

        assertEquals(expectsKernelMetadata(), receiver.capabilities().kernelRxTimestamps());
        assertEquals(expectsKernelMetadata() ? TimestampSource.KERNEL_SOFTWARE : TimestampSource.USER,
                meta.timestampSource());
        long rxNs = meta.rxTimestampEpochNs();
        assertTrue(rxNs <= afterNs, "rx " + rxNs + " not after the clock read after the call " + afterNs);
        assertTrue(afterNs - rxNs < TimeUnit.SECONDS.toNanos(5), "rx within 5 s before " + afterNs);
        assertTrue(rxNs >= beforeSendNs - TimeUnit.MILLISECONDS.toNanos(1), "rx not before the send");
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldDeliverTxTimestampForEverySentPacket(String address) throws Exception {
        UdpSocket sender = open(options(address).timestamping(Timestamping.RX_TX_SOFTWARE));
        UdpSocket receiver = open(options(address));
        assertEquals(expectsKernelMetadata(), sender.capabilities().txTimestamps());
        int packets = 10;
        long[] sentIds = new long[packets];
        long beforeNs = nowEpochNs();
        for (int i = 0; i < packets; i++) {
            sentIds[i] = sender.sentPacketCount();
            assertEquals(32, sender.send(payload(32, i), 32, receiver.localAddress()));
        }
        BitSet seen = new BitSet();
        AtomicInteger wrong = new AtomicInteger();
        TxTimestampHandler handler = (id, epochNs, hardware) -> {
            if (hardware || id < 0 || id >= packets || epochNs < beforeNs - 1_000_000 || epochNs > nowEpochNs()) {
                wrong.incrementAndGet();
            } else {
                seen.set((int) id);
            }
        };
        if (!expectsKernelMetadata()) {
            assertEquals(0, sender.pollTxTimestamps(handler));
            return;
        }
        for (int i = 0; i < packets; i++) {
            assertEquals(i, sentIds[i], "packet id = packets sent before it");
        }
        await("a TX timestamp for each of " + packets + " packets", () -> {
            try {
                sender.pollTxTimestamps(handler);
            } catch (SocketException e) {
                throw new AssertionError(e);
            }
            return seen.cardinality() == packets;
        });
        assertEquals(0, wrong.get(), "timestamps with unknown ids or out of bounds");
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldFailWithTypedErrorOnBusyPort(String address) throws Exception {
        UdpSocket first = open(options(address));
        int port = first.localAddress().getPort();

        SocketException e = assertThrows(SocketException.class, () -> open(options(address).port(port)));

        assertInstanceOf(AddressInUseException.class, e);
        assertEquals("bind", e.call());
        assertEquals("bind: Address already in use", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldSkipBusyPortInRange(String address) throws Exception {
        UdpSocket busy = open(options(address));
        int port = busy.localAddress().getPort();

        if (port <= 65535 - 20) {
            UdpSocket next = open(options(address).portRange(port, port + 20, port));
            int bound = next.localAddress().getPort();
            assertNotEquals(port, bound);
            assertTrue(bound > port && bound <= port + 20, "bound " + bound + " after busy " + port);
        }

        UdpSocket wrapped = open(options(address).portRange(port - 20, port, port));
        int wrappedPort = wrapped.localAddress().getPort();
        assertTrue(wrappedPort >= port - 20 && wrappedPort < port, "wrapped to the low end: " + wrappedPort);
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldReturnTimeoutWhenNothingArrives(String address) throws Exception {
        UdpSocket receiver = open(options(address));
        ReceivedPacket meta = new ReceivedPacket();
        MemorySegment buffer = arena.allocate(64);

        assertEquals(UdpSocket.TIMEOUT, receiver.receive(buffer, meta, TimeUnit.MILLISECONDS.toNanos(20)));
        assertEquals(UdpSocket.TIMEOUT, receiver.receive(buffer, meta, 0));
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldWakeBlockedReceiverAndClose(String address) throws Exception {
        UdpSocket receiver = open(options(address).timestamping(Timestamping.RX_SOFTWARE));
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().name("blocked-receiver").start(() -> {
            try (Arena own = Arena.ofConfined()) {
                outcome.set(receiver.receive(own.allocate(64), new ReceivedPacket(), -1));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        await("the receiver to block", () -> isBlockedInReceive(thread));

        receiver.wakeup();
        thread.join(TimeUnit.NANOSECONDS.toMillis(DEADLINE_NS));

        assertFalse(thread.isAlive(), "receiver thread ended");
        assertEquals(UdpSocket.CLOSED, outcome.get());
        assertEquals(UdpSocket.CLOSED, receiver.receive(arena.allocate(8), new ReceivedPacket(), 0));
        receiver.close();
        assertReleased(receiver);
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldCloseWhileReceiverBlocked(String address) throws Exception {
        UdpSocket receiver = open(options(address));
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().name("blocked-receiver").start(() -> {
            try (Arena own = Arena.ofConfined()) {
                outcome.set(receiver.receive(own.allocate(64), new ReceivedPacket(), -1));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        await("the receiver to block", () -> isBlockedInReceive(thread));

        receiver.close();
        thread.join(TimeUnit.NANOSECONDS.toMillis(DEADLINE_NS));

        assertFalse(thread.isAlive(), "receiver thread ended");
        assertEquals(UdpSocket.CLOSED, outcome.get());
        assertReleased(receiver);
        assertThrows(SocketException.class, () -> receiver.send(arena.allocate(8), 8, receiver.localAddress()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1"})
    void shouldReportBadDestinationsAsSocketExceptions(String address) throws Exception {
        UdpSocket sender = open(options(address));
        MemorySegment data = payload(8, 0);

        SocketException wrongFamily = assertThrows(SocketException.class, () -> sender.send(data, 8, loopback("::1", 9)));
        assertEquals(Errno.EAFNOSUPPORT, wrongFamily.errno());
        SocketException unresolved = assertThrows(SocketException.class,
                () -> sender.send(data, 8, InetSocketAddress.createUnresolved("nowhere.invalid", 9)));
        assertEquals(Errno.EDESTADDRREQ, unresolved.errno());
        assertThrows(IndexOutOfBoundsException.class, () -> sender.send(data, 9, loopback(address, 9)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldSendAndReceiveConcurrentlyOnOneSocket(String address) throws Exception {
        UdpSocket a = open(options(address).timestamping(Timestamping.RX_TX_SOFTWARE));
        UdpSocket b = open(options(address));
        int packets = 2000;
        int window = 32;
        AtomicInteger receivedByA = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // thread 1 receives on socket a while this thread sends from socket a (and drains its TX stamps)
        Thread receiver = Thread.ofPlatform().name("receiver").start(() -> {
            try (Arena own = Arena.ofConfined()) {
                MemorySegment buffer = own.allocate(256);
                ReceivedPacket meta = new ReceivedPacket();
                while (receivedByA.get() < packets) {
                    int n = a.receive(buffer, meta, RECEIVE_TIMEOUT_NS);
                    if (n == UdpSocket.CLOSED || n == UdpSocket.TIMEOUT) {
                        return;
                    }
                    receivedByA.incrementAndGet();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        Thread echo = Thread.ofPlatform().name("echo").start(() -> {
            try (Arena own = Arena.ofConfined()) {
                MemorySegment buffer = own.allocate(256);
                ReceivedPacket meta = new ReceivedPacket();
                InetSocketAddress back = a.localAddress();
                for (int i = 0; i < packets; i++) {
                    int n = b.receive(buffer, meta, RECEIVE_TIMEOUT_NS);
                    if (n < 0) {
                        return;
                    }
                    b.send(buffer, n, back);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        MemorySegment data = payload(48, 9);
        InetSocketAddress toB = b.localAddress();
        AtomicInteger txStamps = new AtomicInteger();
        long deadlineNs = System.nanoTime() + DEADLINE_NS;
        for (int i = 0; i < packets && System.nanoTime() - deadlineNs < 0 && failure.get() == null; ) {
            if (i - receivedByA.get() < window) {
                if (a.send(data, 48, toB) == 48) {
                    i++;
                }
            } else {
                Thread.onSpinWait();
            }
            a.pollTxTimestamps((id, epochNs, hardware) -> txStamps.incrementAndGet());
        }
        receiver.join(TimeUnit.NANOSECONDS.toMillis(DEADLINE_NS));
        echo.join(TimeUnit.NANOSECONDS.toMillis(DEADLINE_NS));

        assertEquals(null, failure.get());
        assertEquals(packets, receivedByA.get(), "every echoed datagram arrived");
        assertEquals(packets, a.sentPacketCount());
        assertEquals(expectsKernelMetadata(), txStamps.get() > 0, "TX stamps drained while receiving");
    }

    /** True when the thread sits in the blocking call of the implementation (native recvmsg or a selector). */
    static boolean isBlockedInReceive(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            String method = frame.getClassName() + "." + frame.getMethodName();
            if (method.endsWith("Libc.recvmsg") || method.contains("EPoll") || method.endsWith("doSelect")) {
                return true;
            }
        }
        return false;
    }

    /** Implementation-specific check that close released everything. */
    abstract void assertReleased(UdpSocket socket);

    static InetSocketAddress loopback(String address, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(address), port);
    }
}
