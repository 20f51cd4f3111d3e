package io.github.twping.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Slow HTTP clients cannot darken the metrics endpoint (issue 26, item 1): a client that sends part of a request
 * and waits no longer holds the only worker, and is disconnected once its request time is up.
 */
class MetricsEndpointTest {
    private static final int SLOW_CLIENTS = 50;

    @Test
    void scrapesSucceedWhileSlowClientsHoldConnections() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        Counter.builder().name("probe_total").help("a probe").register(registry).inc();
        List<Socket> slow = new ArrayList<>();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                registry)) {
            for (int i = 0; i < SLOW_CLIENTS; i++) {
                Socket s = new Socket();
                slow.add(s);
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), endpoint.port()), 10_000);
                OutputStream out = s.getOutputStream();
                out.write("GET /metrics HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));  // and no more
                out.flush();
            }
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode());
                assertTrue(r.body().contains("probe_total 1.0"), r.body());
            }
            // the slow clients are disconnected when their request time is up (not left open for ever)
            Socket first = slow.get(0);
            first.setSoTimeout(60_000);
            InputStream in = first.getInputStream();
            byte[] buf = new byte[512];
            int n;
            do {
                n = in.read(buf);
            } while (n > 0);
            assertEquals(-1, n, "the server closed the slow connection");
        } finally {
            for (Socket s : slow) {
                s.close();
            }
            http.close();
        }
    }
}
