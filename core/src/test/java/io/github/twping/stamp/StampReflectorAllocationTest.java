package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

import io.github.twping.ffm.TimestampSource;
import io.github.twping.testsupport.AllocationWindows;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import com.sun.management.ThreadMXBean;
import io.github.twping.protocol.SenderPacket;
import java.nio.charset.StandardCharsets;

/**
 * The reflector's per-datagram path allocates nothing for a known source: windows of 2,000 datagrams (with TLVs,
 * answered to a sink socket) until the JIT has compiled the path; passes at the first window whose
 * {@code handle} calls allocated 0 bytes on this thread, fails when none has within 60 s
 * ({@link AllocationWindows}: not a fixed number of windows, which failed beside other tests whose classes and
 * profiles made C2 compile the path again, docs/notes/2026-12-05-allocation-order.md).
 */
class StampReflectorAllocationTest {
    private static final int WINDOW = 2_000;
    private static final byte[] KEY = "allocation".getBytes(StandardCharsets.US_ASCII);

    @Timeout(120)
    @ParameterizedTest(name = "auth={0} stateful={1} ptp={2}")
    @CsvSource({"false, false, false", "true, true, true"})
    void knownSourceIsAllocationFree(boolean auth, boolean stateful, boolean ptp) throws Exception {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported(), "per-thread allocation counting is not supported");
        StampReflectorSpec spec = new StampReflectorSpec(false, auth, auth ? KEY : null, stateful,
                ptp ? TimestampFormat.PTP : TimestampFormat.NTP, List.of(), 1_000_000_000, 64);
        // every RFC 8972 TLV our sender writes (the HMAC TLV when authenticated), then an unknown one
        StampSenderSpec senderSpec = new StampSenderSpec(auth, auth ? KEY : null, TimestampFormat.NTP, 1, 16,
                new StampTlvRequest(true, 46, true, 1, 1, true, auth, true));
        StampSenderCodec codec = new StampSenderCodec(senderSpec);
        int sent = codec.senderLayout().length() + senderSpec.tlvBytes();
        byte[] packet = new byte[sent + 4 + 8];
        MemorySegment p = MemorySegment.ofArray(packet);
        new SenderPacket(codec.senderLayout()).wrap(p).clearMbz().sequenceNumber(0);
        p.set(ValueLayout.JAVA_BYTE, auth ? 25 : 13, (byte) 1);
        codec.sealSenderHead(p);
        codec.sealSenderTail(p);
        ByteBuffer b = ByteBuffer.wrap(packet);
        b.put(sent, (byte) 0x80).put(sent + 1, (byte) 200).putShort(sent + 2, (short) 8);
        try (DatagramSocket sink = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             StampReflector reflector = new StampReflector(spec, StampReflector.openSocket(
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null)) {
            InetSocketAddress source = new InetSocketAddress(InetAddress.getLoopbackAddress(), sink.getLocalPort());
            MemorySegment buffer = reflector.requestBuffer();
            long rx = System.currentTimeMillis() * 1_000_000L;
            AllocationWindows windows = new AllocationWindows("datagrams", WINDOW);
            while (windows.more()) {
                long allocated = 0;
                for (int i = 0; i < WINDOW; i++) {
                    MemorySegment.copy(packet, 0, buffer, ValueLayout.JAVA_BYTE, 0, packet.length);
                    reflector.metadata().record(packet.length, false, source, 64, 0, rx + i,
                            TimestampSource.KERNEL_SOFTWARE);
                    long before = threads.getCurrentThreadAllocatedBytes();
                    reflector.handle(packet.length);
                    allocated += threads.getCurrentThreadAllocatedBytes() - before;
                }
                windows.record(allocated);
            }
            windows.assertOneAllocatedNothing();
            assertTrue(reflector.reflected() > 0);
        }
    }
}
