package io.github.twping.report.owamp;

import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.ErrorEstimate;

/** Writer of the raw record lines {@code -R} (docs/STATISTICS.md). */
public final class RawRecordWriter {

    private RawRecordWriter() {
    }

    /**
     * Appends {@code %lu %020llu %u %g %020llu %u %g %u %lu %020llu %u %g %020llu %u %g %u\n}
     * for one record.
     */
    public static StringBuilder write(StringBuilder sb, TwoWayRecord r) {
        CFormat.u32(sb, r.sentSeq).append(' ');
        stamp(sb, r.sentSendNtp, r.sentSendErr);
        stamp(sb, r.sentRecvNtp, r.sentRecvErr);
        sb.append(r.sentTtl & 0xFF).append(' ');
        CFormat.u32(sb, r.reflSeq).append(' ');
        stamp(sb, r.reflSendNtp, r.reflSendErr);
        stamp(sb, r.reflRecvNtp, r.reflRecvErr);
        sb.append(r.reflTtl & 0xFF).append('\n');
        return sb;
    }

    private static void stamp(StringBuilder sb, long ntp, int err) {
        CFormat.u64ZeroPadded(sb, ntp, 20).append(' ');
        sb.append((err >>> 15) & 1).append(' ');
        CFormat.g(sb, errorSeconds(err)).append(' ');
    }

    /** E(field) = (multiplier << scale) / 2^32 as a double (RFC 4656 §4.1.2). */
    static double errorSeconds(int field) {
        return ErrorEstimate.seconds(field);
    }
}
