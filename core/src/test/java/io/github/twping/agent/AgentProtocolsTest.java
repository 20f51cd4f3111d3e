package io.github.twping.agent;

import io.github.twping.cli.AgentArgs;
import io.github.twping.testsupport.Wait;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.github.twping.cli.TwampdMain;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's STAMP and TWAMP-Light targets against our {@code twampd --stamp/--light} (with its metrics), keyed
 * TWAMP and authenticated STAMP targets with a key file, a wrong key as a retried failure beside working
 * targets, and the {@code --json-stream} lines validated against docs/twping-result.schema.json.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class AgentProtocolsTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(120);
    /** The recorded vectors' identity and pass-phrase ("s3cret-lab-key" in hex). */
    private static final String GOOD_PFS = "alice 7333637265742d6c61622d6b6579\n";
    private static final String WRONG_PFS = "alice 77726f6e672d6b6579\n";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final List<TwampdMain> daemons = new ArrayList<>();
    private final ByteArrayOutputStream serverLog = new ByteArrayOutputStream();
    private final ByteArrayOutputStream agentLog = new ByteArrayOutputStream();

    @AfterEach
    void stopDaemons() {
        for (TwampdMain d : daemons) {
            d.stop();
            d.awaitFinished(TimeUnit.SECONDS.toNanos(20));
        }
    }


    private String logs() {
        return "\nagent:\n" + agentLog.toString(StandardCharsets.UTF_8) + "\ntwampd:\n"
                + serverLog.toString(StandardCharsets.UTF_8);
    }

    private TwampdMain twampd(String... args) {
        TwampdMain d = new TwampdMain();
        PrintStream err = new PrintStream(serverLog, true, StandardCharsets.UTF_8);
        daemons.add(d);
        Thread.ofPlatform().name("twampd-under-test").start(() -> d.execute(args, err, err));
        return d;
    }

    /** {@code twampd --stamp|--light 127.0.0.1:0 --metrics-listen 127.0.0.1:0 ...}, once bound. */
    private TwampdMain reflector(String... args) throws InterruptedException {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--metrics-listen", "127.0.0.1:0"));
        TwampdMain d = twampd(all.toArray(String[]::new));
        Wait.until(() -> d.stampAddress() != null && d.metricsPort() > 0, "reflector bound", Duration.ofNanos(DEADLINE_NS));
        return d;
    }

    /** A TWAMP twampd offering every mode, alice's pass-phrase in its .pfs. */
    private TwampdMain twampServer() throws IOException, InterruptedException {
        Path conf = Files.createDirectories(dir.resolve("twampd"));
        Files.writeString(conf.resolve("twamp-server.conf"), "authmode OAEM\n");
        Files.writeString(conf.resolve("twamp-server.pfs"), GOOD_PFS);
        TwampdMain d = twampd("-c", conf.toString(), "-R", conf.toString(), "-Z", "-f", "-S", "127.0.0.1:0");
        assertTrue(d.awaitReady(DEADLINE_NS), logs());
        return d;
    }

    private AgentCommand agent(String yaml, String... extra) throws InterruptedException, IOException {
        Path config = dir.resolve("agent.yaml");
        Files.writeString(config, yaml);
        AgentCommand agent = new AgentCommand("twping", new PrintStream(agentLog, true, StandardCharsets.UTF_8));
        List<String> args = new ArrayList<>(List.of("--agent", config.toString()));
        args.addAll(List.of(extra));
        Thread.ofPlatform().name("agent-under-test").start(() -> AgentArgs.run(agent, args));
        assertTrue(agent.awaitReady(DEADLINE_NS), logs());
        assertTrue(agent.agent() != null, logs());
        return agent;
    }

    private static String text(PrometheusRegistry registry) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    private String scrape(int port) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        return r.body();
    }

    /** The series {@code name{labels}} (the labels in any order; {@code protocol} may be left out), or NaN. */
    private static double value(String body, String name, String labels) {
        if (!labels.isEmpty()) {
            return AgentLoopbackTest.value(body, name, labels);
        }
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name)
                + "(?:\\{\\})? (\\S+)$").matcher(body);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    private static double failures(AgentCommand agent, String target, String reason) {
        try {
            return value(text(agent.metrics().registry()), "twping_agent_session_failures_total",
                    "reason=\"" + reason + "\",target=\"" + target + "\"");
        } catch (IOException e) {
            return Double.NaN;
        }
    }

    private static Schema resultSchema() throws IOException {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("docs/twping-result.schema.json"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "docs/twping-result.schema.json not found");
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(Files.readString(p.resolve("docs/twping-result.schema.json")), InputFormat.JSON);
    }

    @Test
    void stampLightAndTwampTargetsMeasureWithMetricsOnBothSidesAndOneJsonLinePerSession() throws Exception {
        TwampdMain stamp = reflector("--stamp", "127.0.0.1:0");
        TwampdMain light = reflector("--light", "127.0.0.1:0");
        TwampdMain twamp = twampServer();
        Path stream = dir.resolve("sessions.ndjson");
        AgentCommand agent = agent("""
                defaults: {rate: 50, session: 0.4, loss_timeout: 0.3, spin_us: 0}
                targets:
                  - {name: s, protocol: stamp, host: "127.0.0.1:%d", padding: 20}
                  - {name: l, protocol: light, host: "127.0.0.1:%d"}
                  - {name: t, host: "127.0.0.1:%d"}
                """.formatted(stamp.stampAddress().getPort(), light.stampAddress().getPort(), twamp.port()),
                "--metrics-listen", "127.0.0.1:0", "--json-stream", stream.toString(), "--interval", "0.1");
        Wait.until(() -> agent.agent().sessionsDone("s") >= 2
                && agent.agent().sessionsDone("l") >= 2 && agent.agent().sessionsDone("t") >= 2, "two sessions per target", Duration.ofNanos(DEADLINE_NS));
        // one short datagram to the STAMP reflector: dropped, counted by reason
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            probe.send(new DatagramPacket(new byte[] {1, 2, 3}, 3, stamp.stampAddress()));
        }
        Wait.until(() -> {
            try {
                return value(scrape(stamp.metricsPort()), "twampd_packets_dropped_total", "reason=\"short\"") == 1.0;
            } catch (Exception e) {
                return false;
            }
        }, "the short datagram counted", Duration.ofNanos(DEADLINE_NS));
        String live = scrape(agent.metricsPort());
        assertEquals(1.0, value(live, "twping_agent_target_up", "protocol=\"stamp\",target=\"s\""), live);
        assertEquals(1.0, value(live, "twping_agent_target_up", "protocol=\"light\",target=\"l\""), live);
        assertEquals(1.0, value(live, "twping_agent_target_up", "protocol=\"twamp\",target=\"t\""), live);
        agent.stop();
        Wait.until(() -> agent.metricsPort() < 0 || agentLog.toString(StandardCharsets.UTF_8)
                .contains("agent: stopped"), "agent stopped", Duration.ofNanos(DEADLINE_NS));
        String body = text(agent.metrics().registry());

        Map<String, double[]> fromJson = new HashMap<>();   // target -> {lines, sent, received}
        Map<String, long[]> bySid = new HashMap<>();         // sid -> {interval lines, sent, received, lost, ended}
        Schema schema = resultSchema();
        Schema streamSchema = SessionIntervalsTest.streamSchema();
        List<String> lines = Files.readAllLines(stream);
        long intervalLines = 0;
        for (String line : lines) {
            List<Error> streamErrors = streamSchema.validate(line, InputFormat.JSON);
            assertTrue(streamErrors.isEmpty(), () -> "stream schema errors: " + streamErrors + "\nin " + line);
            JsonNode o = JSON.readTree(line);
            if (o.path("event").asText().equals("interval")) {
                long[] v = bySid.computeIfAbsent(o.path("sid").asText(), k -> new long[5]);
                assertEquals(0, v[4], "an interval after its session's end line: " + line);
                assertEquals(v[0], o.path("index").asLong(), "consecutive interval indexes: " + line);
                v[0]++;
                v[1] += o.path("packets").path("sent").asLong();
                v[2] += o.path("packets").path("received").asLong();
                v[3] += o.path("packets").path("lost").asLong();
                v[4] = o.path("last").asBoolean() ? -1 : 0;
                intervalLines++;
                continue;
            }
            List<Error> errors = schema.validate(line, InputFormat.JSON);
            assertTrue(errors.isEmpty(), () -> "schema errors: " + errors + "\nin " + line);
            assertEquals("end", o.path("event").asText(), line);
            long[] v = bySid.get(o.path("session").path("sid").asText());
            assertTrue(v != null && v[4] == -1, "the last interval line precedes the end line: " + line);
            JsonNode exact = o.path("exact").path("packets");
            assertEquals(exact.path("sent").asLong(), v[1], "interval sent sum = end line's: " + line);
            assertEquals(exact.path("received").asLong(), v[2], "interval received sum = end line's: " + line);
            assertEquals(exact.path("lost").asLong(), v[3], "interval lost sum = end line's: " + line);
            v[4] = 1;
            double[] t = fromJson.computeIfAbsent(o.path("target").asText(), k -> new double[3]);
            t[0]++;
            t[1] += o.path("exact").path("packets").path("sent").asLong();
            t[2] += o.path("exact").path("packets").path("received").asLong();
            String protocol = switch (o.path("target").asText()) {
                case "s" -> "stamp";
                case "l" -> "light";
                default -> "twamp";
            };
            assertEquals(protocol, o.path("protocol").asText(), line);
            assertEquals("127.0.0.1", o.path("session").path("reflector").path("address").asText(), line);
        }
        assertTrue(intervalLines >= 3 * 2 * 4, "0.4 s sessions in 0.1 s intervals: " + intervalLines);
        for (String target : new String[] {"s", "l", "t"}) {
            String protocol = target.equals("s") ? "stamp" : target.equals("l") ? "light" : "twamp";
            String labels = "protocol=\"" + protocol + "\",target=\"" + target + "\"";
            double sessions = value(body, "twping_agent_sessions_total", labels)
                    + value(body, "twping_agent_sessions_partial_total", labels);
            double sent = value(body, "twping_agent_packets_sent_total", labels);
            double received = value(body, "twping_agent_packets_received_total", labels);
            double[] j = fromJson.get(target);
            assertTrue(j != null, "no JSON line for " + target + ": " + lines);
            assertEquals(sessions, j[0], "one line per recorded session of " + target + "\n" + body);
            assertEquals(sent, j[1], "sent of " + target);
            assertEquals(received, j[2], "received of " + target);
            assertTrue(received > 0, body);
            assertEquals(sent, received + value(body, "twping_agent_packets_lost_total", labels), body);
        }
        String reflectorNames = "";
        for (TwampdMain r : new TwampdMain[] {stamp, light}) {
            String labels = r == stamp ? "protocol=\"stamp\",target=\"s\"" : "protocol=\"light\",target=\"l\"";
            String m = scrape(r.metricsPort());
            double reflected = value(m, "twampd_packets_reflected_total", "");
            assertTrue(reflected >= value(body, "twping_agent_packets_received_total", labels)
                    && reflected <= value(body, "twping_agent_packets_sent_total", labels), m + body);
            assertEquals(reflected, value(m, "twampd_processing_seconds_count", ""), m);
            assertEquals(1.0, value(m, "twampd_reflector_info", r == stamp ? "protocol=\"stamp\""
                    : "protocol=\"light\""), m);
            assertEquals(r == stamp ? 1.0 : 0.0, value(m, "twampd_packets_dropped_total", "reason=\"short\""), m);
            assertEquals(0.0, value(m, "twampd_packets_dropped_total", "reason=\"bad_hmac\""), m);
            reflectorNames += m.contains("twampd_processing_seconds_bucket") ? "" : "no buckets; ";
        }
        assertEquals("", reflectorNames);
    }

    /**
     * A STAMP target with TLVs: its {@code end} lines carry twping's {@code stamp} object with the values the replies'
     * TLVs reported; a STAMP target without TLVs and a TWAMP target have none.
     */
    @Test
    void stampTargetWithTlvsHasTheStampObjectOfTwpingsEndEventAndOtherTargetsHaveNone() throws Exception {
        TwampdMain stamp = reflector("--stamp", "127.0.0.1:0");
        TwampdMain twamp = twampServer();
        Path stream = dir.resolve("tlvs.ndjson");
        int sp = stamp.stampAddress().getPort();
        AgentCommand agent = agent("""
                defaults: {rate: 50, session: 0.4, loss_timeout: 0.3, spin_us: 0}
                targets:
                  - {name: tlv, protocol: stamp, host: "127.0.0.1:%d", dscp: 10, tlv: "ts,cos=34,dm,fut"}
                  - {name: plain, protocol: stamp, host: "127.0.0.1:%d"}
                  - {name: t, host: "127.0.0.1:%d"}
                """.formatted(sp, sp, twamp.port()), "--json-stream", stream.toString(), "--interval", "0");
        Wait.until(() -> agent.agent().sessionsDone("tlv") >= 2
                && agent.agent().sessionsDone("plain") >= 2 && agent.agent().sessionsDone("t") >= 2, "two sessions per target", Duration.ofNanos(DEADLINE_NS));
        agent.stop();
        Wait.until(() -> agentLog.toString(StandardCharsets.UTF_8).contains("agent: stopped"), "agent stopped", Duration.ofNanos(DEADLINE_NS));

        Schema schema = resultSchema();
        Schema streamSchema = SessionIntervalsTest.streamSchema();
        Map<String, Integer> ends = new HashMap<>();
        long fullSessions = 0;
        for (String line : Files.readAllLines(stream)) {
            List<Error> streamErrors = streamSchema.validate(line, InputFormat.JSON);
            assertTrue(streamErrors.isEmpty(), () -> "stream schema errors: " + streamErrors + "\nin " + line);
            List<Error> errors = schema.validate(line, InputFormat.JSON);
            assertTrue(errors.isEmpty(), () -> "schema errors: " + errors + "\nin " + line);
            JsonNode o = JSON.readTree(line);
            assertEquals("end", o.path("event").asText(), line);
            String target = o.path("target").asText();
            ends.merge(target, 1, Integer::sum);
            if (!target.equals("tlv")) {
                assertTrue(o.path("stamp").isMissingNode(), "no stamp object without TLVs: " + line);
                continue;
            }
            JsonNode s = o.path("stamp");
            assertEquals(List.of("timestamp_information", "class_of_service", "direct_measurement",
                    "follow_up_telemetry"), JSON.convertValue(s.path("tlvs"), List.class), line);
            JsonNode packets = o.path("exact").path("packets");
            long received = packets.path("received").asLong();
            assertEquals(received, s.path("replies").asLong(), "one TLV record per first reply: " + line);
            JsonNode ts = s.path("timestamp_information");
            assertEquals(received, ts.path("replies").asLong(), "every reply carried Timestamp Information: " + line);
            assertEquals(received > 0, s.path("sender_sync").isTextual(), "our clock's source, null without replies: "
                    + line);
            JsonNode cos = s.path("class_of_service");
            assertEquals(34, cos.path("requested_dscp").asInt(), line);
            assertEquals(10, cos.path("sender_dscp").asInt(), line);
            assertEquals(received, cos.path("reflector_received_sender_dscp").asLong(),
                    "the reflector saw our DSCP 10 in every request: " + line);
            assertEquals(0, cos.path("not_applied").asLong(), line);
            JsonNode dm = s.path("direct_measurement");
            assertEquals(received == 0, dm.isNull(), "null when no reply carried it: " + line);
            assertTrue(dm.path("reflector_received").asLong() >= dm.path("sender_sent").asLong(),
                    "the reflector's counters of our socket run over its sessions: " + line);
            JsonNode fut = s.path("follow_up_telemetry");
            long kernelT3 = fut.path("kernel_t3").asLong();
            // each reply reports the kernel TX stamp of the reflector's previous reply to our socket: the session's
            // first reply has none of this session (a later session's names the previous session's last packet,
            // which this session has not sent: unmatched); the session a stop cancels may have sent nothing
            assertTrue(fut.path("unmatched").asLong() <= 1, line);
            assertTrue(kernelT3 <= Math.max(0, received - 1) && s.path("kernel_timestamps").path("t3").asLong() >= kernelT3, line);
            if (packets.path("lost").asLong() == 0
                    && packets.path("sent").asLong() == o.path("session").path("packet_count").asLong(-1)) {
                assertEquals(received - 1, kernelT3, "a follow-up for every reply but the last: " + line);
                JsonNode rtt = fut.path("rtt_kernel_t3");
                assertTrue(rtt.path("min_ns").asLong() <= rtt.path("median_ns").asLong()
                        && rtt.path("median_ns").asLong() <= rtt.path("max_ns").asLong(), line);
                fullSessions++;
            }
        }
        assertTrue(ends.getOrDefault("tlv", 0) >= 2 && ends.getOrDefault("plain", 0) >= 2
                && ends.getOrDefault("t", 0) >= 2, "end lines per target: " + ends);
        assertTrue(fullSessions >= 1, "no complete loss-free session of target tlv");
        // the delay breakdown: with Follow-Up Telemetry the reflector's stack time is known (t3, a user-space stamp,
        // to its kernel TX stamp), and Timestamp Information names the reflector's stamps; without them neither
        String b = text(agent.metrics().registry());
        String tlv = "protocol=\"stamp\",target=\"tlv\"";
        String plain = "protocol=\"stamp\",target=\"plain\"";
        assertTrue(value(b, "twping_agent_delay_component_seconds_count", "component=\"reflector_stack\"," + tlv) > 0, b);
        double residence = value(b, "twping_agent_delay_component_seconds_count", "component=\"reflector_residence\","
                + tlv);
        assertEquals(value(b, "twping_agent_packets_received_total", tlv), residence, b);
        assertEquals(residence, value(b, "twping_agent_delay_component_packets_total",
                "component=\"reflector_residence\"," + tlv + ",source=\"user\""), b);
        double plainReceived = value(b, "twping_agent_packets_received_total", plain);
        assertTrue(plainReceived > 0, b);
        assertEquals(plainReceived, value(b, "twping_agent_delay_component_packets_total",
                "component=\"reflector_stack\"," + plain + ",source=\"unknown\""), b);
        assertEquals(plainReceived, value(b, "twping_agent_delay_component_packets_total",
                "component=\"reflector_residence\"," + plain + ",source=\"reflector\""), b);
        String m = scrape(stamp.metricsPort());
        assertTrue(value(m, "twampd_packets_reflected_total", "") > 0, m);
    }

    @Test
    void keyedTwampAndAuthenticatedStampTargetsMeasureWhileAWrongKeyFailsAndIsRetried() throws Exception {
        Files.writeString(dir.resolve("good.pfs"), GOOD_PFS);
        Files.writeString(dir.resolve("wrong.pfs"), WRONG_PFS);
        TwampdMain twamp = twampServer();
        TwampdMain stamp = reflector("--stamp", "127.0.0.1:0", "-a", "A", "-u", "alice", "-k",
                dir.resolve("good.pfs").toString());
        int sp = stamp.stampAddress().getPort();
        AgentCommand agent = agent("""
                agent: {backoff_initial: 0.2, backoff_max: 1}
                defaults: {rate: 50, session: 0.4, loss_timeout: 0.3, spin_us: 0, identity: alice, key_file: good.pfs}
                targets:
                  - {name: auth, mode: A, host: "127.0.0.1:%d"}
                  - {name: enc, mode: E, host: "127.0.0.1:%d"}
                  - {name: mixed, mode: M, host: "127.0.0.1:%d"}
                  - {name: badkey, mode: A, host: "127.0.0.1:%d", key_file: wrong.pfs}
                  - {name: sauth, protocol: stamp, mode: A, host: "127.0.0.1:%d"}
                  - {name: sbadkey, protocol: stamp, mode: A, host: "127.0.0.1:%d", key_file: wrong.pfs}
                  - {name: lnodns, protocol: light, host: "[::g]"}
                """.formatted(twamp.port(), twamp.port(), twamp.port(), twamp.port(), sp, sp));
        Wait.until(() -> failures(agent, "badkey", "auth") >= 2
                && failures(agent, "sbadkey", "no_reply") >= 2 && failures(agent, "lnodns", "dns") >= 2, "wrong keys and the unknown host failed twice each", Duration.ofNanos(DEADLINE_NS));
        long[] before = new long[4];
        String[] good = {"auth", "enc", "mixed", "sauth"};
        for (int i = 0; i < good.length; i++) {
            before[i] = agent.agent().sessionsDone(good[i]);
        }
        Wait.until(() -> {
            for (int i = 0; i < good.length; i++) {
                if (agent.agent().sessionsDone(good[i]) < Math.max(2, before[i] + 1)) {
                    return false;
                }
            }
            return true;
        }, "the keyed targets go on measuring", Duration.ofNanos(DEADLINE_NS));
        String body = text(agent.metrics().registry());
        for (String t : good) {
            String protocol = t.equals("sauth") ? "stamp" : "twamp";
            String labels = "protocol=\"" + protocol + "\",target=\"" + t + "\"";
            assertEquals(1.0, value(body, "twping_agent_target_up", labels), t + body + logs());
            assertTrue(value(body, "twping_agent_packets_received_total", labels) > 0, t + body);
            for (String reason : new String[] {"auth", "no_reply", "key_file"}) {
                assertEquals(0.0, value(body, "twping_agent_session_failures_total",
                        labels + ",reason=\"" + reason + "\""), t + " " + reason + body + logs());
            }
        }
        assertEquals(0.0, value(body, "twping_agent_target_up", "protocol=\"twamp\",target=\"badkey\""), body);
        assertEquals(0.0, value(body, "twping_agent_sessions_total", "protocol=\"twamp\",target=\"badkey\""), body);
        assertEquals(0.0, value(body, "twping_agent_target_up", "protocol=\"stamp\",target=\"sbadkey\""), body);
        assertEquals(0.0, value(body, "twping_agent_sessions_total", "protocol=\"stamp\",target=\"sbadkey\""), body);
        assertTrue(value(body, "twping_agent_packets_lost_total", "protocol=\"stamp\",target=\"sbadkey\"") > 0, body);
        // the reflector dropped the wrongly signed packets by reason
        String m = scrape(stamp.metricsPort());
        assertTrue(value(m, "twampd_packets_dropped_total", "reason=\"bad_hmac\"") > 0, m);
        String log = agentLog.toString(StandardCharsets.UTF_8);
        assertTrue(log.lines().anyMatch(l -> l.startsWith("twping: target badkey (127.0.0.1:")
                && l.contains("retrying in")), log);
        assertTrue(log.lines().anyMatch(l -> l.startsWith("twping: target sbadkey (stamp 127.0.0.1:")
                && l.contains("no reply to any of the") && l.contains("retrying in")), log);
        agent.stop();
    }

    @Test
    void aReloadThatChangesTheProtocolRestartsTheTargetUnderTheNewOne() throws Exception {
        TwampdMain stamp = reflector("--stamp", "127.0.0.1:0");
        TwampdMain light = reflector("--light", "127.0.0.1:0");
        String yaml = """
                defaults: {rate: 50, session: 0.4, loss_timeout: 0.3, spin_us: 0}
                targets:
                  - {name: x, protocol: %s, host: "127.0.0.1:%d"}
                """;
        AgentCommand agent = agent(yaml.formatted("light", light.stampAddress().getPort()));
        Wait.until(() -> agent.agent().sessionsDone("x") >= 1, "a light session", Duration.ofNanos(DEADLINE_NS));
        Files.writeString(dir.resolve("agent.yaml"), yaml.formatted("stamp", stamp.stampAddress().getPort()));
        agent.reload();
        Wait.until(() -> {
            try {
                return value(text(agent.metrics().registry()), "twping_agent_sessions_total",
                        "protocol=\"stamp\",target=\"x\"") >= 1.0;
            } catch (IOException e) {
                return false;
            }
        }, "x measures over STAMP", Duration.ofNanos(DEADLINE_NS));
        String body = text(agent.metrics().registry());
        assertTrue(!body.contains("protocol=\"light\""), body);
        assertTrue(value(scrape(stamp.metricsPort()), "twampd_packets_reflected_total", "") > 0);
        assertTrue(agentLog.toString(StandardCharsets.UTF_8).contains("(0 added, 1 changed, 0 removed)"), logs());
        agent.stop();
    }

    @Test
    void aBadIntervalIsOneLineAndStatusOne() throws Exception {
        Files.writeString(dir.resolve("agent.yaml"), """
                targets:
                  - {name: x, host: "127.0.0.1:9", rate: 1, session: 1}
                """);
        String file = dir.resolve("agent.yaml").toString();
        String[][] cases = {
            {"--interval", "0.001", "--json-stream", "-"},
            {"--interval", "fast", "--json-stream", "-"},
            {"--interval=1e9", "--json-stream", "-"},
            {"--interval", "1"},
        };
        String[] expected = {
            "twping: --interval: '0.001' is not 0 (no interval events) or 0.01-86400 seconds",
            "twping: --interval: 'fast' is not 0 (no interval events) or 0.01-86400 seconds",
            "twping: --interval: '1e9' is not 0 (no interval events) or 0.01-86400 seconds",
            "twping: --interval needs --json-stream",
        };
        for (int i = 0; i < cases.length; i++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            AgentCommand agent = new AgentCommand("twping", new PrintStream(bytes, true, StandardCharsets.UTF_8));
            List<String> args = new ArrayList<>(List.of("--agent", file));
            args.addAll(List.of(cases[i]));
            assertEquals(AgentCommand.EXIT_FAILURE, AgentArgs.run(agent, args), String.join(" ", args));
            assertEquals(expected[i], bytes.toString(StandardCharsets.UTF_8).strip());
            assertTrue(agent.agent() == null, "no target started");
        }
        assertEquals(0.25, AgentArgs.parseInterval("0.25"));
        assertEquals(0.0, AgentArgs.parseInterval("0"));
        assertEquals(86400.0, AgentArgs.parseInterval("86400"));
    }

    @Test
    void anUnwritableJsonStreamIsOneLineAndStatusOne() throws Exception {
        Files.writeString(dir.resolve("agent.yaml"), """
                targets:
                  - {name: x, host: "127.0.0.1:9", rate: 1, session: 1}
                """);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        AgentCommand agent = new AgentCommand("twping", new PrintStream(bytes, true, StandardCharsets.UTF_8));
        Path missing = dir.resolve("no/such/dir/out.ndjson");
        assertEquals(AgentCommand.EXIT_FAILURE, AgentArgs.run(agent, List.of("--agent", dir.resolve("agent.yaml").toString(),
                "--json-stream", missing.toString())));
        String err = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.startsWith("twping: --json-stream " + missing + ": cannot write: "), err);
        assertTrue(agent.agent() == null, "no target started");
    }
}
