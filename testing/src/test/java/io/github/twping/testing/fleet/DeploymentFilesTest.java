package io.github.twping.testing.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.github.twping.agent.AgentConfig;
import io.github.twping.agent.AgentConfigLoader;
import io.github.twping.metrics.AgentMetrics;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.stats.breakdown.PacketBreakdown;
import io.github.twping.stats.breakdown.ReflectorStamps;
import io.github.twping.time.NtpTime;
import io.github.twping.metrics.SessionSample;
import io.github.twping.metrics.TwampdMetrics;
import io.github.twping.server.ServerConfig;
import io.github.twping.server.ServerConfigParser;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Lints the deployment files under {@code deploy/} (no cluster and no Docker run here): the Kubernetes manifests'
 * structure and cross references, the compose file's services, mounts and scrape targets, the embedded agent
 * configurations against the agent's schema, and every metric the Grafana dashboard queries against the metrics
 * the agent and twampd really expose.
 */
class DeploymentFilesTest {
    private static final Path DEPLOY = Path.of(System.getProperty("user.dir")).getParent().resolve("deploy");
    private static final Pattern METRIC = Pattern.compile("\\b(twping_agent_[a-z_]+|twampd_[a-z_]+)\\b");

    private final ObjectMapper yaml = new ObjectMapper(YAMLFactory.builder().build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private final ObjectMapper json = new ObjectMapper();

    private List<JsonNode> documents(Path file) throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        try (MappingIterator<JsonNode> it = yaml.readerFor(JsonNode.class).readValues(file.toFile())) {
            while (it.hasNext()) {
                JsonNode n = it.next();
                if (n != null && !n.isNull() && !n.isMissingNode()) {
                    docs.add(n);
                }
            }
        }
        return docs;
    }

    private static String text(JsonNode n, String path) {
        JsonNode v = n.at(path);
        assertFalse(v.isMissingNode() || v.asText().isEmpty(), "missing " + path + " in " + n);
        return v.asText();
    }

    /** The port of {@code --metrics-listen ADDR:PORT} in an argument list. */
    private static int metricsListenPort(JsonNode args) {
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).asText().equals("--metrics-listen")) {
                String v = args.get(i + 1).asText();
                return Integer.parseInt(v.substring(v.lastIndexOf(':') + 1));
            }
        }
        fail("no --metrics-listen in " + args);
        return -1;
    }

    private static String argAfter(JsonNode args, String flag) {
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).asText().equals(flag)) {
                return args.get(i + 1).asText();
            }
        }
        fail("no " + flag + " in " + args);
        return null;
    }

    @Test
    void kubernetesManifestsAreConsistent() throws Exception {
        Map<String, JsonNode> configMaps = new HashMap<>();
        List<JsonNode> workloads = new ArrayList<>();
        List<JsonNode> services = new ArrayList<>();
        try (var files = Files.list(DEPLOY.resolve("kubernetes"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                for (JsonNode d : documents(f)) {
                    String kind = text(d, "/kind");
                    assertTrue(Set.of("Namespace", "ConfigMap", "DaemonSet", "Deployment", "Service").contains(kind),
                            f + ": unexpected kind " + kind);
                    assertEquals(kind.equals("Namespace") || kind.equals("ConfigMap") || kind.equals("Service")
                            ? "v1" : "apps/v1", text(d, "/apiVersion"), f + " " + kind);
                    assertTrue(text(d, "/metadata/name").matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?"), f.toString());
                    if (!kind.equals("Namespace")) {
                        assertEquals("twamp", text(d, "/metadata/namespace"), f + " " + kind);
                    }
                    switch (kind) {
                        case "ConfigMap" -> configMaps.put(text(d, "/metadata/name"), d);
                        case "DaemonSet", "Deployment" -> workloads.add(d);
                        case "Service" -> services.add(d);
                        default -> { }
                    }
                }
            }
        }
        assertEquals(Set.of("DaemonSet", "Deployment"),
                new HashSet<>(workloads.stream().map(w -> w.get("kind").asText()).toList()));
        for (JsonNode w : workloads) {
            String name = text(w, "/metadata/name");
            JsonNode labels = w.at("/spec/template/metadata/labels");
            w.at("/spec/selector/matchLabels").fields().forEachRemaining(e ->
                    assertEquals(e.getValue().asText(), labels.path(e.getKey()).asText(), name + ": selector " + e.getKey()));
            JsonNode pod = w.at("/spec/template/spec");
            Set<String> volumes = new HashSet<>();
            for (JsonNode v : pod.path("volumes")) {
                volumes.add(text(v, "/name"));
                if (v.has("configMap")) {
                    assertTrue(configMaps.containsKey(text(v, "/configMap/name")), name + ": no ConfigMap " + v);
                }
            }
            JsonNode containers = pod.path("containers");
            assertTrue(containers.size() >= 1, name);
            for (JsonNode c : containers) {
                text(c, "/image");
                JsonNode args = c.path("args");
                Set<String> portNames = new HashSet<>();
                Map<String, Integer> ports = new HashMap<>();
                for (JsonNode p : c.path("ports")) {
                    portNames.add(text(p, "/name"));
                    ports.put(text(p, "/name"), p.path("containerPort").asInt());
                }
                for (String probe : new String[] {"readinessProbe", "livenessProbe"}) {
                    JsonNode port = c.at("/" + probe).findValue("port");
                    if (port != null) {
                        assertTrue(portNames.contains(port.asText()), name + ": " + probe + " port " + port);
                    }
                }
                int metricsPort = metricsListenPort(args);
                assertEquals(metricsPort, ports.get("metrics"), name + ": metrics port");
                assertEquals(String.valueOf(metricsPort),
                        w.at("/spec/template/metadata/annotations").path("prometheus.io/port").asText(), name);
                for (JsonNode m : c.path("volumeMounts")) {
                    assertTrue(volumes.contains(text(m, "/name")), name + ": mount of unknown volume " + m);
                }
                if (args.get(0).asText().equals("twping")) {
                    String configPath = argAfter(args, "--agent");
                    JsonNode mount = c.path("volumeMounts").get(0);
                    String mountPath = text(mount, "/mountPath");
                    assertTrue(configPath.startsWith(mountPath + "/"), name + ": " + configPath);
                    String cmName = pod.path("volumes").get(0).at("/configMap/name").asText();
                    String key = configPath.substring(mountPath.length() + 1);
                    String agentYaml = configMaps.get(cmName).at("/data/" + key).asText();
                    AgentConfig cfg = AgentConfigLoader.create().parse(cmName + "/" + key, agentYaml, null);
                    assertTrue(cfg.targets().size() >= 1);
                } else {
                    assertEquals("twampd", args.get(0).asText());
                    String confDir = argAfter(args, "-c");
                    String listen = argAfter(args, "-S");
                    assertEquals(ports.get("twamp-control"), Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1)));
                    JsonNode mount = c.path("volumeMounts").get(0);
                    assertEquals(confDir, text(mount, "/mountPath"));
                    String conf = configMaps.get(pod.path("volumes").get(0).at("/configMap/name").asText())
                            .at("/data/" + ServerConfig.CONF_FILE).asText();
                    ServerConfigParser.parse(ServerConfig.CONF_FILE, conf, ServerConfig.builder());
                }
            }
        }
        for (JsonNode s : services) {
            JsonNode selector = s.at("/spec/selector");
            JsonNode target = workloads.stream().filter(w -> {
                JsonNode labels = w.at("/spec/template/metadata/labels");
                boolean[] all = {true};
                selector.fields().forEachRemaining(e -> all[0] &= e.getValue().asText().equals(labels.path(e.getKey()).asText()));
                return all[0];
            }).findFirst().orElse(null);
            assertNotNull(target, "service selects nothing: " + s);
            Set<String> names = new HashSet<>();
            target.at("/spec/template/spec/containers").forEach(c -> c.path("ports").forEach(p -> names.add(p.path("name").asText())));
            for (JsonNode p : s.at("/spec/ports")) {
                assertTrue(names.contains(p.path("targetPort").asText()), "targetPort " + p);
            }
        }
    }

    @Test
    void composeFileIsConsistent() throws Exception {
        JsonNode compose = documents(DEPLOY.resolve("compose.yaml")).get(0);
        JsonNode services = compose.path("services");
        assertEquals(Set.of("twampd", "agent", "prometheus", "grafana"), fieldNames(services));
        Map<String, Integer> metricsPorts = new HashMap<>();
        for (var it = services.fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode s = e.getValue();
            assertTrue(s.has("image") || s.has("build"), e.getKey());
            for (JsonNode d : s.path("depends_on")) {
                assertTrue(services.has(d.asText()), e.getKey() + " depends on unknown " + d);
            }
            for (JsonNode v : s.path("volumes")) {
                String source = v.asText().split(":")[0];
                assertTrue(Files.exists(DEPLOY.resolve(source)), e.getKey() + ": missing " + source);
            }
            JsonNode command = s.path("command");
            if (command.size() > 0 && (command.get(0).asText().equals("twping") || command.get(0).asText().equals("twampd"))) {
                metricsPorts.put(e.getKey(), metricsListenPort(command));
            }
        }
        String agentFile = argAfter(services.at("/agent/command"), "--agent");
        String mounted = null;
        for (JsonNode v : services.at("/agent/volumes")) {
            String[] parts = v.asText().split(":");
            if (parts[1].equals(agentFile)) {
                mounted = parts[0];
            }
        }
        assertNotNull(mounted, "the agent's configuration is mounted");
        AgentConfigLoader.create().load(DEPLOY.resolve(mounted));
        String twampdConf = DEPLOY.resolve("twampd").resolve(ServerConfig.CONF_FILE).toString();
        ServerConfigParser.parse(twampdConf, Files.readString(Path.of(twampdConf)), ServerConfig.builder());

        JsonNode prometheus = documents(DEPLOY.resolve("prometheus/prometheus.yml")).get(0);
        Set<String> scraped = new HashSet<>();
        for (JsonNode job : prometheus.path("scrape_configs")) {
            for (JsonNode sc : job.path("static_configs")) {
                for (JsonNode t : sc.path("targets")) {
                    String[] hp = t.asText().split(":");
                    assertEquals(metricsPorts.get(hp[0]), Integer.valueOf(hp[1]), "scrape target " + t);
                    scraped.add(hp[0]);
                }
            }
        }
        assertEquals(metricsPorts.keySet(), scraped, "every exporter is scraped");
        boolean nativeHistograms = compose.at("/services/prometheus/command").toString()
                .contains("--enable-feature=native-histograms");
        String dashboard = Files.readString(DEPLOY.resolve("grafana/dashboards/twping-fleet.json"));
        if (nativeHistograms && dashboard.contains("twping_agent_delay_seconds_bucket")) {
            for (JsonNode job : prometheus.path("scrape_configs")) {
                if (job.path("static_configs").toString().contains("agent:")) {
                    assertTrue(job.path("scrape_classic_histograms").asBoolean(false), "with native histograms "
                            + "the agent's job keeps the classic buckets the dashboard queries: " + job);
                }
            }
        }
        JsonNode datasources = documents(DEPLOY.resolve("grafana/provisioning/datasources/prometheus.yaml")).get(0);
        assertEquals("http://prometheus:9090", datasources.at("/datasources/0/url").asText());
    }

    @Test
    void dashboardQueriesOnlyMetricsThatExist() throws Exception {
        Set<String> exposed = exposedNames();
        JsonNode dash = json.readTree(DEPLOY.resolve("grafana/dashboards/twping-fleet.json").toFile());
        assertEquals("twping-fleet", dash.path("uid").asText());
        Set<String> queried = new HashSet<>();
        int panels = 0;
        for (JsonNode p : dash.path("panels")) {
            panels++;
            assertTrue(p.path("targets").size() >= 1, p.path("title").asText());
            for (JsonNode t : p.path("targets")) {
                Matcher m = METRIC.matcher(t.path("expr").asText());
                while (m.find()) {
                    queried.add(m.group(1));
                }
            }
        }
        assertTrue(panels >= 8, "panels: " + panels);
        for (String q : queried) {
            assertTrue(exposed.contains(q), "the dashboard queries " + q + ", which nothing exposes");
        }
        for (String needed : new String[] {"twping_agent_delay_seconds_bucket", "twping_agent_packets_lost_total",
            "twping_agent_target_up", "twampd_packets_reflected_total", "twping_agent_delay_component_seconds_bucket"}) {
            assertTrue(queried.contains(needed), "dashboard shows " + needed);
        }
    }

    @Test
    void dashboardFiltersEveryAgentQueryByProtocolAndTarget() throws Exception {
        JsonNode dash = json.readTree(DEPLOY.resolve("grafana/dashboards/twping-fleet.json").toFile());
        Map<String, JsonNode> variables = new HashMap<>();
        dash.path("templating").path("list").forEach(v -> variables.put(v.path("name").asText(), v));
        JsonNode protocol = variables.get("protocol");
        assertNotNull(protocol, "a protocol template variable");
        assertEquals("query", protocol.path("type").asText());
        assertTrue(protocol.path("multi").asBoolean() && protocol.path("includeAll").asBoolean(), protocol.toString());
        assertEquals(".*", protocol.path("allValue").asText());
        Matcher values = Pattern.compile("^label_values\\((twping_agent_[a-z_]+), protocol\\)$")
                .matcher(protocol.path("query").path("query").asText());
        assertTrue(values.matches(), "protocol values from the agent's protocol label: " + protocol);
        String protocolLine = exposition().lines().filter(l -> l.startsWith(values.group(1) + "{")).findFirst()
                .orElse("");
        assertTrue(protocolLine.contains("protocol=\"stamp\""), "the series carries the protocol label: " + protocolLine);
        assertTrue(variables.get("target").path("query").path("query").asText().contains("protocol=~\"$protocol\""),
                "the target list follows the protocol filter");
        Pattern selector = Pattern.compile("(twping_agent_[a-z_]+)(\\{[^}]*})?");
        int filtered = 0;
        for (JsonNode p : dash.path("panels")) {
            for (JsonNode t : p.path("targets")) {
                Matcher m = selector.matcher(t.path("expr").asText());
                while (m.find()) {
                    String labels = m.group(2) == null ? "" : m.group(2);
                    assertTrue(labels.contains("protocol=~\"$protocol\"") && labels.contains("target=~\"$target\""),
                            p.path("title").asText() + ": " + m.group());
                    filtered++;
                }
            }
        }
        assertTrue(filtered >= 10, "agent selectors: " + filtered);
    }

    private static Set<String> fieldNames(JsonNode n) {
        Set<String> s = new HashSet<>();
        n.fieldNames().forEachRemaining(s::add);
        return s;
    }

    /** Every sample name the agent's and twampd's registries expose once they have data. */
    private static Set<String> exposedNames() throws IOException {
        Set<String> names = new HashSet<>();
        for (String line : exposition().split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    /** The text exposition of an agent with a STAMP target that recorded a session, and of twampd's metrics. */
    private static String exposition() throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        AgentMetrics agent = new AgentMetrics(registry);
        agent.addTarget("t", "stamp");
        TwoWayRecord reply = new TwoWayRecord();                      // one answered packet, 100 µs round trip
        reply.sentSendNtp = NtpTime.fromEpochNanos(1_800_000_000_000_000_000L);
        reply.sentRecvNtp = reply.sentSendNtp + NtpTime.durationFromNanos(50_000);
        reply.reflSendNtp = reply.sentRecvNtp;
        reply.reflRecvNtp = reply.reflSendNtp + NtpTime.durationFromNanos(50_000);
        agent.recordSession("t", new SessionSample(10, 1, 0, 0, 0, 0, 0, new double[] {1e-4}, new double[] {5e-5},
                new double[] {5e-5}, 0, 0, true, 1e-6, 1e-6, 1e-6, 9, 0, 10, 0, 1.8e9, true), rec -> {
                    rec.accept(new PacketBreakdown().compute(0, reply, (short) 0, null, ReflectorStamps.NONE));
                    rec.finish();
                });
        TwampdMetrics twampd = new TwampdMetrics(registry);
        twampd.connectionClosed("PEER_CLOSED");
        twampd.processingTime().accept(10_000);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }
}
