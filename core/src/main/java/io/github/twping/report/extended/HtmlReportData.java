package io.github.twping.report.extended;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.github.twping.datafile.ScheduleDeltas;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.stats.exact.DelayDistribution;
import io.github.twping.stats.exact.ExactSummary;
import io.github.twping.stats.exact.ScheduleCursor;
import io.github.twping.stats.owamp.SummaryResult;
import io.github.twping.time.NtpTime;

/**
 * The data the charts of the {@code --html} report draw, as one JSON object embedded in the page: aggregates,
 * never per-packet arrays, so that the page stays small (under 1 MB for 100,000 packets).
 *
 * <ul>
 *   <li>{@code intervals}: the session cut into at most {@value #MAX_INTERVALS} equal intervals of scheduled
 *       send time (since the session start; a "nice" width of 1, 2 or 5 times a power of ten ns), with per interval
 *       the min/p50/p99/max of round trip, forward, back and send lateness of the first reply of each sequence
 *       number (null when the interval has none; p50 and p99 from a sample above {@value IntervalSample#LIMIT}
 *       replies in an interval, {@link IntervalSample}), and the counts of received, lost and duplicate records;</li>
 *   <li>{@code percentiles}: per direction the exact value at percentiles spaced evenly on a logarithmic
 *       1/(1-p) axis ({@value #STEPS_PER_DECADE} per decade, plus p50 and the max), and the C client's
 *       bucketed median of the same records;</li>
 *   <li>{@code breakdown}: a {@link DelayBreakdown} ({@code parts}: name, spans, source, known and unknown
 *       packet counts of each part; {@code median_ns}: per part and interval the median, null when no packet of
 *       the interval had the part, from a sample above {@value #BREAKDOWN_SAMPLE} in an interval), or null when
 *       the session has none.</li>
 * </ul>
 */
public final class HtmlReportData {
    /** Most intervals of the time series. */
    static final int MAX_INTERVALS = 400;
    /** Fewest packets per interval aimed at (so that p50/p99 of an interval mean something). */
    static final int PACKETS_PER_INTERVAL = 5;
    /** Points per decade of 1/(1-p) in the percentile curves. */
    static final int STEPS_PER_DECADE = 20;
    /** Values kept per part and interval for the breakdown's medians (7 parts x 400 intervals: at most 12 MB). */
    static final int BREAKDOWN_SAMPLE = 512;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String[] DIRECTIONS = {"rtt", "forward", "back", "lateness"};

    private final long intervalNs;
    private final ObjectNode json;
    private final DelayBreakdown breakdown;

    private HtmlReportData(long intervalNs, ObjectNode json, DelayBreakdown breakdown) {
        this.intervalNs = intervalNs;
        this.json = json;
        this.breakdown = breakdown;
    }

    /** @return the delay breakdown per interval, or null when the session has none */
    public DelayBreakdown breakdown() {
        return breakdown;
    }

    /** @return the width of one interval of the time series, in ns */
    public long intervalNs() {
        return intervalNs;
    }

    /** @return the JSON object the page's script reads */
    public ObjectNode json() {
        return json;
    }

    /**
     * Reads every record of {@code reader} twice (the span of send times, then the intervals).
     *
     * @param parts the per-packet delay breakdown, or null
     */
    public static HtmlReportData build(SessionResults results, SessionDataReader reader, PacketDelayParts parts) {
        SessionHeader h = reader.header();
        long start = h.startTimeNtp();
        TwoWayRecord r = new TwoWayRecord();
        long count = reader.recordCount();
        long span = 0;
        ScheduleCursor first = new ScheduleCursor(ScheduleDeltas.of(h), start);
        for (long i = 0; i < count; i++) {
            reader.read(i, r);
            span = Math.max(span, offset(r, first.scheduledNtp(r.sentSeq, h.packetCount()), start));
        }
        long received = results.exact().total().received();
        long target = Math.max(1, Math.min(MAX_INTERVALS, Math.max(Math.min(count, 10), received / PACKETS_PER_INTERVAL)));
        long width = niceWidth((span + 1 + target - 1) / target);
        int bins = (int) Math.min(MAX_INTERVALS, span / width + 1);

        IntervalSample[][] d = new IntervalSample[DIRECTIONS.length][bins];
        for (IntervalSample[] row : d) {
            for (int b = 0; b < bins; b++) {
                row[b] = new IntervalSample();
            }
        }
        long[] got = new long[bins];
        long[] lost = new long[bins];
        long[] dups = new long[bins];
        BitSet answered = new BitSet();
        Parts bd = parts == null ? null : new Parts(parts, bins);
        ScheduleCursor schedule = new ScheduleCursor(ScheduleDeltas.of(h), start);
        for (long i = 0; i < count; i++) {
            reader.read(i, r);
            long scheduled = schedule.scheduledNtp(r.sentSeq, h.packetCount());
            int b = (int) Math.min(bins - 1, offset(r, scheduled, start) / width);
            if (r.isLost()) {
                lost[b]++;
                continue;
            }
            if (r.sentSeq < Integer.MAX_VALUE) {
                if (answered.get((int) r.sentSeq)) {
                    dups[b]++;
                    continue;
                }
                answered.set((int) r.sentSeq);
            }
            got[b]++;
            if (bd != null) {
                bd.record(i, r, b);
            }
            long t1 = r.sentSendNtp;
            long t2 = r.sentRecvNtp;
            long t3 = r.reflSendNtp;
            long t4 = r.reflRecvNtp;
            d[0][b].record(NtpTime.signedDurationToNanos((t4 - t1) - (t3 - t2)));
            d[1][b].record(NtpTime.signedDurationToNanos(t2 - t1));
            d[2][b].record(NtpTime.signedDurationToNanos(t4 - t3));
            if (scheduled != 0) {
                d[3][b].record(NtpTime.signedDurationToNanos(t1 - scheduled));
            }
        }

        ObjectNode json = NODES.objectNode();
        json.put("interval_ns", width);
        json.put("span_ns", span);
        ObjectNode iv = json.putObject("intervals");
        ArrayNode t = iv.putArray("start_s");
        for (int b = 0; b < bins; b++) {
            t.add((double) b * width / 1e9);
        }
        for (int k = 0; k < DIRECTIONS.length; k++) {
            iv.set(DIRECTIONS[k], bands(d[k]));
        }
        iv.set("received", counts(got));
        iv.set("lost", counts(lost));
        iv.set("duplicates", counts(dups));

        ExactSummary s = results.exact().total();
        SummaryResult owamp = results.owamp();
        ObjectNode pc = json.putObject("percentiles");
        pc.set("rtt", curve(s.roundTrip(), owamp, SummaryResult.RT));
        pc.set("forward", curve(s.forward(), owamp, SummaryResult.FWD));
        pc.set("back", curve(s.back(), owamp, SummaryResult.BCK));
        json.put("c_bucket_ns", Math.round(results.bucketWidthSeconds() * 1e9));
        DelayBreakdown breakdown = bd == null ? null : bd.result();
        if (breakdown == null) {
            json.putNull("breakdown");
        } else {
            ObjectNode o = json.putObject("breakdown");
            ArrayNode list = o.putArray("parts");
            for (DelayBreakdown.Part p : breakdown.parts()) {
                list.addObject().put("name", p.name()).put("spans", p.spans()).put("source", p.source())
                        .put("known", p.known()).put("unknown", p.unknown());
            }
            ArrayNode med = o.putArray("median_ns");
            for (Long[] series : breakdown.medianNs()) {
                ArrayNode a = med.addArray();
                for (int b = 0; b < bins; b++) {
                    Long v = b < series.length ? series[b] : null;
                    if (v == null) {
                        a.addNull();
                    } else {
                        a.add(v);
                    }
                }
            }
        }
        return new HtmlReportData(width, json, breakdown);
    }

    /** The breakdown's aggregation: per part and interval a bounded sample, per part the packets per source. */
    private static final class Parts {
        private final PacketDelayParts source;
        private final List<PacketDelayParts.Part> parts;
        private final IntervalSample[][] samples;
        private final long[][] perSource;
        private final long[] ns;
        private final int[] from;

        Parts(PacketDelayParts source, int bins) {
            this.source = source;
            parts = List.copyOf(source.parts());
            samples = new IntervalSample[parts.size()][bins];
            perSource = new long[parts.size()][Math.max(1, source.sources())];
            ns = new long[parts.size()];
            from = new int[parts.size()];
        }

        void record(long index, TwoWayRecord r, int bin) {
            Arrays.fill(from, PacketDelayParts.UNKNOWN);
            source.read(index, r, ns, from);
            for (int k = 0; k < ns.length; k++) {
                int s = from[k] > 0 && from[k] < perSource[k].length ? from[k] : PacketDelayParts.UNKNOWN;
                perSource[k][s]++;
                if (s != PacketDelayParts.UNKNOWN) {
                    if (samples[k][bin] == null) {
                        samples[k][bin] = new IntervalSample(BREAKDOWN_SAMPLE);
                    }
                    samples[k][bin].record(ns[k]);
                }
            }
        }

        DelayBreakdown result() {
            List<DelayBreakdown.Part> out = new ArrayList<>();
            List<Long[]> medians = new ArrayList<>();
            for (int k = 0; k < parts.size(); k++) {
                long[] c = perSource[k];
                out.add(new DelayBreakdown.Part(parts.get(k).name(), parts.get(k).spans(),
                        DelayBreakdown.sourceLabel(c, source), Arrays.stream(c).sum() - c[0], c[0]));
                Long[] m = new Long[samples[k].length];
                for (int b = 0; b < m.length; b++) {
                    m[b] = samples[k][b] == null ? null : samples[k][b].percentile(50);
                }
                medians.add(m);
            }
            return new DelayBreakdown(out, medians);
        }
    }

    /**
     * The scheduled send time of a record in ns since the session start, at least 0; t1 when the schedule does
     * not know it (a sequence number beyond the packet count or far behind the newest one).
     */
    private static long offset(TwoWayRecord r, long scheduledNtp, long startNtp) {
        long t = scheduledNtp != 0 ? scheduledNtp : r.sentSendNtp;
        return Math.max(0, NtpTime.signedDurationToNanos(t - startNtp));
    }

    /** The smallest 1, 2 or 5 times a power of ten at or above {@code ns} (at least 1 µs). */
    static long niceWidth(long ns) {
        long p = 1000;
        while (true) {
            for (long m : new long[] {1, 2, 5}) {
                if (m * p >= ns) {
                    return m * p;
                }
            }
            if (p > Long.MAX_VALUE / 100) {
                return ns;
            }
            p *= 10;
        }
    }

    private static ObjectNode bands(IntervalSample[] bins) {
        ObjectNode o = NODES.objectNode();
        ArrayNode min = o.putArray("min");
        ArrayNode p50 = o.putArray("p50");
        ArrayNode p99 = o.putArray("p99");
        ArrayNode max = o.putArray("max");
        long lowest = Long.MAX_VALUE;
        for (IntervalSample b : bins) {
            if (b.count() == 0) {
                min.addNull();
                p50.addNull();
                p99.addNull();
                max.addNull();
            } else {
                min.add(b.min());
                p50.add(b.percentile(50));
                p99.add(b.percentile(99));
                max.add(b.max());
                lowest = Math.min(lowest, b.min());
            }
        }
        o.put("positive", lowest > 0);
        return o;
    }

    private static ArrayNode counts(long[] c) {
        ArrayNode a = NODES.arrayNode();
        for (long v : c) {
            a.add(v);
        }
        return a;
    }

    /** The 1/(1-p) values of the curve of {@code count} values: evenly spaced in log, with 2 (p50) and the max. */
    static List<Double> curveX(long count) {
        List<Double> xs = new ArrayList<>();
        for (int k = 0; ; k++) {
            double x = Math.pow(10, (double) k / STEPS_PER_DECADE);
            if (x >= count) {
                break;
            }
            if (!xs.isEmpty() && xs.getLast() < 2 && x > 2) {
                xs.add(2.0);
            }
            xs.add(x);
        }
        xs.add((double) Math.max(1, count));
        return xs;
    }

    private static ObjectNode curve(DelayDistribution d, SummaryResult owamp, int type) {
        ObjectNode o = NODES.objectNode();
        o.put("count", d.count());
        o.put("exact", d.exact());
        ArrayNode x = o.putArray("x");
        ArrayNode ns = o.putArray("ns");
        long lowest = Long.MAX_VALUE;
        if (d.count() > 0) {
            List<Double> xs = curveX(d.count());
            for (int i = 0; i < xs.size(); i++) {
                double v = xs.get(i);
                x.add(v);
                long value = i == xs.size() - 1 ? d.max() : d.percentile(100.0 * (1 - 1 / v));
                ns.add(value);
                lowest = Math.min(lowest, value);
            }
        }
        o.put("positive", lowest > 0);
        double median = owamp == null ? Double.NaN : owamp.median(type);
        if (Double.isNaN(median) || Double.isInfinite(median)) {
            o.putNull("c_median_ns");
        } else {
            o.put("c_median_ns", Math.round(median * 1e9));
        }
        return o;
    }
}
