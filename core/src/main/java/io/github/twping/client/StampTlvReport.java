package io.github.twping.client;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;

import io.github.twping.stamp.StampTelemetry;
import io.github.twping.stamp.StampTlv;
import io.github.twping.stamp.StampTlvRequest;
import io.github.twping.stats.RecordSources;
import io.github.twping.stats.SessionDataReader;
import io.github.twping.stats.TwoWayRecord;
import io.github.twping.time.NtpTime;

/**
 * The report of a {@code twping --stamp --tlv} run, printed after the usual outputs (docs/STAMP.md): which of the
 * four timestamps of each packet were kernel stamps (t1 and t4 from our socket, t2 from the reflector's Timestamp
 * Information TLV, t3 from its Follow-Up Telemetry TLV), the round-trip time with the kernel t3, the DSCP and ECN
 * the reflector received and the DSCP the replies arrived with, the reflector's counters and the TLV flags.
 * One line per packet with {@code --tlv-packets}. Read from the session data file after the session's threads
 * ended; not a hot path.
 */
final class StampTlvReport {
    private StampTlvReport() {
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
        long ecnMatches = 0;
        long replyEcnMatches = 0;
        long lastRx = -1;
        long lastTx = -1;
        long lastSeq = -1;
        int senderError = -1;
        BitSet seen = new BitSet();
        out.println();
        out.println("--- STAMP TLVs (RFC 8972) ---");
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
                if (telemetry.hasDirectMeasurement(seq) && seq >= lastSeq) {
                    lastSeq = seq;
                    lastRx = telemetry.reflectorRx(seq);
                    lastTx = telemetry.reflectorTx(seq);
                }
                if (perPacket) {
                    out.printf(Locale.ROOT, "seq %d t1 %s t2 %s t3 %s t4 %s kernel %d/4", seq, sourceName(t1),
                            StampTlv.methodName(t2), StampTlv.methodName(t3), sourceName(t4), n);
                    if (rttNs >= 0) {
                        out.printf(Locale.ROOT, " rtt_kernel_t3 %.3f ms", rttNs / 1e6);
                    }
                    if (telemetry.hasClassOfService(seq)) {
                        out.printf(Locale.ROOT, " dscp_received %d ecn_received %d rp %d reply_dscp %d reply_ecn %d",
                                telemetry.receivedDscp(seq), telemetry.receivedEcn(seq), telemetry.reversePath(seq),
                                replyDscp, replyEcn);
                    }
                    if (telemetry.hasDirectMeasurement(seq)) {
                        out.printf(Locale.ROOT, " s_txc %d r_rxc %d r_txc %d", seq + 1,
                                telemetry.reflectorRx(seq), telemetry.reflectorTx(seq));
                    }
                    out.printf(Locale.ROOT, " flags %s%n", telemetry.flagLetters(seq));
                }
            }
        } catch (io.github.twping.stats.InvalidDataFileException e) {
            out.println("TLV report: the session data file cannot be read");
            return;
        }
        out.printf(Locale.ROOT, "kernel timestamps: t1 %d, t2 %d, t3 %d, t4 %d, all four %d of %d replies%n",
                kernel[0], kernel[1], kernel[2], kernel[3], allFour, replies);
        if (senderError >= 0) {
            out.printf(Locale.ROOT, "sender clock: sync %s%n", StampTlv.syncName(
                    io.github.twping.stamp.ClockSyncSource.syncSource(senderPtp, senderError)));
        }
        if (tlvs.timestampInformation()) {
            out.printf(Locale.ROOT, "reflector clock: sync in %s, sync out %s; timestamp in %s, timestamp out %s"
                            + " (%d replies, %d method changes, %d sub-TLVs)%n",
                    StampTlv.syncName(telemetry.syncIn()), StampTlv.syncName(telemetry.syncOut()),
                    StampTlv.methodName(telemetry.lastMethodIn()), StampTlv.methodName(telemetry.lastMethodOut()),
                    telemetry.timestampInformations(), telemetry.methodChanges(), telemetry.timestampSubTlvs());
        }
        if (tlvs.followUpTelemetry()) {
            out.printf(Locale.ROOT, "follow-up telemetry: %d kernel t3 (%d unmatched)", telemetry.followUps(),
                    telemetry.followUpsUnmatched());
            if (rttCount > 0) {
                Arrays.sort(rttKernelNs, 0, rttCount);
                Arrays.sort(t3LagNs, 0, lagCount);
                out.printf(Locale.ROOT, "; rtt with kernel t3 min/median/max = %.3f/%.3f/%.3f ms;"
                                + " kernel t3 - user t3 min/median/max = %.1f/%.1f/%.1f us",
                        rttKernelNs[0] / 1e6, rttKernelNs[rttCount / 2] / 1e6, rttKernelNs[rttCount - 1] / 1e6,
                        t3LagNs[0] / 1e3, t3LagNs[lagCount / 2] / 1e3, t3LagNs[lagCount - 1] / 1e3);
            }
            out.println();
        }
        if (tlvs.classOfServiceDscp() >= 0) {
            out.printf(Locale.ROOT, "class of service: requested reply DSCP %d, %d replies arrived with it, "
                            + "%d not applied by the reflector; reflector received our DSCP %d in %d; "
                            + "ECN %d: reflector received it in %d, replies arrived with it in %d%n",
                    tlvs.classOfServiceDscp(), replyDscpRequested, rpNotUsed, senderDscp, dscpMatches, senderEcn,
                    ecnMatches, replyEcnMatches);
        }
        if (tlvs.directMeasurement() && lastSeq >= 0) {
            out.printf(Locale.ROOT, "direct measurement: at seq %d sender sent %d, reflector received %d, sent %d%n",
                    lastSeq, lastSeq + 1, lastRx, lastTx);
        }
        if (tlvs.location()) {
            java.net.InetAddress source = telemetry.locationSource();
            java.net.InetAddress destination = telemetry.locationDestination();
            out.printf(Locale.ROOT, "location: reflector saw source %s port %d, destination %s port %d (%d replies)%n",
                    source == null ? "unknown" : source.getHostAddress(), telemetry.locationSourcePort(),
                    destination == null ? "unknown" : destination.getHostAddress(),
                    telemetry.locationDestinationPort(), telemetry.locations());
        }
        out.printf(Locale.ROOT, "TLV flags: U %d, M %d, I %d%n", telemetry.unrecognised(), telemetry.malformed(),
                telemetry.integrityFailed());
        out.flush();
    }
}
