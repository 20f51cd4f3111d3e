package io.github.twping.testing.perf;

import java.util.List;
import java.util.Locale;

/** The Markdown tables the perftest runners print. */
public final class ResultTables {
    private ResultTables() {
    }

    /** RTT table: one row per session run, then one per baseline. */
    public static String rttTable(List<RunResult> runs, List<BaselineRow> baselines) {
        StringBuilder b = new StringBuilder();
        b.append("| What | Client timestamps | Rate (pkt/s) | Sent | Lost | RTT min µs | p50 µs | p99 µs | p99.9 µs | max µs |\n");
        b.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RunResult r : runs) {
            LatencySummary s = r.rtt().summary();
            b.append(row(r.config().label(), stampsLabel(r), rate(r.config().ratePps()), r.sent(), r.lost(), s));
        }
        for (BaselineRow bl : baselines) {
            LatencySummary s = bl.result().rtt().summary();
            b.append(row("baseline ping-pong", bl.label(), rate(bl.ratePps()), bl.result().sent(),
                    bl.result().lost(), s));
        }
        return b.toString();
    }

    /** Sender lateness, CPU and wall time per session run. */
    public static String senderTable(List<RunResult> runs) {
        StringBuilder b = new StringBuilder();
        b.append("| What | Rate (pkt/s) | Sent | Lateness p50 µs | p99 µs | p99.9 µs | max µs "
                + "| Client CPU µs/pkt | Process CPU µs/pkt | Wall s |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RunResult r : runs) {
            LatencySummary s = LatencySummary.of(r.latenessNs());
            b.append("| ").append(r.config().label()).append(" | ").append(rate(r.config().ratePps()))
                    .append(" | ").append(r.sent())
                    .append(" | ").append(s.micros(s.p50Ns())).append(" | ").append(s.micros(s.p99Ns()))
                    .append(" | ").append(s.micros(s.p999Ns())).append(" | ").append(s.micros(s.maxNs()))
                    .append(" | ").append(LatencySummary.formatMicros(r.clientCpuPerPacketNs()))
                    .append(" | ").append(LatencySummary.formatMicros(r.processCpuPerPacketNs()))
                    .append(" | ").append(String.format(Locale.ROOT, "%.2f", r.wallNs() / 1e9)).append(" |\n");
        }
        return b.toString();
    }

    /** A baseline result with its label and rate. */
    public record BaselineRow(String label, double ratePps, PingPongBaseline.Result result) {
    }

    private static String row(String what, String stamps, String rate, long sent, long lost, LatencySummary s) {
        return "| " + what + " | " + stamps + " | " + rate + " | " + sent + " | " + lost + " | "
                + s.micros(s.minNs()) + " | " + s.micros(s.p50Ns()) + " | " + s.micros(s.p99Ns()) + " | "
                + s.micros(s.p999Ns()) + " | " + s.micros(s.maxNs()) + " |\n";
    }

    /** What the client's stamps really were, from the receiver's counters. */
    static String stampsLabel(RunResult r) {
        if (!r.nativeSocket()) {
            return "user (NIO)";
        }
        if (r.kernelRxStamps() == 0) {
            return "user (FFM)";
        }
        return "kernel RX " + r.kernelRxStamps() + ", TX " + r.kernelTxStamps();
    }

    /** A rate without a trailing ".0" ("1000", "0.5"). */
    static String rate(double ratePps) {
        return ratePps == Math.rint(ratePps) ? Long.toString((long) ratePps) : Double.toString(ratePps);
    }
}
