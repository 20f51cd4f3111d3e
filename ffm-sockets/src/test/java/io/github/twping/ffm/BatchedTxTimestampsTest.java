package io.github.twping.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;

/**
 * {@link UdpSocket#pollTxTimestampsBatched}: the same reports as {@link UdpSocket#pollTxTimestamps}, in order,
 * whether fewer or more than one batch is pending, nothing left behind, nothing allocated once warm.
 */
class BatchedTxTimestampsTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);

    /** Collects packet ids in arrival order. */
    private static final class Ids implements TxTimestampHandler {
        final long[] ids = new long[4096];
        final long[] stamps = new long[4096];
        int count;
        boolean hardware;

        @Override
        public void onTxTimestamp(long packetId, long epochNs, boolean hw) {
            if (count < ids.length) {
                ids[count] = packetId;
                stamps[count] = epochNs;
            }
            count++;
            hardware |= hw;
        }
    }

    private static UdpSocket stamped() throws SocketException {
        return UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .timestamping(Timestamping.RX_TX_SOFTWARE).build());
    }

    private static UdpSocket sink() throws SocketException {
        return UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .receiveBufferBytes(4 << 20).build());
    }

    /** Sends {@code n} datagrams, then drains until {@code n} stamps arrived (bounded by a deadline). */
    private static Ids sendAndDrain(UdpSocket socket, UdpSocket sink, MemorySegment data, int n, boolean batched)
            throws SocketException {
        for (int i = 0; i < n; i++) {
            assertEquals(20, socket.send(data, 20, sink.localAddress()));
        }
        Ids ids = new Ids();
        long deadline = System.nanoTime() + DEADLINE_NS;
        while (ids.count < n && System.nanoTime() - deadline < 0) {
            int before = ids.count;
            int delivered = batched ? socket.pollTxTimestampsBatched(ids) : socket.pollTxTimestamps(ids);
            assertEquals(ids.count - before, delivered, "the return value counts the handler calls");
            if (delivered == 0) {
                Thread.onSpinWait();
            }
        }
        return ids;
    }

    @Test
    void deliversEveryStampInOrderForShortAndLongQueues() throws Exception {
        try (UdpSocket socket = stamped(); UdpSocket sink = sink(); Arena arena = Arena.ofConfined()) {
            assumeTrue(socket.isNative() && socket.capabilities().txTimestamps(), "needs FFM TX timestamps");
            MemorySegment data = arena.allocate(64);
            long next = 0;
            // 1 (one short batch), 32 (exactly a batch, the next call sees EAGAIN), 100 (several batches)
            for (int n : new int[] {1, 32, 100}) {
                long beforeNs = RealtimeClock.epochNs();
                Ids ids = sendAndDrain(socket, sink, data, n, true);
                long afterNs = RealtimeClock.epochNs();
                assertEquals(n, ids.count, "every send stamped once");
                assertFalse(ids.hardware, "software stamps on loopback");
                for (int i = 0; i < n; i++) {
                    assertEquals(next + i, ids.ids[i], "packet ids in send order");
                    assertTrue(ids.stamps[i] >= beforeNs - 1_000_000 && ids.stamps[i] <= afterNs + 1_000_000,
                            "stamp within the sends: " + ids.stamps[i]);
                    if (i > 0) {
                        assertTrue(ids.stamps[i] >= ids.stamps[i - 1], "stamps do not go back");
                    }
                }
                next += n;
                assertEquals(0, socket.pollTxTimestampsBatched(new Ids()), "queue empty afterwards");
                assertEquals(0, socket.pollTxTimestamps(new Ids()), "nothing left for the one-by-one drain either");
            }
        }
    }

    @Test
    void matchesTheOneByOneDrain() throws Exception {
        try (UdpSocket a = stamped(); UdpSocket b = stamped(); UdpSocket sink = sink();
             Arena arena = Arena.ofConfined()) {
            assumeTrue(a.isNative() && a.capabilities().txTimestamps(), "needs FFM TX timestamps");
            MemorySegment data = arena.allocate(64);
            Ids one = sendAndDrain(a, sink, data, 77, false);
            Ids batch = sendAndDrain(b, sink, data, 77, true);
            assertEquals(one.count, batch.count);
            for (int i = 0; i < one.count; i++) {
                assertEquals(one.ids[i], batch.ids[i]);
            }
        }
    }

    @Test
    void allocatesNothingOnceWarm() throws Exception {
        ThreadMXBean threads =
                (ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported());
        try (UdpSocket socket = stamped(); UdpSocket sink = sink(); Arena arena = Arena.ofConfined()) {
            assumeTrue(socket.isNative() && socket.capabilities().txTimestamps(), "needs FFM TX timestamps");
            MemorySegment data = arena.allocate(64);
            MemorySegment buffer = arena.allocate(256);
            ReceivedPacket meta = new ReceivedPacket();
            Ids ids = new Ids();
            long allocated = -1;
            // the FFM paths allocate (40 B per downcall) until C2 has compiled them, which on a loaded machine takes
            // more than 300 rounds (failed so once at load 24): rounds until one allocates nothing, bounded by count
            // and by 60 s, within the default test timeout
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int round = 0; round < 20_000 && allocated != 0 && System.nanoTime() - deadline < 0; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 500; i++) {
                    socket.send(data, 20, sink.localAddress());
                    socket.pollTxTimestampsBatched(ids);
                    while (sink.receive(buffer, meta, 0) >= 0) {
                        ids.hardware |= meta.length() < 0;     // keeps the sink's queue short
                    }
                }
                allocated = threads.getCurrentThreadAllocatedBytes() - before;
            }
            assertEquals(0, allocated, "bytes allocated by 500 sends and their batched drains once compiled");
            assertTrue(ids.count > 0, "stamps were drained");
        }
    }

    @Test
    void nioFallsBackToTheOneByOneDrain() throws Exception {
        try (UdpSocket socket = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .forceNio(true).timestamping(Timestamping.RX_TX_SOFTWARE).build())) {
            assertFalse(socket.isNative());
            assertEquals(0, socket.pollTxTimestampsBatched(new Ids()));
        }
    }
}
