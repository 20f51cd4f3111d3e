package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.ffm.TimestampSource;
import io.github.twping.metrics.LatencyRecorder;
import io.github.twping.testsupport.AllocationWindows;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import com.sun.management.ThreadMXBean;

/**
 * The reflector's processing-time hook ({@link StampReflector#processingTime}, what {@code twampd --stamp
 * --metrics-listen} sets): called once per reply with receive-to-send nanoseconds, never for a dropped datagram,
 * and with the metrics' {@link LatencyRecorder} the per-datagram path still allocates nothing.
 */
class StampReflectorProcessingHookTest {
    private static final int WINDOW = 2_000;

    private static StampReflector reflector(LongConsumer hook) throws Exception {
        StampReflectorSpec spec = new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP, List.of(), 0,
                64);
        return new StampReflector(spec, StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null).processingTime(hook);
    }

    private static void feed(StampReflector r, byte[] packet, InetSocketAddress source, long rxEpochNs) {
        MemorySegment.copy(packet, 0, r.requestBuffer(), ValueLayout.JAVA_BYTE, 0, packet.length);
        r.metadata().record(packet.length, false, source, 64, 0, rxEpochNs, TimestampSource.KERNEL_SOFTWARE);
    }

    @Test
    @Timeout(60)
    void calledOncePerReplyWithTheReceiveToSendTime() throws Exception {
        long[] seen = new long[3]; // count, min, max
        seen[1] = Long.MAX_VALUE;
        LongConsumer hook = ns -> {
            seen[0]++;
            seen[1] = Math.min(seen[1], ns);
            seen[2] = Math.max(seen[2], ns);
        };
        try (DatagramSocket sink = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             StampReflector r = reflector(hook)) {
            InetSocketAddress source = new InetSocketAddress(InetAddress.getLoopbackAddress(), sink.getLocalPort());
            byte[] packet = new byte[44];
            for (int i = 0; i < 10; i++) {
                long rx = System.currentTimeMillis() * 1_000_000L - 1_000_000L; // 1-2 ms before the reply
                feed(r, packet, source, rx);
                r.handle(packet.length);
            }
            feed(r, new byte[10], source, System.currentTimeMillis() * 1_000_000L);
            r.handle(10); // short: dropped, no processing time
            assertEquals(10, r.reflected());
            assertEquals(1, r.shortPackets());
            assertEquals(10, seen[0]);
            assertTrue(seen[1] >= 1_000_000L, "at least the 1 ms the receive stamp lies back: " + seen[1]);
            assertTrue(seen[2] < 10_000_000_000L, "below 10 s: " + seen[2]);
        }
    }

    @Test
    @Timeout(120)
    void theMetricsRecorderKeepsTheKnownSourcePathAllocationFree() throws Exception {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported(), "per-thread allocation counting is not supported");
        LatencyRecorder recorder = new LatencyRecorder();
        try (DatagramSocket sink = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             StampReflector r = reflector(recorder)) {
            InetSocketAddress source = new InetSocketAddress(InetAddress.getLoopbackAddress(), sink.getLocalPort());
            byte[] packet = new byte[44];
            long rx = System.currentTimeMillis() * 1_000_000L;
            AllocationWindows windows = new AllocationWindows("datagrams", WINDOW); // until 0, or 60 s
            while (windows.more()) {
                long allocated = 0;
                for (int i = 0; i < WINDOW; i++) {
                    feed(r, packet, source, rx + i);
                    long before = threads.getCurrentThreadAllocatedBytes();
                    r.handle(packet.length);
                    allocated += threads.getCurrentThreadAllocatedBytes() - before;
                }
                windows.record(allocated);
            }
            windows.assertOneAllocatedNothing();
            assertTrue(r.reflected() > 0);
        }
    }
}
