package io.github.twping.report.extended;

import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonProcessingException;

import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.report.owamp.HostInfo;
import io.github.twping.stats.exact.DelayDistribution;
import io.github.twping.stats.exact.ExactSummary;
import io.github.twping.stats.owamp.SummaryResult;

/**
 * {@code --html FILE}: one self-contained page (docs/CLI.md, {@code --html}). The headline (round-trip
 * p50/p99/p99.9, loss, jitter, clock state, path) and the tables are HTML written here; the charts are drawn in
 * the browser by uPlot (inlined from its WebJar, {@link HtmlAssets}) and this package's {@code html-report.js}
 * from the aggregates of {@link HtmlReportData}, embedded as JSON. Nothing is fetched when the page is viewed.
 *
 * <p>Each chart is a {@code <div class="chart" data-chart="NAME">}. After drawing, the script sets on it
 * {@code data-drawn="yes"} when a series with data was drawn, and {@code data-ticks-x}/{@code data-ticks-y}: the
 * axis tick labels it drew, separated by {@code |}; on {@code <body>} {@code data-charts} (charts on the page)
 * and {@code data-charts-drawn}. The browser test reads these.
 */
public final class HtmlReport {
    private static final double[] TABLE_PERCENTILES = {50, 90, 95, 99, 99.9, 99.99, 99.999};

    private HtmlReport() {
    }

    /** Writes the page for {@code results} from the records of {@code reader}. */
    public static void write(Writer w, SessionResults results, SessionDataReader reader) throws IOException {
        write(w, results, reader, null, null);
    }

    /**
     * Writes the page; {@code protocol} (or null: unknown) is named in the headline and the session table,
     * {@code stamp} (or null) is a table of the STAMP TLV results.
     */
    public static void write(Writer w, SessionResults results, SessionDataReader reader, String protocol,
                             StampTlvResults stamp) throws IOException {
        write(w, results, reader, protocol, stamp, null);
    }

    /** Writes the page, with the stacked delay-breakdown chart when {@code breakdown} is not null. */
    public static void write(Writer w, SessionResults results, SessionDataReader reader, String protocol,
                             StampTlvResults stamp, DelayBreakdown breakdown) throws IOException {
        HtmlReportData data = HtmlReportData.build(results, reader, breakdown);
        HtmlAssets assets = HtmlAssets.get();
        SessionHeader h = results.header();
        ExactSummary s = results.exact().total();
        HostInfo hosts = results.hosts();
        StringBuilder sb = new StringBuilder(128 * 1024);
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
                .append(esc(title(results))).append("</title>\n<style>\n").append(assets.uplotCss()).append('\n')
                .append(assets.reportCss()).append("</style></head>\n<body>\n");
        headline(sb, results, protocol);

        sb.append("<section><h2>Delay percentiles</h2>\n<p class=\"note\">Exact value at each percentile (1 ns"
                + " resolution) on a 1/(1-p) axis, so the tail gets room; the black ring at 50% is the C twping's median of the"
                + " same packets, rounded to its ").append(esc(duration(results.bucketWidthSeconds() * 1e9)))
                .append(" histogram bucket.</p>\n<div class=\"grid3\">\n");
        chart(sb, "pct-rtt", "round trip");
        chart(sb, "pct-forward", "forward (sender to reflector)");
        chart(sb, "pct-back", "back (reflector to sender)");
        sb.append("</div></section>\n");

        sb.append("<section><h2>Over time</h2>\n<p class=\"note\">Per interval of ")
                .append(esc(duration(data.intervalNs()))).append(" of scheduled send time: the band spans min to max, the"
                + " darker band p50 to p99, the line is p50 (logarithmic axes). Lost packets (red) and duplicate"
                + " replies (brown) are marked at the top of the round-trip chart.</p>\n");
        chart(sb, "ts-rtt", "round trip");
        chart(sb, "ts-forward", "forward (sender to reflector)");
        chart(sb, "ts-back", "back (reflector to sender)");
        chart(sb, "ts-lateness", "send lateness (actual minus scheduled send time)");
        sb.append("</section>\n<section><h2>Delay breakdown</h2>\n");
        if (breakdown == null) {
            sb.append("<p class=\"note\" id=\"breakdown-missing\">No per-packet delay breakdown (sender stack,"
                    + " forward, reflector residence, back, receiver wake-up, lateness) was recorded for this"
                    + " session.</p>\n");
        } else {
            sb.append("<p class=\"note\">Median of each part per interval, stacked.</p>\n");
            chart(sb, "breakdown", "delay breakdown");
        }
        sb.append("</section>\n");

        sb.append("<section><h2>Session</h2>\n<table class=\"session\">");
        row(sb, "from", hosts.fromHost() + " [" + hosts.fromAddr() + "]:" + hosts.fromServ());
        row(sb, "to", hosts.toHost() + " [" + hosts.toAddr() + "]:" + hosts.toServ());
        if (protocol != null) {
            row(sb, "protocol", protocol);
        }
        row(sb, "SID", h.sidHex());
        row(sb, "start", ResultJson.time(h.startTimeNtp()));
        row(sb, "packets", h.packetCount() + " (" + s.sent() + " resolved, " + s.received() + " received, " + s.lost()
                + " lost, " + s.duplicates() + " duplicates, " + s.reordered() + " reordered)");
        if (results.dataFile() != null) {
            row(sb, "data file", results.dataFile());
        }
        row(sb, "tool", results.tool() + " " + results.version());
        sb.append("</table>\n<h2>Exact statistics (ms)</h2>\n<table class=\"stats\"><tr><th></th><th>count</th>"
                + "<th>min</th><th>mean</th><th>stddev</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th>"
                + "<th>p99.9</th><th>p99.99</th><th>p99.999</th><th>max</th></tr>\n");
        statRow(sb, "round-trip", s.roundTrip());
        statRow(sb, "forward", s.forward());
        statRow(sb, "back", s.back());
        statRow(sb, "reflector processing", s.processing());
        statRow(sb, "round-trip IPDV", s.ipdvRoundTrip());
        statRow(sb, "send lateness", s.sendLateness());
        sb.append("</table></section>\n");
        if (stamp != null) {
            stampTable(sb, stamp);
        }

        sb.append("<footer><p>Written by ").append(esc(results.tool() + " " + results.version()))
                .append(". Charts drawn with uPlot ").append(esc(assets.uplotVersion()))
                .append(", inlined in this file (no network access).</p>\n<details><summary>uPlot licence</summary><pre>")
                .append(esc(assets.uplotLicense())).append("</pre></details></footer>\n");
        sb.append("<script type=\"application/json\" id=\"twping-data\">").append(json(data)).append("</script>\n");
        sb.append("<script>\n").append(assets.uplotJs()).append("\n</script>\n");
        sb.append("<script>\n").append(assets.reportJs()).append("\n</script>\n</body></html>\n");
        w.append(sb);
    }

    /** The page title: the path and the result, not the SID. */
    static String title(SessionResults results) {
        ExactSummary s = results.exact().total();
        StringBuilder t = new StringBuilder("twping ").append(results.hosts().fromHost()).append(" \u2192 ")
                .append(results.hosts().toHost()).append(": ");
        DelayDistribution rtt = s.roundTrip();
        if (rtt.count() == 0) {
            t.append("no replies");
        } else {
            t.append("RTT p50 ").append(duration(rtt.percentile(50))).append(", p99 ")
                    .append(duration(rtt.percentile(99)));
        }
        return t.append(", loss ").append(percent(s.lossPercent())).toString();
    }

    private static void headline(StringBuilder sb, SessionResults results, String protocol) {
        ExactSummary s = results.exact().total();
        HostInfo hosts = results.hosts();
        SessionHeader h = results.header();
        DelayDistribution rtt = s.roundTrip();
        sb.append("<header class=\"headline\">\n<h1>").append(esc(hosts.fromHost())).append(" \u2192 ")
                .append(esc(hosts.toHost()));
        if (protocol != null) {
            sb.append(" <span class=\"tag\">").append(esc(protocol.toUpperCase(Locale.ROOT))).append("</span>");
        }
        sb.append("</h1>\n<p class=\"sub\">").append(esc(ResultJson.time(h.startTimeNtp()))).append(" \u00b7 ")
                .append(s.sent()).append(" packets \u00b7 ").append(esc(results.tool() + " " + results.version()))
                .append("</p>\n<div class=\"kpis\">\n");
        SummaryResult owamp = results.owamp();
        String cMedian = owamp == null || Double.isNaN(owamp.median(SummaryResult.RT)) ? null
                : "C twping median " + duration(owamp.median(SummaryResult.RT) * 1e9) + " (bucketed)";
        kpi(sb, "kpi-p50", "RTT p50", rtt.count() == 0 ? "\u2013" : duration(rtt.percentile(50)), cMedian);
        kpi(sb, "kpi-p99", "RTT p99", rtt.count() == 0 ? "\u2013" : duration(rtt.percentile(99)), null);
        kpi(sb, "kpi-p999", "RTT p99.9", rtt.count() == 0 ? "\u2013" : duration(rtt.percentile(99.9)),
                rtt.count() == 0 ? null : "max " + duration(rtt.max()));
        kpi(sb, s.lost() > 0 ? "kpi-loss alert" : "kpi-loss", "loss", percent(s.lossPercent()), s.lost() + " of " + s.sent() + " packets"
                + (s.duplicates() > 0 ? ", " + s.duplicates() + " duplicates" : ""));
        kpi(sb, "kpi-jitter", "jitter (p95\u2212p50)", rtt.count() == 0 ? "\u2013"
                : duration(rtt.percentile(95) - rtt.percentile(50)), jitterDetail(s));
        String local = syncState(s.localSynchronised(), s.localUnsynchronised());
        String remote = syncState(s.remoteSynchronised(), s.remoteUnsynchronised());
        boolean both = local.equals("synchronised") && remote.equals("synchronised");
        kpi(sb, "kpi-clocks words", "clocks", both ? "synchronised" : local.equals(remote) ? local : "mixed",
                "local " + local + ", remote " + remote + (both ? "" : "; one-way delays assume the clocks agree"));
        sb.append("</div>\n<p class=\"path\"><b>path</b> ").append(esc(hosts.fromHost() + " [" + hosts.fromAddr() + "]:"
                + hosts.fromServ() + " \u2192 " + hosts.toHost() + " [" + hosts.toAddr() + "]:" + hosts.toServ()))
                .append(" \u00b7 IPv").append(h.ipVersion()).append(" \u00b7 hops forward ").append(hops(s, true))
                .append(", back ").append(hops(s, false)).append(" \u00b7 DSCP ").append((h.typeP() >>> 24) & 0x3F)
                .append("</p>\n</header>\n");
    }

    private static String jitterDetail(ExactSummary s) {
        if (s.forward().count() == 0) {
            return null;
        }
        return "forward " + duration(s.forward().percentile(95) - s.forward().percentile(50)) + ", back "
                + duration(s.back().percentile(95) - s.back().percentile(50));
    }

    private static String syncState(long sync, long unsync) {
        if (sync + unsync == 0) {
            return "unknown";
        }
        if (unsync == 0) {
            return "synchronised";
        }
        return sync == 0 ? "unsynchronised" : "partly synchronised (" + sync + " of " + (sync + unsync) + ")";
    }

    private static String hops(ExactSummary s, boolean forward) {
        int minTtl = s.minTtl(forward);
        int maxTtl = s.maxTtl(forward);
        if (minTtl < 0) {
            return "unknown";
        }
        int lo = 255 - maxTtl;
        int hi = 255 - minTtl;
        return lo == hi ? Integer.toString(lo) : lo + "\u2013" + hi;
    }

    /** One headline figure; {@code classes} are added to {@code kpi} (its first word is the id). */
    private static void kpi(StringBuilder sb, String classes, String label, String value, String detail) {
        sb.append("<div class=\"kpi ").append(classes).append("\" id=\"").append(classes.split(" ")[0])
                .append("\"><div class=\"k\">").append(esc(label))
                .append("</div><div class=\"v\">").append(esc(value)).append("</div>");
        if (detail != null) {
            sb.append("<div class=\"d\">").append(esc(detail)).append("</div>");
        }
        sb.append("</div>\n");
    }

    private static void chart(StringBuilder sb, String name, String caption) {
        sb.append("<figure><figcaption>").append(esc(caption)).append("</figcaption><div class=\"chart\" data-chart=\"")
                .append(name).append("\"></div></figure>\n");
    }

    /** A duration of {@code ns} nanoseconds with 3 significant digits in ns, µs, ms or s. */
    static String duration(double ns) {
        if (Double.isNaN(ns) || Double.isInfinite(ns)) {
            return "\u2013";
        }
        double a = Math.abs(ns);
        String unit;
        double v;
        if (a < 1e3) {
            unit = "ns";
            v = ns;
        } else if (a < 1e6) {
            unit = "\u00b5s";
            v = ns / 1e3;
        } else if (a < 1e9) {
            unit = "ms";
            v = ns / 1e6;
        } else {
            unit = "s";
            v = ns / 1e9;
        }
        String n = v == 0 ? "0" : new BigDecimal(v).round(new MathContext(3)).stripTrailingZeros().toPlainString();
        return n + " " + unit;
    }

    static String percent(double p) {
        if (Double.isNaN(p)) {
            return "\u2013";
        }
        String n = p == 0 ? "0" : new BigDecimal(p).round(new MathContext(3)).stripTrailingZeros().toPlainString();
        return n + "%";
    }

    /** The chart data as JSON that cannot close its {@code <script>} element. */
    private static String json(HtmlReportData data) {
        try {
            return ResultJson.MAPPER.writeValueAsString(data.json()).replace("<", "\\u003c");
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The STAMP TLV results (the lines of the text report, docs/STAMP.md) as a two-column table. */
    private static void stampTable(StringBuilder sb, StampTlvResults t) {
        sb.append("<section><h2>STAMP TLVs (RFC 8972)</h2>\n<table class=\"stamp-tlvs\">");
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
                v += "; rtt with kernel t3 min/median/max " + duration(f.rtt().minNs()) + " / "
                        + duration(f.rtt().medianNs()) + " / " + duration(f.rtt().maxNs());
            }
            row(sb, "follow-up telemetry", v);
        }
        StampTlvResults.ClassOfService c = t.classOfService();
        if (c != null) {
            row(sb, "class of service", "reply DSCP " + c.requestedDscp() + " requested, " + c.repliesWithRequestedDscp()
                    + " arrived with it, " + c.notApplied() + " not applied; our DSCP " + c.senderDscp() + " received "
                    + c.reflectorReceivedSenderDscp() + "; ECN " + c.senderEcn() + " received "
                    + c.reflectorReceivedSenderEcn() + ", back " + c.repliesWithSenderEcn() + "; reply ECN (RPE) set "
                    + c.ecnApplied() + ", not set " + c.ecnNotApplied() + ", not reported " + c.ecnUnreported());
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
        sb.append("</table></section>\n");
    }

    private static String orUnknown(String s) {
        return s == null ? "unknown" : s;
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
        for (double p : TABLE_PERCENTILES) {
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
}
