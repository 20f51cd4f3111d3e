package io.github.twping.report.owamp;

import io.github.twping.datafile.SessionHeader;
import io.github.twping.stats.owamp.SummaryResult;
import io.github.twping.time.NtpTime;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.TimeZone;

/** Writer of the human summary (docs/STATISTICS.md), in English (byte-identical to C) or Russian. */
public final class HumanSummaryWriter {
    private HumanSummaryWriter() {
    }

    /** Appends the summary block (warning line, header, statistics, final empty line) to {@code sb}. */
    public static StringBuilder write(StringBuilder sb, SessionHeader header, SummaryResult r, HostInfo hosts,
                                      OutputOptions opts) {
        SummaryLabels l = SummaryLabels.of(opts.language());
        Units u = Units.of(opts.units(), opts.language());
        if (r.clocksOffset()) {
            sb.append(l.clocksWarning());
        }
        SummaryHeaderText.append(sb, l, hosts, header);
        sb.append(l.first());
        appendLocalTime(sb, r.startTimeNtp(), opts.zone());
        sb.append('\n').append(l.last());
        appendLocalTime(sb, r.endTimeNtp(), opts.zone());
        sb.append('\n');

        CFormat.u32(sb, r.sent()).append(l.sent());
        CFormat.u32(sb, r.lost()).append(l.lostOpen());
        CFormat.f(sb, 100.0 * r.lossFraction(), 3).append(l.lostClose());
        CFormat.u32(sb, r.dupsFwd()).append(l.sendDups());
        CFormat.u32(sb, r.dupsBck()).append(l.reflectDups());

        delayLine(sb, l.roundTrip(), r, SummaryResult.RT, u, l);
        delayLine(sb, l.send(), r, SummaryResult.FWD, u, l);
        delayLine(sb, l.reflect(), r, SummaryResult.BCK, u, l);
        sb.append(l.proc());
        value(sb, r.min(SummaryResult.PROC), u).append('/');
        value(sb, r.max(SummaryResult.PROC), u).append(' ').append(u.label()).append('\n');

        jitterLine(sb, l.jitterRt(), r.jitter(SummaryResult.RT), u, l);
        jitterLine(sb, l.jitterFwd(), r.jitter(SummaryResult.FWD), u, l);
        jitterLine(sb, l.jitterBck(), r.jitter(SummaryResult.BCK), u, l);

        float[] pct = opts.percentiles();
        if (pct.length > 0) {
            sb.append(l.percentiles());
            for (float p : pct) {
                sb.append('\t');
                CFormat.f(sb, p, 1).append(": ");
                value(sb, r.percentile(SummaryResult.RT, (double) p / 100.0), u).append(' ').append(u.label())
                    .append('\n');
            }
        }
        hopsLine(sb, l, l.dirSend(), r, true);
        hopsLine(sb, l, l.dirReflect(), r, false);
        sb.append('\n');
        return sb;
    }

    private static void delayLine(StringBuilder sb, String label, SummaryResult r, int type, Units u,
                                  SummaryLabels l) {
        sb.append(label);
        value(sb, r.min(type), u).append('/');
        value(sb, r.median(type), u).append('/');
        value(sb, r.max(type), u).append(' ').append(u.label()).append(", ");
        if (r.sync()) {
            sb.append(l.errOpen());
            CFormat.g(sb, u.scale(r.maxError(type)), 3).append(' ').append(u.label()).append(")\n");
        } else {
            sb.append(l.unsync()).append('\n');
        }
    }

    private static void jitterLine(StringBuilder sb, String label, double jitter, Units u, SummaryLabels l) {
        sb.append(label);
        value(sb, jitter, u).append(' ').append(u.label()).append(l.jitterSuffix());
    }

    /** {@code %.3g} of the scaled value, or the literal {@code nan} for an undefined (NaN) value. */
    static StringBuilder value(StringBuilder sb, double seconds, Units u) {
        if (Double.isNaN(seconds)) {
            return sb.append("nan");
        }
        return CFormat.g(sb, u.scale(seconds), 3);
    }

    private static void hopsLine(StringBuilder sb, SummaryLabels l, String dir, SummaryResult r, boolean forward) {
        int distinct = 0;
        int minTtl = -1;
        int maxTtl = -1;
        for (int t = 0; t < 256; t++) {
            long c = forward ? r.ttlCountFwd(t) : r.ttlCountBck(t);
            if (c != 0) {
                distinct++;
                if (minTtl < 0) {
                    minTtl = t;
                }
                maxTtl = t;
            }
        }
        distinct &= 0xFF; // an 8-bit counter in C
        sb.append(dir);
        if (distinct == 0) {
            sb.append(l.ttlNotReported());
        } else if (distinct == 1) {
            sb.append(l.hopsConsistent1()).append(255 - minTtl).append(l.hopsConsistent2());
        } else {
            sb.append(l.hopsTakes1()).append(distinct).append(l.hopsTakes2()).append(255 - maxTtl)
                .append(l.hopsTakes3()).append(255 - minTtl);
        }
        sb.append('\n');
    }

    /**
     * {@code %Y-%m-%dT%H:%M:%S} in {@code zone} (null: the system's, as C's {@code localtime}), then {@code .%03.0f}
     * of the float milliseconds. The system's zone is read through {@code java.util.TimeZone}, whose offset at the
     * instant is the one {@code ZoneId.systemDefault()} gives, without loading the zone-rules providers.
     */
    static void appendLocalTime(StringBuilder sb, long ntp, ZoneId zone) {
        long epochSeconds = (ntp >>> 32) - NtpTime.JAN_1970;
        long nanos = ((ntp & 0xFFFF_FFFFL) * 1_000_000_000L) >>> 32;
        LocalDateTime t = zone != null ? LocalDateTime.ofInstant(Instant.ofEpochSecond(epochSeconds), zone)
                : local(epochSeconds, TimeZone.getDefault());
        int year = t.getYear();
        sb.append(year).append('-');
        two(sb, t.getMonthValue()).append('-');
        two(sb, t.getDayOfMonth()).append('T');
        two(sb, t.getHour()).append(':');
        two(sb, t.getMinute()).append(':');
        two(sb, t.getSecond()).append('.');
        float ms = (float) nanos / 1000000f;
        CFormat.fZeroPadded(sb, ms, 3, 0);
    }

    /** The local date and time at {@code epochSeconds} in {@code system}, by its offset at that instant. */
    static LocalDateTime local(long epochSeconds, TimeZone system) {
        int offsetSeconds = system.getOffset(epochSeconds * 1000) / 1000;
        return LocalDateTime.ofEpochSecond(epochSeconds, 0, ZoneOffset.ofTotalSeconds(offsetSeconds));
    }

    private static StringBuilder two(StringBuilder sb, int v) {
        if (v < 10) {
            sb.append('0');
        }
        return sb.append(v);
    }
}
