package io.github.twping.session;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.github.twping.ffm.RealtimeClock;
import io.github.twping.ffm.SocketException;
import io.github.twping.pacing.PacingClock;
import io.github.twping.time.WallClock;

/**
 * One platform thread that sends the test packets of many sessions ({@link ClientTestSession#sharedSender}): the
 * agent's, 10 packets/s per target by default, where a sender thread per session would be 100 threads for 100
 * targets, and a virtual thread per session allocates the JDK's timer task for every timed park (docs/FLEET.md,
 * "Threads").
 *
 * <p>The sessions sit in a binary heap keyed by the time of their next send. The thread parks until the earliest,
 * up to that session's spin window before it, busy-waits the rest of the way as the single session's
 * {@link io.github.twping.pacing.ParkThenSpinPacer} does (the window: the session's own, capped at a quarter of its
 * interval; timer slack 1 ns and the scheduler's shortest slice, as a session's own sender thread), lets the session
 * send its due packet ({@link SessionSender#step}: the same records, lateness and skip rule), moves it down the heap
 * to its next deadline, and repeats. Nothing on that path allocates or takes a lock.
 *
 * <p>A session is handed over when it starts ({@link #register}: a lock-free queue the thread drains before each
 * wait, and a lock only there, where the thread is started on the first registration) and leaves when it has handled
 * its last packet, or when it stopped (cancelled, failed, ended by the receiver): its stop wakes the thread from
 * its park ({@link SessionControl#onStop}: a flag and {@link LockSupport#unpark}, not an interrupt, which would
 * close an interruptible channel the thread opened), and the thread takes every stopped session out of the heap.
 * {@link #close} ends the thread; a session still in it, or registered after, is stopped as failed.
 */
public final class SharedSender implements AutoCloseable {
    private static final int INITIAL_CAPACITY = 128;

    private final String threadName;
    private final Consumer<String> diagnostics;
    private final ConcurrentLinkedQueue<SessionSender> arrivals = new ConcurrentLinkedQueue<>();
    private final AtomicInteger sessions = new AtomicInteger();
    /** Wakes the thread: one instance, handed to every session's {@link SessionControl#onStop}. */
    private final Runnable wakeUp = this::wake;
    private final PacingClock clock = new StampWarmingPacingClock(WallClock.system());
    private volatile Thread thread;
    private volatile boolean closing;
    /** Set with an unpark when a session arrived or stopped; the thread clears it before it looks. */
    private volatile boolean woken;
    private boolean closed; // guarded by this

    // the thread's own: the heap of sessions by wakeNs, and when its last wait ended
    private SessionSender[] heap = new SessionSender[INITIAL_CAPACITY];
    private int size;
    private long reachedNs;

    /**
     * @param threadName  the name of the thread, started at the first {@link #register}
     * @param diagnostics where a refused thread setting goes (timer slack, scheduler slice)
     */
    public SharedSender(String threadName, Consumer<String> diagnostics) {
        this.threadName = threadName;
        this.diagnostics = diagnostics;
    }

    /**
     * Hands {@code sender} to the thread, starting the thread the first time; any thread. The session's stop wakes
     * the thread from then on. After {@link #close} the session is failed and handed back at once.
     */
    void register(SessionSender sender, SessionControl control) {
        control.onStop(wakeUp);
        synchronized (this) {
            if (!closed) {
                sessions.incrementAndGet();
                arrivals.add(sender);
                if (thread == null) {
                    thread = Thread.ofPlatform().name(threadName).daemon(true).start(this::run);
                } else {
                    wake();
                }
                return;
            }
        }
        sender.failed(new IllegalStateException("the shared sender is closed"));
        sender.endSteps();
    }

    /** Ends the thread's wait (a session arrived or stopped); any thread, no allocation. */
    void wake() {
        Thread t = thread;
        if (t != null) {
            woken = true;
            LockSupport.unpark(t);
        }
    }

    /** @return sessions registered and not handed back yet */
    public int sessions() {
        return sessions.get();
    }

    /** @return the thread, or null before the first session */
    public Thread thread() {
        return thread;
    }

    /** Ends the thread (waiting for it up to 5 s); the sessions still in it are failed. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            closing = true;
        }
        Thread t = thread;
        if (t != null) {
            wake();
            try {
                t.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        try {
            ClientTestSession.preciseTimers(diagnostics);
            RealtimeClock.bindThread();
            loop();
        } finally {
            synchronized (this) {
                closed = true;
            }
            SessionSender s;
            while ((s = arrivals.poll()) != null) {
                leaveFailed(s);
            }
            for (int i = 0; i < size; i++) {
                leaveFailed(heap[i]);
                heap[i] = null;
            }
            size = 0;
        }
    }

    private void loop() {
        boolean sweep = false;
        while (!closing) {
            admit();
            if (sweep) {
                sweepStopped();
                sweep = false;
            }
            if (size == 0) {
                LockSupport.park(this);
                sweep = tookWake();
                continue;
            }
            SessionSender s = heap[0];
            if (!waitFor(s.wakeNs, s.spinWindowNs())) {
                sweep = true;
                continue;
            }
            sendDue(s);
        }
    }

    /** Lets the earliest session send its due packet and puts it where its next deadline belongs, or out. */
    private void sendDue(SessionSender s) {
        int next;
        try {
            next = s.step(reachedNs);
        } catch (SocketException | RuntimeException | Error e) {
            s.failed(e);
            next = SessionSender.STEP_ENDED;
        }
        if (next == SessionSender.STEP_NEXT) {
            s.wakeNs = s.dueDeadlineNs();
            siftDown(0);
        } else if (next == SessionSender.STEP_SLOT_BUSY) {
            s.wakeNs = reachedNs + SessionSender.SLOT_RETRY_NS;
            siftDown(0);
        } else {
            removeTop();
            leave(s);
        }
    }

    /** @return true when {@link #wake} was called since the last look (and clears it) */
    private boolean tookWake() {
        if (woken) {
            woken = false;
            return true;
        }
        return false;
    }

    /**
     * Parks until {@code windowNs} before {@code deadlineNs}, then spins to it ({@link #reachedNs} the time it ended);
     * false when woken first (a session arrived or stopped). A wake that comes before the park leaves its permit, so
     * the park returns at once: none is lost.
     */
    private boolean waitFor(long deadlineNs, long windowNs) {
        long nowNs = clock.nanoTime();
        while (deadlineNs - nowNs > windowNs) {
            clock.parkNanos(deadlineNs - windowNs - nowNs);
            if (tookWake()) {
                return false;
            }
            nowNs = clock.nanoTime();
        }
        while (nowNs - deadlineNs < 0) {
            clock.onSpinWait();
            nowNs = clock.nanoTime();
        }
        reachedNs = nowNs;
        return true;
    }

    /** Takes in the sessions registered since the last look: each one's clock pairing and first packet. */
    private void admit() {
        SessionSender s;
        while ((s = arrivals.poll()) != null) {
            boolean sending;
            try {
                sending = s.beginSteps();
            } catch (RuntimeException | Error e) {
                s.failed(e);
                sending = false;
            }
            if (sending) {
                s.wakeNs = s.dueDeadlineNs();
                add(s);
            } else {
                leave(s);
            }
        }
    }

    /** Hands back every stopped session (after a wake-up: only then can one have stopped between its sends). */
    private void sweepStopped() {
        int kept = 0;
        for (int i = 0; i < size; i++) {
            SessionSender s = heap[i];
            if (s.stopped()) {
                leave(s);
            } else {
                heap[kept++] = s;
            }
        }
        for (int i = kept; i < size; i++) {
            heap[i] = null;
        }
        size = kept;
        for (int i = (size >>> 1) - 1; i >= 0; i--) {
            siftDown(i);
        }
    }

    private void leave(SessionSender s) {
        s.endSteps();
        sessions.decrementAndGet();
    }

    private void leaveFailed(SessionSender s) {
        s.failed(new IllegalStateException("the shared sender ended"));
        leave(s);
    }

    // ---- the binary heap, by wakeNs (compared as a difference: nanoTime may wrap) ------------------------------

    private void add(SessionSender s) {
        if (size == heap.length) {
            heap = java.util.Arrays.copyOf(heap, size * 2); // at a registration, never per packet
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            SessionSender p = heap[parent];
            if (s.wakeNs - p.wakeNs >= 0) {
                break;
            }
            heap[i] = p;
            i = parent;
        }
        heap[i] = s;
    }

    private void removeTop() {
        SessionSender last = heap[--size];
        heap[size] = null;
        if (size > 0) {
            heap[0] = last;
            siftDown(0);
        }
    }

    private void siftDown(int i) {
        SessionSender s = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            SessionSender c = heap[child];
            int right = child + 1;
            if (right < size && heap[right].wakeNs - c.wakeNs < 0) {
                child = right;
                c = heap[child];
            }
            if (s.wakeNs - c.wakeNs <= 0) {
                break;
            }
            heap[i] = c;
            i = child;
        }
        heap[i] = s;
    }
}
