package io.github.twping.report.owamp;

import io.github.twping.stats.owamp.RecordListener;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Writer of the per-packet {@code -v} lines (docs/STATISTICS.md), called by the statistics pass. Lines are
 * built in a reused buffer and written to the destination in chunks.
 */
public final class PerPacketWriter implements RecordListener {
    private static final double JAN_1970 = 2208988800.0;
    private static final int FLUSH_CHARS = 16 * 1024;

    private final StringBuilder sb = new StringBuilder(FLUSH_CHARS + 512);
    private final PrintStream out;
    private final Units units;
    private final boolean unix;

    /**
     * @param out  destination (the summary destination: stdout or a {@code -p} file)
     * @param opts units ({@code -n}) and {@code -U}
     */
    public PerPacketWriter(PrintStream out, OutputOptions opts) {
        this.out = out;
        this.units = Units.of(opts.units(), Language.EN);
        this.unix = opts.unix();
    }

    /** Buffered text (for tests and for callers that collect instead of streaming). */
    StringBuilder buffer() {
        return sb;
    }

    @Override
    public void onLost(TwoWayRecord r) {
        CFormat.u32LeftJustified(sb.append("seq_no="), r.sentSeq, 10).append(" *LOST*\n");
        maybeFlush();
    }

    @Override
    public void onReceived(TwoWayRecord r, double fwd, double bck, double rt, double proc, double errRt) {
        String label = units.label();
        if (unix) {
            sb.append("seq_no=").append((int) r.sentSeq);
            CFormat.e(sb.append(" fwd_delay="), units.scale(fwd)).append(' ').append(label);
            CFormat.e(sb.append(" bck_delay="), units.scale(bck)).append(' ').append(label);
            CFormat.e(sb.append(" delay="), units.scale(rt)).append(' ').append(label);
            CFormat.e(sb.append(" proc_delay="), units.scale(proc)).append(' ').append(label);
            CFormat.g(sb.append(" (err="), units.scale(errRt), 3).append(' ').append(label).append(')');
            CFormat.f(sb.append(" sent="), unixSeconds(r.sentSendNtp));
            CFormat.f(sb.append(" recv="), unixSeconds(r.sentRecvNtp));
            CFormat.f(sb.append(" reflected="), unixSeconds(r.reflSendNtp));
            CFormat.f(sb.append(" recv="), unixSeconds(r.reflRecvNtp)).append('\n');
        } else {
            CFormat.u32LeftJustified(sb.append("seq_no="), r.sentSeq, 10);
            CFormat.g(sb.append(" fwd_delay="), units.scale(fwd), 3).append(' ').append(label);
            CFormat.g(sb.append(" bck_delay="), units.scale(bck), 3).append(' ').append(label);
            CFormat.g(sb.append(" delay="), units.scale(rt), 3).append(' ').append(label);
            CFormat.g(sb.append(" proc_delay="), units.scale(proc), 3).append(' ').append(label);
            CFormat.g(sb.append("\t(err="), units.scale(errRt), 3).append(' ').append(label).append(")\n");
        }
        maybeFlush();
    }

    /** {@code D(t) - 2208988800.0} (docs/STATISTICS.md). */
    private static double unixSeconds(long ntp) {
        return NtpTime.toDouble(ntp) - JAN_1970;
    }

    private void maybeFlush() {
        if (sb.length() >= FLUSH_CHARS) {
            flush();
        }
    }

    /** Writes buffered lines to the destination. */
    public void flush() {
        if (sb.isEmpty()) {
            return;
        }
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        out.write(bytes, 0, bytes.length);
        sb.setLength(0);
    }
}
