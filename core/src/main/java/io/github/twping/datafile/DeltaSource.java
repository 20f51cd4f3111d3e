package io.github.twping.datafile;


/** A source of send-schedule offsets Δ_i (Num64), i = 0, 1, 2, ... (RFC 4656 §5, docs/PROTOCOL-TEST.md); reset per summary. */
public interface DeltaSource {
    /** Restarts at Δ_0. */
    void reset();

    /** The next Δ_i as Num64. */
    long nextDeltaNtp();
}
