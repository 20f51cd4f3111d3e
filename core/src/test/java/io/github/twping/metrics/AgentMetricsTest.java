package io.github.twping.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.RecordStamps;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.stats.breakdown.PacketBreakdown;
import io.github.twping.stats.breakdown.ReflectorStamps;
import io.github.twping.time.NtpTime;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

class AgentMetricsTest {
    /** Series per target in the text exposition once a session ended: the figure docs/FLEET.md gives. */
    static final int SERIES_PER_TARGET = 195;
    /** Series per target before its first session ends (docs/FLEET.md): no histogram or quantile series yet. */
    static final int SERIES_PER_NEW_TARGET = 28;

    static SessionSample sample(boolean completed) {
        return new SessionSample(10, 2, 1, 1, 0, 3, 1, new double[] {1e-5, 2e-5, 3e-5, 4e-5, 1e-3, 2e-3, 3e-3, 4e-3},
                new double[] {1e-5, 2e-5, 3e-5, 4e-5, 5e-5, 6e-5, 7e-5, 8e-5},
                new double[] {1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 9e-5}, 1, 2, false, 3e-6, 2e-6, 1e-6,
                9, 1, 8, 2, 1.8e9, completed);
    }

    private static long seriesOf(String text, String target) {
        return text.lines().filter(l -> !l.startsWith("#") && l.contains("target=\"" + target + "\"")).count();
    }

    @Test
    void shouldExposeABoundedDocumentedSetOfSeriesPerTargetAndRemoveThem() {
        PrometheusRegistry registry = new PrometheusRegistry();
        AgentMetrics m = new AgentMetrics(registry);
        m.addTarget("a");
        m.addTarget("b");
        assertEquals(SERIES_PER_NEW_TARGET, seriesOf(PrometheusText.of(registry), "a"));
        m.recordSession("a", sample(true));
        m.recordSession("a", sample(false));
        m.recordFailure("a", FailureReason.CONNECT);
        m.recordSession("b", sample(true));
        String text = PrometheusText.of(registry);
        assertEquals(SERIES_PER_TARGET, seriesOf(text, "a"));
        assertEquals(SERIES_PER_TARGET, seriesOf(text, "b"));
        m.removeTarget("a");
        String after = PrometheusText.of(registry);
        assertEquals(0, seriesOf(after, "a"));
        assertEquals(SERIES_PER_TARGET, seriesOf(after, "b"));
    }

    /**
     * The replies a session could not use, by reason (docs/FLEET.md), created at zero with the target; and the TAI
     * offset of PTP timestamps, only while the target's last session had some. Neither was exported before.
     */
    @Test
    void shouldCountBadRepliesByReasonAndSayTheTaiOffsetOfPtpTimestamps() {
        PrometheusRegistry registry = new PrometheusRegistry();
        AgentMetrics m = new AgentMetrics(registry);
        m.addTarget("s", "stamp");
        String t = PrometheusText.of(registry);
        assertTrue(t.contains("twping_agent_bad_replies_total{protocol=\"stamp\",reason=\"foreign\",target=\"s\"} 0.0"), t);
        assertFalse(t.contains("twping_agent_ptp_tai_offset_seconds{"), t);
        m.recordBadReplies("s", 1, 2, 3, 4);
        m.recordBadReplies("s", 0, 0, 5, 0);
        m.recordPtpTaiOffset("s", true, 0);
        t = PrometheusText.of(registry);
        assertTrue(t.contains("twping_agent_bad_replies_total{protocol=\"stamp\",reason=\"too_short\",target=\"s\"} 1.0"), t);
        assertTrue(t.contains("twping_agent_bad_replies_total{protocol=\"stamp\",reason=\"bad_hmac\",target=\"s\"} 2.0"), t);
        assertTrue(t.contains("twping_agent_bad_replies_total{protocol=\"stamp\",reason=\"foreign\",target=\"s\"} 8.0"), t);
        assertTrue(t.contains("twping_agent_bad_replies_total{protocol=\"stamp\",reason=\"malformed\",target=\"s\"} 4.0"), t);
        assertTrue(t.contains("twping_agent_ptp_tai_offset_seconds{protocol=\"stamp\",target=\"s\"} 0.0"), t);
        m.recordPtpTaiOffset("s", true, 37);
        assertTrue(PrometheusText.of(registry).contains(
                "twping_agent_ptp_tai_offset_seconds{protocol=\"stamp\",target=\"s\"} 37.0"));
        m.recordPtpTaiOffset("s", false, 37);
        assertFalse(PrometheusText.of(registry).contains("twping_agent_ptp_tai_offset_seconds{"));
        m.recordPtpTaiOffset("s", true, 37);
        m.removeTarget("s");
        assertEquals(0, seriesOf(PrometheusText.of(registry), "s"));
    }

    @Test
    void shouldRecordCountsQuantilesAndState() {
        PrometheusRegistry registry = new PrometheusRegistry();
        AgentMetrics m = new AgentMetrics(registry);
        m.addTarget("a");
        m.recordSession("a", sample(true));
        m.recordSession("a", sample(false));
        m.recordFailure("a", FailureReason.DNS);
        String t = PrometheusText.of(registry);
        assertTrue(t.contains("twping_agent_packets_sent_total{protocol=\"twamp\",target=\"a\"} 20.0"), t);
        assertTrue(t.contains("twping_agent_packets_lost_total{protocol=\"twamp\",target=\"a\"} 4.0"), t);
        assertTrue(t.contains("twping_agent_packets_received_total{protocol=\"twamp\",target=\"a\"} 16.0"), t);
        assertTrue(t.contains("twping_agent_packets_skipped_total{protocol=\"twamp\",target=\"a\"} 2.0"), t);
        assertTrue(t.contains("twping_agent_sessions_total{protocol=\"twamp\",target=\"a\"} 1.0"), t);
        assertTrue(t.contains("twping_agent_sessions_partial_total{protocol=\"twamp\",target=\"a\"} 1.0"), t);
        assertTrue(t.contains("twping_agent_packets_reordered_total{direction=\"back\",protocol=\"twamp\",target=\"a\"} 2.0"), t);
        assertTrue(t.contains("twping_agent_session_failures_total{protocol=\"twamp\",reason=\"dns\",target=\"a\"} 1.0"), t);
        assertTrue(t.contains("twping_agent_target_up{protocol=\"twamp\",target=\"a\"} 0.0"), t);
        assertTrue(t.contains("twping_agent_hops{direction=\"back\",protocol=\"twamp\",target=\"a\"} 2.0"), t);
        // nearest rank: p50 of 8 values is the 4th, p99 and max the 8th
        assertTrue(t.contains("twping_agent_last_session_delay_seconds{direction=\"rtt\",protocol=\"twamp\",stat=\"p50\",target=\"a\"} 4.0E-5"), t);
        assertTrue(t.contains("twping_agent_last_session_delay_seconds{direction=\"rtt\",protocol=\"twamp\",stat=\"max\",target=\"a\"} 0.004"), t);
        assertTrue(t.contains("twping_agent_delay_seconds_bucket{direction=\"back\",protocol=\"twamp\",target=\"a\",le=\"1.0E-5\"} 14"), t);
        assertTrue(t.contains("twping_agent_delay_seconds_count{direction=\"rtt\",protocol=\"twamp\",target=\"a\"} 16"), t);
        assertTrue(t.contains("twping_agent_timestamps_total{protocol=\"twamp\",source=\"user\",stamp=\"tx\",target=\"a\"} 4.0"), t);
        assertFalse(t.contains("NaN"), t);
    }

    @Test
    void shouldTakeNearestRankQuantiles() {
        double[] v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assertEquals(1, SessionSample.quantile(v, 0));
        assertEquals(5, SessionSample.quantile(v, 0.5));
        assertEquals(9, SessionSample.quantile(v, 0.9));
        assertEquals(10, SessionSample.quantile(v, 0.99));
        assertEquals(10, SessionSample.quantile(v, 1));
        assertTrue(Double.isNaN(SessionSample.quantile(new double[0], 0.5)));
    }

    /**
     * The breakdown of an answered TWAMP packet: 2 µs late, sender stack 3 µs (only with a kernel TX stamp), forward
     * 30 µs, reflector residence 10 µs, back 40 µs, receiver wake-up 5 µs; no reflector stack (no Follow-Up).
     */
    static PacketBreakdown packet(long seq, boolean kernelTx) {
        long userSend = 1_800_000_000_000_000_000L + seq * 1_000_000;
        long forwardStart = userSend + (kernelTx ? 3_000 : 0);
        TwoWayRecord r = new TwoWayRecord();
        r.sentSeq = seq;
        r.reflSeq = seq;
        r.sentSendNtp = NtpTime.fromEpochNanos(forwardStart);
        r.sentRecvNtp = NtpTime.fromEpochNanos(forwardStart + 30_000);
        r.reflSendNtp = NtpTime.fromEpochNanos(forwardStart + 40_000);
        r.reflRecvNtp = NtpTime.fromEpochNanos(forwardStart + 80_000);
        RecordStamps stamps = new RecordStamps(1);
        stamps.set(0, NtpTime.fromEpochNanos(userSend - 2_000), NtpTime.fromEpochNanos(userSend),
                kernelTx ? r.sentSendNtp : 0, false, NtpTime.fromEpochNanos(forwardStart + 85_000));
        short sources = RecordSources.pack(kernelTx ? RecordSources.KERNEL_SOFTWARE : RecordSources.USER,
                RecordSources.KERNEL_SOFTWARE, -1);
        return new PacketBreakdown().compute(0, r, sources, stamps, ReflectorStamps.NONE);
    }

    @Test
    void shouldObserveTheKnownComponentsOfEachPacketWithTheirSources() {
        PrometheusRegistry registry = new PrometheusRegistry();
        AgentMetrics m = new AgentMetrics(registry);
        m.addTarget("a");
        m.addTarget("b");
        assertFalse(PrometheusText.of(registry).contains("twping_agent_delay_component"), "nothing before a session");
        AgentMetrics.ComponentRecorder rec = m.components("a");
        for (long seq = 0; seq < 10; seq++) {
            rec.accept(packet(seq, seq % 2 == 0));
        }
        rec.accept(new PacketBreakdown());                          // a lost packet counts nowhere
        rec.finish();
        String t = PrometheusText.of(registry);
        String a = "protocol=\"twamp\",target=\"a\"";
        for (String c : new String[] {"pacing_lateness", "forward", "reflector_residence", "back", "receiver_wakeup"}) {
            assertTrue(t.contains("twping_agent_delay_component_seconds_count{component=\"" + c + "\"," + a + "} 10"), c + "\n" + t);
        }
        // the sender stack only where the kernel gave a TX stamp; no reflector stack without Follow-Up Telemetry
        assertTrue(t.contains("twping_agent_delay_component_seconds_count{component=\"sender_stack\"," + a + "} 5"), t);
        assertFalse(t.contains("twping_agent_delay_component_seconds_count{component=\"reflector_stack\""), t);
        assertTrue(t.contains("twping_agent_delay_component_seconds_bucket{component=\"back\"," + a + ",le=\"2.0E-5\"} 0"), t);
        assertTrue(t.contains("twping_agent_delay_component_seconds_bucket{component=\"back\"," + a + ",le=\"5.0E-5\"} 10"), t);
        assertTrue(t.contains("twping_agent_delay_component_seconds_sum{component=\"receiver_wakeup\"," + a + "} 5.0E-5"), t);
        // the less precise stamp of each component names its source; unknown counts the packets without it
        assertTrue(t.contains("twping_agent_delay_component_packets_total{component=\"sender_stack\",protocol=\"twamp\",source=\"user\",target=\"a\"} 5.0"), t);
        assertTrue(t.contains("twping_agent_delay_component_packets_total{component=\"sender_stack\",protocol=\"twamp\",source=\"unknown\",target=\"a\"} 5.0"), t);
        assertTrue(t.contains("twping_agent_delay_component_packets_total{component=\"forward\",protocol=\"twamp\",source=\"reflector\",target=\"a\"} 10.0"), t);
        assertTrue(t.contains("twping_agent_delay_component_packets_total{component=\"reflector_stack\",protocol=\"twamp\",source=\"unknown\",target=\"a\"} 10.0"), t);
        assertTrue(t.contains("twping_agent_delay_component_packets_total{component=\"receiver_wakeup\",protocol=\"twamp\",source=\"user\",target=\"a\"} 10.0"), t);
        // bounded: 6 histograms of 25 series (22 coarse buckets, +Inf, sum, count), one source series per component and the sender stack's unknown one
        assertEquals(SERIES_PER_NEW_TARGET + COMPONENT_SERIES_TWAMP_LOOPBACK, seriesOf(t, "a"));
        assertEquals(SERIES_PER_NEW_TARGET, seriesOf(t, "b"));
        m.removeTarget("a");
        assertEquals(0, seriesOf(PrometheusText.of(registry), "a"));
    }

    /** Component series of a TWAMP target whose packets have kernel stamps but for some no TX stamp (FLEET.md). */
    static final int COMPONENT_SERIES_TWAMP_LOOPBACK = 6 * (DelayBuckets.coarseCount() + 3) + 7 + 1;
}
