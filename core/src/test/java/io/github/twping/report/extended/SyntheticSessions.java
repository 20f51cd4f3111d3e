package io.github.twping.report.extended;

import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;

import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.ErrorEstimate;
import io.github.twping.time.NtpTime;

/**
 * Data files of sessions made up for the report tests (no network): a fixed schedule of {@code packets} packets
 * every {@code intervalNs}, with µs-scale delays from a seeded generator, one 9 ms spike, every
 * {@code lossEvery}-th packet lost and every {@code dupEvery}-th answered twice. Records are in arrival order
 * as a client writes them: a packet's reply after the replies sent before it (a lost record at its loss time).
 */
final class SyntheticSessions {
    static final long START_NTP = 3_973_000_000L << 32;

    private SyntheticSessions() {
    }

    /** What was written, to compare the report with. */
    record Written(long packets, long lost, long duplicates, long spikeSeq, long maxRttNs) {
    }

    static SessionHeader header(long packets, long intervalNs) {
        return new SessionHeader(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 4,
                new byte[] {127, 0, 0, 1}, 9000, new byte[] {127, 0, 0, 1}, 862, packets, 0, START_NTP,
                NtpTime.ONE_SECOND, 0, new boolean[] {true}, new long[] {NtpTime.durationFromNanos(intervalNs)},
                SessionHeader.FINISHED_NORMAL);
    }

    static Written write(Path file, long packets, long intervalNs, int lossEvery, int dupEvery) throws IOException {
        return write(file, packets, intervalNs, lossEvery, dupEvery, 0);
    }

    /**
     * As {@link #write(Path, long, long, int, int)}; with {@code latenessStepNs} > 0 the send lateness grows by
     * that much per packet, and each pair of packets arrives swapped (seq 1 before seq 0, 3 before 2...).
     */
    static Written write(Path file, long packets, long intervalNs, int lossEvery, int dupEvery, long latenessStepNs)
            throws IOException {
        SessionHeader h = header(packets, intervalNs);
        SplittableRandom random = new SplittableRandom(25);
        long delta = h.slotValueNtp(0);
        long spike = packets / 3;
        long lost = 0;
        long dups = 0;
        long maxRtt = 0;
        int err = ErrorEstimate.encode(true, 1);
        TwoWayRecord r = new TwoWayRecord();
        try (SessionDataWriter w = SessionDataWriter.create(file, h)) {
            for (long k = 0; k < packets; k++) {
                long seq = latenessStepNs > 0 && (k ^ 1) < packets ? k ^ 1 : k;
                long scheduled = START_NTP + (seq + 1) * delta;
                if (lossEvery > 0 && seq % lossEvery == lossEvery - 1) {
                    w.append(r.setLost(seq, scheduled, err));
                    lost++;
                    continue;
                }
                long late = latenessStepNs > 0 ? 2_000 + seq * latenessStepNs : 2_000 + random.nextLong(3_000);
                long fwd = 4_000 + random.nextLong(2_000);
                long proc = 10_000 + random.nextLong(5_000);
                long back = seq == spike ? 9_000_000 : 5_000 + random.nextLong(2_000 + (random.nextInt(100) == 0 ? 200_000 : 0));
                maxRtt = Math.max(maxRtt, fwd + back);
                r.sentSeq = seq;
                r.sentSendNtp = scheduled + NtpTime.durationFromNanos(late);
                r.sentSendErr = err;
                r.sentRecvNtp = r.sentSendNtp + NtpTime.durationFromNanos(fwd);
                r.sentRecvErr = err;
                r.sentTtl = 255;
                r.reflSeq = seq;
                r.reflSendNtp = r.sentRecvNtp + NtpTime.durationFromNanos(proc);
                r.reflSendErr = err;
                r.reflRecvNtp = r.reflSendNtp + NtpTime.durationFromNanos(back);
                r.reflRecvErr = err;
                r.reflTtl = 254;
                w.append(r);
                if (dupEvery > 0 && seq % dupEvery == dupEvery - 1) {
                    r.reflRecvNtp += NtpTime.durationFromNanos(1_000);
                    w.append(r);
                    dups++;
                }
            }
            w.finish(true);
        }
        return new Written(packets, lost, dups, spike, maxRtt);
    }
}
