package io.github.twping.stats.owamp;

import io.github.twping.datafile.TwoWayRecord;

/** Callback of the statistics pass for each in-range record, used for the {@code -v} lines (docs/STATISTICS.md). */
public interface RecordListener {
    /** A lost record. */
    void onLost(TwoWayRecord record);

    /** A received record (including duplicates) with its delays and round-trip error sum in seconds. */
    void onReceived(TwoWayRecord record, double fwd, double bck, double rt, double proc, double errRt);
}
