package io.github.twping.report.owamp;

import io.github.twping.stats.owamp.DelayHistogram;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.stats.owamp.SummaryResult;
import io.github.twping.time.NtpTime;

/** Writer of the machine-readable summary {@code -M} (docs/STATISTICS.md), buckets in the C hash-table order. */
public final class MachineSummaryWriter {
    private static final double JAN_1970 = 2208988800.0;

    private MachineSummaryWriter() {
    }

    /** Appends the {@code -M} block (ending with its empty line) to {@code sb}. */
    public static StringBuilder write(StringBuilder sb, SessionHeader header, SummaryResult r, HostInfo hosts,
                                      OutputOptions opts) {
        sb.append("SUMMARY\t3.00\n");
        sb.append("SID\t").append(header.sidHex()).append('\n');
        sb.append("FROM_HOST\t").append(hosts.fromHost()).append('\n');
        sb.append("FROM_ADDR\t").append(hosts.fromAddr()).append('\n');
        sb.append("FROM_PORT\t").append(hosts.fromServ()).append('\n');
        sb.append("TO_HOST\t").append(hosts.toHost()).append('\n');
        sb.append("TO_ADDR\t").append(hosts.toAddr()).append('\n');
        sb.append("TO_PORT\t").append(hosts.toServ()).append('\n');
        CFormat.u64ZeroPadded(sb.append("START_TIME\t"), r.startTimeNtp(), 20).append('\n');
        CFormat.u64ZeroPadded(sb.append("END_TIME\t"), r.endTimeNtp(), 20).append('\n');
        if (opts.unix()) {
            CFormat.f(sb.append("UNIX_START_TIME\t"), unixSeconds(r.startTimeNtp())).append('\n');
            CFormat.f(sb.append("UNIX_END_TIME\t"), unixSeconds(r.endTimeNtp())).append('\n');
        }
        int typeP = header.typeP();
        if ((typeP & ~0x3F00_0000) == 0) {
            CFormat.hex(sb.append("DSCP\t0x"), typeP >>> 24, 2).append('\n');
        }
        CFormat.u64(sb.append("LOSS_TIMEOUT\t"), header.timeoutNtp()).append('\n');
        CFormat.u32(sb.append("PACKET_PADDING\t"), header.paddingBytes()).append('\n');
        CFormat.u32(sb.append("SESSION_PACKET_COUNT\t"), header.packetCount()).append('\n');
        CFormat.u32(sb.append("SAMPLE_PACKET_COUNT\t"), r.last() - r.first()).append('\n');
        CFormat.g(sb.append("BUCKET_WIDTH\t"), r.histogram().widthSeconds()).append('\n');
        sb.append("SESSION_FINISHED\t").append(header.finished() == SessionHeader.FINISHED_NORMAL ? 1 : 0)
            .append('\n');
        CFormat.u32(sb.append("SENT\t"), r.sent()).append('\n');
        sb.append("SYNC\t").append(r.sync() ? 1 : 0).append('\n');
        CFormat.g(sb.append("MAXERR\t"), r.maxError(SummaryResult.RT)).append('\n');
        CFormat.g(sb.append("MAXERR_FWD\t"), r.maxError(SummaryResult.FWD)).append('\n');
        CFormat.g(sb.append("MAXERR_BCK\t"), r.maxError(SummaryResult.BCK)).append('\n');
        CFormat.u32(sb.append("DUPS_FWD\t"), r.dupsFwd()).append('\n');
        CFormat.u32(sb.append("DUPS_BCK\t"), r.dupsBck()).append('\n');
        CFormat.u32(sb.append("LOST\t"), r.lost()).append('\n');
        optional(sb, "MIN\t", r.min(SummaryResult.RT));
        optional(sb, "MIN_FWD\t", r.min(SummaryResult.FWD));
        optional(sb, "MIN_BCK\t", r.min(SummaryResult.BCK));
        optional(sb, "MIN_PROC\t", r.min(SummaryResult.PROC));
        optional(sb, "MEDIAN\t", r.median(SummaryResult.RT));
        optional(sb, "MEDIAN_FWD\t", r.median(SummaryResult.FWD));
        optional(sb, "MEDIAN_BCK\t", r.median(SummaryResult.BCK));
        optional(sb, "MAX\t", r.max(SummaryResult.RT));
        optional(sb, "MAX_FWD\t", r.max(SummaryResult.FWD));
        optional(sb, "MAX_BCK\t", r.max(SummaryResult.BCK));
        optional(sb, "MAX_PROC\t", r.max(SummaryResult.PROC));
        optional(sb, "PDV\t", r.jitter(SummaryResult.RT));
        optional(sb, "PDV_FWD\t", r.jitter(SummaryResult.FWD));
        optional(sb, "PDV_BCK\t", r.jitter(SummaryResult.BCK));
        if (r.sent() > r.lost()) {
            DelayHistogram h = r.histogram();
            int[] order = new int[h.bucketCount()];
            int n = h.hashOrder(order);
            sb.append("<BUCKETS>\n");
            for (int k = 0; k < n; k++) {
                int p = order[k];
                sb.append('\t').append(h.bucketIndexAt(p));
                CFormat.u32(sb.append('\t'), h.countAt(p, DelayHistogram.RT));
                CFormat.u32(sb.append('\t'), h.countAt(p, DelayHistogram.FWD));
                CFormat.u32(sb.append('\t'), h.countAt(p, DelayHistogram.BCK)).append('\n');
            }
            sb.append("</BUCKETS>\n");
        }
        ttl(sb, r);
        sb.append('\n');
        return sb;
    }

    /** {@code D(t) - 2208988800.0} (docs/STATISTICS.md). */
    private static double unixSeconds(long ntp) {
        return NtpTime.toDouble(ntp) - JAN_1970;
    }

    private static void optional(StringBuilder sb, String key, double v) {
        if (!Double.isNaN(v)) {
            CFormat.g(sb.append(key), v).append('\n');
        }
    }

    private static void ttl(StringBuilder sb, SummaryResult r) {
        int minFwd = 255;
        int maxFwd = 0;
        int minBck = 255;
        int maxBck = 0;
        boolean any = false;
        for (int t = 0; t < 256; t++) {
            if (r.ttlCountFwd(t) != 0) {
                minFwd = Math.min(minFwd, t);
                maxFwd = Math.max(maxFwd, t);
                any = true;
            }
            if (r.ttlCountBck(t) != 0) {
                minBck = Math.min(minBck, t);
                maxBck = Math.max(maxBck, t);
                any = true;
            }
        }
        sb.append("MINTTL_FWD\t").append(minFwd).append('\n');
        sb.append("MAXTTL_FWD\t").append(maxFwd).append('\n');
        sb.append("MINTTL_BCK\t").append(minBck).append('\n');
        sb.append("MAXTTL_BCK\t").append(maxBck).append('\n');
        if (any) {
            sb.append("<TTLBUCKETS>\n");
            for (int t = 0; t < 256; t++) {
                long f = r.ttlCountFwd(t);
                long b = r.ttlCountBck(t);
                if (f != 0 || b != 0) {
                    sb.append('\t').append(t).append('\t').append(f).append('\t').append(b).append('\n');
                }
            }
            sb.append("</TTLBUCKETS>\n");
        }
    }
}
