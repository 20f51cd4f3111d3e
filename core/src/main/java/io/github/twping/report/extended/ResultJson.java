package io.github.twping.report.extended;

import io.github.twping.config.DscpParser;
import java.time.Instant;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.github.twping.stats.breakdown.Absence;
import io.github.twping.stats.breakdown.BreakdownStatistics;
import io.github.twping.stats.breakdown.BreakdownSummary;
import io.github.twping.stats.breakdown.Component;
import io.github.twping.stats.breakdown.PacketBreakdown;
import io.github.twping.stats.breakdown.StampOrigin;
import io.github.twping.stats.exact.DelayDistribution;
import io.github.twping.stats.exact.ExactStatistics;
import io.github.twping.stats.exact.ExactSummary;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.stats.owamp.SummaryResult;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.ErrorEstimate;
import io.github.twping.time.NtpTime;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.InetAddress;

/**
 * The JSON form of the results (docs/twping-result.schema.json; field names are documented in docs/CLI.md and
 * stable): the {@code --json} document, which is also the body of the {@code end} event of {@code --json-stream},
 * and the {@code start}, {@code interval} and {@code packet} events. Times are RFC 3339 strings in UTC with
 * nanoseconds; durations are integers in nanoseconds ({@code _ns}); the owamp-compatible values keep C's
 * double seconds ({@code _s}).
 */
public final class ResultJson {
    /** Value of {@code format}. */
    public static final String FORMAT = "twping-result";
    /** Value of {@code format_version}; incremented only for incompatible changes. */
    public static final int FORMAT_VERSION = 1;
    private static final double[] PERCENTILES = {50, 90, 95, 99, 99.9, 99.99, 99.999};
    private static final String[] PERCENTILE_KEYS = {"p50_ns", "p90_ns", "p95_ns", "p99_ns", "p99_9_ns", "p99_99_ns",
        "p99_999_ns"};
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    static final ObjectMapper MAPPER = new ObjectMapper();

    private ResultJson() {
    }

    /** The {@code --json} document without the protocol (a re-reported file, the agent's events). */
    public static ObjectNode document(SessionResults results) {
        return document(results, null, null);
    }

    /**
     * The {@code --json} document.
     *
     * @param protocol {@code twamp}, {@code stamp} or {@code light}, or null when unknown (no field)
     * @param stamp    the STAMP TLV results, or null (no field)
     */
    public static ObjectNode document(SessionResults results, String protocol, StampTlvResults stamp) {
        return document(results, protocol, stamp, null);
    }

    /**
     * The {@code --json} document with the delay breakdown.
     *
     * @param breakdown the session's delay breakdown, or null (no {@code breakdown} field)
     */
    public static ObjectNode document(SessionResults results, String protocol, StampTlvResults stamp,
                                      BreakdownSummary breakdown) {
        ObjectNode doc = NODES.objectNode();
        doc.put("format", FORMAT);
        doc.put("format_version", FORMAT_VERSION);
        ObjectNode tool = doc.putObject("tool");
        tool.put("name", results.tool());
        tool.put("version", results.version());
        if (protocol != null) {
            doc.put("protocol", protocol);
        }
        doc.set("session", session(results.header(), results));
        ExactStatistics e = results.exact();
        ObjectNode exact = summary(e.total());
        ObjectNode packets = (ObjectNode) exact.get("packets");
        long fwd = e.forwardLost();
        long bck = e.backLost();
        if (fwd >= 0) {
            packets.put("forward_lost", fwd);
            packets.put("back_lost_at_least", bck);
        } else {
            packets.putNull("forward_lost");
            packets.putNull("back_lost_at_least");
        }
        doc.set("exact", exact);
        doc.set("owamp", owamp(results.owamp(), results.bucketWidthSeconds()));
        if (stamp != null) {
            doc.set("stamp", StampTlvJson.of(stamp));
        }
        if (breakdown != null) {
            doc.set("breakdown", breakdown(breakdown));
        }
        return doc;
    }

    /**
     * The {@code breakdown} object (docs/STATISTICS.md, delay breakdown): per component its distribution over the
     * first replies, the provenance of its stamps and why it was absent; the span; the tail and its dominant
     * component; the slowest packets.
     */
    public static ObjectNode breakdown(BreakdownSummary summary) {
        BreakdownStatistics st = summary.statistics();
        ObjectNode o = NODES.objectNode();
        o.put("packets", st.packets());
        o.set("span", distribution(st.span()));
        ObjectNode components = o.putObject("components");
        for (Component c : Component.values()) {
            ObjectNode co = components.putObject(c.key());
            co.set("distribution", distribution(st.component(c)));
            ArrayNode stamps = co.putArray("stamps");
            for (StampOrigin first : StampOrigin.values()) {
                for (StampOrigin second : StampOrigin.values()) {
                    long n = st.provenance(c, first, second);
                    if (n > 0) {
                        ObjectNode p = stamps.addObject();
                        p.put("from", first.key());
                        p.put("to", second.key());
                        p.put("count", n);
                    }
                }
            }
            ObjectNode absent = co.putObject("absent");
            for (Absence a : Absence.values()) {
                long n = st.absent(c, a);
                if (n > 0) {
                    absent.put(a.key(), n);
                }
            }
        }
        ObjectNode tail = o.putObject("tail");
        if (summary.dominant() == null) {
            tail.putNull("from_ns");
        } else {
            tail.put("from_ns", summary.tailFromNs());
        }
        tail.put("packets", summary.tailPackets());
        ObjectNode means = tail.putObject("mean_ns");
        for (Component c : Component.values()) {
            double mean = summary.tailMeanNs(c);
            number(means, c.key(), Double.isNaN(mean) ? mean : round3(mean));
        }
        if (summary.dominant() == null) {
            o.putNull("dominant_p99");
        } else {
            o.put("dominant_p99", summary.dominant().key());
        }
        ArrayNode slowest = o.putArray("slowest");
        for (PacketBreakdown b : summary.slowest()) {
            ObjectNode p = slowest.addObject();
            p.put("record", b.recordIndex());
            p.put("seq", b.seq());
            p.put("rtt_ns", b.recordRttNs());
            p.setAll(packetBreakdown(b));
        }
        return o;
    }

    /**
     * One packet's breakdown: {@code span_ns} and per component {@code {"ns", "from", "to"}}, or
     * {@code {"ns": null, "reason"}} when it is not known.
     */
    static ObjectNode packetBreakdown(PacketBreakdown b) {
        ObjectNode o = NODES.objectNode();
        o.put("span_ns", b.spanNs());
        for (Component c : Component.values()) {
            ObjectNode co = o.putObject(c.key());
            Absence a = b.absence(c);
            if (a == null) {
                co.put("ns", b.ns(c));
                co.put("from", b.from(c).key());
                co.put("to", b.to(c).key());
            } else {
                co.putNull("ns");
                co.put("reason", a.key());
            }
        }
        return o;
    }

    /** The session parameters. */
    static ObjectNode session(SessionHeader h, SessionResults results) {
        ObjectNode s = NODES.objectNode();
        s.put("sid", h.sidHex());
        s.put("origin", results == null ? SessionResults.MEASUREMENT : results.origin());
        if (results != null && results.dataFile() != null) {
            s.put("data_file", results.dataFile());
        } else {
            s.putNull("data_file");
        }
        ObjectNode sender = s.putObject("sender");
        ObjectNode reflector = s.putObject("reflector");
        if (results != null) {
            sender.put("host", results.hosts().fromHost());
            reflector.put("host", results.hosts().toHost());
        }
        sender.put("address", address(h.senderInetAddress()));
        sender.put("port", h.senderPort());
        reflector.put("address", address(h.receiverInetAddress()));
        reflector.put("port", h.receiverPort());
        s.put("ip_version", h.ipVersion());
        s.put("packet_count", h.packetCount());
        s.put("padding_bytes", h.paddingBytes());
        s.put("start_time", time(h.startTimeNtp()));
        s.put("loss_timeout_ns", NtpTime.durationToNanos(h.timeoutNtp()));
        s.put("dscp", DscpParser.dscpOfTypeP(h.typeP()));
        ArrayNode slots = s.putArray("schedule");
        for (int i = 0; i < h.slotCount(); i++) {
            ObjectNode slot = slots.addObject();
            slot.put("distribution", h.slotFixed(i) ? "fixed" : "exponential");
            slot.put("interval_ns", NtpTime.durationToNanos(h.slotValueNtp(i)));
        }
        s.put("finished", switch (h.finished()) {
            case SessionHeader.FINISHED_NORMAL -> "normal";
            case SessionHeader.FINISHED_ERROR -> "error";
            default -> "incomplete";
        });
        return s;
    }

    private static String address(InetAddress a) {
        return a == null ? "" : a.getHostAddress();
    }

    /** The exact statistics of a summary (whole session or one interval). */
    static ObjectNode summary(ExactSummary s) {
        ObjectNode o = NODES.objectNode();
        ObjectNode packets = o.putObject("packets");
        packets.put("records", s.records());
        packets.put("sent", s.sent());
        packets.put("received", s.received());
        packets.put("lost", s.lost());
        number(packets, "loss_percent", s.lossPercent());
        packets.put("duplicates", s.duplicates());
        packets.put("reordered", s.reordered());
        ObjectNode delays = o.putObject("delays");
        delays.set("round_trip", distribution(s.roundTrip()));
        delays.set("forward", distribution(s.forward()));
        delays.set("back", distribution(s.back()));
        delays.set("processing", distribution(s.processing()));
        ObjectNode ipdv = o.putObject("ipdv");
        ipdv.set("round_trip", distribution(s.ipdvRoundTrip()));
        ipdv.set("forward", distribution(s.ipdvForward()));
        ipdv.set("back", distribution(s.ipdvBack()));
        ObjectNode jitter = o.putObject("jitter_p95_p50_ns");
        jitter(jitter, "round_trip", s.roundTrip());
        jitter(jitter, "forward", s.forward());
        jitter(jitter, "back", s.back());
        o.set("send_lateness", distribution(s.sendLateness()));
        ObjectNode hops = o.putObject("hops");
        hops.set("forward", hops(s, true));
        hops.set("back", hops(s, false));
        ObjectNode dscp = o.putObject("reply_dscp");
        for (int d = 0; d <= ExactSummary.DSCP_UNKNOWN; d++) {
            if (s.replyDscpCount(d) > 0) {
                dscp.put(d == ExactSummary.DSCP_UNKNOWN ? "unknown" : Integer.toString(d), s.replyDscpCount(d));
            }
        }
        ObjectNode ts = o.putObject("timestamp_sources");
        ts.set("t1", sources(s, true));
        ts.put("t2", "reflector");
        ts.put("t3", "reflector");
        ts.set("t4", sources(s, false));
        ObjectNode clock = o.putObject("clock");
        ObjectNode local = clock.putObject("local");
        local.put("synchronised", s.localSynchronised());
        local.put("unsynchronised", s.localUnsynchronised());
        local.put("max_error_t1_ns", Math.round(s.maxSendErrorSeconds() * 1e9));
        local.put("max_error_t4_ns", Math.round(s.maxReceiveErrorSeconds() * 1e9));
        ObjectNode remote = clock.putObject("remote");
        remote.put("synchronised", s.remoteSynchronised());
        remote.put("unsynchronised", s.remoteUnsynchronised());
        remote.put("max_error_t2_ns", Math.round(s.maxReflectorReceiveErrorSeconds() * 1e9));
        remote.put("max_error_t3_ns", Math.round(s.maxReflectorSendErrorSeconds() * 1e9));
        return o;
    }

    private static ObjectNode sources(ExactSummary s, boolean send) {
        ObjectNode o = NODES.objectNode();
        for (int src = RecordSources.UNKNOWN; src <= RecordSources.KERNEL_HARDWARE; src++) {
            o.put(RecordSources.name(src), send ? s.sendSourceCount(src) : s.receiveSourceCount(src));
        }
        return o;
    }

    private static ObjectNode hops(ExactSummary s, boolean forward) {
        ObjectNode o = NODES.objectNode();
        int minTtl = s.minTtl(forward);
        int maxTtl = s.maxTtl(forward);
        if (minTtl < 0) {
            o.putNull("min");
            o.putNull("max");
        } else {
            o.put("min", 255 - maxTtl);
            o.put("max", 255 - minTtl);
        }
        ObjectNode counts = o.putObject("counts");
        for (int ttl = 255; ttl >= 0; ttl--) {
            long c = forward ? s.forwardTtlCount(ttl) : s.backTtlCount(ttl);
            if (c > 0) {
                counts.put(Integer.toString(255 - ttl), c);
            }
        }
        return o;
    }

    private static void jitter(ObjectNode o, String key, DelayDistribution d) {
        if (d.count() == 0) {
            o.putNull(key);
        } else {
            o.put(key, d.percentile(95) - d.percentile(50));
        }
    }

    /** One distribution: count, min, mean, stddev, the percentiles and max, in ns. */
    static ObjectNode distribution(DelayDistribution d) {
        ObjectNode o = NODES.objectNode();
        o.put("count", d.count());
        o.put("exact", d.exact());
        if (d.count() == 0) {
            o.putNull("min_ns");
            o.putNull("mean_ns");
            o.putNull("stddev_ns");
            for (String k : PERCENTILE_KEYS) {
                o.putNull(k);
            }
            o.putNull("max_ns");
            return o;
        }
        o.put("min_ns", d.min());
        o.put("mean_ns", round3(d.mean()));
        o.put("stddev_ns", round3(d.stddev()));
        for (int i = 0; i < PERCENTILES.length; i++) {
            o.put(PERCENTILE_KEYS[i], d.percentile(PERCENTILES[i]));
        }
        o.put("max_ns", d.max());
        return o;
    }

    private static double round3(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }

    /** The owamp-compatible values (C's histogram quantisation), or null when that pass failed. */
    static JsonNode owamp(SummaryResult r, float bucketWidthSeconds) {
        if (r == null) {
            return NODES.nullNode();
        }
        ObjectNode o = NODES.objectNode();
        number(o, "bucket_width_s", bucketWidthSeconds);
        o.put("sent", r.sent());
        o.put("lost", r.lost());
        number(o, "loss_percent", 100.0 * r.lossFraction());
        o.put("send_duplicates", r.dupsFwd());
        o.put("reflect_duplicates", r.dupsBck());
        o.put("synchronised", r.sync());
        o.put("clocks_offset", r.clocksOffset());
        o.set("round_trip", owampDelay(r, SummaryResult.RT));
        o.set("send", owampDelay(r, SummaryResult.FWD));
        o.set("reflect", owampDelay(r, SummaryResult.BCK));
        ObjectNode proc = o.putObject("processing");
        number(proc, "min_s", r.min(SummaryResult.PROC));
        number(proc, "max_s", r.max(SummaryResult.PROC));
        return o;
    }

    private static ObjectNode owampDelay(SummaryResult r, int type) {
        ObjectNode o = NODES.objectNode();
        number(o, "min_s", r.min(type));
        number(o, "median_s", r.median(type));
        number(o, "max_s", r.max(type));
        number(o, "max_error_s", r.maxError(type));
        number(o, "jitter_p95_p50_s", r.jitter(type));
        return o;
    }

    private static void number(ObjectNode o, String key, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            o.putNull(key);
        } else {
            o.put(key, v);
        }
    }

    /** RFC 3339 UTC with nanoseconds of a Num64 time. */
    static String time(long ntp) {
        long epochNs = NtpTime.toEpochNanos(ntp);
        return Instant.ofEpochSecond(Math.floorDiv(epochNs, 1_000_000_000L), Math.floorMod(epochNs, 1_000_000_000L))
                .toString();
    }

    /** The {@code start} event. */
    static ObjectNode startEvent(SessionHeader header, String tool, String version, double intervalSeconds,
                                 String protocol) {
        ObjectNode o = NODES.objectNode();
        o.put("event", "start");
        o.put("format", FORMAT);
        o.put("format_version", FORMAT_VERSION);
        ObjectNode t = o.putObject("tool");
        t.put("name", tool);
        t.put("version", version);
        if (protocol != null) {
            o.put("protocol", protocol);
        }
        o.put("interval_ns", Math.round(intervalSeconds * 1e9));
        o.set("session", session(header, null));
        return o;
    }

    /** An {@code interval} event. */
    static ObjectNode intervalEvent(long index, long startNtp, long endNtp, ExactSummary s) {
        ObjectNode o = NODES.objectNode();
        o.put("event", "interval");
        o.put("index", index);
        o.put("start", time(startNtp));
        o.put("end", time(endNtp));
        o.setAll(summary(s));
        return o;
    }

    /**
     * A {@code packet} event: one data-file record.
     *
     * @param reflectorSources the reflector's t2/t3 sources of STAMP replies, or null (no such fields)
     */
    static ObjectNode packetEvent(long index, TwoWayRecord r, short sources, PacketTimestampSources reflectorSources) {
        return packetEvent(index, r, sources, reflectorSources, null);
    }

    /** A {@code packet} event with the packet's delay breakdown ({@code breakdown}; null: none). */
    static ObjectNode packetEvent(long index, TwoWayRecord r, short sources, PacketTimestampSources reflectorSources,
                                  PacketBreakdown breakdown) {
        ObjectNode o = NODES.objectNode();
        o.put("event", "packet");
        o.put("record", index);
        o.put("seq", r.sentSeq);
        o.put("lost", r.isLost());
        o.put("t1_ns", NtpTime.toEpochNanos(r.sentSendNtp));
        if (r.isLost()) {
            return o;
        }
        o.put("t2_ns", NtpTime.toEpochNanos(r.sentRecvNtp));
        o.put("t3_ns", NtpTime.toEpochNanos(r.reflSendNtp));
        o.put("t4_ns", NtpTime.toEpochNanos(r.reflRecvNtp));
        o.put("rtt_ns", NtpTime.signedDurationToNanos((r.reflRecvNtp - r.sentSendNtp) - (r.reflSendNtp - r.sentRecvNtp)));
        o.put("forward_ns", NtpTime.signedDurationToNanos(r.sentRecvNtp - r.sentSendNtp));
        o.put("back_ns", NtpTime.signedDurationToNanos(r.reflRecvNtp - r.reflSendNtp));
        o.put("processing_ns", NtpTime.signedDurationToNanos(r.reflSendNtp - r.sentRecvNtp));
        o.put("reflector_seq", r.reflSeq);
        o.put("forward_ttl", r.sentTtl);
        o.put("back_ttl", r.reflTtl);
        int dscp = RecordSources.replyDscp(sources);
        if (dscp < 0) {
            o.putNull("reply_dscp");
        } else {
            o.put("reply_dscp", dscp);
        }
        o.put("t1_source", RecordSources.name(RecordSources.sendSource(sources)));
        if (reflectorSources != null) {
            o.put("t2_source", reflectorSources.t2Source(r.sentSeq));
            o.put("t3_source", reflectorSources.t3Source(r.sentSeq));
        }
        o.put("t4_source", RecordSources.name(RecordSources.receiveSource(sources)));
        o.put("synchronised", ErrorEstimate.isSynchronised(r.sentSendErr) && ErrorEstimate.isSynchronised(r.sentRecvErr));
        if (breakdown != null) {
            o.set("breakdown", packetBreakdown(breakdown));
        }
        return o;
    }

    /** The {@code end} event: the {@code --json} document with {@code "event": "end"} first. */
    static ObjectNode endEvent(SessionResults results, String protocol, StampTlvResults stamp) {
        return endEvent(results, protocol, stamp, null);
    }

    /** The {@code end} event with the delay breakdown (null: none). */
    static ObjectNode endEvent(SessionResults results, String protocol, StampTlvResults stamp,
                               BreakdownSummary breakdown) {
        ObjectNode o = NODES.objectNode();
        o.put("event", "end");
        o.setAll(document(results, protocol, stamp, breakdown));
        return o;
    }
}
