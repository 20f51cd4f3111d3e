package io.github.twping.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The "Approximately N seconds until results available" line against C's formula (docs/twping-spec 5.3, in
 * docs/CLIENT.md): StartTime + N/rate + L + rtt - now, where StartTime is about 1 s + 3 rtt after the control
 * connection opened. For {@code -c 100 -i 0.002f} on loopback that is 1 + 0.2 + 2 = 3.2 (issue 26, item 8: ours
 * printed 2.1-3.0 while the JVM linked its first native socket between the start time and the line). Runs our
 * {@code twping} launcher and the C twping against one C twampd; skipped, saying so, without {@code TWPING_C},
 * {@code TWAMPD_C} or the built jar.
 */
class ApproximatelyLineCParityTest {
    private static final Pattern LINE = Pattern.compile("^Approximately ([0-9.]+) seconds until results available");
    private static final double C_FORMULA = 1.0 + 100 * 0.002 + 2.0;
    private static final int RUNS = 3;

    @TempDir
    Path dir;

    @Test
    void shouldPrintWhatCsFormulaGives() throws Exception {
        String cTwping = System.getenv("TWPING_C");
        String cTwampd = System.getenv("TWAMPD_C");
        assumeTrue(cTwping != null && cTwampd != null, "TWPING_C and TWAMPD_C are not set: no C reference");
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isRegularFile(root.resolve("twping"))) {
            root = root.getParent();
        }
        assumeTrue(root != null && Files.isRegularFile(root.resolve("core/target/twping.jar")),
                "core/target/twping.jar is not built (./mvnw -DskipTests package)");
        Files.writeString(dir.resolve("twamp-server.conf"), "authmode O\ntestports 19500-19600\n");
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Process server = new ProcessBuilder(cTwampd, "-Z", "-f", "-c", dir.toString(), "-R", dir.toString(),
                "-S", "127.0.0.1:" + port).redirectErrorStream(true).redirectOutput(dir.resolve("twampd.log").toFile())
                .start();
        try {
            awaitListening(port);
            List<Double> ours = new ArrayList<>();
            List<Double> c = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) {
                ours.add(approximately(root.resolve("twping").toString(), port));
                c.add(approximately(cTwping, port));
            }
            double oursMedian = ours.stream().sorted().toList().get(RUNS / 2);
            double cMedian = c.stream().sorted().toList().get(RUNS / 2);
            assertTrue(Math.abs(oursMedian - cMedian) <= 0.1 && oursMedian >= C_FORMULA - 0.1,
                    "ours " + ours + ", C " + c + ", C's formula " + C_FORMULA);
        } finally {
            server.descendants().forEach(ProcessHandle::destroy);
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void awaitListening(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return;
            } catch (IOException notYet) {
                Thread.sleep(50);  // polling a process we do not control, bounded by the deadline
            }
        }
        throw new AssertionError("C twampd did not listen on " + port + " within 20 s");
    }

    private double approximately(String program, int port) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Process p = new ProcessBuilder(program, "-c", "100", "-i", "0.002f", "-M", "127.0.0.1:" + port)
                .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), program + " did not end within 60 s");
        String first = Files.readString(out, StandardCharsets.UTF_8).lines().findFirst().orElse("");
        Matcher m = LINE.matcher(first);
        assertTrue(m.find(), program + " printed: " + first);
        return Double.parseDouble(m.group(1));
    }
}
