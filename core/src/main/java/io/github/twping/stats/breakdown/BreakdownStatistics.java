package io.github.twping.stats.breakdown;

import java.util.Arrays;

import io.github.twping.stats.exact.DelayDistribution;

/**
 * Per-component distributions of packet breakdowns (docs/STATISTICS.md, delay breakdown): for each
 * {@link Component} a {@link DelayDistribution} of its known values (exact percentiles up to
 * {@link DelayDistribution#EXACT_LIMIT} values, then HdrHistogram), how often it was absent and why, and how often
 * each provenance (first stamp, second stamp) occurred; and the distribution of the span. Fed by the caller with
 * the packets it counts (the session outputs feed the first reply of each received packet, as the exact statistics
 * do). Not thread-safe; not for the session's own threads.
 */
public final class BreakdownStatistics {
    private static final int ORIGINS = StampOrigin.values().length;
    private static final int ABSENCES = Absence.values().length;

    private final DelayDistribution[] components = new DelayDistribution[Component.COUNT];
    private final DelayDistribution span = new DelayDistribution();
    private final long[][] absent = new long[Component.COUNT][ABSENCES];
    private final long[][] provenance = new long[Component.COUNT][ORIGINS * ORIGINS];
    private long packets;

    /** Empty statistics. */
    public BreakdownStatistics() {
        for (int i = 0; i < components.length; i++) {
            components[i] = new DelayDistribution();
        }
    }

    /** Adds one packet: its known components, the reasons of the others, and its span (lost packets are ignored). */
    public void accept(PacketBreakdown b) {
        if (b.lost()) {
            return;
        }
        packets++;
        span.record(b.spanNs());
        for (Component c : Component.ALL) {
            int i = c.ordinal();
            Absence a = b.absence(c);
            if (a == null) {
                components[i].record(b.ns(c));
                provenance[i][b.from(c).ordinal() * ORIGINS + b.to(c).ordinal()]++;
            } else {
                absent[i][a.ordinal()]++;
            }
        }
    }

    /** Forgets everything (for per-interval use). */
    public void reset() {
        packets = 0;
        span.reset();
        for (int i = 0; i < components.length; i++) {
            components[i].reset();
            Arrays.fill(absent[i], 0);
            Arrays.fill(provenance[i], 0);
        }
    }

    /** @return packets accepted */
    public long packets() {
        return packets;
    }

    /** @return the distribution of the known values of {@code c} (ns) */
    public DelayDistribution component(Component c) {
        return components[c.ordinal()];
    }

    /** @return the distribution of the span (ns) */
    public DelayDistribution span() {
        return span;
    }

    /** @return how many packets had {@code c} absent for reason {@code a} */
    public long absent(Component c, Absence a) {
        return absent[c.ordinal()][a.ordinal()];
    }

    /** @return how many packets had {@code c} known with the stamps {@code first} and {@code second} */
    public long provenance(Component c, StampOrigin first, StampOrigin second) {
        return provenance[c.ordinal()][first.ordinal() * ORIGINS + second.ordinal()];
    }
}
