package io.github.twping.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * {@link UdpSocketOptions.Builder#txTimestampsPerSend}: only {@link UdpSocket#sendStamped} sends are stamped, the
 * kernel numbers just those (OPT_ID), and {@link UdpSocket#txStampId} predicts each stamp's id whatever plain sends
 * come between; on a socket stamping every send, {@code sendStamped} is {@code send} and the ids count every send.
 */
class PerSendTxTimestampsTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);

    /** Collects packet ids and stamps in arrival order. */
    private static final class Ids implements TxTimestampHandler {
        final long[] ids = new long[256];
        final long[] stamps = new long[256];
        int count;

        @Override
        public void onTxTimestamp(long packetId, long epochNs, boolean hardware) {
            if (count < ids.length) {
                ids[count] = packetId;
                stamps[count] = epochNs;
            }
            count++;
        }
    }

    private static UdpSocket open(boolean perSend) throws SocketException {
        return UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .timestamping(Timestamping.RX_TX_SOFTWARE).txTimestampsPerSend(perSend).build());
    }

    private static UdpSocket sink() throws SocketException {
        return UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .receiveBufferBytes(4 << 20).build());
    }

    /** Drains until {@code expected} stamps arrived or the deadline passed, then once more (nothing else may come). */
    private static Ids drain(UdpSocket socket, int expected) throws SocketException {
        Ids ids = new Ids();
        long deadline = System.nanoTime() + DEADLINE_NS;
        while (ids.count < expected && System.nanoTime() - deadline < 0) {
            if (socket.pollTxTimestampsBatched(ids) == 0) {
                Thread.onSpinWait();
            }
        }
        // on loopback the stamp is queued before sendmsg returns: anything not stamped on request would be here now
        socket.pollTxTimestampsBatched(ids);
        return ids;
    }

    @Test
    void onlyStampedSendsGetStampsNumberedAmongThemselves() throws Exception {
        try (UdpSocket socket = open(true); UdpSocket sink = sink(); Arena arena = Arena.ofConfined()) {
            assumeTrue(socket.isNative() && socket.capabilities().txTimestamps(), "needs FFM TX timestamps");
            assertTrue(socket.txTimestampsPerSend());
            MemorySegment data = arena.allocate(64);
            long[] expectedIds = new long[32];
            long[] before = new long[32];
            long[] after = new long[32];
            int stamped = 0;
            // plain sends before, between and after stamped ones, in irregular runs
            for (int i = 0; i < 60; i++) {
                if (i % 3 == 1 || i == 59) {
                    expectedIds[stamped] = socket.txStampId();
                    before[stamped] = RealtimeClock.epochNs();
                    assertEquals(20, socket.sendStamped(data, 20, sink.localAddress()));
                    after[stamped] = RealtimeClock.epochNs();
                    stamped++;
                } else {
                    assertEquals(20, socket.send(data, 20, sink.localAddress()));
                }
            }
            assertEquals(60, socket.sentPacketCount(), "every send counts as sent");
            assertEquals(stamped, socket.txStampId(), "only stamped sends take an id");
            Ids ids = drain(socket, stamped);
            assertEquals(stamped, ids.count, "one stamp per stamped send, none for the plain ones");
            for (int i = 0; i < stamped; i++) {
                assertEquals(expectedIds[i], ids.ids[i], "the id txStampId() gave before the send");
                assertTrue(ids.stamps[i] >= before[i] - 1_000_000 && ids.stamps[i] <= after[i] + 1_000_000,
                        "stamp " + i + " taken during its own send: " + ids.stamps[i]);
            }
        }
    }

    @Test
    void plainSendsOfAPerSendSocketQueueNothing() throws Exception {
        try (UdpSocket socket = open(true); UdpSocket sink = sink(); Arena arena = Arena.ofConfined()) {
            assumeTrue(socket.isNative() && socket.capabilities().txTimestamps(), "needs FFM TX timestamps");
            MemorySegment data = arena.allocate(64);
            for (int i = 0; i < 100; i++) {
                assertEquals(20, socket.send(data, 20, sink.localAddress()));
            }
            assertEquals(0, socket.txStampId());
            assertEquals(0, socket.pollTxTimestampsBatched(new Ids()), "no stamp in the error queue");
            // a stamped send afterwards is still id 0: the kernel's counter did not move either
            assertEquals(20, socket.sendStamped(data, 20, sink.localAddress()));
            Ids ids = drain(socket, 1);
            assertEquals(1, ids.count);
            assertEquals(0, ids.ids[0]);
        }
    }

    @Test
    void aSocketStampingEverySendCountsEverySend() throws Exception {
        try (UdpSocket socket = open(false); UdpSocket sink = sink(); Arena arena = Arena.ofConfined()) {
            assumeTrue(socket.isNative() && socket.capabilities().txTimestamps(), "needs FFM TX timestamps");
            assertFalse(socket.txTimestampsPerSend());
            MemorySegment data = arena.allocate(64);
            assertEquals(20, socket.send(data, 20, sink.localAddress()));
            assertEquals(1, socket.txStampId());
            assertEquals(20, socket.sendStamped(data, 20, sink.localAddress()));
            assertEquals(20, socket.send(data, 20, sink.localAddress()));
            assertEquals(3, socket.txStampId());
            Ids ids = drain(socket, 3);
            assertEquals(3, ids.count);
            for (int i = 0; i < 3; i++) {
                assertEquals(i, ids.ids[i]);
            }
        }
    }

    @Test
    void nioSendsStampedAsPlainSends() throws Exception {
        try (UdpSocket socket = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .forceNio(true).timestamping(Timestamping.RX_TX_SOFTWARE).txTimestampsPerSend(true).build());
             UdpSocket sink = sink(); Arena arena = Arena.ofConfined()) {
            assertFalse(socket.isNative());
            assertFalse(socket.txTimestampsPerSend());
            assertEquals(20, socket.sendStamped(arena.allocate(64), 20, sink.localAddress()));
            assertEquals(1, socket.sentPacketCount());
        }
    }
    /** A failed send, plain or stamped per send, reports the kernel's reason (errno captured by the downcall). */
    @Test
    void aFailedSendStillReportsTheKernelsReason() throws Exception {
        try (UdpSocket socket = open(true); UdpSocket sink = sink(); Arena arena = Arena.ofConfined()) {
            MemorySegment tooLong = arena.allocate(70_000);   // over the 65,507 octets of a UDP/IPv4 datagram
            SocketException plain = assertThrows(SocketException.class,
                    () -> socket.send(tooLong, 70_000, sink.localAddress()));
            assertEquals(Errno.EMSGSIZE, plain.errno(), plain.toString());
            SocketException stamped = assertThrows(SocketException.class,
                    () -> socket.sendStamped(tooLong, 70_000, sink.localAddress()));
            assertEquals(Errno.EMSGSIZE, stamped.errno(), stamped.toString());
            MemorySegment data = arena.allocate(20);
            assertEquals(20, socket.send(data, 20, sink.localAddress()), "the socket still sends");
            assertEquals(1, socket.sentPacketCount(), "failed sends are not counted");
        }
    }
}
