package io.github.twping.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

class AgentMetricsTest {
    /** Series per target in the text exposition once a session ended: the figure docs/FLEET.md gives. */
    static final int SERIES_PER_TARGET = 191;
    /** Series per target before its first session ends (docs/FLEET.md): no histogram or quantile series yet. */
    static final int SERIES_PER_NEW_TARGET = 24;

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
}
