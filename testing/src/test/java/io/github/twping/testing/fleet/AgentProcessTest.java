package io.github.twping.testing.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.twping.stamp.StampReflector;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.stamp.TimestampFormat;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;

/**
 * {@code twping --agent} as a process (the runnable jar in a fresh JVM): a bad configuration prints exactly one
 * line naming the file, line and field, and exits with status 1; {@code --check} validates and exits 0.
 */
class AgentProcessTest {
    private static final Path JAR = Path.of(System.getProperty("user.dir")).getParent()
            .resolve("core/target/twping.jar");

    @TempDir
    Path dir;

    private record Result(int status, String err) {
    }

    private Result run(String... args) throws IOException, InterruptedException {
        assumeTrue(Files.isRegularFile(JAR), "SKIPPED: " + JAR + " not built (run the reactor build: ./mvnw verify)");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-Xshare:auto", "-cp", JAR.toString(), "io.github.twping.cli.Main"));
        command.addAll(List.of(args));
        Path errFile = dir.resolve("err.txt");
        Process p = new ProcessBuilder(command).redirectErrorStream(false)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(errFile.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "twping --agent did not exit");
        return new Result(p.exitValue(), Files.readString(errFile, StandardCharsets.UTF_8));
    }

    @Test
    void shouldPrintOneLineAndExitOneForABadConfiguration() throws Exception {
        Path bad = dir.resolve("agent.yaml");
        Files.writeString(bad, """
                defaults:
                  rate: 10
                targets:
                  - name: a
                    host: "192.0.2.1:862"
                    session: 60
                    dscp: 99
                """);
        Result r = run("--agent", bad.toString());
        assertEquals(1, r.status(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("twping: " + bad + ":7: targets[0].dscp: "), r.err());
    }

    private static boolean waitForText(Path file, String text) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(file) && Files.readString(file, StandardCharsets.UTF_8).contains(text)) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    private static void signal(Process p, String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + name);
    }

    @Test
    void shouldReloadOnSighupAndStopWithStatusZeroOnSigterm() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "SKIPPED: " + JAR + " not built (run the reactor build: ./mvnw verify)");
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        Path config = dir.resolve("agent.yaml");
        Files.writeString(config, "agent: {backoff_initial: 0.1, backoff_max: 0.5}\ntargets:\n"
                + "  - {name: a, host: \"127.0.0.1:" + closedPort + "\", rate: 10, session: 1}\n");
        Path errFile = dir.resolve("run.txt");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-cp", JAR.toString(),
                "io.github.twping.cli.Main", "--agent", config.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(errFile.toFile()).start();
        try {
            assertTrue(waitForText(errFile, "agent: 1 targets from"), Files.readString(errFile));
            assertTrue(waitForText(errFile, "target a (127.0.0.1:" + closedPort + "): connect"), Files.readString(errFile));
            Files.writeString(config, Files.readString(config)
                    + "  - {name: b, host: \"127.0.0.1:" + closedPort + "\", rate: 10, session: 1}\n");
            signal(p, "HUP");
            assertTrue(waitForText(errFile, "reloaded " + config + ": 2 targets (1 added, 0 changed, 0 removed)"),
                    Files.readString(errFile));
            signal(p, "TERM");
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "no exit after SIGTERM");
            assertEquals(0, p.exitValue(), Files.readString(errFile));
            assertTrue(Files.readString(errFile).contains("agent: stopped"), Files.readString(errFile));
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void shouldValidateWithCheck() throws Exception {
        Path good = dir.resolve("agent.yaml");
        Files.writeString(good, "targets:\n  - {name: a, host: \"192.0.2.1:862\", rate: 10, session: 60}\n");
        Result r = run("--agent", good.toString(), "--check");
        assertEquals(0, r.status(), r.err());
        assertEquals(good + ": 1 targets, valid\n", r.err());
    }

    @Test
    void shouldWriteTheIntervalAndEndLinesOfEverySessionToStdoutForATwampLightTarget() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "SKIPPED: " + JAR + " not built (run the reactor build: ./mvnw verify)");
        StampReflectorSpec spec = new StampReflectorSpec(true, false,
                null, false, TimestampFormat.NTP, List.of(), 0, 64);
        try (StampReflector reflector = new StampReflector(spec,
                StampReflector.openSocket(new InetSocketAddress(
                        InetAddress.getLoopbackAddress(), 0), 0), null)) {
            reflector.start();
            Path config = dir.resolve("agent.yaml");
            Files.writeString(config, "targets:\n  - {name: l, protocol: light, host: \"127.0.0.1:"
                    + reflector.localAddress().getPort() + "\", rate: 20, session: 0.5, loss_timeout: 0.5}\n");
            Path errFile = dir.resolve("run.txt");
            Path outFile = dir.resolve("out.ndjson");
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            Process p = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-cp",
                    JAR.toString(), "io.github.twping.cli.Main", "--agent", config.toString(), "--json-stream", "-")
                    .redirectOutput(outFile.toFile()).redirectError(errFile.toFile()).start();
            try {
                assertTrue(waitForText(outFile, "\n{\"event\":\"end\",\"target\":\"l\""), Files.readString(errFile));
                signal(p, "TERM");
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "no exit after SIGTERM");
                assertEquals(0, p.exitValue(), Files.readString(errFile));
                List<String> lines = Files.readAllLines(outFile);
                assertTrue(lines.size() >= 2, lines.toString());
                ObjectMapper json = new ObjectMapper();
                long received = 0;
                long intervalReceived = 0;
                long ends = 0;
                boolean lastIntervalSeen = false;
                for (String line : lines) {
                    JsonNode o = json.readTree(line);
                    assertEquals("light", o.path("protocol").asText(), line);
                    if (o.path("event").asText().equals("interval")) {
                        // the default 10 s interval: each 0.5 s session has its one, last, interval line
                        assertTrue(o.path("last").asBoolean(), line);
                        intervalReceived += o.path("packets").path("received").asLong();
                        lastIntervalSeen = true;
                        continue;
                    }
                    assertTrue(lastIntervalSeen, "the session's interval line precedes its end line: " + lines);
                    lastIntervalSeen = false;
                    assertEquals("end", o.path("event").asText(), line);
                    assertEquals("twping-result", o.path("format").asText(), line);
                    received += o.path("exact").path("packets").path("received").asLong();
                    ends++;
                }
                assertTrue(ends >= 2, "the completed session and the partial one after SIGTERM: " + lines);
                assertEquals(received, intervalReceived, "interval lines sum to the end lines");
                assertTrue(received > 0 && received <= reflector.reflected(), received + " / " + reflector.reflected());
            } finally {
                p.destroyForcibly();
            }
        }
    }
}
