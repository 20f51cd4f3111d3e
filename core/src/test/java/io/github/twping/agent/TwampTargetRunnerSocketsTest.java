package io.github.twping.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's test sockets are twping's (docs/CLIENT.md, "Two sockets"): a sending socket beside the target's
 * test socket for each session, the test socket connected to that session's reflector port, so that the replies
 * of a later session on another reflector port still reach it.
 */
class TwampTargetRunnerSocketsTest {
    private static final long FIVE_S = TimeUnit.SECONDS.toNanos(5);

    @TempDir
    Path dir;

    @Test
    void eachSessionSendsOnItsOwnSocketAndReceivesItsReflectorsReplies() throws Exception {
        TargetConfig cfg = AgentConfigLoader.create().parse("agent.yaml", """
                targets:
                  - name: lo
                    host: 127.0.0.1:862
                    rate: 10
                    session: 1
                    dscp: 10
                """, dir.resolve("agent.yaml")).targets().get(0);
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (UdpSocket test = TwampTargetRunner.openSocket(lo, cfg);
             UdpSocket first = UdpSocket.open(UdpSocketOptions.builder().bindAddress(lo).receiveTos(true).build());
             UdpSocket second = UdpSocket.open(UdpSocketOptions.builder().bindAddress(lo).receiveTos(true).build());
             Arena arena = Arena.ofConfined()) {
            assumeTrue(test.isNative() && test.capabilities().txTimestamps(), "needs the FFM socket with TX stamps");
            MemorySegment buffer = arena.allocate(256);
            ReceivedPacket meta = new ReceivedPacket();
            for (UdpSocket reflector : new UdpSocket[] {first, second}) {
                UdpSocket sending = TwampTargetRunner.sendSocket(test, reflector.localAddress(), cfg);
                assertNotNull(sending, "a sending socket beside the test socket");
                try (sending) {
                    assertEquals(test.localAddress(), sending.localAddress(), "on the test socket's port");
                    assertEquals(24, sending.send(buffer, 24, reflector.localAddress()));
                    assertEquals(24, reflector.receive(buffer, meta, FIVE_S));
                    assertTrue(meta.sourceIs(test.localAddress()), "from the target's port");
                    assertEquals(10 << 2, meta.tos() & 0xfc, "with the target's DSCP");
                    assertEquals(8, reflector.send(buffer, 8, test.localAddress()));
                    assertEquals(8, test.receive(buffer, meta, FIVE_S), "the reply reaches the test socket");
                    assertTrue(meta.sourceIs(reflector.localAddress()));
                }
            }
        }
    }
}
