package io.github.twping.session;

import io.github.twping.ffm.RealtimeClock;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.twping.ffm.UdpSocket;

/**
 * The thread shell both reflectors run in ({@link SessionReflector} for TWAMP, {@code stamp.StampReflector} for STAMP
 * and TWAMP-Light), in the shape of Agrona's {@code AgentRunner}: an {@link Agent} does the work in
 * {@link Agent#doWork()} calls on one platform daemon thread; {@link #stop()} sets a flag and wakes the socket out of
 * its receive; {@link #awaitEnd} is a bounded join; {@link #close()} stops, joins for at most {@link #CLOSE_WAIT_NS},
 * closes the socket and releases the agent's memory only when the thread has ended. What ended the thread (an
 * {@link IOException} or any {@link RuntimeException}) is kept as {@link #failure()}, and the socket's kernel drop
 * count is read as the thread ends, before the socket is closed.
 */
public final class ReflectorRunner implements AutoCloseable {
    /** How long {@link #close()} waits for the thread. */
    public static final long CLOSE_WAIT_NS = TimeUnit.SECONDS.toNanos(5);

    /** The work one reflector does on the runner's thread. */
    public interface Agent {
        /** On the thread, before the first {@link #doWork()} (thread tuning). */
        default void onStart() throws IOException {
        }

        /**
         * One receive and the replies to what it brought (a method of its own so that it is compiled by its calls,
         * not by on-stack replacement of a loop entered once).
         *
         * @return true to go on, false when the agent has finished
         */
        boolean doWork() throws IOException;

        /** On the thread, after the last {@link #doWork()} or a failure, before the socket is closed. */
        default void onEnd() {
        }

        /** Frees what the agent allocated (buffers); called once, by {@link #close()}, after the thread ended. */
        default void release() {
        }
    }

    private final String threadName;
    private final UdpSocket socket;
    private final Agent agent;
    private volatile boolean stopRequested;
    private volatile Thread thread;
    private volatile IOException failure;
    private volatile long kernelDrops = -1;
    private boolean closed;

    /**
     * @param threadName the thread's name
     * @param socket     the agent's socket (closed by {@link #close()})
     * @param agent      the work
     */
    public ReflectorRunner(String threadName, UdpSocket socket, Agent agent) {
        this.threadName = threadName;
        this.socket = socket;
        this.agent = agent;
    }

    /** Starts the thread; a second call, or a call after {@link #close()}, does nothing. */
    public synchronized void start() {
        if (thread != null || closed) {
            return;
        }
        Thread t = Thread.ofPlatform().daemon(true).name(threadName).unstarted(this::run);
        thread = t;
        t.start();
    }

    /** Asks the thread to end (any thread): sets the flag, wakes the socket. */
    public void stop() {
        stopRequested = true;
        socket.wakeup();
    }

    /** @return true once {@link #stop()} was called; the agent checks it between packets */
    public boolean stopRequested() {
        return stopRequested;
    }

    /** Waits up to {@code timeoutNs} for the thread to end; true if it ended or never started. */
    public boolean awaitEnd(long timeoutNs) throws InterruptedException {
        Thread t = thread;
        return t == null || t.join(Duration.ofNanos(Math.max(1, timeoutNs)));
    }

    /** @return true when started and not yet ended */
    public boolean isRunning() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    /** @return the thread's id, or -1 before {@link #start()} */
    public long threadId() {
        Thread t = thread;
        return t == null ? -1 : t.threadId();
    }

    /** @return what ended the thread, or null */
    public IOException failure() {
        return failure;
    }

    /**
     * @return datagrams the kernel dropped at the socket because its receive buffer was full, read as the thread
     * ended; -1 while it runs or when the socket cannot tell (NIO fallback)
     */
    public long kernelDrops() {
        return kernelDrops;
    }

    /** Stops, waits at most {@link #CLOSE_WAIT_NS}, closes the socket, and releases the agent if its thread ended. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        stop();
        try {
            awaitEnd(CLOSE_WAIT_NS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        socket.close();
        if (!isRunning()) {
            agent.release();
        }
    }

    private void run() {
        try {
            RealtimeClock.bindThread(); // the first-reading path now, not at the first packet
            agent.onStart();
            while (!stopRequested && agent.doWork()) {
                // the agent's work, until stopped or finished
            }
        } catch (IOException e) {
            failure = e;
        } catch (RuntimeException e) {
            failure = new IOException("reflector: " + e, e);
        } finally {
            kernelDrops = socket.kernelDrops(); // before close() releases the socket
            agent.onEnd();
        }
    }
}
