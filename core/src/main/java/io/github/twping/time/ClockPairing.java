package io.github.twping.time;

import java.util.function.LongSupplier;

/**
 * One reading of the monotonic clock and one of the wall clock taken at the same instant, to convert
 * scheduled wall-clock (NTP) times into monotonic deadlines. A thread preempted between the two reads would
 * shift every deadline derived from the pair by the preemption (sends early or late by milliseconds on a
 * loaded machine), so the wall clock is read between two monotonic reads and the narrowest of several
 * attempts is kept, its midpoint taken as the monotonic time of the wall-clock reading.
 *
 * @param monoNs   the monotonic time ({@link System#nanoTime()}) matching {@code ntp}
 * @param ntp      the wall-clock reading, NTP format
 * @param windowNs the width of the kept attempt: the pair's uncertainty
 */
public record ClockPairing(long monoNs, long ntp, long windowNs) {
    /** Attempts at most. */
    static final int ATTEMPTS = 16;
    /** An attempt this narrow is kept at once. */
    static final long GOOD_ENOUGH_NS = 1_000;

    /** Pairs {@link System#nanoTime()} with {@code clock}. */
    public static ClockPairing of(WallClock clock) {
        return of(System::nanoTime, clock::nowNtp);
    }

    /** Pairs the two clocks given (tests). */
    public static ClockPairing of(LongSupplier monoNs, LongSupplier ntp) {
        long bestWindow = Long.MAX_VALUE;
        long bestMono = 0;
        long bestNtp = 0;
        for (int i = 0; i < ATTEMPTS && bestWindow > GOOD_ENOUGH_NS; i++) {
            long before = monoNs.getAsLong();
            long wall = ntp.getAsLong();
            long after = monoNs.getAsLong();
            long window = after - before;
            if (window >= 0 && window < bestWindow) {
                bestWindow = window;
                bestMono = before + window / 2;
                bestNtp = wall;
            }
        }
        return new ClockPairing(bestMono, bestNtp, bestWindow);
    }

    /** The monotonic deadline of the wall-clock time {@code targetNtp}. */
    public long monoNsOf(long targetNtp) {
        return monoNs + NtpTime.signedDurationToNanos(targetNtp - ntp);
    }
}
