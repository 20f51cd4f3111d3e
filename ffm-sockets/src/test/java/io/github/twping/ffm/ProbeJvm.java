package io.github.twping.ffm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs {@link TimestampingProbe} in a fresh JVM of this test's classpath and returns what it printed. */
final class ProbeJvm {
    private ProbeJvm() {
    }

    /**
     * @param jvmOptions options before the classpath (e.g. {@code --enable-native-access=ALL-UNNAMED})
     * @return stdout and stderr of the probe, which ended within 60 s with status 0 (asserted)
     */
    static String run(List<String> jvmOptions) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), TimestampingProbe.class.getName()));
        Path output = Files.createTempFile("probe", ".txt");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                    .start();
            boolean exited = process.waitFor(60, TimeUnit.SECONDS);
            if (!exited) {
                process.destroyForcibly();
            }
            String text = Files.readString(output, StandardCharsets.UTF_8);
            assertTrue(exited, "probe JVM ended within 60 s:\n" + text);
            assertEquals(0, process.exitValue(), text);
            assertTrue(text.contains("received       5/5"), text);
            return text;
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
