package io.github.twping.stats.exact;

import io.github.twping.datafile.DeltaSource;

/**
 * Scheduled send times {@code StartTime + Σ_{i≤k} Δ_i} (Num64) of the sequence numbers near the newest one
 * asked for, from the session's schedule: a ring of the last {@value #WINDOW} values (or fewer, sized for a
 * session), generated forward
 * only. Older sequence numbers than the window report "unknown".
 */
public final class ScheduleCursor {
    static final int WINDOW = 1 << 16;

    private DeltaSource deltas;
    private final int window;
    private final int mask;
    private final long[] times;
    private long next;               // sequence numbers below this are generated
    private long cumulative;

    public ScheduleCursor(DeltaSource deltas, long startTimeNtp) {
        this(deltas, startTimeNtp, WINDOW);
    }

    /** A cursor with a ring of {@code window} values (a power of two; at least the packet count: no value is lost). */
    ScheduleCursor(DeltaSource deltas, long startTimeNtp, int window) {
        this.deltas = deltas;
        this.cumulative = startTimeNtp;
        this.window = window;
        this.mask = window - 1;
        this.times = new long[window];
        deltas.reset();
    }

    /** Starts again, with {@code deltas} from {@code startTimeNtp}: as a new cursor of the same window. */
    void restart(DeltaSource deltas, long startTimeNtp) {
        this.deltas = deltas;
        this.cumulative = startTimeNtp;
        this.next = 0;
        deltas.reset();
    }

    /** @return the scheduled send time of {@code seq}, or 0 when it is older than the window */
    public long scheduledNtp(long seq, long packetCount) {
        if (seq >= packetCount) {
            return 0;
        }
        while (next <= seq) {
            cumulative += deltas.nextDeltaNtp();
            times[(int) next & mask] = cumulative;
            next++;
        }
        return seq + window < next ? 0 : times[(int) seq & mask];
    }
}
