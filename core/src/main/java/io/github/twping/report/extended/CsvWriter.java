package io.github.twping.report.extended;

import java.io.IOException;
import java.io.Writer;
import java.util.BitSet;

import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.RecordStamps;
import io.github.twping.stats.breakdown.Absence;
import io.github.twping.stats.breakdown.Component;
import io.github.twping.stats.breakdown.PacketBreakdown;
import io.github.twping.stats.breakdown.ReflectorStamps;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;

/**
 * {@code --csv FILE}: one row per data-file record (docs/CLI.md, {@code --csv}), RFC 4180 with a header row.
 * Times are nanoseconds since the Unix epoch, delays nanoseconds; a lost packet has empty t2..t4 and delays.
 * The columns after {@code reflector_seq} are the packet's delay breakdown (docs/STATISTICS.md):
 * {@code breakdown_span_ns}, then per component {@code breakdown_<component>_ns} and
 * {@code breakdown_<component>_stamps}, the provenance of its two stamps as
 * {@code first>second} ({@code user>kernel_software}), or, with an empty value, the reason it is not known.
 */
public final class CsvWriter {
    /** The header row. */
    public static final String HEADER = "record,seq,lost,duplicate,t1_ns,t2_ns,t3_ns,t4_ns,rtt_ns,forward_ns,back_ns,"
            + "processing_ns,forward_ttl,back_ttl,reply_dscp,t1_source,t2_source,t3_source,t4_source,reflector_seq,"
            + "breakdown_span_ns," + breakdownColumns() + "\n";

    private static String breakdownColumns() {
        StringBuilder sb = new StringBuilder();
        for (Component c : Component.values()) {
            sb.append(sb.isEmpty() ? "" : ",").append("breakdown_").append(c.key()).append("_ns,breakdown_")
                    .append(c.key()).append("_stamps");
        }
        return sb.toString();
    }

    private CsvWriter() {
    }

    /** Writes every record of {@code reader} (no client stamps: the breakdown's client parts are not recorded). */
    public static void write(Writer w, SessionDataReader reader, RecordSources sources) throws IOException {
        write(w, reader, sources, null, ReflectorStamps.NONE);
    }

    /**
     * Writes every record of {@code reader} with its delay breakdown.
     *
     * @param stamps    the client's stamps of the measurement, or null
     * @param reflector what the protocol said about the reflector's stamps
     */
    public static void write(Writer w, SessionDataReader reader, RecordSources sources, RecordStamps stamps,
                             ReflectorStamps reflector) throws IOException {
        w.write(HEADER);
        PacketBreakdown b = new PacketBreakdown();
        TwoWayRecord r = new TwoWayRecord();
        BitSet answered = new BitSet();
        StringBuilder sb = new StringBuilder(256);
        long count = reader.recordCount();
        for (long i = 0; i < count; i++) {
            reader.read(i, r);
            short src = SessionResults.source(sources, i);
            boolean lost = r.isLost();
            boolean duplicate = false;
            if (!lost && r.sentSeq < Integer.MAX_VALUE) {
                duplicate = answered.get((int) r.sentSeq);
                answered.set((int) r.sentSeq);
            }
            sb.setLength(0);
            sb.append(i).append(',').append(r.sentSeq).append(',').append(lost ? 1 : 0).append(',')
                    .append(duplicate ? 1 : 0).append(',').append(NtpTime.toEpochNanos(r.sentSendNtp)).append(',');
            if (lost) {
                sb.append(",,,,,,,,,,").append(RecordSources.name(RecordSources.UNKNOWN)).append(",,,,,");
                for (Component c : Component.values()) {
                    sb.append(",,").append(Absence.LOST.key());
                }
                sb.append('\n');
            } else {
                sb.append(NtpTime.toEpochNanos(r.sentRecvNtp)).append(',')
                        .append(NtpTime.toEpochNanos(r.reflSendNtp)).append(',')
                        .append(NtpTime.toEpochNanos(r.reflRecvNtp)).append(',')
                        .append(NtpTime.signedDurationToNanos((r.reflRecvNtp - r.sentSendNtp)
                                - (r.reflSendNtp - r.sentRecvNtp))).append(',')
                        .append(NtpTime.signedDurationToNanos(r.sentRecvNtp - r.sentSendNtp)).append(',')
                        .append(NtpTime.signedDurationToNanos(r.reflRecvNtp - r.reflSendNtp)).append(',')
                        .append(NtpTime.signedDurationToNanos(r.reflSendNtp - r.sentRecvNtp)).append(',')
                        .append(r.sentTtl).append(',').append(r.reflTtl).append(',');
                int dscp = RecordSources.replyDscp(src);
                if (dscp >= 0) {
                    sb.append(dscp);
                }
                sb.append(',').append(RecordSources.name(RecordSources.sendSource(src)))
                        .append(",reflector,reflector,")
                        .append(RecordSources.name(RecordSources.receiveSource(src))).append(',')
                        .append(r.reflSeq).append(',');
                b.compute(i, r, src, stamps, reflector);
                sb.append(b.spanNs());
                for (Component c : Component.values()) {
                    sb.append(',');
                    Absence a = b.absence(c);
                    if (a == null) {
                        sb.append(b.ns(c)).append(',').append(b.from(c).key()).append('>').append(b.to(c).key());
                    } else {
                        sb.append(',').append(a.key());
                    }
                }
                sb.append('\n');
            }
            w.append(sb);
        }
    }
}
