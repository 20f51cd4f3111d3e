package io.github.twping.ffm;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Guards a native socket's descriptor and memory: every call enters and leaves a user count, and the release
 * action (close(2), arena close) runs exactly once, after close was requested, by whichever thread leaves
 * last, so memory is never freed while another thread is inside recvmsg or sendto.
 */
final class SocketLifecycle {
    private final AtomicInteger users = new AtomicInteger();
    private final AtomicBoolean closeRequested = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();
    private final Runnable release;
    private volatile boolean closing;
    private volatile boolean closed;

    SocketLifecycle(Runnable release) {
        this.release = release;
    }

    /** Enters a call; @return false when the socket is closed (then do not touch native memory). */
    boolean enter() {
        users.incrementAndGet();
        if (closed) {
            exit();
            return false;
        }
        return true;
    }

    /** Leaves a call; the last thread out after close releases. */
    void exit() {
        if (users.decrementAndGet() == 0 && closed) {
            releaseOnce();
        }
    }

    /** True after a wakeup or close: receives must return CLOSED. */
    boolean closing() {
        return closing;
    }

    void markClosing() {
        closing = true;
    }

    /** True while a call is inside (it may be blocked in the kernel and need a wake-up). */
    boolean busy() {
        return users.get() != 0;
    }

    /** @return true for the first caller only. */
    boolean requestClose() {
        return closeRequested.compareAndSet(false, true);
    }

    /** Marks the socket closed; releases now when no call is in progress, else when the last one leaves. */
    void close() {
        closing = true;
        closed = true;
        if (users.get() == 0) {
            releaseOnce();
        }
    }

    /** Waits up to {@code timeoutNs} for the release; @return whether it happened. */
    boolean awaitReleased(long timeoutNs) {
        long deadlineNs = System.nanoTime() + timeoutNs;
        while (!released.get() && System.nanoTime() - deadlineNs < 0) {
            LockSupport.parkNanos(100_000);
        }
        return released.get();
    }

    boolean isReleased() {
        return released.get();
    }

    private void releaseOnce() {
        if (released.compareAndSet(false, true)) {
            release.run();
        }
    }
}
