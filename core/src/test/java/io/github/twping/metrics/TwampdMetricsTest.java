package io.github.twping.metrics;

import io.github.twping.cli.AgentArgs;
import io.github.twping.testsupport.Wait;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.agent.AgentCommand;
import io.github.twping.control.ControlClient;
import io.github.twping.control.ControlClientOptions;
import io.github.twping.control.ControlException;
import io.github.twping.protocol.Mode;
import io.github.twping.cli.TwampdMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Assertions;

/** twampd with {@code --metrics-listen}, measured by the agent: both endpoints agree on what happened. */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class TwampdMetricsTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(90);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path dir;

    static double value(String body, String name, String labels) {
        Set<String> wanted = labels.isEmpty() ? Set.of()
                : new TreeSet<>(List.of(labels.split(",")));
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{([^}]*)\\})? (\\S+)$").matcher(body);
        while (m.find()) {
            Set<String> have = m.group(1) == null || m.group(1).isEmpty() ? Set.of()
                    : new TreeSet<>(List.of(m.group(1).split(",")));
            if (have.equals(wanted)) {
                return Double.parseDouble(m.group(2));
            }
        }
        return Double.NaN;
    }

    private String scrape(int port) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        return r.body();
    }


    @Test
    void shouldCountConnectionsSessionsPacketsAndProcessingTime() throws Exception {
        ByteArrayOutputStream serverLog = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(serverLog, true, StandardCharsets.UTF_8);
        // twampd refuses to start without its configuration file, and without a .pfs when keyed modes are offered
        Files.writeString(dir.resolve("twamp-server.conf"), "authmode OAEM\n");
        Files.writeString(dir.resolve("twamp-server.pfs"), "alice 7333637265742d6c61622d6b6579\n");
        TwampdMain daemon = new TwampdMain();
        Thread server = Thread.ofPlatform().name("twampd-under-test").start(() -> daemon.execute(new String[] {
            "-c", dir.toString(), "-R", dir.toString(), "-Z", "-f", "-S", "127.0.0.1:0",
            "--metrics-listen", "127.0.0.1:0"}, err, err));
        assertTrue(daemon.awaitReady(DEADLINE_NS), serverLog.toString(StandardCharsets.UTF_8));
        int metricsPort = daemon.metricsPort();
        assertTrue(metricsPort > 0);

        // An unknown identity in authenticated mode: refused for auth.
        ControlException refused = Assertions.assertThrows(ControlException.class,
                () -> ControlClient.connect(ControlClientOptions.of("127.0.0.1", daemon.port())
                        .requestedModes(Mode.AUTHENTICATED.bits())
                        .identity("nobody".getBytes(StandardCharsets.US_ASCII), "x".getBytes(StandardCharsets.US_ASCII))
                        .readTimeoutMs(20_000)));
        assertTrue(refused.acceptCode() > 0, refused.getMessage());

        Path config = dir.resolve("agent.yaml");
        Files.writeString(config, """
                defaults: {rate: 50, session: 0.4, loss_timeout: 0.3, spin_us: 0}
                targets:
                  - {name: t, host: "127.0.0.1:%d"}
                """.formatted(daemon.port()));
        ByteArrayOutputStream agentLog = new ByteArrayOutputStream();
        AgentCommand agent = new AgentCommand("twping", new PrintStream(agentLog, true, StandardCharsets.UTF_8));
        Thread agentThread = Thread.ofPlatform().start(
                () -> AgentArgs.run(agent, List.of("--agent", config.toString(), "--metrics-listen", "127.0.0.1:0")));
        assertTrue(agent.awaitReady(DEADLINE_NS));
        Wait.until(() -> agent.agent().sessionsDone("t") >= 2, "two sessions", Duration.ofNanos(DEADLINE_NS));
        String during = scrape(metricsPort);
        assertTrue(value(during, "twampd_test_sessions_active", "") >= 0, during);
        agent.stop();
        agentThread.join(TimeUnit.SECONDS.toMillis(60));
        String agentBody = scrape2(agent);

        Wait.until(() -> {
            try {
                return value(scrape(metricsPort), "twampd_test_sessions_active", "") == 0.0;
            } catch (Exception e) {
                return false;
            }
        }, "sessions ended", Duration.ofNanos(DEADLINE_NS));
        String body = scrape(metricsPort);
        assertEquals(1.0, value(body, "twampd_control_connections_total", "outcome=\"accepted\""), body);
        assertEquals(1.0, value(body, "twampd_control_connections_total", "outcome=\"refused_auth\""), body);
        assertEquals(0.0, value(body, "twampd_control_connections_total", "outcome=\"refused_capacity\""), body);
        assertEquals(1.0, value(body, "twampd_control_connections_closed_total", "reason=\"unknown_identity\""), body);
        double sessions = value(body, "twampd_test_sessions_total", "");
        assertTrue(sessions >= 2, body);
        double reflected = value(body, "twampd_packets_reflected_total", "");
        double sent = AgentSeries.sum(agentBody, "twping_agent_packets_sent_total");
        double received = AgentSeries.sum(agentBody, "twping_agent_packets_received_total");
        assertTrue(received <= reflected && reflected <= sent, received + " <= " + reflected + " <= " + sent);
        assertEquals(reflected, value(body, "twampd_processing_seconds_count", ""), body);
        assertEquals(0.0, value(body, "twampd_packets_dropped_total", "reason=\"foreign_source\""), body);
        assertEquals(0.0, value(body, "twampd_packets_dropped_total", "reason=\"bad_hmac\""), body);
        assertTrue(value(body, "twampd_packets_dropped_total", "reason=\"socket_overflow\"") >= 0, body);
        assertTrue(value(body, "twampd_processing_seconds_bucket", "le=\"+Inf\"") == reflected, body);

        daemon.stop();
        server.join(TimeUnit.SECONDS.toMillis(30));
    }

    private String scrape2(AgentCommand agent) {
        return PrometheusText.of(agent.metrics().registry());
    }

    @Test
    void shouldRejectABadListenAddressInOneLine() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        assertEquals(1, TwampdMain.run(new String[] {"-Z", "--metrics-listen"}, err, err));
        assertEquals("twampd: option '--metrics-listen' requires an argument\n", bytes.toString(StandardCharsets.UTF_8));
        bytes.reset();
        assertEquals(1, TwampdMain.run(new String[] {"-Z", "--metrics-listen=127.0.0.1:x"}, err, err));
        assertEquals("twampd: invalid --metrics-listen '127.0.0.1:x': port must be 0-65535\n",
                bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldBucketProcessingTimesWithoutLosingAny() {
        LatencyRecorder r = new LatencyRecorder();
        r.accept(-5);             // clamped to 0: first bucket
        r.accept(5_000);          // exactly 5 us: first bucket (le is inclusive)
        r.accept(5_001);          // second bucket
        r.accept(20_000_000_000L); // beyond 10 s: +Inf
        long[] c = r.counts();
        assertEquals(DelayBuckets.count() + 1, c.length);
        assertEquals(2, c[0]);
        assertEquals(1, c[1]);
        assertEquals(1, c[c.length - 1]);
        assertEquals(20.000010001, r.sumSeconds(), 1e-9);
    }

    /** Sums a metric over all its series in a text exposition. */
    static final class AgentSeries {
        static double sum(String body, String name) {
            Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? (\\S+)$").matcher(body);
            double s = 0;
            while (m.find()) {
                s += Double.parseDouble(m.group(1));
            }
            return s;
        }
    }
}
