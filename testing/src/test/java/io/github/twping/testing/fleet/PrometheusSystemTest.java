package io.github.twping.testing.fleet;

import io.github.twping.cli.AgentArgs;
import io.github.twping.testsupport.Wait;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.twping.agent.AgentCommand;
import io.github.twping.cli.TwampdMain;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Prometheus (Debian's {@code prometheus}, installed by {@code .ci/run}) scrapes the agent and two twampd
 * instances on loopback. Asserts through Prometheus's HTTP API that the series exist, that the packet and loss
 * counts equal what the sessions reported, and that a stopped reflector shows in the failure counter, the
 * agent's {@code twping_agent_target_up} and Prometheus's own {@code up} while the other target keeps measuring.
 * A second Prometheus with native histograms enabled ingests the agent's delay histograms in their native form
 * and scrapes a STAMP target and a {@code twampd --stamp} reflector. Skips, saying so, when no {@code prometheus}
 * binary is installed.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PrometheusSystemTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(120);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final ObjectMapper json = new ObjectMapper();

    @TempDir
    Path dir;

    private static Path prometheusBinary() {
        for (String p : new String[] {"/usr/bin/prometheus", "/usr/local/bin/prometheus"}) {
            if (Files.isExecutable(Path.of(p))) {
                return Path.of(p);
            }
        }
        return null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }


    /** The first query of the Grafana dashboard's panel {@code title}. */
    private String dashboardQuery(String title) throws IOException {
        JsonNode dash = json.readTree(Path.of(System.getProperty("user.dir")).getParent()
                .resolve("deploy/grafana/dashboards/twping-fleet.json").toFile());
        for (JsonNode p : dash.path("panels")) {
            if (p.path("title").asText().equals(title)) {
                return p.path("targets").get(0).path("expr").asText();
            }
        }
        throw new AssertionError("no dashboard panel " + title);
    }

    /** @return the single value of an instant query, or NaN when it has no result. */
    private double query(int port, String promql) {
        try {
            URI uri = URI.create("http://127.0.0.1:" + port + "/api/v1/query?query="
                    + URLEncoder.encode(promql, StandardCharsets.UTF_8));
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode root = json.readTree(r.body());
            JsonNode result = root.path("data").path("result");
            if (!"success".equals(root.path("status").asText()) || result.size() != 1) {
                return Double.NaN;
            }
            return Double.parseDouble(result.get(0).path("value").get(1).asText());
        } catch (IOException e) {
            return Double.NaN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Double.NaN;
        }
    }

    private boolean ready(int port) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/ready"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private record Daemon(TwampdMain main, Thread thread, ByteArrayOutputStream log) {
        void stop() throws InterruptedException {
            main.stop();
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    private Daemon twampd(String name) throws Exception {
        Path d = Files.createDirectories(dir.resolve(name));
        // twampd refuses to start without its configuration file, and without a .pfs when keyed modes are offered
        Files.writeString(d.resolve("twamp-server.conf"), "authmode OAEM\n");
        Files.writeString(d.resolve("twamp-server.pfs"), "alice 7333637265742d6c61622d6b6579\n");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(log, true, StandardCharsets.UTF_8);
        TwampdMain main = new TwampdMain();
        Thread t = Thread.ofPlatform().name("twampd-" + name).start(() -> main.execute(new String[] {
            "-c", d.toString(), "-R", d.toString(), "-Z", "-f", "-S", "127.0.0.1:0",
            "--metrics-listen", "127.0.0.1:0"}, err, err));
        assertTrue(main.awaitReady(DEADLINE_NS), log.toString(StandardCharsets.UTF_8));
        return new Daemon(main, t, log);
    }

    @Test
    void shouldBeScrapedByARealPrometheus() throws Exception {
        Path binary = prometheusBinary();
        assumeTrue(binary != null, "SKIPPED: no prometheus binary (apt-get install prometheus; .ci/run installs it)");

        Daemon a = twampd("a");
        Daemon b = twampd("b");
        Path config = dir.resolve("agent.yaml");
        Files.writeString(config, """
                agent: {backoff_initial: 0.2, backoff_max: 1, connect_timeout: 5}
                defaults: {rate: 20, session: 1, loss_timeout: 0.5}
                targets:
                  - {name: a, host: "127.0.0.1:%d"}
                  - {name: b, host: "127.0.0.1:%d"}
                """.formatted(a.main().port(), b.main().port()));
        Map<String, AtomicLongArray> reported = new ConcurrentHashMap<>();
        ByteArrayOutputStream agentLog = new ByteArrayOutputStream();
        AgentCommand agent = new AgentCommand("twping", new PrintStream(agentLog, true, StandardCharsets.UTF_8))
                .onSession((target, s) -> {
                    AtomicLongArray sums = reported.computeIfAbsent(target, k -> new AtomicLongArray(3));
                    sums.addAndGet(0, s.sent());
                    sums.addAndGet(1, s.lost());
                    sums.addAndGet(2, s.received());
                });
        Thread agentThread = Thread.ofPlatform().name("agent").start(
                () -> AgentArgs.run(agent, List.of("--agent", config.toString(), "--metrics-listen", "127.0.0.1:0")));
        assertTrue(agent.awaitReady(DEADLINE_NS));
        assertTrue(agent.metricsPort() > 0, agentLog.toString(StandardCharsets.UTF_8));

        int promPort = freePort();
        Path promConfig = dir.resolve("prometheus.yml");
        Files.writeString(promConfig, """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 900ms
                scrape_configs:
                  - job_name: agent
                    static_configs: [{targets: ["127.0.0.1:%d"]}]
                  - job_name: twampd-a
                    static_configs: [{targets: ["127.0.0.1:%d"]}]
                  - job_name: twampd-b
                    static_configs: [{targets: ["127.0.0.1:%d"]}]
                """.formatted(agent.metricsPort(), a.main().metricsPort(), b.main().metricsPort()));
        Path promLog = dir.resolve("prometheus.log");
        Process prometheus = new ProcessBuilder(binary.toString(), "--config.file=" + promConfig,
                "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + promPort,
                "--storage.tsdb.retention.time=1h")
                .redirectErrorStream(true).redirectOutput(promLog.toFile()).start();
        try {
            Wait.until(() -> ready(promPort) || !prometheus.isAlive(), "prometheus ready", Duration.ofNanos(DEADLINE_NS));
            assertTrue(prometheus.isAlive(), "prometheus exited: " + Files.readString(promLog));

            Wait.until(() -> query(promPort,
                    "twping_agent_sessions_total{job=\"agent\",target=\"a\"}") >= 3, "three sessions of a scraped", Duration.ofNanos(DEADLINE_NS));
            for (String series : new String[] {
                "twping_agent_delay_seconds_bucket{target=\"a\",direction=\"rtt\",le=\"+Inf\"}",
                "twping_agent_last_session_delay_seconds{target=\"a\",direction=\"forward\",stat=\"p50\"}",
                "twping_agent_hops{target=\"a\",direction=\"back\"}",
                "twping_agent_clock_synchronized{target=\"a\"}",
                "twping_agent_timestamps_total{target=\"a\",stamp=\"rx\",source=\"kernel\"}",
                "twping_agent_last_success_timestamp_seconds{target=\"a\"}",
                "twampd_packets_reflected_total{job=\"twampd-a\"}",
                "twampd_processing_seconds_count{job=\"twampd-a\"}",
                "twampd_control_connections_total{job=\"twampd-a\",outcome=\"accepted\"}",
                "twampd_packets_dropped_total{job=\"twampd-a\",reason=\"socket_overflow\"}",
                "twampd_test_sessions_active{job=\"twampd-a\"}"}) {
                assertTrue(!Double.isNaN(query(promPort, series)), "series missing in Prometheus: " + series);
            }
            assertEquals(1.0, query(promPort, "twping_agent_target_up{target=\"a\"}"));
            assertTrue(query(promPort, "twampd_packets_reflected_total{job=\"twampd-a\"}") > 0);

            // The reflector of a goes away: a's counters freeze, failures and the up gauges show it, b goes on.
            a.stop();
            Wait.until(() -> query(promPort,
                    "sum(twping_agent_session_failures_total{target=\"a\"})") >= 2, "a's failures scraped", Duration.ofNanos(DEADLINE_NS));
            Wait.until(() -> query(promPort, "twping_agent_target_up{target=\"a\"}") == 0.0, "a down in the agent's gauge", Duration.ofNanos(DEADLINE_NS));
            Wait.until(() -> query(promPort, "up{job=\"twampd-a\"}") == 0.0, "Prometheus's up of twampd-a", Duration.ofNanos(DEADLINE_NS));
            assertEquals(1.0, query(promPort, "up{job=\"twampd-b\"}"));
            Wait.until(() -> query(promPort,
                    "twping_agent_session_failures_total{target=\"a\",reason=\"connect\"}") >= 1, "a's refused connects counted", Duration.ofNanos(DEADLINE_NS));

            AtomicLongArray sums = reported.get("a");
            Wait.until(() -> query(promPort,
                    "twping_agent_packets_sent_total{target=\"a\"}") == sums.get(0), "a's final counts scraped", Duration.ofNanos(DEADLINE_NS));
            assertEquals(sums.get(0), query(promPort, "twping_agent_packets_sent_total{target=\"a\"}"));
            assertEquals(sums.get(1), query(promPort, "twping_agent_packets_lost_total{target=\"a\"}"));
            assertEquals(sums.get(2), query(promPort, "twping_agent_packets_received_total{target=\"a\"}"));
            assertEquals(sums.get(2), query(promPort,
                    "twping_agent_delay_seconds_count{target=\"a\",direction=\"rtt\"}"));
            assertTrue(sums.get(0) >= 60, "three sessions of 20 packets: " + sums.get(0));

            double bSessions = query(promPort, "twping_agent_sessions_total{target=\"b\"}");
            Wait.until(() -> query(promPort, "twping_agent_sessions_total{target=\"b\"}") > bSessions, "b keeps measuring", Duration.ofNanos(DEADLINE_NS));
            assertEquals(1.0, query(promPort, "twping_agent_target_up{target=\"b\"}"));
        } finally {
            prometheus.destroy();
            if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly();
            }
            agent.stop();
            agentThread.join(TimeUnit.SECONDS.toMillis(60));
            b.stop();
            a.stop();
        }
    }

    private Daemon stampReflector(String name) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(log, true, StandardCharsets.UTF_8);
        TwampdMain main = new TwampdMain();
        Thread t = Thread.ofPlatform().name("twampd-" + name).start(() -> main.execute(new String[] {
            "--stamp", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"}, err, err));
        Wait.until(() -> main.stampAddress() != null && main.metricsPort() > 0, "STAMP reflector bound", Duration.ofNanos(DEADLINE_NS));
        return new Daemon(main, t, log);
    }

    /**
     * With {@code --enable-feature=native-histograms} Prometheus 2.42 negotiates the protobuf exposition and
     * ingests the agent's delay histograms as native histograms ({@code histogram_count}, {@code
     * histogram_quantile} on the series itself; this version then keeps no classic {@code _bucket} series for
     * them). A STAMP target and a {@code twampd --stamp} reflector are scraped in the same run.
     */
    /** @return {major, minor} of {@code prometheus --version}, or null when it cannot be read. */
    private static int[] version(Path binary) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return null;
        }
        Matcher m = Pattern.compile("version (\\d+)\\.(\\d+)").matcher(out);
        return m.find() ? new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))} : null;
    }

    @Test
    void shouldIngestNativeHistogramsAndStampSeriesWhenPrometheusNegotiatesProtobuf() throws Exception {
        Path binary = prometheusBinary();
        assumeTrue(binary != null, "SKIPPED: no prometheus binary (apt-get install prometheus; .ci/run installs it)");
        int[] v = version(binary);
        assumeTrue(v != null && (v[0] > 2 || v[1] >= 40),
                "SKIPPED: native histograms need Prometheus 2.40 or later; this one says " + Arrays.toString(v));

        Daemon twamp = twampd("n");
        Daemon stamp = stampReflector("s");
        Path config = dir.resolve("agent-native.yaml");
        Files.writeString(config, """
                agent: {backoff_initial: 0.2, backoff_max: 1, connect_timeout: 5}
                defaults: {rate: 20, session: 1, loss_timeout: 0.5}
                targets:
                  - {name: n, host: "127.0.0.1:%d"}
                  - {name: s, protocol: stamp, host: "127.0.0.1:%d"}
                """.formatted(twamp.main().port(), stamp.main().stampAddress().getPort()));
        Map<String, AtomicLongArray> reported = new ConcurrentHashMap<>();
        ByteArrayOutputStream agentLog = new ByteArrayOutputStream();
        AgentCommand agent = new AgentCommand("twping", new PrintStream(agentLog, true, StandardCharsets.UTF_8))
                .onSession((target, x) -> reported.computeIfAbsent(target, k -> new AtomicLongArray(1))
                        .addAndGet(0, x.received()));
        Thread agentThread = Thread.ofPlatform().name("agent").start(
                () -> AgentArgs.run(agent, List.of("--agent", config.toString(), "--metrics-listen", "127.0.0.1:0")));
        assertTrue(agent.awaitReady(DEADLINE_NS));
        assertTrue(agent.metricsPort() > 0, agentLog.toString(StandardCharsets.UTF_8));

        int promPort = freePort();
        Path promConfig = dir.resolve("prometheus-native.yml");
        Files.writeString(promConfig, """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 900ms
                scrape_configs:
                  - job_name: agent
                    static_configs: [{targets: ["127.0.0.1:%d"]}]
                  - job_name: stamp
                    static_configs: [{targets: ["127.0.0.1:%d"]}]
                """.formatted(agent.metricsPort(), stamp.main().metricsPort()));
        Path promLog = dir.resolve("prometheus-native.log");
        Process prometheus = new ProcessBuilder(binary.toString(), "--config.file=" + promConfig,
                "--storage.tsdb.path=" + dir.resolve("tsdb-native"), "--web.listen-address=127.0.0.1:" + promPort,
                "--storage.tsdb.retention.time=1h", "--enable-feature=native-histograms")
                .redirectErrorStream(true).redirectOutput(promLog.toFile()).start();
        try {
            Wait.until(() -> ready(promPort) || !prometheus.isAlive(), "prometheus ready", Duration.ofNanos(DEADLINE_NS));
            assertTrue(prometheus.isAlive(), "prometheus exited: " + Files.readString(promLog));
            Wait.until(() -> query(promPort,
                    "twping_agent_sessions_total{target=\"n\",protocol=\"twamp\"}") >= 2
                    && query(promPort, "twping_agent_sessions_total{target=\"s\",protocol=\"stamp\"}") >= 2, "two sessions of n and s scraped", Duration.ofNanos(DEADLINE_NS));
            // The TWAMP reflector goes away: n's histogram freezes at what its sessions reported.
            twamp.stop();
            Wait.until(() -> query(promPort, "twping_agent_target_up{target=\"n\"}") == 0.0, "n down", Duration.ofNanos(DEADLINE_NS));
            long received = reported.get("n").get(0);
            assertTrue(received >= 40, "two sessions of 20 packets: " + received);
            Wait.until(() -> query(promPort,
                    "histogram_count(twping_agent_delay_seconds{target=\"n\",direction=\"rtt\"})") == received, "n's final histogram scraped", Duration.ofNanos(DEADLINE_NS));
            double median = query(promPort,
                    "histogram_quantile(0.5, twping_agent_delay_seconds{target=\"n\",direction=\"rtt\"})");
            assertTrue(median > 0 && median < 0.5, "native median RTT on loopback: " + median);
            assertTrue(Double.isNaN(query(promPort,
                    "twping_agent_delay_seconds_bucket{target=\"n\",direction=\"rtt\",le=\"+Inf\"}")),
                    "without scrape_classic_histograms Prometheus keeps the native form only");
            assertTrue(query(promPort, "histogram_count(twping_agent_delay_seconds{target=\"s\","
                    + "protocol=\"stamp\",direction=\"rtt\"})") > 0);
            // the dashboard's protocol filter, its own "Target up" query with the variables substituted
            String up = dashboardQuery("Target up").replace("$target", ".*");
            assertEquals(1.0, query(promPort, up.replace("$protocol", "stamp")), "stamp: s alone, up");
            assertEquals(0.0, query(promPort, up.replace("$protocol", "twamp")), "twamp: n alone, down");
            assertEquals(2.0, query(promPort, "count(" + up.replace("$protocol", ".*") + ")"), "all: both");
            assertTrue(query(promPort, "twampd_packets_reflected_total{job=\"stamp\"}") > 0);
            assertEquals(1.0, query(promPort, "twampd_reflector_info{job=\"stamp\",protocol=\"stamp\"}"));
            assertTrue(!Double.isNaN(query(promPort, "twampd_processing_seconds_count{job=\"stamp\"}")));
            assertEquals(0.0, query(promPort, "twampd_packets_dropped_total{job=\"stamp\",reason=\"bad_hmac\"}"));
        } finally {
            prometheus.destroy();
            if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly();
            }
            agent.stop();
            agentThread.join(TimeUnit.SECONDS.toMillis(60));
            stamp.stop();
            twamp.stop();
        }
    }
}
