package io.github.twping.testing.perf.compare;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The per-run figures of one client session, computed exactly from its {@code -R} records: the
 * distributions of the forward leg, back leg, reflector processing, round trip and (when the schedule is
 * known) send lateness, and the loss.
 *
 * <p>Duplicates (a sequence number seen again) are counted and left out of the distributions; a sequence
 * number is lost when none of its records carries a reply.
 */
public final class SessionMetrics {
    /** The distributions, in table order. */
    public enum Metric {
        FORWARD("forward"), BACK("back"), PROCESSING("processing"), RTT("RTT"), LATENESS("lateness");

        private final String label;

        Metric(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    private final Map<Metric, ExactPercentiles> distributions;
    private final long sent;
    private final long lost;
    private final long duplicates;
    private final long scheduled;

    private SessionMetrics(Map<Metric, ExactPercentiles> distributions, long sent, long lost, long duplicates,
                           long scheduled) {
        this.scheduled = scheduled;
        this.distributions = distributions;
        this.sent = sent;
        this.lost = lost;
        this.duplicates = duplicates;
    }

    /**
     * @param records     the records in output order
     * @param scheduleNtp the scheduled send time of each sequence number (index = seq), or null when unknown;
     *                    lateness = send time − scheduled time
     */
    public static SessionMetrics of(List<RawRecord> records, long[] scheduleNtp) {
        int n = records.size();
        long[] forward = new long[n];
        long[] back = new long[n];
        long[] processing = new long[n];
        long[] rtt = new long[n];
        long[] lateness = new long[n];
        int received = 0;
        int late = 0;
        BitSet seen = new BitSet();
        BitSet answered = new BitSet();
        long duplicates = 0;
        for (RawRecord r : records) {
            int seq = Math.toIntExact(r.seq());
            if (seen.get(seq) && (r.lost() || answered.get(seq))) {
                if (!r.lost()) {
                    duplicates++;
                }
                continue;
            }
            seen.set(seq);
            if (r.lost()) {
                continue;
            }
            answered.set(seq);
            forward[received] = r.forwardNs();
            back[received] = r.backNs();
            processing[received] = r.processingNs();
            rtt[received] = r.rttNs();
            received++;
            if (scheduleNtp != null && seq < scheduleNtp.length) {
                lateness[late++] = RawRecord.ntpDeltaToNs(r.sendNtp() - scheduleNtp[seq]);
            }
        }
        Map<Metric, ExactPercentiles> d = new EnumMap<>(Metric.class);
        d.put(Metric.FORWARD, ExactPercentiles.of(forward, received));
        d.put(Metric.BACK, ExactPercentiles.of(back, received));
        d.put(Metric.PROCESSING, ExactPercentiles.of(processing, received));
        d.put(Metric.RTT, ExactPercentiles.of(rtt, received));
        d.put(Metric.LATENESS, ExactPercentiles.of(lateness, late));
        long sent = seen.cardinality();
        return new SessionMetrics(d, sent, sent - answered.cardinality(), duplicates,
                scheduleNtp == null ? sent : Math.max(sent, scheduleNtp.length));
    }

    /** Parses the {@code -R} lines of a run (blank lines are skipped). */
    public static List<RawRecord> parseRaw(List<String> lines) {
        List<RawRecord> out = new ArrayList<>(lines.size());
        for (String line : lines) {
            if (!line.isBlank()) {
                out.add(RawRecord.parse(line));
            }
        }
        return out;
    }

    /** The distribution of {@code metric} (possibly empty). */
    public ExactPercentiles distribution(Metric metric) {
        return distributions.get(metric);
    }

    /** Distinct sequence numbers in the output. */
    public long sent() {
        return sent;
    }

    /** Sequence numbers without any reply. */
    public long lost() {
        return lost;
    }

    /**
     * Packets of the schedule (its length), of which {@link #sent()} - lost were answered and the rest
     * were sent without reply or not sent at all (more than the loss timeout behind schedule); without a
     * schedule, {@link #sent()}.
     */
    public long scheduled() {
        return scheduled;
    }

    /** Replies beyond the first for a sequence number. */
    public long duplicates() {
        return duplicates;
    }
}
