package io.github.twping.session;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.UdpSocket;
import java.util.function.BooleanSupplier;

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
 * </ul>
 *
 * @param mode   the strategy
 * @param spinNs the polling window of {@link Mode#SPIN}
 */
public record ReflectorWait(Mode mode, long spinNs) {
    /** The strategies. */
    public enum Mode { BLOCK, SPIN, BUSY_POLL }

    /** The default polling window of {@code spin}, µs. */
    public static final long DEFAULT_SPIN_MICROS = 50;
    /** {@code spin} without a window: spin 50 µs after each packet, then block. */
    public static final ReflectorWait SPIN = new ReflectorWait(Mode.SPIN, TimeUnit.MICROSECONDS.toNanos(DEFAULT_SPIN_MICROS));
    /** The default: block. */
    public static final ReflectorWait DEFAULT = new ReflectorWait(Mode.BLOCK, 0);
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
            default:
                break;
        }
        if (s.startsWith("spin:")) {
            String micros = s.substring(5);
            if (!micros.isEmpty() && micros.length() <= 7 && micros.chars().allMatch(c -> c >= '0' && c <= '9')) {
                long us = Long.parseLong(micros);
                if (us <= MAX_SPIN_MICROS) {
                    return us == 0 ? new ReflectorWait(Mode.BLOCK, 0)
                            : new ReflectorWait(Mode.SPIN, TimeUnit.MICROSECONDS.toNanos(us));
                }
            }
        }
        throw new IllegalArgumentException("invalid reflector wait '" + text
                + "' (block, spin, spin:MICROS up to " + MAX_SPIN_MICROS + ", busy-poll)");
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
                            BooleanSupplier stop) throws SocketException {
        if (mode == Mode.BLOCK) {
            return socket.receiveBatch(batch, timeoutNs);
        }
        long startNs = System.nanoTime();
        long pollNs = mode == Mode.BUSY_POLL ? (timeoutNs < 0 ? Long.MAX_VALUE : timeoutNs) : spinNs;
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

    /** The configuration text: {@code block}, {@code spin:50}, {@code busy-poll}. */
    @Override
    public String toString() {
        return switch (mode) {
            case BLOCK -> "block";
            case SPIN -> "spin:" + TimeUnit.NANOSECONDS.toMicros(spinNs);
            case BUSY_POLL -> "busy-poll";
        };
    }
}
