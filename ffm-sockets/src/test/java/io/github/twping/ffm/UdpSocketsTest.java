package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Implementation selection: without native access the factory falls back to NIO and says why. */
class UdpSocketsTest {
    @Test
    void shouldFallBackToNioWithoutNativeAccess() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path output = Files.createTempFile("probe", ".txt");
        try {
            Process process = new ProcessBuilder(List.of(java, "--illegal-native-access=deny",
                    "-cp", System.getProperty("java.class.path"), TimestampingProbe.class.getName()))
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            boolean exited = process.waitFor(60, TimeUnit.SECONDS);
            if (!exited) {
                process.destroyForcibly();
            }
            String text = Files.readString(output, StandardCharsets.UTF_8);
            assertTrue(exited, "probe JVM ended within 60 s:\n" + text);
            assertEquals(0, process.exitValue(), text);
            assertTrue(text.contains("NIO fallback sockets"), text);
            assertTrue(text.contains("FFM unavailable: libc binding failed"), text);
            assertTrue(text.contains("received       5/5"), text);
            assertTrue(text.contains("RX software    no (0/5)"), text);
        } finally {
            deleteQuietly(output);
        }
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // temp file
        }
    }
}
