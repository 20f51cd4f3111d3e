package io.github.twping.report.extended;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;

import io.github.twping.stamp.ClockSyncSource;
import io.github.twping.stamp.StampTelemetry;
import io.github.twping.stamp.StampTlv;
import io.github.twping.stamp.StampTlvRequest;
import io.github.twping.datafile.InvalidDataFileException;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;
import java.net.InetAddress;

/**
 * Builds the {@link StampTlvResults} of a STAMP session with RFC 8972 TLVs (docs/STAMP.md, the TLV report) in one
 * pass over its session data file, from the sender's timestamp sources ({@link RecordSources}: t1, t4 and the
 * reply's DSCP and ECN) and the replies' TLVs ({@link StampTelemetry}): {@code twping --stamp --tlv}
 * ({@code client.StampTlvReport}, its text and its result outputs) and the agent's {@code end} line of a STAMP
 * target with {@code tlv} both use it. Runs after the session's threads ended; not a hot path.
 */
public final class StampTlvAnalysis {
    private StampTlvAnalysis() {
    }

    private static boolean kernelSource(int source) {
        return source == RecordSources.KERNEL_SOFTWARE || source == RecordSources.KERNEL_HARDWARE;
    }

    private static boolean kernelMethod(int method) {
        return method == StampTlv.METHOD_SW_LOCAL || method == StampTlv.METHOD_HW_ASSIST;
    }

    private static String sourceName(int source) {
        return RecordSources.name(source);
    }

    /** The TLVs asked for, by the names of the JSON output. */
    private static List<String> requested(StampTlvRequest tlvs) {
        List<String> names = new ArrayList<>();
        if (tlvs.location()) {
            names.add("location");
        }
        if (tlvs.timestampInformation()) {
            names.add("timestamp_information");
        }
        if (tlvs.classOfServiceDscp() >= 0) {
            names.add("class_of_service");
        }
        if (tlvs.directMeasurement()) {
            names.add("direct_measurement");
        }
        if (tlvs.accessId() >= 0) {
            names.add("access_report");
        }
        if (tlvs.followUpTelemetry()) {
            names.add("follow_up_telemetry");
        }
        if (tlvs.destinationNode() != null) {
            names.add("destination_node_address");
        }
        if (tlvs.returnPath() != null) {
            names.add("return_path");
        }
        if (tlvs.microSession()) {
            names.add("micro_session_id");
        }
        if (tlvs.hmac()) {
            names.add("hmac");
        }
        return names;
    }

    /**
     * One pass over the session data file after the session's threads ended: the values of the TLV report.
     *
     * @param channel    the session data file
     * @param sources    the sender's timestamp sources and reply DSCP/ECN per record ({@code recordSources()} of
     *                   the session)
     * @param telemetry  what the replies' TLVs reported (filled by the session's receiver)
     * @param tlvs       the TLVs asked for
     * @param senderDscp the DSCP our requests carried
     * @param senderEcn  the ECN codepoint our requests carried
     * @param senderPtp  PTP evidence on this host ({@link ClockSyncSource#detect}): the sender clock is ptp, not
     *                   ntp, while the kernel calls it synchronized
     * @param perPacket  where the {@code --tlv-packets} lines go, or null for none
     * @return the results, or null when the data file cannot be read
     */
    public static StampTlvResults results(FileChannel channel, RecordSources sources, StampTelemetry telemetry,
                                          StampTlvRequest tlvs, int senderDscp, int senderEcn, boolean senderPtp,
                                          PrintStream perPacket) throws IOException {
        long replies = 0;
        long[] kernel = new long[4];
        long allFour = 0;
        long[] rttKernelNs = new long[16];
        int rttCount = 0;
        long[] t3LagNs = new long[16];
        int lagCount = 0;
        long dscpMatches = 0;
        long replyDscpRequested = 0;
        long rpNotUsed = 0;
        long ecnApplied = 0;
        long ecnNotApplied = 0;
        long ecnUnreported = 0;
        long ecnMatches = 0;
        long replyEcnMatches = 0;
        long lastRx = -1;
        long lastTx = -1;
        long lastSeq = -1;
        int senderError = -1;
        BitSet seen = new BitSet();
        try (SessionDataReader reader = SessionDataReader.open(channel)) {
            TwoWayRecord r = new TwoWayRecord();
            for (long i = 0; i < reader.recordCount(); i++) {
                reader.read(i, r);
                if (r.isLost() || r.sentSeq > Integer.MAX_VALUE || seen.get((int) r.sentSeq)) {
                    continue;
                }
                long seq = r.sentSeq;
                seen.set((int) seq);
                senderError = r.sentSendErr;
                replies++;
                short packed = sources.get(i);
                int t1 = RecordSources.sendSource(packed);
                int t4 = RecordSources.receiveSource(packed);
                int t2 = telemetry.t2Method(seq);
                int t3 = telemetry.t3Method(seq);
                boolean[] k = {kernelSource(t1), kernelMethod(t2), kernelMethod(t3), kernelSource(t4)};
                int n = 0;
                for (int j = 0; j < 4; j++) {
                    if (k[j]) {
                        kernel[j]++;
                        n++;
                    }
                }
                if (n == 4) {
                    allFour++;
                }
                long rttNs = -1;
                if (telemetry.hasFollowUp(seq)) {
                    long t3k = telemetry.kernelT3Ntp(seq);
                    rttNs = NtpTime.signedDurationToNanos(r.reflRecvNtp - r.sentSendNtp)
                            - NtpTime.signedDurationToNanos(t3k - r.sentRecvNtp);
                    if (rttCount == rttKernelNs.length) {
                        rttKernelNs = Arrays.copyOf(rttKernelNs, rttCount * 2);
                    }
                    rttKernelNs[rttCount++] = rttNs;
                    if (lagCount == t3LagNs.length) {
                        t3LagNs = Arrays.copyOf(t3LagNs, lagCount * 2);
                    }
                    t3LagNs[lagCount++] = NtpTime.signedDurationToNanos(t3k - r.reflSendNtp);
                }
                int replyDscp = RecordSources.replyDscp(packed);
                if (tlvs.classOfServiceDscp() >= 0 && replyDscp == tlvs.classOfServiceDscp()) {
                    replyDscpRequested++;
                }
                if (telemetry.receivedDscp(seq) == senderDscp) {
                    dscpMatches++;
                }
                if (telemetry.receivedEcn(seq) == senderEcn) {
                    ecnMatches++;
                }
                int replyEcn = RecordSources.replyEcn(packed);
                if (telemetry.hasClassOfService(seq) && replyEcn == senderEcn) {
                    replyEcnMatches++;
                }
                if (telemetry.reversePath(seq) > 0) {
                    rpNotUsed++;
                }
                switch (telemetry.reversePathEcn(seq)) {
                    case StampTlv.RPE_SET -> ecnApplied++;
                    case StampTlv.RPE_NOT_SET -> ecnNotApplied++;
                    case StampTlv.RPE_NONE -> ecnUnreported++;
                    default -> {
                        // -1: no Class of Service TLV in this reply; 1: undefined
                    }
                }
                if (telemetry.hasDirectMeasurement(seq) && seq >= lastSeq) {
                    lastSeq = seq;
                    lastRx = telemetry.reflectorRx(seq);
                    lastTx = telemetry.reflectorTx(seq);
                }
                if (perPacket != null) {
                    perPacket.printf(Locale.ROOT, "seq %d t1 %s t2 %s t3 %s t4 %s kernel %d/4", seq, sourceName(t1),
                            StampTlv.methodName(t2), StampTlv.methodName(t3), sourceName(t4), n);
                    if (rttNs >= 0) {
                        perPacket.printf(Locale.ROOT, " rtt_kernel_t3 %.3f ms", rttNs / 1e6);
                    }
                    if (telemetry.hasClassOfService(seq)) {
                        perPacket.printf(Locale.ROOT, " dscp_received %d ecn_received %d rp %d rpe %d reply_dscp %d"
                                        + " reply_ecn %d", telemetry.receivedDscp(seq), telemetry.receivedEcn(seq),
                                telemetry.reversePath(seq), telemetry.reversePathEcn(seq), replyDscp, replyEcn);
                    }
                    if (telemetry.hasDirectMeasurement(seq)) {
                        perPacket.printf(Locale.ROOT, " s_txc %d r_rxc %d r_txc %d", seq + 1,
                                telemetry.reflectorRx(seq), telemetry.reflectorTx(seq));
                    }
                    perPacket.printf(Locale.ROOT, " flags %s%n", telemetry.flagLetters(seq));
                }
            }
        } catch (InvalidDataFileException e) {
            return null;
        }
        StampTlvResults.Timestamps timestamps = null;
        if (tlvs.timestampInformation()) {
            timestamps = new StampTlvResults.Timestamps(StampTlv.syncName(telemetry.syncIn()),
                    StampTlv.syncName(telemetry.syncOut()), StampTlv.methodName(telemetry.lastMethodIn()),
                    StampTlv.methodName(telemetry.lastMethodOut()), telemetry.timestampInformations(),
                    telemetry.methodChanges(), telemetry.timestampSubTlvs());
        }
        StampTlvResults.FollowUp followUp = null;
        if (tlvs.followUpTelemetry()) {
            StampTlvResults.Range rtt = null;
            StampTlvResults.Range lag = null;
            if (rttCount > 0) {
                Arrays.sort(rttKernelNs, 0, rttCount);
                Arrays.sort(t3LagNs, 0, lagCount);
                rtt = new StampTlvResults.Range(rttKernelNs[0], rttKernelNs[rttCount / 2], rttKernelNs[rttCount - 1]);
                lag = new StampTlvResults.Range(t3LagNs[0], t3LagNs[lagCount / 2], t3LagNs[lagCount - 1]);
            }
            followUp = new StampTlvResults.FollowUp(telemetry.followUps(), telemetry.followUpsUnmatched(), rtt, lag);
        }
        StampTlvResults.ClassOfService cos = tlvs.classOfServiceDscp() < 0 ? null
                : new StampTlvResults.ClassOfService(tlvs.classOfServiceDscp(), replyDscpRequested, rpNotUsed,
                senderDscp, dscpMatches, senderEcn, ecnMatches, replyEcnMatches, ecnApplied, ecnNotApplied, ecnUnreported);
        StampTlvResults.Direct direct = tlvs.directMeasurement() && lastSeq >= 0
                ? new StampTlvResults.Direct(lastSeq, lastSeq + 1, lastRx, lastTx) : null;
        StampTlvResults.Location location = null;
        if (tlvs.location()) {
            InetAddress source = telemetry.locationSource();
            InetAddress destination = telemetry.locationDestination();
            location = new StampTlvResults.Location(source == null ? null : source.getHostAddress(),
                    telemetry.locationSourcePort(), destination == null ? null : destination.getHostAddress(),
                    telemetry.locationDestinationPort(), telemetry.locations());
        }
        StampTlvResults.DestinationNode destinationNode = tlvs.destinationNode() == null ? null
                : new StampTlvResults.DestinationNode(tlvs.destinationNode().getHostAddress(),
                telemetry.destinationNodeReplies(), telemetry.destinationNotLocal());
        StampTlvResults.ReturnPath returnPath = tlvs.returnPath() == null ? null
                : new StampTlvResults.ReturnPath(tlvs.returnPath().names(), telemetry.returnPathReplies(),
                telemetry.returnPathNotUsed());
        StampTlvResults.MicroSession microSession = !tlvs.microSession() ? null
                : new StampTlvResults.MicroSession(tlvs.microSessionSender(), telemetry.microSessionReflector(),
                telemetry.microSessionReplies(), telemetry.microSessionUnanswered(),
                telemetry.microSessionDiscarded());
        String senderSync = senderError < 0 ? null
                : StampTlv.syncName(ClockSyncSource.syncSource(senderPtp, senderError));
        return new StampTlvResults(requested(tlvs), replies, kernel[0], kernel[1], kernel[2], kernel[3], allFour,
                senderSync, timestamps, followUp, cos, direct, location, destinationNode, returnPath, microSession,
                telemetry.unrecognised(),
                telemetry.malformed(), telemetry.integrityFailed(), telemetry.missing());
    }
}
