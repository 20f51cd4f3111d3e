package io.github.twping.session;

import java.util.concurrent.TimeUnit;

import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.time.NtpTime;

/**
 * How much warm-up a client session gets, and when the warm-up must stop: one place for the TWAMP run
 * ({@link TwampSessionWarmUp}) and the STAMP/TWAMP-Light run ({@code stamp.StampSenderWarmUp}), docs/CLIENT.md,
 * "Warm-up".
 *
 * <p>A warm-up costs CPU: its own packets, and the JIT compilations it triggers (a full warm-up of 8,000 packets
 * took 0.6-1.0 s of compiler CPU, more than the rest of a 2000-packet session at 500/s). It pays off only where
 * the session would otherwise compile during the measurement. So:
 * <ul>
 *   <li>fewer than {@link #MIN_SESSION_PACKETS} packets: none (a {@code -c 1} ping links its few native calls in
 *       its own first packet; its delays are kernel stamps either way);</li>
 *   <li>{@link #FULL_RATE_PER_S} or more per second, or {@link #FULL_SESSION_PACKETS} packets or more: the full
 *       warm-up ({@link #FULL_PACKETS}), past C2's thresholds: such a session reaches them anyway, and a C2
 *       compilation during a fast session takes a CPU from it for seconds;</li>
 *   <li>otherwise {@link #C1_PACKETS}: the session's classes loaded, its native calls linked and its per-packet
 *       methods past C1's threshold (200 calls), so that no packet runs in the interpreter; a session of a few
 *       thousand packets at a few hundred per second stays below C2's (5,000 calls) and never pays for C2.</li>
 * </ul>
 * The warm-up runs while the start time approaches and ends {@link #STOP_BEFORE_START_NS} before it, so that it
 * never runs beside the session's threads; it never delays the start.
 */
public final class WarmUpPlan {
    /** The warm-up is stopped this long before the start time; the session's threads start then. */
    public static final long STOP_BEFORE_START_NS = TimeUnit.MILLISECONDS.toNanos(150);
    /** Longest warm-up before a session. */
    public static final long MAX_NS = TimeUnit.MILLISECONDS.toNanos(1500);
    /** Sessions shorter than this get no warm-up. */
    public static final long MIN_SESSION_PACKETS = 100;
    /** Sessions at this rate (packets per second) or faster get the full warm-up. */
    public static final double FULL_RATE_PER_S = 2000;
    /** Sessions of this many packets or more get the full warm-up. */
    public static final long FULL_SESSION_PACKETS = 20_000;
    /** The full warm-up: above C2's invocation threshold (5,000) for the per-packet methods; about 0.5 s. */
    public static final long FULL_PACKETS = 8_000;
    /** The short warm-up: above C1's (200), with room for the receiver's and writer's own counts; about 40 ms. */
    public static final long C1_PACKETS = 600;

    private WarmUpPlan() {
    }

    /**
     * @param sessionPackets the session's packet count ({@code -c})
     * @param slots          its schedule (the mean interval sets its rate)
     * @return the warm-up's packets: 0, {@link #C1_PACKETS} or {@link #FULL_PACKETS}
     */
    public static long packets(long sessionPackets, ScheduleSlot[] slots) {
        if (sessionPackets < MIN_SESSION_PACKETS) {
            return 0;
        }
        if (sessionPackets >= FULL_SESSION_PACKETS || ratePerSecond(slots) >= FULL_RATE_PER_S) {
            return FULL_PACKETS;
        }
        return C1_PACKETS;
    }

    /** Packets per second of a schedule: the inverse of its mean interval (infinite for back-to-back sending). */
    static double ratePerSecond(ScheduleSlot[] slots) {
        if (slots == null || slots.length == 0) {
            return 0;
        }
        double sum = 0;
        for (ScheduleSlot s : slots) {
            sum += NtpTime.toDouble(s.valueNtp());
        }
        double mean = sum / slots.length;
        return mean <= 0 ? Double.POSITIVE_INFINITY : 1 / mean;
    }

    /**
     * The socket round trips ({@code ffm.SocketWarmUp}) that follow an engine warm-up of {@code enginePackets}: a
     * quarter of {@code SocketWarmUp.DEFAULT_ROUND_TRIPS} (3,000) after the full warm-up, whose sessions (and twampd)
     * reach C2 and use the batch calls at high rates; none after the short one. There they compiled socket paths the
     * session never calls, in the up to 1.5 s before its start: 3,000 round trips of interpreted and then C1-compiled
     * downcalls, about 0.1 s of CPU of a 2000-packet session at 500/s (docs/notes/2026-12-04-lean-cpu.md).
     */
    public static int socketRoundTrips(long enginePackets) {
        return enginePackets >= FULL_PACKETS ? SOCKET_ROUND_TRIPS : 0;
    }

    /** Socket round trips after the full warm-up (a quarter of {@code SocketWarmUp.DEFAULT_ROUND_TRIPS}). */
    public static final int SOCKET_ROUND_TRIPS = 3_000;

    /** When a warm-up for a session starting at {@code startNanoTime} ({@link System#nanoTime()} scale) must end. */
    public static long endNanoTime(long startNanoTime) {
        return startNanoTime - STOP_BEFORE_START_NS;
    }

    /** How long such a warm-up may run from {@code nowNanoTime}: at most {@link #MAX_NS}; 0 or less: none. */
    public static long maxNs(long startNanoTime, long nowNanoTime) {
        return Math.min(MAX_NS, endNanoTime(startNanoTime) - nowNanoTime);
    }
}
