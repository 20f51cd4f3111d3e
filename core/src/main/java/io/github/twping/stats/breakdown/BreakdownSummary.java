package io.github.twping.stats.breakdown;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Arrays;
import java.util.List;

import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.RecordStamps;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.TwoWayRecord;

/**
 * The delay breakdown of a finished session (docs/STATISTICS.md, delay breakdown): the per-component statistics of
 * its first replies, the slowest packets with their breakdown, and the component that dominated the tail.
 *
 * <p><b>Dominant component of the p99.</b> The tail is the set of counted packets whose span is at or above the
 * span's 99th percentile (nearest rank, so at least one packet). For each path component, its contribution to the
 * p99 is its mean over the tail packets where it is known; the dominant component is the one with the largest
 * contribution (the earlier on the path on a tie). It answers "what are the slowest 1 % of packets made of".
 *
 * @param statistics   per-component distributions of the first replies
 * @param slowest      the packets with the largest spans, largest first (at most the number asked for)
 * @param tailFromNs   the span's p99: the tail's lower bound (ns); 0 when no packet
 * @param tailPackets  packets in the tail
 * @param tailMeanNs   per component (by ordinal), its mean over the tail packets where known; NaN when never known
 *                     there (and for {@link Component#PACING_LATENESS}, which is not on the path, its mean likewise)
 * @param dominant     the component with the largest tail mean among the path components; null when no packet
 */
public record BreakdownSummary(BreakdownStatistics statistics, List<PacketBreakdown> slowest, long tailFromNs,
                               long tailPackets, double[] tailMeanNs, Component dominant) {
    /** Copies the list and the array. */
    public BreakdownSummary {
        slowest = List.copyOf(slowest);
        tailMeanNs = tailMeanNs.clone();
    }

    /** @return a copy of the tail means, by component ordinal */
    @Override
    public double[] tailMeanNs() {
        return tailMeanNs.clone();
    }

    /** @return the tail mean of {@code c} (ns), NaN when not known in the tail */
    public double tailMeanNs(Component c) {
        return tailMeanNs[c.ordinal()];
    }

    /**
     * Two passes over every record of {@code reader}: the statistics and the slowest packets, then the tail.
     *
     * @param sources   the {@link RecordSources} of the measurement, or null (unknown)
     * @param stamps    the client's stamps of the measurement, or null (none kept)
     * @param reflector what the protocol said about the reflector's stamps
     * @param slowestCount how many of the slowest packets to keep
     */
    public static BreakdownSummary of(SessionDataReader reader, RecordSources sources, RecordStamps stamps,
                                      ReflectorStamps reflector, int slowestCount) {
        BreakdownStatistics statistics = new BreakdownStatistics();
        PacketBreakdown b = new PacketBreakdown();
        TwoWayRecord r = new TwoWayRecord();
        List<PacketBreakdown> slowest = new ArrayList<>();
        long count = reader.recordCount();
        BitSet counted = new BitSet();
        for (long i = 0; i < count; i++) {
            if (!firstReply(reader, i, r, counted)) {
                continue;
            }
            b.compute(i, r, sources == null ? 0 : sources.get(i), stamps, reflector);
            statistics.accept(b);
            keepSlowest(slowest, b, slowestCount);
        }
        double[] tailMean = new double[Component.COUNT];
        Arrays.fill(tailMean, Double.NaN);
        if (statistics.packets() == 0) {
            return new BreakdownSummary(statistics, slowest, 0, 0, tailMean, null);
        }
        long tailFrom = statistics.span().percentile(99);
        double[] sum = new double[Component.COUNT];
        long[] known = new long[Component.COUNT];
        long tail = 0;
        counted.clear();
        for (long i = 0; i < count; i++) {
            if (!firstReply(reader, i, r, counted)) {
                continue;
            }
            b.compute(i, r, sources == null ? 0 : sources.get(i), stamps, reflector);
            if (b.spanNs() < tailFrom) {
                continue;
            }
            tail++;
            for (Component c : Component.ALL) {
                if (b.known(c)) {
                    sum[c.ordinal()] += b.ns(c);
                    known[c.ordinal()]++;
                }
            }
        }
        Component dominant = null;
        for (Component c : Component.ALL) {
            int k = c.ordinal();
            if (known[k] > 0) {
                tailMean[k] = sum[k] / known[k];
                if (c.onPath() && (dominant == null || tailMean[k] > tailMean[dominant.ordinal()])) {
                    dominant = c;
                }
            }
        }
        return new BreakdownSummary(statistics, slowest, tailFrom, tail, tailMean, dominant);
    }

    /** Reads record {@code i}: true when it is the first reply of its sequence number. */
    private static boolean firstReply(SessionDataReader reader, long i, TwoWayRecord r, BitSet counted) {
        reader.read(i, r);
        if (r.isLost()) {
            return false;
        }
        if (r.sentSeq < Integer.MAX_VALUE) {
            if (counted.get((int) r.sentSeq)) {
                return false;                                // a duplicate: counted once, as the exact statistics
            }
            counted.set((int) r.sentSeq);
        }
        return true;
    }

    private static void keepSlowest(List<PacketBreakdown> slowest, PacketBreakdown b, int max) {
        if (max <= 0) {
            return;
        }
        int at = slowest.size();
        while (at > 0 && slowest.get(at - 1).spanNs() < b.spanNs()) {
            at--;
        }
        if (at >= max) {
            return;
        }
        slowest.add(at, b.copy());
        if (slowest.size() > max) {
            slowest.remove(slowest.size() - 1);
        }
    }
}
