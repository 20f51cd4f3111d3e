package io.github.twping.report.extended;

import java.io.IOException;
import java.io.Writer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;

import io.github.twping.stats.exact.DelayDistribution;
import io.github.twping.stats.exact.ExactSummary;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;
import io.github.twping.datafile.ScheduleDeltas;

/**
 * {@code --html FILE}: one self-contained page (no external resources) with the session header, the exact
 * statistics table and four charts drawn here as inline SVG: round-trip time over time with lost packets
 * marked, the delay distribution (histogram and complementary CDF, logarithmic), forward against back delay
 * over time, and send lateness over time. Each chart is an {@code <svg class="chart">} whose plotted marks
 * carry {@code class="mark"}; a small inline script marks the page {@code data-charts-drawn} with the number
 * of charts that have a non-empty rendered plot (what the browser test reads).
 */
public final class HtmlReport {
    private static final int WIDTH = 860;
    private static final int HEIGHT = 260;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 20;
    private static final int BOTTOM = 40;
    /** Largest number of plotted points per series; longer series are binned (min and max per bin). */
    private static final int MAX_POINTS = 1500;

    private HtmlReport() {
    }

    /** Writes the page for {@code results} from the records of {@code reader}. */
    public static void write(Writer w, SessionResults results, SessionDataReader reader) throws IOException {
        write(w, results, reader, null, null);
    }

    /**
     * Writes the page; {@code protocol} (or null: unknown) is a header row, {@code stamp} (or null) a table of
     * the STAMP TLV results under the statistics.
     */
    public static void write(Writer w, SessionResults results, SessionDataReader reader, String protocol,
                             StampTlvResults stamp) throws IOException {
        Series series = Series.collect(reader, results.header());
        StringBuilder sb = new StringBuilder(64 * 1024);
        SessionHeader h = results.header();
        ExactSummary s = results.exact().total();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>twping ")
                .append(esc(h.sidHex())).append("</title>\n<style>\n")
                .append("body{font:14px/1.4 sans-serif;margin:24px;color:#222;background:#fff}")
                .append("h1{font-size:20px}h2{font-size:16px;margin-top:28px}")
                .append("table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap;font-size:12px}")
                .append("th:first-child,td:first-child{text-align:left}")
                .append("svg.chart{display:block;border:1px solid #ddd;margin:8px 0;background:#fcfcfc}")
                .append(".axis{stroke:#555;stroke-width:1}.grid{stroke:#e4e4e4;stroke-width:1}")
                .append("text{font:11px sans-serif;fill:#333}")
                .append("</style></head><body>\n");
        sb.append("<h1>twping session ").append(esc(h.sidHex())).append("</h1>\n<table>");
        row(sb, "from", results.hosts().fromHost() + " [" + results.hosts().fromAddr() + "]:" + results.hosts().fromServ());
        row(sb, "to", results.hosts().toHost() + " [" + results.hosts().toAddr() + "]:" + results.hosts().toServ());
        if (protocol != null) {
            row(sb, "protocol", protocol);
        }
        row(sb, "start", ResultJson.time(h.startTimeNtp()));
        row(sb, "packets", h.packetCount() + " (" + s.sent() + " resolved, " + s.received() + " received, " + s.lost()
                + " lost, " + s.duplicates() + " duplicates, " + s.reordered() + " reordered)");
        row(sb, "tool", results.tool() + " " + results.version());
        sb.append("</table>\n<h2>Exact statistics (ms)</h2>\n<table><tr><th></th><th>count</th><th>min</th><th>mean</th>"
                + "<th>stddev</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>p99.9</th><th>p99.99</th>"
                + "<th>p99.999</th><th>max</th></tr>\n");
        statRow(sb, "round-trip", s.roundTrip());
        statRow(sb, "forward", s.forward());
        statRow(sb, "back", s.back());
        statRow(sb, "reflector processing", s.processing());
        statRow(sb, "round-trip IPDV", s.ipdvRoundTrip());
        statRow(sb, "send lateness", s.sendLateness());
        sb.append("</table>\n");
        if (stamp != null) {
            stampTable(sb, stamp);
        }

        sb.append("<h2>Round-trip time over time</h2>\n");
        timeChart(sb, "rtt", series.t, new long[][] {series.rtt}, new String[] {"#1f77b4"}, series.lostT, series.span,
                "round-trip (ms)");
        sb.append("<h2>Round-trip delay distribution</h2>\n");
        histogramChart(sb, series.rtt);
        ccdfChart(sb, series.rtt);
        sb.append("<h2>Forward and back delay</h2>\n");
        timeChart(sb, "fwdback", series.t, new long[][] {series.fwd, series.bck}, new String[] {"#2ca02c", "#d62728"},
                new long[0], series.span, "forward (green), back (red) (ms)");
        sb.append("<h2>Send lateness</h2>\n");
        timeChart(sb, "lateness", series.t, new long[][] {series.lateness}, new String[] {"#9467bd"}, new long[0],
                series.span, "lateness (ms)");
        sb.append("<script>\n(function(){var n=0;document.querySelectorAll('svg.chart').forEach(function(c){"
                + "var b=c.querySelector('.plot').getBBox();var m=c.querySelectorAll('.mark').length;"
                + "if(b.width>0&&b.height>=0&&m>0){n++;c.setAttribute('data-drawn','yes');}});"
                + "document.body.setAttribute('data-charts-drawn',String(n));"
                + "document.body.setAttribute('data-charts',String(document.querySelectorAll('svg.chart').length));"
                + "})();\n</script>\n</body></html>\n");
        w.append(sb);
    }

    /** The STAMP TLV results (the lines of the text report, docs/STAMP.md) as a two-column table. */
    private static void stampTable(StringBuilder sb, StampTlvResults t) {
        sb.append("<h2>STAMP TLVs (RFC 8972)</h2>\n<table class=\"stamp-tlvs\">");
        row(sb, "TLVs", String.join(", ", t.requested()));
        row(sb, "kernel timestamps", "t1 " + t.kernelT1() + ", t2 " + t.kernelT2() + ", t3 " + t.kernelT3() + ", t4 "
                + t.kernelT4() + ", all four " + t.allFourKernel() + " of " + t.replies() + " replies");
        if (t.senderSync() != null) {
            row(sb, "sender clock", "sync " + t.senderSync());
        }
        StampTlvResults.Timestamps ts = t.timestamps();
        if (ts != null) {
            row(sb, "reflector clock", "sync in " + ts.syncIn() + ", sync out " + ts.syncOut() + "; timestamp in "
                    + ts.methodIn() + ", timestamp out " + ts.methodOut() + " (" + ts.replies() + " replies)");
        }
        StampTlvResults.FollowUp f = t.followUp();
        if (f != null) {
            String v = f.kernelT3() + " kernel t3 (" + f.unmatched() + " unmatched)";
            if (f.rtt() != null) {
                v += "; rtt with kernel t3 min/median/max " + ms(f.rtt().minNs()) + "/" + ms(f.rtt().medianNs()) + "/"
                        + ms(f.rtt().maxNs()) + " ms";
            }
            row(sb, "follow-up telemetry", v);
        }
        StampTlvResults.ClassOfService c = t.classOfService();
        if (c != null) {
            row(sb, "class of service", "reply DSCP " + c.requestedDscp() + " requested, " + c.repliesWithRequestedDscp()
                    + " arrived with it, " + c.notApplied() + " not applied; our DSCP " + c.senderDscp() + " received "
                    + c.reflectorReceivedSenderDscp() + "; ECN " + c.senderEcn() + " received "
                    + c.reflectorReceivedSenderEcn() + ", back " + c.repliesWithSenderEcn());
        }
        StampTlvResults.Direct d = t.direct();
        if (d != null) {
            row(sb, "direct measurement", "at seq " + d.seq() + ": sent " + d.senderSent() + ", reflector received "
                    + d.reflectorReceived() + ", sent " + d.reflectorSent());
        }
        StampTlvResults.Location l = t.location();
        if (l != null) {
            row(sb, "location", "reflector saw source " + orUnknown(l.sourceAddress()) + " port " + l.sourcePort()
                    + ", destination " + orUnknown(l.destinationAddress()) + " port " + l.destinationPort());
        }
        row(sb, "TLV flags", "U " + t.unrecognised() + ", M " + t.malformed() + ", I " + t.integrityFailed()
                + "; replies missing a TLV we sent " + t.missing());
        sb.append("</table>\n");
    }

    private static String orUnknown(String s) {
        return s == null ? "unknown" : s;
    }

    private static String ms(long ns) {
        return String.format(Locale.ROOT, "%.3f", ns / 1e6);
    }

    private static void row(StringBuilder sb, String k, String v) {
        sb.append("<tr><th>").append(esc(k)).append("</th><td style=\"text-align:left\">").append(esc(v))
                .append("</td></tr>");
    }

    private static void statRow(StringBuilder sb, String label, DelayDistribution d) {
        sb.append("<tr><td>").append(esc(label)).append("</td><td>").append(d.count()).append("</td>");
        if (d.count() == 0) {
            sb.append("<td colspan=\"11\">no data</td></tr>\n");
            return;
        }
        cell(sb, d.min());
        cell(sb, d.mean());
        cell(sb, d.stddev());
        for (double p : new double[] {50, 90, 95, 99, 99.9, 99.99, 99.999}) {
            cell(sb, d.percentile(p));
        }
        cell(sb, d.max());
        sb.append("</tr>\n");
    }

    private static void cell(StringBuilder sb, double ns) {
        sb.append("<td>");
        ExactBlockWriter.number(sb, ns / 1e6);
        sb.append("</td>");
    }

    /** A line chart of one or more series against send time, binned to {@link #MAX_POINTS}. */
    private static void timeChart(StringBuilder sb, String id, long[] t, long[][] ys, String[] colours, long[] marks,
                                  long span, String yLabel) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long[] y : ys) {
            for (long v : y) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        if (min > max) {
            min = 0;
            max = 1;
        }
        if (min > 0) {
            min = 0;
        }
        if (max == min) {
            max = min + 1;
        }
        double xScale = (WIDTH - LEFT - RIGHT) / (double) Math.max(1, span);
        double yScale = (HEIGHT - TOP - BOTTOM) / (double) (max - min);
        open(sb, id);
        axes(sb, 0, span / 1e9, "time since start (s)", min / 1e6, max / 1e6, yLabel);
        sb.append("<g class=\"plot\">");
        for (int k = 0; k < ys.length; k++) {
            long[] y = ys[k];
            int n = Math.min(t.length, y.length);
            if (n == 0) {
                continue;
            }
            int bins = Math.min(n, MAX_POINTS);
            StringBuilder upper = new StringBuilder();
            StringBuilder lower = new StringBuilder();
            for (int b = 0; b < bins; b++) {
                int from = (int) ((long) b * n / bins);
                int to = (int) ((long) (b + 1) * n / bins);
                long lo = Long.MAX_VALUE;
                long hi = Long.MIN_VALUE;
                for (int i = from; i < to; i++) {
                    lo = Math.min(lo, y[i]);
                    hi = Math.max(hi, y[i]);
                }
                double x = LEFT + t[from] * xScale;
                point(upper, x, HEIGHT - BOTTOM - (hi - min) * yScale);
                if (bins < n) {
                    point(lower, x, HEIGHT - BOTTOM - (lo - min) * yScale);
                }
            }
            polyline(sb, upper, colours[k]);
            if (lower.length() > 0) {
                polyline(sb, lower, colours[k]);
            }
        }
        for (long m : marks) {
            double x = LEFT + m * xScale;
            sb.append("<line class=\"mark lost\" x1=\"").append(fmt(x)).append("\" x2=\"").append(fmt(x))
                    .append("\" y1=\"").append(HEIGHT - BOTTOM).append("\" y2=\"").append(HEIGHT - BOTTOM - 10)
                    .append("\" stroke=\"#e00\" stroke-width=\"1.5\"><title>lost</title></line>");
        }
        sb.append("</g>");
        if (marks.length > 0) {
            sb.append("<text x=\"").append(WIDTH - RIGHT - 160).append("\" y=\"").append(TOP + 12)
                    .append("\" fill=\"#e00\">red ticks: lost packets (").append(marks.length).append(")</text>");
        }
        sb.append("</svg>\n");
    }

    /** log10 of the smallest and largest of the sorted positive values, widened to at least 0.1 decades. */
    private static double[] logRange(long[] v) {
        double lo = Math.log10(Math.max(1, v[0]));
        double hi = Math.log10(Math.max(v[0] + 1, v[v.length - 1]));
        if (hi - lo < 0.1) {
            lo -= 0.05;
            hi += 0.05;
        }
        return new double[] {lo, hi};
    }

    /** Histogram of the values on logarithmic bins, count on a logarithmic axis. */
    private static void histogramChart(StringBuilder sb, long[] values) {
        long[] v = positive(values);
        open(sb, "histogram");
        if (v.length == 0) {
            emptyPlot(sb);
            return;
        }
        double[] range = logRange(v);
        double lo = range[0];
        double hi = range[1];
        int bins = 60;
        long[] counts = new long[bins];
        for (long x : v) {
            int b = (int) ((Math.log10(Math.max(1, x)) - lo) / (hi - lo) * bins);
            counts[Math.max(0, Math.min(bins - 1, b))]++;
        }
        long maxCount = Arrays.stream(counts).max().orElse(1);
        double logMax = Math.log10(maxCount) + 0.3;
        axes(sb, Math.pow(10, lo) / 1e6, Math.pow(10, hi) / 1e6, "round-trip (ms, log scale)", 1, maxCount,
                "packets (log scale)");
        sb.append("<g class=\"plot\">");
        double bw = (WIDTH - LEFT - RIGHT) / (double) bins;
        for (int b = 0; b < bins; b++) {
            if (counts[b] == 0) {
                continue;
            }
            double hgt = (Math.log10(counts[b]) + 0.3) / logMax * (HEIGHT - TOP - BOTTOM);
            sb.append("<rect class=\"mark\" x=\"").append(fmt(LEFT + b * bw)).append("\" y=\"")
                    .append(fmt(HEIGHT - BOTTOM - hgt)).append("\" width=\"").append(fmt(Math.max(1, bw - 1)))
                    .append("\" height=\"").append(fmt(hgt)).append("\" fill=\"#1f77b4\"><title>")
                    .append(counts[b]).append("</title></rect>");
        }
        sb.append("</g></svg>\n");
    }

    /** Complementary CDF (fraction of packets above x), both axes logarithmic: the tail made visible. */
    private static void ccdfChart(StringBuilder sb, long[] values) {
        long[] v = positive(values);
        open(sb, "ccdf");
        if (v.length == 0) {
            emptyPlot(sb);
            return;
        }
        double[] range = logRange(v);
        double lo = range[0];
        double hi = range[1];
        double minFraction = 1.0 / v.length;
        double logMin = Math.log10(minFraction);
        axes(sb, Math.pow(10, lo) / 1e6, Math.pow(10, hi) / 1e6, "round-trip (ms, log scale)", minFraction, 1,
                "fraction above (CCDF, log scale)");
        sb.append("<g class=\"plot\">");
        StringBuilder pts = new StringBuilder();
        int step = Math.max(1, v.length / MAX_POINTS);
        for (int i = 0; i < v.length; i += step) {
            addCcdfPoint(pts, v, i, lo, hi, logMin);
        }
        addCcdfPoint(pts, v, v.length - 1, lo, hi, logMin);
        polyline(sb, pts, "#ff7f0e");
        sb.append("</g></svg>\n");
    }

    private static void addCcdfPoint(StringBuilder pts, long[] v, int i, double lo, double hi, double logMin) {
        double above = (v.length - i) / (double) v.length;         // fraction at or above v[i]
        double x = LEFT + (Math.log10(Math.max(1, v[i])) - lo) / (hi - lo) * (WIDTH - LEFT - RIGHT);
        double y = TOP + (Math.log10(above) / logMin) * (HEIGHT - TOP - BOTTOM);
        point(pts, x, y);
    }

    private static long[] positive(long[] values) {
        long[] v = Arrays.stream(values).filter(x -> x > 0).toArray();
        Arrays.sort(v);
        return v;
    }

    private static void open(StringBuilder sb, String id) {
        sb.append("<svg class=\"chart\" id=\"chart-").append(id).append("\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(WIDTH).append("\" height=\"").append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH)
                .append(' ').append(HEIGHT).append("\">");
    }

    private static void emptyPlot(StringBuilder sb) {
        sb.append("<g class=\"plot\"><text class=\"mark\" x=\"").append(WIDTH / 2 - 30).append("\" y=\"")
                .append(HEIGHT / 2).append("\">no data</text></g></svg>\n");
    }

    private static void axes(StringBuilder sb, double x0, double x1, String xLabel, double y0, double y1,
                             String yLabel) {
        int bottom = HEIGHT - BOTTOM;
        for (int i = 0; i <= 4; i++) {
            double y = bottom - i * (HEIGHT - TOP - BOTTOM) / 4.0;
            sb.append("<line class=\"grid\" x1=\"").append(LEFT).append("\" x2=\"").append(WIDTH - RIGHT)
                    .append("\" y1=\"").append(fmt(y)).append("\" y2=\"").append(fmt(y)).append("\"/>");
        }
        sb.append("<line class=\"axis\" x1=\"").append(LEFT).append("\" y1=\"").append(bottom).append("\" x2=\"")
                .append(WIDTH - RIGHT).append("\" y2=\"").append(bottom).append("\"/>");
        sb.append("<line class=\"axis\" x1=\"").append(LEFT).append("\" y1=\"").append(TOP).append("\" x2=\"")
                .append(LEFT).append("\" y2=\"").append(bottom).append("\"/>");
        label(sb, LEFT, bottom + 14, "start", number(x0));
        label(sb, WIDTH - RIGHT, bottom + 14, "end", number(x1));
        label(sb, (LEFT + WIDTH - RIGHT) / 2.0, bottom + 30, "middle", xLabel);
        label(sb, LEFT - 4, bottom, "end", number(y0));
        label(sb, LEFT - 4, TOP + 8, "end", number(y1));
        sb.append("<text x=\"14\" y=\"").append(fmt((TOP + bottom) / 2.0)).append("\" text-anchor=\"middle\" transform=\"rotate(-90 14 ")
                .append(fmt((TOP + bottom) / 2.0)).append(")\">").append(esc(yLabel)).append("</text>");
    }

    private static void label(StringBuilder sb, double x, double y, String anchor, String text) {
        sb.append("<text x=\"").append(fmt(x)).append("\" y=\"").append(fmt(y)).append("\" text-anchor=\"")
                .append(anchor).append("\">").append(esc(text)).append("</text>");
    }

    private static String number(double v) {
        return ExactBlockWriter.number(new StringBuilder(), Math.abs(v) < 1e-12 ? 0 : v).toString();
    }

    private static void polyline(StringBuilder sb, StringBuilder points, String colour) {
        sb.append("<polyline class=\"mark\" fill=\"none\" stroke=\"").append(colour)
                .append("\" stroke-width=\"1.2\" points=\"").append(points).append("\"/>");
    }

    private static void point(StringBuilder sb, double x, double y) {
        sb.append(fmt(x)).append(',').append(fmt(y)).append(' ');
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** The plotted values, in record order: send time offset (ns since the session start) and delays (ns). */
    private record Series(long[] t, long[] rtt, long[] fwd, long[] bck, long[] lateness, long[] lostT, long span) {
        static Series collect(SessionDataReader reader, SessionHeader header) {
            long count = reader.recordCount();
            int cap = (int) Math.min(count, Integer.MAX_VALUE - 8);
            long[] t = new long[cap];
            long[] rtt = new long[cap];
            long[] fwd = new long[cap];
            long[] bck = new long[cap];
            long[] lost = new long[cap];
            int n = 0;
            int nLost = 0;
            TwoWayRecord r = new TwoWayRecord();
            BitSet answered = new BitSet();
            long start = header.startTimeNtp();
            for (long i = 0; i < cap; i++) {
                reader.read(i, r);
                long offset = Math.max(0, NtpTime.signedDurationToNanos(r.sentSendNtp - start));
                if (r.isLost()) {
                    lost[nLost++] = offset;
                    continue;
                }
                if (r.sentSeq < Integer.MAX_VALUE) {
                    if (answered.get((int) r.sentSeq)) {
                        continue;
                    }
                    answered.set((int) r.sentSeq);
                }
                t[n] = offset;
                rtt[n] = NtpTime.signedDurationToNanos((r.reflRecvNtp - r.sentSendNtp) - (r.reflSendNtp - r.sentRecvNtp));
                fwd[n] = NtpTime.signedDurationToNanos(r.sentRecvNtp - r.sentSendNtp);
                bck[n] = NtpTime.signedDurationToNanos(r.reflRecvNtp - r.reflSendNtp);
                n++;
            }
            // sort the received points by send time (records are in arrival order)
            Integer[] order = new Integer[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> Long.compare(t[a], t[b]));
            long[] ts = new long[n];
            long[] rs = new long[n];
            long[] fs = new long[n];
            long[] bs = new long[n];
            for (int i = 0; i < n; i++) {
                ts[i] = t[order[i]];
                rs[i] = rtt[order[i]];
                fs[i] = fwd[order[i]];
                bs[i] = bck[order[i]];
            }
            long[] late = lateness(header, reader, ts.length);
            long span = 1;
            for (long x : ts) {
                span = Math.max(span, x);
            }
            long[] lostT = Arrays.copyOf(lost, nLost);
            for (long x : lostT) {
                span = Math.max(span, x);
            }
            return new Series(ts, rs, fs, bs, late, lostT, span);
        }

        /** Lateness (t1 minus the scheduled send time) per received packet, in send-time order. */
        private static long[] lateness(SessionHeader header, SessionDataReader reader, int received) {
            long count = reader.recordCount();
            long[] bySeq = new long[(int) Math.min(header.packetCount(), Integer.MAX_VALUE - 8)];
            boolean[] has = new boolean[bySeq.length];
            ScheduleDeltas deltas = ScheduleDeltas.of(header);
            deltas.reset();
            long cumulative = header.startTimeNtp();
            long[] scheduled = new long[bySeq.length];
            for (int i = 0; i < scheduled.length; i++) {
                cumulative += deltas.nextDeltaNtp();
                scheduled[i] = cumulative;
            }
            TwoWayRecord r = new TwoWayRecord();
            for (long i = 0; i < count; i++) {
                reader.read(i, r);
                if (!r.isLost() && r.sentSeq < bySeq.length && !has[(int) r.sentSeq]) {
                    has[(int) r.sentSeq] = true;
                    bySeq[(int) r.sentSeq] = NtpTime.signedDurationToNanos(r.sentSendNtp - scheduled[(int) r.sentSeq]);
                }
            }
            long[] out = new long[received];
            int k = 0;
            for (int s = 0; s < bySeq.length && k < received; s++) {
                if (has[s]) {
                    out[k++] = bySeq[s];
                }
            }
            return k == received ? out : Arrays.copyOf(out, k);
        }
    }
}
