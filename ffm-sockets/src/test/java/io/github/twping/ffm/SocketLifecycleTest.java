package io.github.twping.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * The user count behind {@link NativeUdpSocket#close()}: {@code busy()} says whether a thread is inside a call (close
 * then wakes it with shutdown(2); an idle socket is closed without that call), and the release runs once, by the
 * last thread out.
 */
class SocketLifecycleTest {
    @Test
    void busyWhileACallIsInsideAndReleasedOnceByTheLastOut() {
        AtomicInteger releases = new AtomicInteger();
        SocketLifecycle lifecycle = new SocketLifecycle(releases::incrementAndGet);
        assertFalse(lifecycle.busy(), "idle: close needs no wake-up");
        assertTrue(lifecycle.enter());
        assertTrue(lifecycle.enter());
        assertTrue(lifecycle.busy(), "two calls inside");
        lifecycle.close();
        assertTrue(lifecycle.closing());
        assertEquals(0, releases.get(), "not released while calls are inside");
        assertFalse(lifecycle.enter(), "no new call after close");
        lifecycle.exit();
        assertTrue(lifecycle.busy(), "one call still inside");
        assertEquals(0, releases.get());
        lifecycle.exit();
        assertFalse(lifecycle.busy());
        assertEquals(1, releases.get(), "released by the last thread out");
        assertTrue(lifecycle.isReleased());
    }

    @Test
    void anIdleSocketIsReleasedAtClose() {
        AtomicInteger releases = new AtomicInteger();
        SocketLifecycle lifecycle = new SocketLifecycle(releases::incrementAndGet);
        assertTrue(lifecycle.enter());
        lifecycle.exit();
        assertFalse(lifecycle.busy());
        lifecycle.close();
        assertEquals(1, releases.get());
        lifecycle.close();
        assertEquals(1, releases.get(), "once");
    }
}
