package io.github.twping.client;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.util.Locale;

import io.github.twping.report.extended.PacketTimestampSources;
import io.github.twping.report.extended.StampTlvAnalysis;
import io.github.twping.report.extended.StampTlvResults;

import io.github.twping.stamp.StampTelemetry;
import io.github.twping.stamp.StampTlv;
import io.github.twping.stamp.StampTlvRequest;
import io.github.twping.datafile.RecordSources;

/**
 * The report of a {@code twping --stamp --tlv} run, printed after the usual outputs (docs/STAMP.md): which of the
 * four timestamps of each packet were kernel stamps (t1 and t4 from our socket, t2 from the reflector's Timestamp
 * Information TLV, t3 from its Follow-Up Telemetry TLV), the round-trip time with the kernel t3, the DSCP and ECN
 * the reflector received and the DSCP the replies arrived with, the reflector's counters and the TLV flags.
 * One line per packet with {@code --tlv-packets}. The values come from {@link StampTlvAnalysis} (one pass over the
 * session data file after the session's threads ended, the same builder as the agent's {@code end} line); not a
 * hot path.
 */
final class StampTlvReport {
    private StampTlvReport() {
    }

    static void write(PrintStream out, FileChannel channel, RecordSources sources, StampTelemetry telemetry,
                      StampTlvRequest tlvs, int senderDscp, boolean perPacket) throws IOException {
        write(out, channel, sources, telemetry, tlvs, senderDscp, 0, perPacket);
    }

    /**
     * The TLV block; {@code senderEcn} is the ECN codepoint our requests carried ({@code --ecn}): the class of
     * service line then also counts how often the reflector received it and how often the reply came back with it.
     */
    static void write(PrintStream out, FileChannel channel, RecordSources sources, StampTelemetry telemetry,
                      StampTlvRequest tlvs, int senderDscp, int senderEcn, boolean perPacket) throws IOException {
        write(out, channel, sources, telemetry, tlvs, senderDscp, senderEcn, false, perPacket);
    }

    /**
     * As above; {@code senderPtp}: PTP evidence on this host ({@code stamp.ClockSyncSource}), which makes the
     * sender clock line say ptp instead of ntp while the kernel calls the clock synchronized.
     */
    static void write(PrintStream out, FileChannel channel, RecordSources sources, StampTelemetry telemetry,
                      StampTlvRequest tlvs, int senderDscp, int senderEcn, boolean senderPtp, boolean perPacket)
            throws IOException {
        out.println();
        out.println("--- STAMP TLVs (RFC 8972) ---");
        StampTlvResults t = StampTlvAnalysis.results(channel, sources, telemetry, tlvs, senderDscp, senderEcn,
                senderPtp, perPacket ? out : null);
        if (t == null) {
            out.println("TLV report: the session data file cannot be read");
            return;
        }
        out.printf(Locale.ROOT, "kernel timestamps: t1 %d, t2 %d, t3 %d, t4 %d, all four %d of %d replies%n",
                t.kernelT1(), t.kernelT2(), t.kernelT3(), t.kernelT4(), t.allFourKernel(), t.replies());
        if (t.senderSync() != null) {
            out.printf(Locale.ROOT, "sender clock: sync %s%n", t.senderSync());
        }
        StampTlvResults.Timestamps ts = t.timestamps();
        if (ts != null) {
            out.printf(Locale.ROOT, "reflector clock: sync in %s, sync out %s; timestamp in %s, timestamp out %s"
                            + " (%d replies, %d method changes, %d sub-TLVs)%n",
                    ts.syncIn(), ts.syncOut(), ts.methodIn(), ts.methodOut(), ts.replies(), ts.methodChanges(),
                    ts.subTlvs());
        }
        StampTlvResults.FollowUp f = t.followUp();
        if (f != null) {
            out.printf(Locale.ROOT, "follow-up telemetry: %d kernel t3 (%d unmatched)", f.kernelT3(), f.unmatched());
            if (f.rtt() != null) {
                out.printf(Locale.ROOT, "; rtt with kernel t3 min/median/max = %.3f/%.3f/%.3f ms;"
                                + " kernel t3 - user t3 min/median/max = %.1f/%.1f/%.1f us",
                        f.rtt().minNs() / 1e6, f.rtt().medianNs() / 1e6, f.rtt().maxNs() / 1e6,
                        f.t3Lag().minNs() / 1e3, f.t3Lag().medianNs() / 1e3, f.t3Lag().maxNs() / 1e3);
            }
            out.println();
        }
        StampTlvResults.ClassOfService c = t.classOfService();
        if (c != null) {
            out.printf(Locale.ROOT, "class of service: requested reply DSCP %d, %d replies arrived with it, "
                            + "%d not applied by the reflector; reflector received our DSCP %d in %d; "
                            + "ECN %d: reflector received it in %d, replies arrived with it in %d; "
                            + "reply ECN (EC1/RPE) set by the reflector in %d, not set in %d, not reported in %d%n",
                    c.requestedDscp(), c.repliesWithRequestedDscp(), c.notApplied(), c.senderDscp(),
                    c.reflectorReceivedSenderDscp(), c.senderEcn(), c.reflectorReceivedSenderEcn(),
                    c.repliesWithSenderEcn(), c.ecnApplied(), c.ecnNotApplied(), c.ecnUnreported());
        }
        StampTlvResults.Direct d = t.direct();
        if (d != null) {
            out.printf(Locale.ROOT, "direct measurement: at seq %d sender sent %d, reflector received %d, sent %d%n",
                    d.seq(), d.senderSent(), d.reflectorReceived(), d.reflectorSent());
        }
        StampTlvResults.Location l = t.location();
        if (l != null) {
            out.printf(Locale.ROOT, "location: reflector saw source %s port %d, destination %s port %d (%d replies)%n",
                    l.sourceAddress() == null ? "unknown" : l.sourceAddress(), l.sourcePort(),
                    l.destinationAddress() == null ? "unknown" : l.destinationAddress(), l.destinationPort(),
                    l.replies());
        }
        StampTlvResults.DestinationNode dn = t.destinationNode();
        if (dn != null) {
            out.printf(Locale.ROOT, "destination node %s: %d replies, %d said not the reflector's address%n",
                    dn.address(), dn.replies(), dn.notLocal());
        }
        StampTlvResults.ReturnPath rp = t.returnPath();
        if (rp != null) {
            out.printf(Locale.ROOT, "return path %s: %d replies, %d not followed by the reflector%n",
                    String.join("+", rp.subTlvs()), rp.replies(), rp.notUsed());
        }
        StampTlvResults.MicroSession ms = t.microSession();
        if (ms != null) {
            out.printf(Locale.ROOT, "micro-session %d: reflector member link %s in %d replies, %d unanswered, "
                    + "%d discarded (not ours)%n", ms.senderId(), ms.reflectorId() < 0 ? "unknown"
                    : Integer.toString(ms.reflectorId()), ms.replies(), ms.unanswered(), ms.discarded());
        }
        out.printf(Locale.ROOT, "TLV flags: U %d, M %d, I %d%n", t.unrecognised(), t.malformed(),
                t.integrityFailed());
        out.printf(Locale.ROOT, "replies missing a TLV we sent: %d%n", t.missing());
        out.flush();
    }

    /** The reflector's t2/t3 sources of each reply, for the {@code packet} events (Timestamp Information). */
    static PacketTimestampSources packetSources(StampTelemetry telemetry, StampTlvRequest tlvs) {
        if (telemetry == null || !tlvs.timestampInformation()) {
            return null;
        }
        return new PacketTimestampSources() {
            @Override
            public String t2Source(long seq) {
                return StampTlv.methodName(telemetry.t2Method(seq));
            }

            @Override
            public String t3Source(long seq) {
                return StampTlv.methodName(telemetry.timestampOutMethod(seq));
            }
        };
    }
}
