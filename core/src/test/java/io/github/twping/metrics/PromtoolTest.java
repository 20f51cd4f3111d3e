package io.github.twping.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.cli.TwampdMain;
import io.github.twping.cli.Twping;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code promtool check metrics} on the three endpoints as they serve after real sessions (the agent's, twampd's
 * and {@code twampd --stamp}'s), and {@code promtool check rules} / {@code promtool test rules} on
 * deploy/prometheus/rules.yml. Skipped, saying so, when promtool (Debian {@code prometheus}) is not installed.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PromtoolTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(60);
    private static Path promtool;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path dir;

    @BeforeAll
    static void findPromtool() {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            Path p = Path.of(d, "promtool");
            if (Files.isExecutable(p)) {
                promtool = p;
                return;
            }
        }
        Assumptions.assumeTrue(false, "promtool not installed (Debian package prometheus): checks skipped");
    }

    /** @return exit status and combined output of promtool with these arguments and this standard input */
    private static Result promtool(String input, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool finished");
        return new Result(p.exitValue(), output);
    }

    private record Result(int status, String output) {
    }

    private static void assertLintClean(String what, String exposition) throws Exception {
        Result r = promtool(exposition, "check", "metrics");
        assertEquals(0, r.status(), what + ": promtool check metrics\n" + r.output());
        assertEquals("", r.output().strip(), what);
    }

    private String scrape(int port) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        return r.body();
    }

    private static int twping(String... args) {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        PrintStream s = new PrintStream(sink, true, StandardCharsets.UTF_8);
        int status = Twping.run(List.of(args), s, s);
        assertEquals(0, status, sink.toString(StandardCharsets.UTF_8));
        return status;
    }

    @Test
    void agentEndpointPassesAfterSessionsEnded() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        AgentMetrics m = new AgentMetrics(registry);
        m.addTarget("a");
        m.addTarget("b");
        assertLintClean("agent, targets created", PrometheusText.of(registry));
        m.recordSession("a", AgentMetricsTest.sample(true));
        m.recordSession("a", AgentMetricsTest.sample(false));
        AgentMetrics.ComponentRecorder rec = m.components("a");
        for (long seq = 0; seq < 4; seq++) {
            rec.accept(AgentMetricsTest.packet(seq, seq > 0));
        }
        rec.finish();
        m.recordFailure("b", FailureReason.CONNECT);
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0), registry)) {
            String body = scrape(endpoint.port());
            assertTrue(body.contains("twping_agent_last_session_delay_seconds{"), body);
            assertTrue(body.contains("twping_agent_delay_component_seconds_bucket{"), body);
            assertTrue(body.contains("twping_agent_delay_component_packets_total{"), body);
            assertLintClean("agent, after sessions", body);
        }
    }

    @Test
    void twampdEndpointPassesAfterASession() throws Exception {
        Files.writeString(dir.resolve("twamp-server.conf"), "authmode O\n");
        TwampdMain daemon = new TwampdMain();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(log, true, StandardCharsets.UTF_8);
        Thread server = Thread.ofPlatform().name("twampd-promtool").start(() -> daemon.execute(new String[] {
            "-c", dir.toString(), "-R", dir.toString(), "-Z", "-f", "-S", "127.0.0.1:0",
            "--metrics-listen", "127.0.0.1:0"}, err, err));
        try {
            assertTrue(daemon.awaitReady(DEADLINE_NS), log.toString(StandardCharsets.UTF_8));
            twping("-c", "5", "-i", "0.002f", "-L", "1", "-Q", "127.0.0.1:" + daemon.port());
            String body = scrape(daemon.metricsPort());
            assertTrue(body.contains("twampd_processing_seconds_bucket"), body);
            assertLintClean("twampd", body);
        } finally {
            daemon.stop();
            server.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    @Test
    void stampReflectorEndpointPassesAfterASession() throws Exception {
        TwampdMain daemon = new TwampdMain();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(log, true, StandardCharsets.UTF_8);
        Thread server = Thread.ofPlatform().name("twampd-stamp-promtool").start(() -> daemon.execute(new String[] {
            "--stamp", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"}, err, err));
        try {
            long deadline = System.nanoTime() + DEADLINE_NS;
            while (daemon.stampAddress() == null || daemon.metricsPort() < 0) {
                assertTrue(System.nanoTime() < deadline, "reflector started: " + log.toString(StandardCharsets.UTF_8));
                Thread.sleep(20);
            }
            twping("--stamp", "127.0.0.1:" + daemon.stampAddress().getPort(), "-c", "5", "-i", "0.002f", "-L", "1",
                    "-Q");
            String body = scrape(daemon.metricsPort());
            assertTrue(body.contains("twampd_reflector_info{"), body);
            assertLintClean("twampd --stamp", body);
        } finally {
            daemon.stop();
            server.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    /** The deploy directory (found upwards from the working directory). */
    private static Path rulesFile() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("deploy/prometheus/rules.yml"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "deploy/prometheus/rules.yml not found");
        return p.resolve("deploy/prometheus/rules.yml");
    }

    @Test
    void shippedRulesAreValidAndFireOnWhatFleetMdDescribes() throws Exception {
        Path rules = rulesFile();
        Result check = promtool("", "check", "rules", rules.toString());
        assertEquals(0, check.status(), check.output());
        assertTrue(check.output().contains("SUCCESS: 5 rules found"), check.output());
        // promtool test rules: a target failing for 10 minutes, 5 % loss, a dead agent, a reflector's
        // overflowing socket each raise their alert; a healthy target raises none
        Path tests = dir.resolve("rules-test.yml");
        Files.writeString(tests, """
                rule_files:
                  - %s
                evaluation_interval: 1m
                tests:
                  - interval: 1m
                    input_series:
                      - series: 'twping_agent_target_up{job="twping-agent",target="down",protocol="twamp"}'
                        values: '0x15'
                      - series: 'twping_agent_target_up{job="twping-agent",target="ok",protocol="twamp"}'
                        values: '1x15'
                      - series: 'twping_agent_packets_sent_total{job="twping-agent",target="lossy",protocol="stamp"}'
                        values: '0+600x30'
                      - series: 'twping_agent_packets_lost_total{job="twping-agent",target="lossy",protocol="stamp"}'
                        values: '0+30x30'
                      - series: 'twping_agent_packets_sent_total{job="twping-agent",target="ok",protocol="twamp"}'
                        values: '0+600x30'
                      - series: 'twping_agent_packets_lost_total{job="twping-agent",target="ok",protocol="twamp"}'
                        values: '0x30'
                      - series: 'up{job="twping-agent",instance="agent:9863"}'
                        values: '0x10'
                      - series: 'twampd_packets_dropped_total{job="twampd",instance="r:9862",reason="socket_overflow"}'
                        values: '0+5x15'
                    alert_rule_test:
                      - eval_time: 10m
                        alertname: TwpingTargetDown
                        exp_alerts:
                          - exp_labels: {severity: warning, job: twping-agent, target: down, protocol: twamp}
                            exp_annotations:
                              summary: "twping target down (twamp) fails"
                              description: "Every attempt on down failed for 5 minutes; the reason is in twping_agent_session_failures_total{target=\\"down\\"}."
                      - eval_time: 25m
                        alertname: TwpingPacketLoss
                        exp_alerts:
                          - exp_labels: {severity: warning, job: twping-agent, target: lossy, protocol: stamp}
                            exp_annotations:
                              summary: "lossy loses 5%% of its test packets"
                              description: "Round-trip loss above 1 %% over 10 minutes (lost / sent of the agent's counters)."
                      - eval_time: 5m
                        alertname: TwpingAgentDown
                        exp_alerts:
                          - exp_labels: {severity: critical, job: twping-agent, instance: "agent:9863"}
                            exp_annotations:
                              summary: "twping agent agent:9863 is not scraped"
                              description: "Its targets are not measured: none of them can raise the other alerts."
                      - eval_time: 12m
                        alertname: TwampdSocketOverflow
                        exp_alerts:
                          - exp_labels: {severity: warning, job: twampd, instance: "r:9862", reason: socket_overflow}
                            exp_annotations:
                              summary: "twampd r:9862 drops test packets at its own socket"
                              description: "The reflector's receive buffer overflows: loss measured through it is the reflector's, not the network's. Raise net.core.rmem_max or move the reflector to a less busy host."
                """.formatted(rules));
        Result test = promtool("", "test", "rules", tests.toString());
        assertEquals(0, test.status(), test.output());
    }
}
