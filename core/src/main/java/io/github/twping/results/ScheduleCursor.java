package io.github.twping.results;

import io.github.twping.stats.DeltaSource;

/**
 * Scheduled send times {@code StartTime + Σ_{i≤k} Δ_i} (Num64) of the sequence numbers near the newest one
 * asked for, from the session's schedule: a ring of the last {@value #WINDOW} values, generated forward
 * only. Older sequence numbers than the window report "unknown".
 */
final class ScheduleCursor {
    static final int WINDOW = 1 << 16;
    private static final int MASK = WINDOW - 1;

    private final DeltaSource deltas;
    private final long[] times = new long[WINDOW];
    private long next;               // sequence numbers below this are generated
    private long cumulative;

    ScheduleCursor(DeltaSource deltas, long startTimeNtp) {
        this.deltas = deltas;
        this.cumulative = startTimeNtp;
        deltas.reset();
    }

    /** @return the scheduled send time of {@code seq}, or 0 when it is older than the window */
    long scheduledNtp(long seq, long packetCount) {
        if (seq >= packetCount) {
            return 0;
        }
        while (next <= seq) {
            cumulative += deltas.nextDeltaNtp();
            times[(int) next & MASK] = cumulative;
            next++;
        }
        return seq + WINDOW < next ? 0 : times[(int) seq & MASK];
    }
}
