package io.github.twping.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.protocol.Mode;
import io.github.twping.testsupport.AllocationWindows;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import com.sun.management.ThreadMXBean;

/**
 * Watching a quiet control connection during a test allocates nothing per look: twping polls it every
 * millisecond at times (ControlWatch, TwampRun's start wait), and a read with SO_TIMEOUT threw a
 * SocketTimeoutException per quiet poll. Windows of polls measured with the thread's allocation counter; the best
 * window must be zero (the first one starts the watch read).
 */
class ControlWatchAllocationTest {
    private static final int WINDOW = 40;
    private static final long POLL_NS = 1_000_000L;

    @Test
    void quietPollsAllocateNothing() throws Exception {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported(), "per-thread allocation counting is not supported");
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS);
             ControlClient client = ControlClient.connect(ControlLoopbackTest.options(server.port(), Mode.OPEN))) {
            InetAddress lo = InetAddress.getByName("127.0.0.1");
            client.requestSession(ControlLoopbackTest.request(lo, lo, 0));
            client.startSessions();
            int quiet = 0;
            AllocationWindows windows = new AllocationWindows("quiet polls", WINDOW); // until 0, or 60 s
            while (windows.more()) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < WINDOW; i++) {
                    if (client.awaitActivity(POLL_NS) == ControlActivity.QUIET) {
                        quiet++;
                    }
                }
                windows.record(threads.getCurrentThreadAllocatedBytes() - before);
            }
            windows.assertOneAllocatedNothing();
            assertTrue(quiet >= WINDOW, "the polls were quiet: " + quiet);
            // the watch read still hands the next message's first byte over (Stop-Sessions, then a new request)
            client.stopSessions(0);
            assertEquals(0, client.requestSession(ControlLoopbackTest.request(lo, lo, 0)).acceptCode());
        }
    }

    /** The agent's target loops are virtual threads: their watch read is a virtual thread too, and sees the close. */
    @Test
    void aVirtualCallerSeesQuietThenThePeerClosing() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS);
             ControlClient client = ControlClient.connect(ControlLoopbackTest.options(server.port(), Mode.OPEN))) {
            InetAddress lo = InetAddress.getByName("127.0.0.1");
            client.requestSession(ControlLoopbackTest.request(lo, lo, 0));
            client.startSessions();
            ControlActivity[] seen = new ControlActivity[2];
            Thread watcher = Thread.ofVirtual().start(() -> {
                seen[0] = client.awaitActivity(POLL_NS);
                try {
                    server.connection.get(60, TimeUnit.SECONDS).close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                seen[1] = client.awaitActivity(60_000_000_000L);
            });
            assertTrue(watcher.join(Duration.ofSeconds(120)), "the virtual watcher ended");
            assertEquals(ControlActivity.QUIET, seen[0]);
            assertEquals(ControlActivity.PEER_CLOSED, seen[1]);
        }
    }

    @Test
    void anInterruptDoesNotEndTheWaitAndIsKept() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS);
             ControlClient client = ControlClient.connect(ControlLoopbackTest.options(server.port(), Mode.OPEN))) {
            Thread.currentThread().interrupt();
            try {
                long start = System.nanoTime();
                assertEquals(ControlActivity.QUIET, client.awaitActivity(20_000_000L));
                assertTrue(System.nanoTime() - start >= 20_000_000L, "waited the whole timeout");
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
            } finally {
                Thread.interrupted();
            }
        }
    }
}
