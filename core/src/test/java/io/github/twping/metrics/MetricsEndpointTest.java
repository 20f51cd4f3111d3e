package io.github.twping.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    /** A registry whose text exposition is about 1 MB: 200 histogram series of 46 classic buckets each. */
    private static PrometheusRegistry largeRegistry() {
        PrometheusRegistry registry = new PrometheusRegistry();
        Histogram h = Histogram.builder().name("probe_delay_seconds").help("a probe").labelNames("target", "direction")
                .classicUpperBounds(DelayBuckets.seconds()).nativeMaxNumberOfBuckets(160).withoutExemplars()
                .register(registry);
        for (int t = 0; t < 100; t++) {
            for (String d : new String[] {"forward", "backward"}) {
                for (int i = 1; i <= 50; i++) {
                    h.labelValues("target-with-a-long-name-" + t, d).observe(i * 1e-5 * (t + 1));
                }
            }
        }
        Counter.builder().name("probe_total").help("a probe").register(registry).inc();
        return registry;
    }

    /** Reads a raw HTTP/1.1 response: status line and headers (lower-case names), then the body as sent. */
    private record Raw(String head, byte[] body) {
        boolean header(String name, String value) {
            return head.toLowerCase(java.util.Locale.ROOT).contains("\r\n" + name + ": " + value.toLowerCase(java.util.Locale.ROOT));
        }
    }

    private static Raw raw(int port, String request) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
            s.setSoTimeout(30_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            byte[] all = s.getInputStream().readAllBytes(); // the request says Connection: close
            String text = new String(all, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            return new Raw(text.substring(0, end + 2), java.util.Arrays.copyOfRange(all, end + 4, all.length));
        }
    }

    /** Joins the chunks of a chunked body (RFC 9112 §7.1). */
    private static byte[] dechunk(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 0;
        while (true) {
            int lineEnd = at;
            while (body[lineEnd] != '\r') {
                lineEnd++;
            }
            int size = Integer.parseInt(new String(body, at, lineEnd - at, StandardCharsets.US_ASCII).trim(), 16);
            if (size == 0) {
                return out.toByteArray();
            }
            out.write(body, lineEnd + 2, size);
            at = lineEnd + 2 + size + 2;
        }
    }

    private static byte[] expected(PrometheusRegistry registry, String accept) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExpositionFormats.init().findWriter(accept).write(out, registry.scrape());
        return out.toByteArray();
    }

    /**
     * A large exposition is streamed, not built whole to send its length: chunked, in several chunks, byte for
     * byte the library writer's text; gzip when the scraper accepts it; the OpenMetrics format when asked.
     */
    @Test
    void scrapesAreStreamedInChunksAndSayTheSameAsTheWriter() throws Exception {
        PrometheusRegistry registry = largeRegistry();
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                registry)) {
            byte[] text = expected(registry, null);
            assertTrue(text.length > 4 * MetricsEndpoint.STREAM_BUFFER_BYTES, "a large exposition: " + text.length);

            Raw plain = raw(endpoint.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(plain.head().startsWith("HTTP/1.1 200"), plain.head());
            assertTrue(plain.header("transfer-encoding", "chunked"), plain.head());
            assertFalse(plain.head().toLowerCase(java.util.Locale.ROOT).contains("content-length"), plain.head());
            assertTrue(plain.header("content-type", "text/plain; version=0.0.4; charset=utf-8"), plain.head());
            assertArrayEquals(text, dechunk(plain.body()));

            Raw gz = raw(endpoint.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n"
                    + "Connection: close\r\n\r\n");
            assertTrue(gz.header("content-encoding", "gzip"), gz.head());
            try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(dechunk(gz.body())))) {
                assertArrayEquals(text, in.readAllBytes());
            }

            String om = "application/openmetrics-text; version=1.0.0; charset=utf-8";
            Raw open = raw(endpoint.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: " + om
                    + "\r\nConnection: close\r\n\r\n");
            assertTrue(open.header("content-type", om), open.head());
            assertArrayEquals(expected(registry, om), dechunk(open.body()));

            Raw one = raw(endpoint.port(), "GET /metrics?name[]=probe_total HTTP/1.1\r\nHost: x\r\n"
                    + "Connection: close\r\n\r\n");
            String oneText = new String(dechunk(one.body()), StandardCharsets.UTF_8);
            assertTrue(oneText.contains("probe_total 1.0"), oneText);
            assertFalse(oneText.contains("probe_delay_seconds"), oneText);

            Raw head = raw(endpoint.port(), "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(head.head().startsWith("HTTP/1.1 200"), head.head());
            assertEquals(0, head.body().length);

            Raw post = raw(endpoint.port(), "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                    + "Connection: close\r\n\r\n");
            assertTrue(post.head().startsWith("HTTP/1.1 405"), post.head());

            Raw healthy = raw(endpoint.port(), "GET /-/healthy HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertEquals("Exporter is healthy.\n", new String(healthy.body(), StandardCharsets.UTF_8));
        }
    }

    /**
     * {@code /} lists the two endpoints (the Prometheus library's HTTP server had a page there, which the streamed
     * endpoint lost); any other path is 404, another method than GET or HEAD 405.
     */
    @Test
    void theRootPageLinksToTheMetricsAndTheHealthCheck() throws Exception {
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                new PrometheusRegistry())) {
            Raw root = raw(endpoint.port(), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(root.head().startsWith("HTTP/1.1 200"), root.head());
            assertTrue(root.header("content-type", "text/html; charset=utf-8"), root.head());
            String page = new String(root.body(), StandardCharsets.UTF_8);
            assertEquals(MetricsEndpoint.LANDING_PAGE, page);
            assertTrue(page.contains("<a href=\"metrics\">/metrics</a>"), page);
            assertTrue(page.contains("<a href=\"-/healthy\">/-/healthy</a>"), page);

            Raw head = raw(endpoint.port(), "HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(head.head().startsWith("HTTP/1.1 200"), head.head());
            assertEquals(0, head.body().length);

            Raw post = raw(endpoint.port(), "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                    + "Connection: close\r\n\r\n");
            assertTrue(post.head().startsWith("HTTP/1.1 405"), post.head());
            assertTrue(post.header("allow", "GET, HEAD"), post.head());

            Raw other = raw(endpoint.port(), "GET /index.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(other.head().startsWith("HTTP/1.1 404"), other.head());

            Raw metrics = raw(endpoint.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(metrics.head().startsWith("HTTP/1.1 200"), "/metrics still its own: " + metrics.head());
        }
    }

    @Test
    void gzipIsTakenWhenListedWithoutAZeroWeight() {
        assertTrue(MetricsEndpoint.acceptsGzip(List.of("gzip, deflate")));
        assertTrue(MetricsEndpoint.acceptsGzip(List.of("identity", "deflate, GZIP;q=0.5")));
        assertFalse(MetricsEndpoint.acceptsGzip(List.of("gzip;q=0")));
        assertFalse(MetricsEndpoint.acceptsGzip(List.of("deflate")));
        assertFalse(MetricsEndpoint.acceptsGzip(null));
    }
}
