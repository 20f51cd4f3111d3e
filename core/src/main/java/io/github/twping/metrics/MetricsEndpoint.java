package io.github.twping.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code --metrics-listen ADDR:PORT} HTTP endpoint: Prometheus's exporter serving {@code /metrics} (text,
 * OpenMetrics or protobuf with native histograms, as the scraper asks) from a registry; each exchange on a virtual
 * thread, with bounded request and response times and a cap on open connections ({@link #SERVER_BOUNDS}).
 */
public final class MetricsEndpoint implements AutoCloseable {
    private final HTTPServer server;
    private final ExecutorService executor;

    private MetricsEndpoint(HTTPServer server, ExecutorService executor) {
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
            HTTPServer server = HTTPServer.builder().inetAddress(address.getAddress()).port(address.getPort())
                    .registry(registry).executorService(executor).buildAndStart();
            return new MetricsEndpoint(server, executor);
        } catch (IOException | RuntimeException e) {
            executor.shutdownNow();
            throw e;
        }
    }

    /** @return the bound port. */
    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.close();
        executor.shutdownNow();
    }
}
