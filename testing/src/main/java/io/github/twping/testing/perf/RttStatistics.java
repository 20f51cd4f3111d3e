package io.github.twping.testing.perf;

import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.TwoWayRecord;
import org.HdrHistogram.Histogram;

/**
 * Round-trip times of one run, computed exactly from the session records: exact minimum and maximum,
 * percentiles from an HdrHistogram (3 significant digits, up to {@link #MAX_TRACKED_NS}).
 */
public final class RttStatistics {
    /** Largest value the histogram tracks, 10 s; larger values are clamped to it. */
    public static final long MAX_TRACKED_NS = 10_000_000_000L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final Histogram histogramNs = new Histogram(MAX_TRACKED_NS, 3);
    private long minNs = Long.MAX_VALUE;
    private long maxNs = Long.MIN_VALUE;
    private long negativeCount;

    /**
     * Converts a signed NTP (32.32 fixed point) difference to nanoseconds, rounding toward negative
     * infinity, exactly (128-bit product).
     */
    public static long ntpDeltaToNs(long deltaNtp) {
        long high = Math.multiplyHigh(deltaNtp, NANOS_PER_SECOND);
        long low = deltaNtp * NANOS_PER_SECOND;
        return (high << 32) | (low >>> 32);
    }

    /**
     * The round-trip time of a received record without the reflector's processing time:
     * (reflected.recv − sent.send) − (reflected.send − sent.recv), in ns.
     */
    public static long roundTripNs(TwoWayRecord r) {
        long clientNtp = r.reflRecvNtp - r.sentSendNtp;
        long reflectorNtp = r.reflSendNtp - r.sentRecvNtp;
        return ntpDeltaToNs(clientNtp - reflectorNtp);
    }

    /**
     * Adds every received record of {@code reader} to {@code into}.
     *
     * @return the number of lost records
     */
    public static long addRecords(SessionDataReader reader, RttStatistics into) {
        TwoWayRecord r = new TwoWayRecord();
        long lost = 0;
        for (long i = 0; i < reader.recordCount(); i++) {
            reader.read(i, r);
            if (r.isLost()) {
                lost++;
            } else {
                into.record(roundTripNs(r));
            }
        }
        return lost;
    }

    /** Records one RTT; the exact extremes keep the raw value, the histogram a clamped one. */
    public void record(long rttNs) {
        minNs = Math.min(minNs, rttNs);
        maxNs = Math.max(maxNs, rttNs);
        if (rttNs < 0) {
            negativeCount++;
        }
        histogramNs.recordValue(Math.clamp(rttNs, 0, MAX_TRACKED_NS));
    }

    /** Number of recorded values. */
    public long count() {
        return histogramNs.getTotalCount();
    }

    /** Values below zero (clock steps between the two stamps); recorded as 0 in the histogram. */
    public long negativeCount() {
        return negativeCount;
    }

    /** Exact smallest value, or 0 when empty. */
    public long minNs() {
        return count() == 0 ? 0 : minNs;
    }

    /** Exact largest value, or 0 when empty. */
    public long maxNs() {
        return count() == 0 ? 0 : maxNs;
    }

    /** The histogram (ns). */
    public Histogram histogramNs() {
        return histogramNs;
    }

    /** The summary row of this distribution. */
    public LatencySummary summary() {
        return LatencySummary.of(histogramNs, minNs(), maxNs());
    }
}
