package io.github.twping.datafile;


/** A source of send-schedule offsets Δ_i (Num64), i = 0, 1, 2, ... (RFC 4656 §5, docs/PROTOCOL-TEST.md); reset per summary. */
public interface DeltaSource {
    /** Restarts at Δ_0. */
    void reset();

    /** The next Δ_i as Num64. */
    long nextDeltaNtp();

    /**
     * Takes the next {@code count} deltas and returns their sum (Num64, modulo 2^64 as the cursor adds them).
     * This default takes them one by one; a source that knows the schedule's total may answer at once.
     */
    default long skipDeltasNtp(long count) {
        long sum = 0;
        for (long i = 0; i < count; i++) {
            sum += nextDeltaNtp();
        }
        return sum;
    }
}
