package io.github.twping.metrics;

import io.github.twping.testsupport.Wait;
import java.time.Duration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.stamp.SourceNetwork;
import io.github.twping.stamp.StampReflector;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.stamp.TimestampFormat;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link StampReflectorMetrics} over a real reflector on loopback: replies, drops by reason, processing time. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StampReflectorMetricsTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(60);


    private static StampReflector start(StampReflectorMetrics metrics, StampReflectorSpec spec, String protocol)
            throws Exception {
        StampReflector r = new StampReflector(spec, StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null);
        metrics.reflector(r, protocol);
        r.start();
        return r;
    }

    private static void send(DatagramSocket s, InetSocketAddress to, int length, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            s.send(new DatagramPacket(new byte[length], length, to));
        }
    }

    @Test
    void shouldExposeRepliesDropsByReasonAndOneProcessingTimePerReply() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        StampReflectorMetrics metrics = new StampReflectorMetrics(registry);
        String before = PrometheusText.of(registry);
        assertTrue(!before.contains("twampd_reflector_info{"), before);
        // rate 3 per second per source: of 10 datagrams sent at once, at most 3 are answered
        StampReflectorSpec spec = new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP, List.of(),
                3, 64);
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             StampReflector r = start(metrics, spec, "stamp")) {
            send(client, r.localAddress(), 44, 10);
            send(client, r.localAddress(), 12, 2);
            Wait.until(() -> r.reflected() + r.rateLimited() + r.shortPackets() == 12, "all 12 handled", Duration.ofNanos(DEADLINE_NS));
            String t = PrometheusText.of(registry);
            assertEquals(1.0, TwampdMetricsTest.value(t, "twampd_reflector_info", "protocol=\"stamp\""), t);
            double reflected = TwampdMetricsTest.value(t, "twampd_packets_reflected_total", "");
            assertTrue(reflected >= 1 && reflected <= 4, t);
            assertEquals(10 - reflected, TwampdMetricsTest.value(t, "twampd_packets_dropped_total",
                    "reason=\"rate_limited\""), t);
            assertEquals(2.0, TwampdMetricsTest.value(t, "twampd_packets_dropped_total", "reason=\"short\""), t);
            assertEquals(reflected, TwampdMetricsTest.value(t, "twampd_processing_seconds_count", ""), t);
            assertEquals(reflected, TwampdMetricsTest.value(t, "twampd_processing_seconds_bucket", "le=\"+Inf\""), t);
            for (String reason : StampReflectorMetrics.DROP_REASONS) {
                assertTrue(!Double.isNaN(TwampdMetricsTest.value(t, "twampd_packets_dropped_total",
                        "reason=\"" + reason + "\"")), reason + " missing: " + t);
            }
        }
    }

    @Test
    void shouldCountSourcesOutsideTheAllowListAndNameTheLightProtocol() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        StampReflectorMetrics metrics = new StampReflectorMetrics(registry);
        StampReflectorSpec spec = new StampReflectorSpec(true, false, null, false, TimestampFormat.NTP,
                List.of(SourceNetwork.parse("192.0.2.0/24")), 0, 64);
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             StampReflector r = start(metrics, spec, "light")) {
            send(client, r.localAddress(), 44, 5);
            Wait.until(() -> r.notAllowed() == 5, "5 refused", Duration.ofNanos(DEADLINE_NS));
            String t = PrometheusText.of(registry);
            assertEquals(1.0, TwampdMetricsTest.value(t, "twampd_reflector_info", "protocol=\"light\""), t);
            assertEquals(5.0, TwampdMetricsTest.value(t, "twampd_packets_dropped_total", "reason=\"not_allowed\""), t);
            assertEquals(0.0, TwampdMetricsTest.value(t, "twampd_packets_reflected_total", ""), t);
            assertEquals(0.0, TwampdMetricsTest.value(t, "twampd_processing_seconds_count", ""), t);
        }
    }
}
