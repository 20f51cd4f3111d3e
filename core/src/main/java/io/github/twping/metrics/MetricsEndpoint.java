package io.github.twping.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code --metrics-listen ADDR:PORT} HTTP endpoint: {@code /metrics} (text, OpenMetrics or protobuf with native
 * histograms, as the scraper's {@code Accept} header asks, in the Prometheus client library's writers) from a
 * registry, {@code /-/healthy}, and at {@code /} a small HTML page linking to both (any other path: 404); each exchange on a virtual thread, with bounded request and response times and a
 * cap on open connections ({@link #SERVER_BOUNDS}).
 *
 * <p>The response is streamed (chunked, gzip when the scraper accepts it) as the writer produces it. The client
 * library's own HTTP server wrote an uncompressed response into one byte array first, to send its length: 3.7 MB
 * for a 100-target agent, in arrays that outgrew the agent's 8 MB young generation, and a scrape every 15 s raised
 * the agent's peak memory by about 20 MiB (docs/notes/2026-12-05-agent-memory-3.md).
 */
public final class MetricsEndpoint implements AutoCloseable {
    /** The buffer between the exposition writer and the chunked response (one chunk per buffer). */
    static final int STREAM_BUFFER_BYTES = 16 * 1024;

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Parses {@code ADDR:PORT}, {@code [V6]:PORT} or {@code :PORT} (all addresses).
     *
     * @throws IllegalArgumentException with a one-line message
     */
    public static InetSocketAddress parseListen(String text) {
        String host;
        String port;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("invalid --metrics-listen '" + text + "': expected ADDR:PORT");
            }
            host = text.substring(1, close);
            port = text.substring(close + 2);
        } else {
            int colon = text.lastIndexOf(':');
            if (colon < 0 || text.indexOf(':') != colon) {
                throw new IllegalArgumentException("invalid --metrics-listen '" + text + "': expected ADDR:PORT");
            }
            host = text.substring(0, colon);
            port = text.substring(colon + 1);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            p = -1;
        }
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException("invalid --metrics-listen '" + text + "': port must be 0-65535");
        }
        try {
            InetAddress a = host.isEmpty() ? InetAddress.getByName("::") : InetAddress.getByName(host);
            return new InetSocketAddress(a, p);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("invalid --metrics-listen '" + text + "': unknown host " + host);
        }
    }

    /**
     * The {@code --metrics-listen} option taken out of a command line.
     *
     * @param listen the value, or null when absent
     * @param rest   the other arguments, in order
     */
    public record ListenOption(String listen, String[] rest) {
    }

    /**
     * Removes {@code --metrics-listen VALUE} / {@code --metrics-listen=VALUE} from {@code args} (the last one wins).
     *
     * @throws IllegalArgumentException when the value is missing
     */
    public static ListenOption extract(String[] args) {
        List<String> rest = new ArrayList<>();
        String listen = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                rest.addAll(Arrays.asList(args).subList(i, args.length));
                break;
            }
            if (a.equals("--metrics-listen")) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option '--metrics-listen' requires an argument");
                }
                listen = args[++i];
            } else if (a.startsWith("--metrics-listen=")) {
                listen = a.substring("--metrics-listen=".length());
            } else {
                rest.add(a);
            }
        }
        return new ListenOption(listen, rest.toArray(String[]::new));
    }

    /**
     * The JDK HTTP server's bounds (its system properties, read once when the server class loads; a value given
     * on the command line wins): a request (line and headers) must arrive within 5 s and a response be taken
     * within 30 s, or the connection is closed; at most 64 connections are open at once (more are closed at
     * accept) and 100 headers per request. A scrape is one small request on an idle connection.
     */
    static final String[][] SERVER_BOUNDS = {
        {"sun.net.httpserver.maxReqTime", "5"},
        {"sun.net.httpserver.maxRspTime", "30"},
        {"jdk.httpserver.maxConnections", "64"},
        {"sun.net.httpserver.maxReqHeaders", "100"},
    };

    /**
     * Starts serving {@code registry} on {@code address} (port 0 = ephemeral). Each exchange runs on a virtual
     * thread of its own, so a client that sends part of a request and waits parks one virtual thread (until its
     * request time is up) instead of the only worker.
     */
    public static MetricsEndpoint start(InetSocketAddress address, PrometheusRegistry registry) throws IOException {
        for (String[] bound : SERVER_BOUNDS) {
            if (System.getProperty(bound[0]) == null) {
                System.setProperty(bound[0], bound[1]);
            }
        }
        ExecutorService executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("metrics-http-", 0)
                .factory());
        try {
            HttpServer server = HttpServer.create(address, 3);
            ExpositionFormats formats = ExpositionFormats.init();
            server.createContext("/metrics", exchange -> scrape(exchange, registry, formats));
            server.createContext("/-/healthy", MetricsEndpoint::healthy);
            server.createContext("/", MetricsEndpoint::landing);
            server.setExecutor(executor);
            server.start();
            return new MetricsEndpoint(server, executor);
        } catch (IOException | RuntimeException e) {
            executor.shutdownNow();
            throw e;
        }
    }

    /**
     * One scrape: the registry's snapshot (only the {@code name[]} families when the query names some), written
     * by the writer the {@code Accept} header selects straight into the response body.
     */
    static void scrape(HttpExchange exchange, PrometheusRegistry registry, ExpositionFormats formats)
            throws IOException {
        try (exchange) {
            if (refusedUnlessGetOrHead(exchange)) {
                return;
            }
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            Set<String> names = names(exchange.getRequestURI().getRawQuery());
            String accept = exchange.getRequestHeaders().getFirst("Accept");
            ExpositionFormatWriter writer = formats.findWriter(accept);
            EscapingScheme escaping = EscapingScheme.fromAcceptHeader(accept);
            MetricSnapshots snapshots = names.isEmpty() ? registry.scrape() : registry.scrape(names::contains);
            exchange.getResponseHeaders().set("Content-Type", writer.getContentType());
            if (head) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            boolean gzip = acceptsGzip(exchange.getRequestHeaders().get("Accept-Encoding"));
            if (gzip) {
                exchange.getResponseHeaders().set("Content-Encoding", "gzip");
            }
            exchange.sendResponseHeaders(200, 0); // chunked: the length is not known before the end
            OutputStream body = exchange.getResponseBody();
            try (OutputStream out = gzip ? new GZIPOutputStream(body, STREAM_BUFFER_BYTES)
                    : new BufferedOutputStream(body, STREAM_BUFFER_BYTES)) {
                writer.write(out, snapshots, escaping);
            }
        }
    }

    /** @return the metric names of the query's {@code name[]} parameters (empty: all) */
    static Set<String> names(String rawQuery) {
        Set<String> names = new HashSet<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return names;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && "name[]".equals(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8))) {
                names.add(URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return names;
    }

    /** @return true when one of the {@code Accept-Encoding} headers lists gzip */
    static boolean acceptsGzip(List<String> headers) {
        if (headers == null) {
            return false;
        }
        for (String header : headers) {
            for (String coding : header.split(",")) {
                String c = coding.trim();
                int semicolon = c.indexOf(';');
                String name = (semicolon < 0 ? c : c.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
                if (name.equals("gzip") && !c.replace(" ", "").endsWith("q=0")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The page at {@code /}: what the endpoint serves, with links. */
    static final String LANDING_PAGE = """
            <!DOCTYPE html>
            <html lang="en">
            <head><meta charset="utf-8"><title>twping metrics</title></head>
            <body>
            <h1>twping metrics</h1>
            <ul>
            <li><a href="metrics">/metrics</a>: the metrics (Prometheus text, OpenMetrics or protobuf, as the             Accept header asks; <code>?name[]=NAME</code> selects families)</li>
            <li><a href="-/healthy">/-/healthy</a>: 200 while the process serves</li>
            </ul>
            </body>
            </html>
            """;

    /**
     * {@code /} itself: {@link #LANDING_PAGE} to GET and HEAD, 405 to other methods; every path no other context
     * takes ends here too, and gets 404.
     */
    static void landing(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"/".equals(exchange.getRequestURI().getPath())) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            if (refusedUnlessGetOrHead(exchange)) {
                return;
            }
            sendFixed(exchange, "text/html; charset=utf-8", LANDING_PAGE.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Answers 405, with {@code Allow: GET, HEAD}, to any other method; @return whether it did. */
    private static boolean refusedUnlessGetOrHead(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        if ("HEAD".equals(method) || "GET".equals(method)) {
            return false;
        }
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        exchange.sendResponseHeaders(405, -1);
        return true;
    }

    /** A 200 with {@code body} of {@code contentType}, the headers alone to HEAD. */
    private static void sendFixed(HttpExchange exchange, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        if ("HEAD".equals(exchange.getRequestMethod())) {
            exchange.sendResponseHeaders(200, -1);
            return;
        }
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
    }

    private static void healthy(HttpExchange exchange) throws IOException {
        try (exchange) {
            sendFixed(exchange, "text/plain; charset=utf-8", "Exporter is healthy.\n".getBytes(StandardCharsets.UTF_8));
        }
    }

    /** @return the bound port. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
