package io.github.twping.session;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.UdpSocket;

/**
 * How the reflector thread waits for the next sender packet. The receive time in the reply is the kernel's
 * RX timestamp, so the wait never changes the measured round trip: it decides how much of the thread's
 * wake-up shows as reflector processing time (T3 − T2, subtracted from the round trip) and what the wait costs
 * in CPU.
 *
 * <ul>
 *   <li>{@code block} (the default): sleep in recvmsg until a packet arrives; no CPU while idle, processing
 *   time includes the wake-up. On the 2-CPU development machine it gave the lowest processing time at
 *   500/s under load, and the spin of the other modes took CPU from the client sharing the host
 *   (docs/PERFORMANCE.md, "Reflector processing time").</li>
 *   <li>{@code spin[:MICROS]} (50 µs without a value): after each packet poll the socket without blocking for
 *   that long, then sleep; back-to-back packets (high rates, bursts) find the thread awake, a packet after a
 *   longer pause wakes it as {@code block} does. Costs at most MICROS of CPU per packet.</li>
 *   <li>{@code busy-poll}: poll without ever sleeping while the session runs; processing time is the
 *   reflector's own work at any rate, at the price of one CPU for the whole session.</li>
 *   <li>{@code ahead[:MICROS]} (100 µs without a value): learn the sender's interval from the kernel receive
 *   stamps of consecutive packets, sleep until MICROS before the next packet is due, then poll until it comes
 *   (at most MICROS after it was due, then sleep as {@code block}). With a fixed schedule ({@code -i 0.002f})
 *   the thread is awake when the packet arrives at about MICROS of CPU per packet; with an exponential one a
 *   packet usually comes before or after the window and waits as with {@code block}. An early packet never
 *   waits: the sleep is a receive with a timeout.</li>
 * </ul>
 *
 * @param mode   the strategy
 * @param spinNs the polling window of {@link Mode#SPIN} and {@link Mode#AHEAD}
 */
public record ReflectorWait(Mode mode, long spinNs) {
    /** The strategies. */
    public enum Mode { BLOCK, SPIN, BUSY_POLL, AHEAD }

    /** The default polling window of {@code spin}, µs. */
    public static final long DEFAULT_SPIN_MICROS = 50;
    /** {@code spin} without a window: spin 50 µs after each packet, then block. */
    public static final ReflectorWait SPIN = new ReflectorWait(Mode.SPIN, TimeUnit.MICROSECONDS.toNanos(DEFAULT_SPIN_MICROS));
    /** The default: block. */
    public static final ReflectorWait DEFAULT = new ReflectorWait(Mode.BLOCK, 0);
    /** The default window of {@code ahead}, µs. */
    public static final long DEFAULT_AHEAD_MICROS = 100;
    /** Longest polling window accepted, 1 s. */
    static final long MAX_SPIN_MICROS = 1_000_000;

    /**
     * Parses {@code block}, {@code spin}, {@code spin:MICROS} (0..1000000) or {@code busy-poll}.
     *
     * @throws IllegalArgumentException with a one-line message
     */
    public static ReflectorWait parse(String text) {
        String s = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        switch (s) {
            case "block":
                return new ReflectorWait(Mode.BLOCK, 0);
            case "spin":
                return SPIN;
            case "busy-poll":
                return new ReflectorWait(Mode.BUSY_POLL, 0);
            case "ahead":
                return new ReflectorWait(Mode.AHEAD, TimeUnit.MICROSECONDS.toNanos(DEFAULT_AHEAD_MICROS));
            default:
                break;
        }
        for (Mode m : new Mode[] {Mode.SPIN, Mode.AHEAD}) {
            String prefix = m.name().toLowerCase(Locale.ROOT) + ":";
            String micros = s.startsWith(prefix) ? s.substring(prefix.length()) : "";
            if (!micros.isEmpty() && micros.length() <= 7 && micros.chars().allMatch(c -> c >= '0' && c <= '9')) {
                long us = Long.parseLong(micros);
                if (us <= MAX_SPIN_MICROS) {
                    return us == 0 ? new ReflectorWait(Mode.BLOCK, 0)
                            : new ReflectorWait(m, TimeUnit.MICROSECONDS.toNanos(us));
                }
            }
        }
        throw new IllegalArgumentException("invalid reflector wait '" + text
                + "' (block, spin, spin:MICROS, ahead, ahead:MICROS up to " + MAX_SPIN_MICROS + ", busy-poll)");
    }

    /**
     * Receives the next datagrams the chosen way, as many as are queued up to the batch's capacity (one
     * {@code recvmmsg}).
     *
     * @param timeoutNs the blocking timeout (negative = forever), as {@link UdpSocket#receiveBatch}; while
     *                  polling, time spent polling counts against it
     * @param stop      checked between polls; true ends the wait with {@link UdpSocket#CLOSED}
     * @return the number of datagrams in {@code batch}, or {@link UdpSocket#TIMEOUT} / {@link UdpSocket#CLOSED}
     */
    public int receiveBatch(UdpSocket socket, DatagramBatch batch, long timeoutNs,
                            java.util.function.BooleanSupplier stop) throws SocketException {
        if (mode == Mode.BLOCK) {
            return socket.receiveBatch(batch, timeoutNs);
        }
        long pollNs = mode == Mode.BUSY_POLL ? (timeoutNs < 0 ? Long.MAX_VALUE : timeoutNs) : spinNs;
        return pollThenBlock(socket, batch, System.nanoTime(), pollNs, timeoutNs, stop);
    }

    /** Polls without blocking for {@code pollNs} from {@code startNs}, then blocks for what is left of the timeout. */
    private static int pollThenBlock(UdpSocket socket, DatagramBatch batch, long startNs, long pollNs, long timeoutNs,
                                     java.util.function.BooleanSupplier stop) throws SocketException {
        while (true) {
            int n = socket.receiveBatch(batch, 0);
            if (n != UdpSocket.TIMEOUT) {
                return n;
            }
            if (stop.getAsBoolean()) {
                return UdpSocket.CLOSED;
            }
            long elapsedNs = System.nanoTime() - startNs;
            if (elapsedNs >= pollNs) {
                if (timeoutNs < 0) {
                    return socket.receiveBatch(batch, -1);
                }
                long leftNs = timeoutNs - elapsedNs;
                return leftNs <= 0 ? UdpSocket.TIMEOUT : socket.receiveBatch(batch, leftNs);
            }
            Thread.onSpinWait();
        }
    }

    /** A waiter for one reflector thread: the strategy plus what {@code ahead} learns of the sender. */
    public Waiter newWaiter() {
        return new Waiter(this);
    }

    /** The configuration text: {@code block}, {@code spin:50}, {@code busy-poll}, {@code ahead:100}. */
    @Override
    public String toString() {
        return switch (mode) {
            case BLOCK -> "block";
            case SPIN -> "spin:" + TimeUnit.NANOSECONDS.toMicros(spinNs);
            case BUSY_POLL -> "busy-poll";
            case AHEAD -> "ahead:" + TimeUnit.NANOSECONDS.toMicros(spinNs);
        };
    }

    /**
     * The wait of one reflector thread (not thread-safe). For {@code ahead} it keeps the monotonic time the last
     * packet was taken and the sender's last interval (the difference of two consecutive kernel receive stamps);
     * the other strategies keep nothing. Allocation-free.
     */
    public static final class Waiter {
        private final ReflectorWait wait;
        private long lastTakenNs;
        private long lastRxEpochNs;
        /** The sender's interval, ns; 0 while unknown (after a batch of several, a timeout, or at the start). */
        private long intervalNs;

        private Waiter(ReflectorWait wait) {
            this.wait = wait;
        }

        /** As {@link ReflectorWait#receiveBatch}, with the {@code ahead} strategy's prediction. */
        public int receiveBatch(UdpSocket socket, DatagramBatch batch, long timeoutNs,
                                java.util.function.BooleanSupplier stop) throws SocketException {
            if (wait.mode != Mode.AHEAD) {
                return wait.receiveBatch(socket, batch, timeoutNs, stop);
            }
            long startNs = System.nanoTime();
            int n;
            long dueNs = lastTakenNs + intervalNs;
            long sleepNs = dueNs - wait.spinNs - startNs;
            if (intervalNs == 0 || dueNs - startNs <= -wait.spinNs || (timeoutNs >= 0 && sleepNs >= timeoutNs)) {
                // nothing to predict, the packet is overdue, or the timeout comes first
                n = socket.receiveBatch(batch, timeoutNs);
            } else if (sleepNs > 0) {
                n = socket.receiveBatch(batch, sleepNs);        // an early packet ends the sleep
                if (n == UdpSocket.TIMEOUT) {
                    long pollNs = dueNs + wait.spinNs - startNs; // poll from now until the window closes
                    n = pollThenBlock(socket, batch, startNs, pollNs, timeoutNs, stop);
                }
            } else {
                n = pollThenBlock(socket, batch, startNs, dueNs + wait.spinNs - startNs, timeoutNs, stop);
            }
            learn(batch, n);
            return n;
        }

        private void learn(DatagramBatch batch, int n) {
            if (n <= 0) {
                intervalNs = 0;
                return;
            }
            lastTakenNs = System.nanoTime();
            long rxEpochNs = batch.meta(n - 1).rxTimestampEpochNs();
            long gapNs = rxEpochNs - lastRxEpochNs;
            intervalNs = n == 1 && lastRxEpochNs != 0 && gapNs > 0 && gapNs < MAX_INTERVAL_NS ? gapNs : 0;
            lastRxEpochNs = rxEpochNs;
        }

        /** Intervals above this (1 s) are not predicted: a sleeping thread's wake-up is small beside them. */
        private static final long MAX_INTERVAL_NS = 1_000_000_000L;
    }
}
