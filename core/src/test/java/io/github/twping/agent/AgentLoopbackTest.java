package io.github.twping.agent;

import io.github.twping.cli.AgentArgs;
import io.github.twping.testsupport.Wait;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.server.EmbeddedServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
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
import java.net.InetAddress;
import java.util.Set;
import java.util.TreeSet;

/** The agent against the embedded server on loopback: back-to-back sessions, metrics, reload, failures, stop. */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class AgentLoopbackTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(90);

    @TempDir
    Path dir;

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();


    private String scrape(int port) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        return r.body();
    }

    /** @return the value of the series {@code name{labels}} in text exposition, or NaN when absent. */
    static double value(String body, String name, String labels) {
        Set<String> wanted = new TreeSet<>(List.of(labels.split(",")));
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$").matcher(body);
        while (m.find()) {
            Set<String> got = new TreeSet<>(List.of(m.group(1).split(",")));
            if (!labels.contains("protocol=")) {
                got.removeIf(l -> l.startsWith("protocol="));
            }
            if (got.equals(wanted)) {
                return Double.parseDouble(m.group(2));
            }
        }
        return Double.NaN;
    }

    private Thread run(AgentCommand command, List<String> args, int[] status) {
        Thread t = Thread.ofPlatform().name("agent-under-test").start(() -> status[0] = AgentArgs.run(command, args));
        return t;
    }

    @Test
    void shouldMeasureBackToBackOnOneConnectionAndExposeMetrics() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.options().listen("127.0.0.1", 0))) {
            Path config = dir.resolve("agent.yaml");
            Files.writeString(config, """
                    defaults:
                      rate: 50
                      session: 0.4
                      loss_timeout: 0.3
                      spin_us: 0
                    targets:
                      - name: one
                        host: "127.0.0.1:%d"
                      - name: two
                        host: "127.0.0.1:%d"
                    """.formatted(server.port(), server.port()));
            AgentCommand command = new AgentCommand("twping", new PrintStream(log, true, StandardCharsets.UTF_8));
            int[] status = {-1};
            Thread t = run(command, List.of("--agent", config.toString(), "--metrics-listen", "127.0.0.1:0"), status);
            assertTrue(command.awaitReady(DEADLINE_NS));
            Agent agent = command.agent();
            Wait.until(() -> agent.sessionsDone("one") >= 3 && agent.sessionsDone("two") >= 3, "three sessions per target", Duration.ofNanos(DEADLINE_NS));
            // Several Request-TW-Session on one control connection: one connection per target, never more.
            assertEquals(2, server.activeConnections());
            // Both targets' packets from the agent's one sender thread, none of a session's own.
            Thread sender = agent.sender().thread();
            assertEquals("twping-agent-sender", sender.getName());
            assertTrue(sender.isAlive() && sender.isDaemon());
            Wait.until(() -> agent.sender().sessions() > 0, "a session sending from the shared thread",
                    Duration.ofNanos(DEADLINE_NS));

            String body = scrape(command.metricsPort());
            for (String target : new String[] {"one", "two"}) {
                String l = "target=\"" + target + "\"";
                double sent = value(body, "twping_agent_packets_sent_total", l);
                double received = value(body, "twping_agent_packets_received_total", l);
                double lost = value(body, "twping_agent_packets_lost_total", l);
                double sessions = value(body, "twping_agent_sessions_total", l);
                assertTrue(sessions >= 3, body);
                assertEquals(sent, received + lost, body);
                double skipped = value(body, "twping_agent_packets_skipped_total", l);
                double failedLate = value(body, "twping_agent_session_failures_total", l + ",reason=\"test\"");
                assertEquals(20 * (sessions + failedLate), sent + skipped, "20 packets per session\n" + body);
                assertTrue(sent >= 20, body);
                assertEquals(received, value(body, "twping_agent_delay_seconds_count", l + ",direction=\"rtt\""), body);
                assertEquals(1.0, value(body, "twping_agent_target_up", l));
                assertTrue(value(body, "twping_agent_last_success_timestamp_seconds", l) > 1.7e9);
                double p50 = value(body, "twping_agent_last_session_delay_seconds", l + ",direction=\"rtt\",stat=\"p50\"");
                assertTrue(p50 > 0 && p50 < 1, "rtt p50 " + p50);
                assertEquals(0.0, value(body, "twping_agent_session_failures_total", l + ",reason=\"connect\""));
                assertEquals(0.0, value(body, "twping_agent_hops", l + ",direction=\"back\""), body);
                double rx = value(body, "twping_agent_timestamps_total", l + ",source=\"kernel\",stamp=\"rx\"")
                        + value(body, "twping_agent_timestamps_total", l + ",source=\"user\",stamp=\"rx\"");
                assertTrue(rx >= received, "every reply has a stamp source: " + rx + " " + received);
                // the delay breakdown of every answered packet: the parts every reply has are observed for each,
                // and each part counts every reply once, by source or as unknown (TWAMP: no reflector stack)
                for (String c : new String[] {"forward", "reflector_residence", "back"}) {
                    assertEquals(received, value(body, "twping_agent_delay_component_seconds_count",
                            "component=\"" + c + "\"," + l), c + "\n" + body);
                }
                for (String c : new String[] {"pacing_lateness", "sender_stack", "forward", "reflector_residence",
                        "reflector_stack", "back", "receiver_wakeup"}) {
                    double packets = 0;
                    for (String source : new String[] {"hardware", "kernel", "user", "reflector", "unknown"}) {
                        double v = value(body, "twping_agent_delay_component_packets_total",
                                "component=\"" + c + "\"," + l + ",source=\"" + source + "\"");
                        packets += Double.isNaN(v) ? 0 : v;
                    }
                    assertEquals(received, packets, c + "\n" + body);
                    double unknown = value(body, "twping_agent_delay_component_packets_total",
                            "component=\"" + c + "\"," + l + ",source=\"unknown\"");
                    double observed = value(body, "twping_agent_delay_component_seconds_count", "component=\"" + c
                            + "\"," + l);
                    assertEquals(received, (Double.isNaN(unknown) ? 0 : unknown) + (Double.isNaN(observed) ? 0 : observed),
                            c + ": observed or unknown\n" + body);
                }
                assertEquals(received, value(body, "twping_agent_delay_component_packets_total",
                        "component=\"reflector_stack\"," + l + ",source=\"unknown\""), body);
                assertEquals(received, value(body, "twping_agent_delay_component_packets_total",
                        "component=\"forward\"," + l + ",source=\"reflector\""), "TWAMP's t2 " + body);
            }
            assertTrue(body.contains("twping_agent_delay_seconds_bucket{direction=\"rtt\",protocol=\"twamp\",target=\"one\",le=\"2.5E-5\"}")
                    || body.contains("le=\"2.5e-05\"") || body.contains("le=\"2.5E-5\""), "fine classic buckets");

            command.stop();
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertEquals(0, status[0]);
            Wait.until(() -> server.activeConnections() == 0, "Stop-Sessions and close on both connections", Duration.ofNanos(DEADLINE_NS));
            assertEquals(0, agent.sender().sessions(), "every session handed back");
            assertFalse(sender.isAlive(), "the sender thread ended with the agent");
        }
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("agent: stopped"), log.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldCountFailuresByReasonRetryAndRecoverWithoutStoppingOthers() throws Exception {
        int freePort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            freePort = s.getLocalPort();
        }
        try (EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.options().listen("127.0.0.1", 0))) {
            Path config = dir.resolve("agent.yaml");
            Files.writeString(config, """
                    agent: {backoff_initial: 0.05, backoff_max: 0.2, connect_timeout: 5}
                    defaults: {rate: 50, session: 0.3, loss_timeout: 0.2, spin_us: 0}
                    targets:
                      - {name: good, host: "127.0.0.1:%d"}
                      - {name: refused, host: "127.0.0.1:%d"}
                      - {name: nodns, host: "[::g]:862"}
                    """.formatted(server.port(), freePort));
            AgentCommand command = new AgentCommand("twping", new PrintStream(log, true, StandardCharsets.UTF_8));
            int[] status = {-1};
            Thread t = run(command, List.of("--agent", config.toString(), "--metrics-listen", "127.0.0.1:0"), status);
            assertTrue(command.awaitReady(DEADLINE_NS));
            Agent agent = command.agent();
            int port = command.metricsPort();
            Wait.until(() -> {
                try {
                    String b = scrape(port);
                    return value(b, "twping_agent_session_failures_total", "reason=\"connect\",target=\"refused\"") >= 3
                            && value(b, "twping_agent_session_failures_total", "reason=\"dns\",target=\"nodns\"") >= 2
                            && agent.sessionsDone("good") >= 2;
                } catch (Exception e) {
                    return false;
                }
            }, "retries counted", Duration.ofNanos(DEADLINE_NS));
            String body = scrape(port);
            assertEquals(0.0, value(body, "twping_agent_target_up", "target=\"refused\""));
            assertEquals(1.0, value(body, "twping_agent_target_up", "target=\"good\""));
            assertEquals(0.0, value(body, "twping_agent_session_failures_total", "reason=\"connect\",target=\"good\""));

            // Reload: drop the failing targets, add one; the good target's connection is kept.
            Files.writeString(config, """
                    agent: {backoff_initial: 0.05, backoff_max: 0.2, connect_timeout: 5}
                    defaults: {rate: 50, session: 0.3, loss_timeout: 0.2, spin_us: 0}
                    targets:
                      - {name: good, host: "127.0.0.1:%d"}
                      - {name: added, host: "127.0.0.1:%d"}
                    """.formatted(server.port(), server.port()));
            long goodBefore = agent.sessionsDone("good");
            command.reload();
            Wait.until(() -> agent.sessionsDone("added") >= 1, "added target measures", Duration.ofNanos(DEADLINE_NS));
            Wait.until(() -> {
                try {
                    String b = scrape(port);
                    return !b.contains("target=\"refused\"") && !b.contains("target=\"nodns\"");
                } catch (Exception e) {
                    return false;
                }
            }, "removed targets' series are gone", Duration.ofNanos(DEADLINE_NS));
            assertTrue(agent.sessionsDone("good") > goodBefore);
            assertEquals(List.of("good", "added"), agent.targets());

            // A bad file on reload is one line and changes nothing.
            Files.writeString(config, "targets:\n  - {name: x, host: \"h:1\", rate: 1}\n");
            command.reload();
            assertEquals(List.of("good", "added"), agent.targets());
            assertTrue(log.toString(StandardCharsets.UTF_8).contains(
                    config + ":2: targets[0].session: missing (required here or in defaults) (reload ignored"),
                    log.toString(StandardCharsets.UTF_8));
            assertEquals(1.0, value(scrape(port), "twping_agent_config_reloads_total", "result=\"error\""));

            // The reflector goes away: the failure counter and the up gauge show it.
            server.close();
            Wait.until(() -> {
                try {
                    String b = scrape(port);
                    return value(b, "twping_agent_target_up", "target=\"good\"") == 0.0;
                } catch (Exception e) {
                    return false;
                }
            }, "good target down", Duration.ofNanos(DEADLINE_NS));
            command.stop();
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertEquals(0, status[0]);
        }
    }

    @Test
    void shouldRejectABadConfigurationWithOneLineAndStatusOne() throws Exception {
        Path config = dir.resolve("bad.yaml");
        Files.writeString(config, "targets:\n  - name: a\n    host: \"h:1\"\n    rate: 0\n    session: 1\n");
        AgentCommand command = new AgentCommand("twping", new PrintStream(log, true, StandardCharsets.UTF_8));
        assertEquals(1, AgentArgs.run(command, List.of("--agent", config.toString())));
        String text = log.toString(StandardCharsets.UTF_8);
        assertEquals(1, text.lines().count(), text);
        assertTrue(text.startsWith("twping: " + config + ":4: targets[0].rate: "), text);

        ByteArrayOutputStream other = new ByteArrayOutputStream();
        AgentCommand bad = new AgentCommand("twping", new PrintStream(other, true, StandardCharsets.UTF_8));
        assertEquals(1, AgentArgs.run(bad, List.of("--agent", config.toString(), "--metrics-listen", "nowhere")));
        assertEquals("twping: invalid --metrics-listen 'nowhere': expected ADDR:PORT\n",
                other.toString(StandardCharsets.UTF_8));
    }
}
