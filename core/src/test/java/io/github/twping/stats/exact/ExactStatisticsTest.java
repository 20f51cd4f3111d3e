package io.github.twping.stats.exact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

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

    /** A session 100 s after {@link #header}'s: its header and its records. */
    private static final long LATER = 100L << 32;

    private static SessionHeader laterHeader(long packets) {
        return new SessionHeader(new byte[16], 4, new byte[] {127, 0, 0, 1}, 9000, new byte[] {127, 0, 0, 1}, 9001,
                packets, 0, START + LATER, 2L << 32, 46 << 24, new boolean[] {true}, new long[] {TEN_MS},
                SessionHeader.FINISHED_NORMAL);
    }

    private static TwoWayRecord later(TwoWayRecord r) {
        r.sentSendNtp += LATER;
        r.sentRecvNtp += LATER;
        r.reflSendNtp += LATER;
        r.reflRecvNtp += LATER;
        return r;
    }

    private static void feedFirst(ExactStatistics e) {
        short kernel = RecordSources.pack(RecordSources.KERNEL_SOFTWARE, RecordSources.KERNEL_HARDWARE, 46 << 2);
        e.accept(reply(0, 0, 1_000, 100_000, 5_000, 200_000, 250), kernel);
        e.accept(reply(2, 1, 2_000, 110_000, 5_000, 200_000, 250), kernel);
        e.accept(reply(1, 2, 3_000, 120_000, 5_000, 200_000, 251), kernel);
        e.accept(reply(1, 3, 3_000, 120_000, 5_000, 200_000, 251), kernel);
        e.accept(new TwoWayRecord().setLost(3, START + 4 * TEN_MS, SYNC_ERR), (short) 0);
    }

    private static void feedSecond(ExactStatistics e) {
        short user = RecordSources.pack(RecordSources.USER, RecordSources.USER, -1);
        e.accept(later(reply(0, 0, 7_000, 300_000, 9_000, 100_000, 240)), user);
        e.accept(later(reply(1, 1, 8_000, 310_000, 9_000, 120_000, 241)), user);
        e.resetInterval();
        e.accept(later(reply(2, 2, 6_000, 290_000, 9_000, 110_000, 240)), user);
        e.accept(new TwoWayRecord().setLost(3, START + LATER + 4 * TEN_MS, SYNC_ERR), (short) 0);
        e.accept(later(reply(4, 4, 5_000, 280_000, 9_000, 130_000, 242)), user);
    }

    @Test
    void anEngineStartedAgainGivesWhatANewOneGives() {
        ExactStatistics used = ExactStatistics.sizedForSession(header(6), null);
        feedFirst(used);
        used.resetInterval();
        assertEquals(5, used.total().records());

        ExactStatistics again = ExactStatistics.sizedForSession(laterHeader(5), used);
        assertSame(used, again, "same window (8): the buffers are reused");
        ExactStatistics fresh = ExactStatistics.sizedForSession(laterHeader(5));
        feedSecond(again);
        feedSecond(fresh);
        assertSameSummary(fresh.total(), again.total());
        assertSameSummary(fresh.interval(), again.interval());
        assertEquals(fresh.backLost(), again.backLost());
        assertEquals(fresh.forwardLost(), again.forwardLost());
        assertEquals(0, again.total().duplicates(), "seq 0-2 of the first session are not duplicates of this one");
        assertEquals(5_000, again.total().sendLateness().min(), 2, "lateness against this session's schedule");

        ExactStatistics other = ExactStatistics.sizedForSession(header(1_000), used);
        assertNotSame(used, other, "another window: a new engine");
        assertEquals(1_024, other.window());
    }

    private static void assertSameSummary(ExactSummary want, ExactSummary got) {
        assertEquals(want.records(), got.records());
        assertEquals(want.lost(), got.lost());
        assertEquals(want.received(), got.received());
        assertEquals(want.sent(), got.sent());
        assertEquals(want.duplicates(), got.duplicates());
        assertEquals(want.reordered(), got.reordered());
        for (int source = 0; source < 4; source++) {
            assertEquals(want.sendSourceCount(source), got.sendSourceCount(source));
            assertEquals(want.receiveSourceCount(source), got.receiveSourceCount(source));
        }
        for (int ttl = 0; ttl < 256; ttl++) {
            assertEquals(want.forwardTtlCount(ttl), got.forwardTtlCount(ttl));
            assertEquals(want.backTtlCount(ttl), got.backTtlCount(ttl));
        }
        for (int dscp = 0; dscp <= ExactSummary.DSCP_UNKNOWN; dscp++) {
            assertEquals(want.replyDscpCount(dscp), got.replyDscpCount(dscp));
        }
        assertEquals(want.localSynchronised(), got.localSynchronised());
        assertEquals(want.localUnsynchronised(), got.localUnsynchronised());
        assertEquals(want.remoteSynchronised(), got.remoteSynchronised());
        assertEquals(want.remoteUnsynchronised(), got.remoteUnsynchronised());
        assertEquals(want.maxSendErrorSeconds(), got.maxSendErrorSeconds());
        assertEquals(want.maxReflectorReceiveErrorSeconds(), got.maxReflectorReceiveErrorSeconds());
        assertEquals(want.maxReflectorSendErrorSeconds(), got.maxReflectorSendErrorSeconds());
        assertEquals(want.maxReceiveErrorSeconds(), got.maxReceiveErrorSeconds());
        assertEquals(want.firstSendNtp(), got.firstSendNtp());
        assertEquals(want.lastSendNtp(), got.lastSendNtp());
        DelayDistribution[] w = {want.roundTrip(), want.forward(), want.back(), want.processing(), want.ipdvRoundTrip(),
            want.ipdvForward(), want.ipdvBack(), want.sendLateness()};
        DelayDistribution[] g = {got.roundTrip(), got.forward(), got.back(), got.processing(), got.ipdvRoundTrip(),
            got.ipdvForward(), got.ipdvBack(), got.sendLateness()};
        for (int i = 0; i < w.length; i++) {
            assertEquals(w[i].count(), g[i].count(), "distribution " + i);
            if (w[i].count() > 0) {
                assertEquals(w[i].min(), g[i].min(), "distribution " + i);
                assertEquals(w[i].max(), g[i].max(), "distribution " + i);
                assertEquals(w[i].mean(), g[i].mean(), "distribution " + i);
                assertEquals(w[i].percentile(50), g[i].percentile(50), "distribution " + i);
                assertEquals(w[i].percentile(99), g[i].percentile(99), "distribution " + i);
            }
        }
    }
}
