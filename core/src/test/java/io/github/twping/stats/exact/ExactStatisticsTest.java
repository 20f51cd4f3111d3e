package io.github.twping.stats.exact;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.ErrorEstimate;
import io.github.twping.time.NtpTime;
import org.junit.jupiter.api.Test;

class ExactStatisticsTest {
    private static final long START = 3_973_000_000L << 32;
    private static final long TEN_MS = NtpTime.durationFromNanos(10_000_000);
    private static final int SYNC_ERR = ErrorEstimate.encode(true, 10);
    private static final int UNSYNC_ERR = ErrorEstimate.encode(false, 10);

    private static SessionHeader header(long packets) {
        return new SessionHeader(new byte[16], 4, new byte[] {127, 0, 0, 1}, 9000, new byte[] {127, 0, 0, 1}, 9001,
                packets, 0, START, 2L << 32, 46 << 24, new boolean[] {true}, new long[] {TEN_MS},
                SessionHeader.FINISHED_NORMAL);
    }

    /** A reply: sent {@code lateNs} after its schedule, forward/processing/back in ns. */
    private static TwoWayRecord reply(long seq, long reflSeq, long lateNs, long fwdNs, long procNs, long bckNs, int ttl) {
        TwoWayRecord r = new TwoWayRecord();
        long t1 = START + (seq + 1) * TEN_MS + NtpTime.durationFromNanos(lateNs);
        long t2 = t1 + NtpTime.durationFromNanos(fwdNs);
        long t3 = t2 + NtpTime.durationFromNanos(procNs);
        long t4 = t3 + NtpTime.durationFromNanos(bckNs);
        r.sentSeq = seq;
        r.sentSendNtp = t1;
        r.sentSendErr = SYNC_ERR;
        r.sentRecvNtp = t2;
        r.sentRecvErr = UNSYNC_ERR;
        r.sentTtl = ttl;
        r.reflSeq = reflSeq;
        r.reflSendNtp = t3;
        r.reflSendErr = UNSYNC_ERR;
        r.reflRecvNtp = t4;
        r.reflRecvErr = SYNC_ERR;
        r.reflTtl = 254;
        return r;
    }

    @Test
    void classifiesLossDuplicatesReorderingAndIpdv() {
        ExactStatistics e = new ExactStatistics(header(6));
        short kernel = RecordSources.pack(RecordSources.KERNEL_SOFTWARE, RecordSources.KERNEL_HARDWARE, 46 << 2);
        short user = RecordSources.pack(RecordSources.USER, RecordSources.USER, -1);
        e.accept(reply(0, 0, 1_000, 100_000, 5_000, 200_000, 250), kernel);
        e.accept(reply(2, 1, 2_000, 110_000, 5_000, 200_000, 250), kernel);     // seq 1 still outstanding
        e.accept(reply(1, 2, 3_000, 120_000, 5_000, 200_000, 251), user);       // reordered
        e.accept(reply(1, 3, 3_000, 120_000, 5_000, 200_000, 251), user);       // duplicate
        e.accept(new TwoWayRecord().setLost(3, START + 4 * TEN_MS, SYNC_ERR), (short) 0);
        // seq 4 lost on the way back: the reflector numbered its reply 4, which never arrived
        e.accept(reply(5, 5, 500, 100_000, 5_000, 190_000, 250), kernel);
        e.accept(new TwoWayRecord().setLost(4, START + 5 * TEN_MS, SYNC_ERR), (short) 0);

        ExactSummary s = e.total();
        assertEquals(7, s.records());
        assertEquals(4, s.received());
        assertEquals(2, s.lost());
        assertEquals(6, s.sent());
        assertEquals(1, s.duplicates());
        assertEquals(1, s.reordered());
        // replies numbered 0..5 by the reflector = 6 sent by it, 5 reply records arrived: one back loss
        assertEquals(1, e.backLost());
        assertEquals(1, e.forwardLost());

        DelayDistribution rtt = s.roundTrip();
        assertEquals(4, rtt.count());
        assertEquals(290_000, rtt.min(), 2);
        assertEquals(320_000, rtt.max(), 2);
        assertEquals(300_000, rtt.percentile(50), 2);     // 290, 300, 310, 320 µs -> second
        assertEquals(100_000, s.forward().min(), 2);
        assertEquals(5_000, s.processing().max(), 2);
        // IPDV pairs (0,1), (1,2): +10 µs then -10 µs of forward delay; (4,5) not a pair (4 lost)
        assertEquals(2, s.ipdvRoundTrip().count());
        assertEquals(-10_000, s.ipdvForward().min(), 3);
        assertEquals(20_000, s.ipdvForward().max(), 3);
        // lateness against the schedule (start + (seq+1) * 10 ms)
        assertEquals(500, s.sendLateness().min(), 2);
        assertEquals(3_000, s.sendLateness().max(), 2);

        assertEquals(3, s.sendSourceCount(RecordSources.KERNEL_SOFTWARE));
        assertEquals(1, s.sendSourceCount(RecordSources.USER));
        assertEquals(3, s.receiveSourceCount(RecordSources.KERNEL_HARDWARE));
        assertEquals(3, s.replyDscpCount(46));
        assertEquals(1, s.replyDscpCount(ExactSummary.DSCP_UNKNOWN));
        assertEquals(250, s.minTtl(true));
        assertEquals(251, s.maxTtl(true));
        assertEquals(8, s.localSynchronised());
        assertEquals(8, s.remoteUnsynchronised());
    }

    @Test
    void intervalsResetWithoutLosingTheSessionState() {
        ExactStatistics e = new ExactStatistics(header(4));
        e.accept(reply(0, 0, 0, 100_000, 1_000, 100_000, 255), (short) 0);
        e.accept(reply(1, 1, 0, 100_000, 1_000, 100_000, 255), (short) 0);
        assertEquals(2, e.interval().received());
        e.resetInterval();
        assertEquals(0, e.interval().records());
        e.accept(reply(1, 2, 0, 100_000, 1_000, 100_000, 255), (short) 0);    // duplicate across intervals
        e.accept(reply(2, 3, 0, 130_000, 1_000, 100_000, 255), (short) 0);
        assertEquals(1, e.interval().duplicates());
        assertEquals(1, e.interval().received());
        assertEquals(1, e.interval().ipdvForward().count());                 // pair (1,2) straddles the cut
        assertEquals(30_000, e.interval().ipdvForward().max(), 2);
        assertEquals(3, e.total().received());
    }

    @Test
    void reflectorNumberingThatCannotExplainTheRepliesGivesNoSplit() {
        ExactStatistics e = new ExactStatistics(header(3));
        e.accept(reply(0, 7, 0, 1, 1, 1, 255), (short) 0);     // a reflector that does not count from 0
        e.accept(new TwoWayRecord().setLost(1, START + 2 * TEN_MS, SYNC_ERR), (short) 0);
        assertEquals(-1, e.backLost());
        assertEquals(-1, e.forwardLost());
    }
}
