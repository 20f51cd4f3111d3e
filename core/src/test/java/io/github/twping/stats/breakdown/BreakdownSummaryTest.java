package io.github.twping.stats.breakdown;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The session summary: first replies only, the slowest packets, and the dominant component of the p99 by definition. */
class BreakdownSummaryTest {
    private static final long BASE_NS = 1_780_000_000_000_000_000L;
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private static long ntp(long ns) {
        return NtpTime.fromEpochNanos(BASE_NS + ns);
    }

    private static TwoWayRecord reply(long seq, long residenceNs, long backNs) {
        long t1 = seq * 10 * MS;
        TwoWayRecord r = new TwoWayRecord();
        r.sentSeq = seq;
        r.sentSendNtp = ntp(t1);
        r.sentSendErr = 1;
        r.sentRecvNtp = ntp(t1 + 10_000);
        r.sentRecvErr = 1;
        r.reflSeq = seq;
        r.reflSendNtp = ntp(t1 + 10_000 + residenceNs);
        r.reflSendErr = 1;
        r.reflRecvNtp = ntp(t1 + 10_000 + residenceNs + backNs);
        r.reflRecvErr = 1;
        r.sentTtl = 255;
        r.reflTtl = 255;
        return r;
    }

    private SessionDataReader write(TwoWayRecord... records) throws Exception {
        byte[] addr = {127, 0, 0, 1};
        long interval = NtpTime.fromSeconds(0.01);
        SessionHeader header = new SessionHeader(new byte[16], 4, addr, 1, addr, 2, 201, 0, ntp(0), NtpTime.fromSeconds(2),
                0, new boolean[] {true}, new long[] {interval}, SessionHeader.FINISHED_NORMAL);
        Path file = dir.resolve("s.owp");
        try (SessionDataWriter w = SessionDataWriter.create(file, header)) {
            for (TwoWayRecord r : records) {
                w.append(r);
            }
        }
        return SessionDataReader.open(file);
    }

    @Test
    void theTailOfTheSpanDecidesTheDominantComponent() throws Exception {
        TwoWayRecord[] records = new TwoWayRecord[202];
        for (int seq = 0; seq < 200; seq++) {
            long residence = seq == 7 ? 1 * MS + 50_000 : 50_000;           // one slow reflector turn of 1 ms
            long back = seq == 50 ? 5 * MS + 10_000 : seq == 120 ? 6 * MS + 10_000 : 10_000;  // two late replies
            records[seq] = reply(seq, residence, back);
        }
        records[200] = reply(50, 0, 9 * MS);                                 // a duplicate: not counted
        records[201] = new TwoWayRecord().setLost(200, ntp(2_000 * MS), 1);  // a lost packet: not counted
        BreakdownSummary summary;
        try (SessionDataReader reader = write(records)) {
            summary = BreakdownSummary.of(reader, null, null, ReflectorStamps.NONE, 3);
        }
        assertEquals(200, summary.statistics().packets());
        // p99 by nearest rank over 200 spans is the 198th smallest: the 1 ms packet; the tail is it and the two late ones
        assertEquals(10_000 + MS + 50_000 + 10_000, summary.tailFromNs(), 2);
        assertEquals(3, summary.tailPackets());
        assertEquals(Component.BACK, summary.dominant());
        assertEquals((5 * MS + 10_000 + 6 * MS + 10_000 + 10_000) / 3.0, summary.tailMeanNs(Component.BACK), 2);
        assertEquals((2 * 50_000 + MS + 50_000) / 3.0, summary.tailMeanNs(Component.REFLECTOR_RESIDENCE), 2);
        assertTrue(Double.isNaN(summary.tailMeanNs(Component.SENDER_STACK)), "no client stamps: never known");
        assertEquals(3, summary.slowest().size());
        assertEquals(120, summary.slowest().get(0).seq(), "largest span first");
        assertEquals(50, summary.slowest().get(1).seq());
        assertEquals(7, summary.slowest().get(2).seq());
        assertEquals(200, summary.statistics().absent(Component.SENDER_STACK, Absence.NOT_RECORDED));
        assertEquals(200, summary.statistics().provenance(Component.FORWARD, StampOrigin.UNKNOWN, StampOrigin.REFLECTOR));
        assertEquals(6 * MS + 10_000, summary.statistics().component(Component.BACK).max(), 2);
    }

    @Test
    void noReplyNoDominantComponent() throws Exception {
        BreakdownSummary summary;
        try (SessionDataReader reader = write(new TwoWayRecord().setLost(0, ntp(0), 1))) {
            summary = BreakdownSummary.of(reader, null, null, ReflectorStamps.NONE, 3);
        }
        assertEquals(0, summary.statistics().packets());
        assertNull(summary.dominant());
        assertTrue(summary.slowest().isEmpty());
    }
}
