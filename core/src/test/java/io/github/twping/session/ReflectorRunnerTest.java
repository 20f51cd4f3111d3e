package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import org.junit.jupiter.api.Test;

/** The reflector thread shell both reflectors share: stop by wakeup, bounded join, failure, release once. */
class ReflectorRunnerTest {
    private static UdpSocket socket() throws Exception {
        return UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .build());
    }

    @Test
    void stopWakesABlockedReceiveAndCloseReleasesOnce() throws Exception {
        AtomicInteger released = new AtomicInteger();
        AtomicInteger ended = new AtomicInteger();
        CountDownLatch receiving = new CountDownLatch(1);
        {
            UdpSocket socket = socket();
            ReflectorRunner runner = new ReflectorRunner("runner-test", socket, new ReflectorRunner.Agent() {
                private final MemorySegment buffer = Arena.ofAuto().allocate(64);
                private final ReceivedPacket meta = new ReceivedPacket();

                @Override
                public boolean doWork() throws IOException {
                    receiving.countDown();
                    return socket.receive(buffer, meta, -1) != UdpSocket.CLOSED;
                }

                @Override
                public void onEnd() {
                    ended.incrementAndGet();
                }

                @Override
                public void release() {
                    released.incrementAndGet();
                }
            });
            runner.start();
            assertTrue(receiving.await(10, TimeUnit.SECONDS));
            assertTrue(runner.isRunning());
            runner.stop();
            assertTrue(runner.awaitEnd(TimeUnit.SECONDS.toNanos(10)), "stop() must wake the receive");
            assertFalse(runner.isRunning());
            assertNull(runner.failure());
            runner.close();
            runner.close();
            assertEquals(1, released.get());
            assertEquals(1, ended.get());
        }
    }

    @Test
    void aRuntimeExceptionEndsTheThreadAsAFailure() throws Exception {
        UdpSocket socket = socket();
        InetSocketAddress bound = socket.localAddress();
        ReflectorRunner runner = new ReflectorRunner("runner-test-" + bound.getPort(), socket,
                () -> {
                    throw new IllegalStateException("boom");
                });
        runner.start();
        assertTrue(runner.awaitEnd(TimeUnit.SECONDS.toNanos(10)));
        assertNotNull(runner.failure());
        assertTrue(runner.failure().getMessage().contains("boom"), runner.failure().getMessage());
        runner.close();
        runner.start();
        assertFalse(runner.isRunning(), "no start after close");
    }
}
