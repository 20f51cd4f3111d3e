package io.github.twping.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.twping.metrics.AgentMetrics;
import io.github.twping.metrics.SessionSample;
import io.github.twping.datafile.RecordSources;
import io.github.twping.stats.breakdown.ReflectorStamps;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.github.twping.session.ReceiverCounters;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

/** {@link SessionAnalysis} over a synthetic data file: the packets after a late start's skipped ones count. */
class SessionAnalysisTest {
    private static final long SECOND = 1L << 32;
    private static final long START = 3_973_000_000L << 32;
    private static final long TEN_MS = 0x028F5C28L;

    private static SessionHeader header(long packets) {
        return new SessionHeader(new byte[16], 4, new byte[] {127, 0, 0, 1}, 9000, new byte[] {127, 0, 0, 1},
                18000, packets, 27, START, 2 * SECOND, 0, new boolean[] {true}, new long[] {TEN_MS},
                SessionHeader.FINISHED_NORMAL);
    }

    private static TwoWayRecord received(TwoWayRecord r, long seq) {
        long send = START + (seq + 1) * TEN_MS;
        r.sentSeq = seq;
        r.sentSendNtp = send;
        r.sentSendErr = 1;
        r.sentRecvNtp = send + TEN_MS / 100;
        r.sentRecvErr = 1;
        r.sentTtl = 255;
        r.reflSeq = seq;
        r.reflSendNtp = send + 2 * (TEN_MS / 100);
        r.reflSendErr = 1;
        r.reflRecvNtp = send + 3 * (TEN_MS / 100);
        r.reflRecvErr = 1;
        r.reflTtl = 255;
        return r;
    }

    @Test
    void shouldCountEverySentPacketWhenTheFirstOnesWereSkipped() throws Exception {
        // 20 scheduled: 0..2 skipped (no record), 3..19 sent, 18 lost
        try (FileChannel data = SessionDataWriter.openAnonymousTempFile(null)) {
            SessionDataWriter w = SessionDataWriter.onChannel(data, header(20), SessionDataWriter.DEFAULT_BATCH_RECORDS);
            TwoWayRecord r = new TwoWayRecord();
            for (long seq = 3; seq < 20; seq++) {
                w.append(seq == 18 ? r.setLost(seq, START + (seq + 1) * TEN_MS, 1) : received(r, seq));
            }
            w.finish(true);
            SessionSample s = SessionAnalysis.analyse(data, 17, 3, new ReceiverCounters(16, 0, 0, 0, 0, 16, 17), true,
                    new ArrayList<>());
            assertEquals(17, s.sent());
            assertEquals(1, s.lost());
            assertEquals(16, s.received());
            assertEquals(3, s.skipped());
            assertEquals(16, s.rtt().length);
        }
    }

    @Test
    void shouldCountOnlyTheHandledPacketsOfAStoppedSession() throws Exception {
        // 20 scheduled, stopped after 1 skipped and 5 sent: seqs 6..19 were never handled
        try (FileChannel data = SessionDataWriter.openAnonymousTempFile(null)) {
            SessionDataWriter w = SessionDataWriter.onChannel(data, header(20), SessionDataWriter.DEFAULT_BATCH_RECORDS);
            TwoWayRecord r = new TwoWayRecord();
            for (long seq = 1; seq < 6; seq++) {
                w.append(received(r, seq));
            }
            w.finish(false);
            SessionSample s = SessionAnalysis.analyse(data, 5, 1, new ReceiverCounters(5, 0, 0, 0, 0, 5, 5), false,
                    new ArrayList<>());
            assertEquals(5, s.sent());
            assertEquals(0, s.lost());
            assertEquals(5, s.rtt().length);
        }
    }

    @Test
    void shouldFeedTheBreakdownOfEachFirstReplyOnce() throws Exception {
        // 10 scheduled: seq 4 lost, seq 2 answered twice, seq 9 beyond the handled ones (stopped after 9)
        try (FileChannel data = SessionDataWriter.openAnonymousTempFile(null)) {
            SessionDataWriter w = SessionDataWriter.onChannel(data, header(10), SessionDataWriter.DEFAULT_BATCH_RECORDS);
            TwoWayRecord r = new TwoWayRecord();
            RecordSources sources = new RecordSources(16);
            for (long seq : new long[] {0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9}) {
                sources.set(w.recordsWritten(), RecordSources.pack(RecordSources.KERNEL_SOFTWARE,
                        RecordSources.KERNEL_SOFTWARE, -1));
                w.append(seq == 4 ? r.setLost(seq, START + (seq + 1) * TEN_MS, 1) : received(r, seq));
            }
            w.finish(false);
            PrometheusRegistry registry = new PrometheusRegistry();
            AgentMetrics m = new AgentMetrics(registry);
            m.addTarget("a");
            AgentMetrics.ComponentRecorder rec = m.components("a");
            SessionAnalysis.breakdown(data, 9, 0, new SessionAnalysis.Breakdown(sources, null, ReflectorStamps.NONE),
                    rec);
            // seqs 0..8 but the lost 4: 8 first replies; forward is 1/100 of 10 ms each
            HistogramSnapshot h = (HistogramSnapshot) registry.scrape().stream()
                    .filter(s -> s.getMetadata().getName().equals("twping_agent_delay_component_seconds")).findFirst()
                    .orElseThrow();
            var forward = h.getDataPoints().stream()
                    .filter(p -> p.getLabels().get("component").equals("forward")).findFirst().orElseThrow();
            assertEquals(8, forward.getCount());
            assertEquals(8 * 100e-6, forward.getSum(), 1e-7);
            // without the client's stamps, its parts are unknown and not observed
            assertEquals(0, h.getDataPoints().stream()
                    .filter(p -> p.getLabels().get("component").equals("sender_stack")).count());
        }
    }
}
