package io.github.twping.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.github.twping.ffm.ForwardingUdpSocket;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * The client's "replies were dropped by this host's kernel" line (docs/notes/2026-12-05-ffm-link.md): the socket's
 * drop count (SO_MEMINFO on the FFM socket) is read only when some packet went unanswered, and the line appears when
 * the kernel reports drops. A forwarding socket counts the reads and answers a chosen drop count.
 */
class KernelDropsLineTest {
    private static final String LINE = "twping: 3 replies were dropped by this host's kernel at the test socket"
            + " (receive buffer full): counted as lost, but a measurement fault, not network loss";

    /** A loopback socket whose kernelDrops() answers {@code drops} and counts the calls. */
    private static final class CountingDrops extends ForwardingUdpSocket {
        private final long drops;
        int reads;

        CountingDrops(long drops) throws Exception {
            super(UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress()).build()));
            this.drops = drops;
        }

        @Override
        public long kernelDrops() {
            reads++;
            return drops;
        }
    }

    @Test
    void everyPacketAnsweredReadsNoDropCount() throws Exception {
        try (CountingDrops socket = new CountingDrops(3)) {
            assertNull(TwampRun.kernelDropsLine("twping", 100, 100, socket));
            // more replies than packets (duplicates) are not loss either
            assertNull(TwampRun.kernelDropsLine("twping", 101, 100, socket));
            assertEquals(0, socket.reads, "the drop count was read");
        }
    }

    @Test
    void aMissingReplyReadsTheDropCountAndTheLineAppears() throws Exception {
        try (CountingDrops socket = new CountingDrops(3)) {
            assertEquals(LINE, TwampRun.kernelDropsLine("twping", 99, 100, socket));
            assertEquals(1, socket.reads);
        }
    }

    @Test
    void aMissingReplyWithoutKernelDropsOrAnUnknownCountGivesNoLine() throws Exception {
        try (CountingDrops none = new CountingDrops(0); CountingDrops unknown = new CountingDrops(-1)) {
            assertNull(TwampRun.kernelDropsLine("twping", 0, 1, none));
            assertNull(TwampRun.kernelDropsLine("twping", 0, 1, unknown));
            assertEquals(1, none.reads);
            assertEquals(1, unknown.reads);
        }
    }
}
