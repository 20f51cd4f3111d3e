package io.github.twping.report.extended;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code stamp} object of the {@code --json} document (docs/twping-result.schema.json, docs/STAMP.md): the
 * values of {@link StampTlvResults}; a TLV that was not asked for is {@code null}.
 */
final class StampTlvJson {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private StampTlvJson() {
    }

    static ObjectNode of(StampTlvResults r) {
        ObjectNode o = NODES.objectNode();
        r.requested().forEach(o.putArray("tlvs")::add);
        o.put("replies", r.replies());
        ObjectNode kernel = o.putObject("kernel_timestamps");
        kernel.put("t1", r.kernelT1());
        kernel.put("t2", r.kernelT2());
        kernel.put("t3", r.kernelT3());
        kernel.put("t4", r.kernelT4());
        kernel.put("all_four", r.allFourKernel());
        if (r.senderSync() == null) {
            o.putNull("sender_sync");
        } else {
            o.put("sender_sync", r.senderSync());
        }
        o.set("timestamp_information", timestamps(r.timestamps()));
        o.set("follow_up_telemetry", followUp(r.followUp()));
        o.set("class_of_service", classOfService(r.classOfService()));
        o.set("direct_measurement", direct(r.direct()));
        o.set("location", location(r.location()));
        o.set("destination_node_address", destinationNode(r.destinationNode()));
        o.set("return_path", returnPath(r.returnPath()));
        o.set("micro_session_id", microSession(r.microSession()));
        ObjectNode flags = o.putObject("flags");
        flags.put("unrecognised", r.unrecognised());
        flags.put("malformed", r.malformed());
        flags.put("integrity_failed", r.integrityFailed());
        flags.put("missing", r.missing());
        return o;
    }

    private static JsonNode timestamps(StampTlvResults.Timestamps t) {
        if (t == null) {
            return NODES.nullNode();
        }
        ObjectNode o = NODES.objectNode();
        o.put("sync_in", t.syncIn());
        o.put("sync_out", t.syncOut());
        o.put("method_in", t.methodIn());
        o.put("method_out", t.methodOut());
        o.put("replies", t.replies());
        o.put("method_changes", t.methodChanges());
        o.put("sub_tlvs", t.subTlvs());
        return o;
    }

    private static JsonNode followUp(StampTlvResults.FollowUp f) {
        if (f == null) {
            return NODES.nullNode();
        }
        ObjectNode o = NODES.objectNode();
        o.put("kernel_t3", f.kernelT3());
        o.put("unmatched", f.unmatched());
        o.set("rtt_kernel_t3", range(f.rtt()));
        o.set("kernel_minus_user_t3", range(f.t3Lag()));
        return o;
    }

    private static JsonNode range(StampTlvResults.Range r) {
        if (r == null) {
            return NODES.nullNode();
        }
        ObjectNode o = NODES.objectNode();
        o.put("min_ns", r.minNs());
        o.put("median_ns", r.medianNs());
        o.put("max_ns", r.maxNs());
        return o;
    }

    private static JsonNode classOfService(StampTlvResults.ClassOfService c) {
        if (c == null) {
            return NODES.nullNode();
        }
        ObjectNode o = NODES.objectNode();
        o.put("requested_dscp", c.requestedDscp());
        o.put("replies_with_requested_dscp", c.repliesWithRequestedDscp());
        o.put("not_applied", c.notApplied());
        o.put("sender_dscp", c.senderDscp());
        o.put("reflector_received_sender_dscp", c.reflectorReceivedSenderDscp());
        o.put("sender_ecn", c.senderEcn());
        o.put("reflector_received_sender_ecn", c.reflectorReceivedSenderEcn());
        o.put("replies_with_sender_ecn", c.repliesWithSenderEcn());
        o.put("ecn_applied", c.ecnApplied());
        o.put("ecn_not_applied", c.ecnNotApplied());
        o.put("ecn_unreported", c.ecnUnreported());
        return o;
    }

    private static JsonNode direct(StampTlvResults.Direct d) {
        if (d == null) {
            return NODES.nullNode();
        }
        ObjectNode o = NODES.objectNode();
        o.put("seq", d.seq());
        o.put("sender_sent", d.senderSent());
        o.put("reflector_received", d.reflectorReceived());
        o.put("reflector_sent", d.reflectorSent());
        return o;
    }

    private static JsonNode location(StampTlvResults.Location l) {
        if (l == null) {
            return NODES.nullNode();
        }
        ObjectNode o = NODES.objectNode();
        nullable(o, "source_address", l.sourceAddress());
        nullablePort(o, "source_port", l.sourcePort());
        nullable(o, "destination_address", l.destinationAddress());
        nullablePort(o, "destination_port", l.destinationPort());
        o.put("replies", l.replies());
        return o;
    }

    private static JsonNode destinationNode(StampTlvResults.DestinationNode d) {
        if (d == null) {
            return NODES.nullNode();
        }
        ObjectNode o = NODES.objectNode();
        o.put("address", d.address());
        o.put("replies", d.replies());
        o.put("not_local", d.notLocal());
        return o;
    }

    private static JsonNode returnPath(StampTlvResults.ReturnPath p) {
        if (p == null) {
            return NODES.nullNode();
        }
        ObjectNode o = NODES.objectNode();
        p.subTlvs().forEach(o.putArray("sub_tlvs")::add);
        o.put("replies", p.replies());
        o.put("not_used", p.notUsed());
        return o;
    }

    private static JsonNode microSession(StampTlvResults.MicroSession m) {
        if (m == null) {
            return NODES.nullNode();
        }
        ObjectNode o = NODES.objectNode();
        o.put("sender_id", m.senderId());
        nullablePort(o, "reflector_id", m.reflectorId());
        o.put("replies", m.replies());
        o.put("unanswered", m.unanswered());
        o.put("discarded", m.discarded());
        return o;
    }

    private static void nullable(ObjectNode o, String key, String value) {
        if (value == null) {
            o.putNull(key);
        } else {
            o.put(key, value);
        }
    }

    private static void nullablePort(ObjectNode o, String key, int port) {
        if (port < 0) {
            o.putNull(key);
        } else {
            o.put(key, port);
        }
    }
}
