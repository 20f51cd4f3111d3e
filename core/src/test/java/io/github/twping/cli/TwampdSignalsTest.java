package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * twampd in its own JVM, stopped by a signal: a clean shutdown and exit status 0 for SIGTERM, SIGINT and
 * SIGHUP (docs/SERVER.md), also when the signal was ignored at start (a background job of a script).
 */
class TwampdSignalsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"TERM,false", "INT,false", "HUP,false", "INT,true", "HUP,true"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldExitZeroAfterASignal(String signal, boolean startIgnored) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/sh")), "no /bin/sh");
        Files.writeString(dir.resolve("twamp-server.conf"), "authmode O\n");
        Path ready = dir.resolve("ready");
        Path log = dir.resolve("log");
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> jvm = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), TwampdMain.class.getName(),
                "-Z", "-f", "-c", dir.toString(), "-R", dir.toString(), "-S", "127.0.0.1:0"));
        StringBuilder cmd = new StringBuilder(startIgnored ? "trap '' " + signal + "; exec" : "exec");
        for (String a : jvm) {
            cmd.append(" '").append(a.replace("'", "'\\''")).append('\'');
        }
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", cmd.toString()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().put(TwampdMain.READY_FILE_ENV, ready.toString());
        Process p = pb.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!(Files.exists(ready) && Files.size(ready) > 0)) {
                assertTrue(p.isAlive(), () -> "twampd exited early: " + read(log));
                assertTrue(System.nanoTime() < deadline, "no readiness report");
                Thread.sleep(20); // polling interval of a condition wait with a deadline
            }
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start();
            assertTrue(kill.waitFor(30, TimeUnit.SECONDS));
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "twampd did not stop after SIG" + signal);
            assertEquals(0, p.exitValue(), read(log));
            assertTrue(read(log).contains("twampd: exited."), read(log));
            assertTrue(!Files.exists(dir.resolve("twamp-server.pid")), "pid file removed");
        } finally {
            p.destroyForcibly();
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
