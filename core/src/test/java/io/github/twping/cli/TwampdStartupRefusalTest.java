package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import io.github.twping.config.BoundedFile;
import java.io.IOException;

/**
 * twampd refuses to start on a missing or unusable configuration (docs/SERVER.md): status 1 and one
 * line, never a server with defaults on every interface, never blocked on a FIFO.
 */
class TwampdStartupRefusalTest {
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
    private final PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private int run(String... args) {
        return TwampdMain.run(args, out, err);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    private String[] args(Path conf) {
        return new String[] {"-c", conf.toString(), "-R", dir.toString(), "-Z", "-f", "-S", "127.0.0.1:0"};
    }

    @Test
    void shouldRefuseAMissingConfigurationDirectory() {
        Path missing = dir.resolve("no-such-dir");
        assertEquals(1, run(args(missing)));
        assertEquals("Unable to open " + missing.resolve("twamp-server.conf") + ": No such file or directory\n", err());
    }

    @Test
    void shouldRefuseKeyedModesWithoutAPassphraseFile() throws Exception {
        Files.writeString(dir.resolve("twamp-server.conf"), "authmode AE\n");
        assertEquals(1, run(args(dir)));
        assertEquals("Unable to open " + dir.resolve("twamp-server.pfs") + ": No such file or directory\n"
                + "PolicyInit failed\n", err());
    }

    @Test
    void shouldRefuseAPassphraseFileWithAnInvalidLine() throws Exception {
        Files.writeString(dir.resolve("twamp-server.conf"), "authmode A\n");
        Files.writeString(dir.resolve("twamp-server.pfs"), "alice 7333\nbob nothex\n");
        assertEquals(1, run(args(dir)));
        assertTrue(err().startsWith(dir.resolve("twamp-server.pfs") + ": Invalid user: "), err());
        assertTrue(err().endsWith("\nPolicyInit failed\n"), err());
    }

    @Test
    void shouldRefuseAnOversizedConfigurationFile() throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve("twamp-server.conf").toFile(), "rw")) {
            f.setLength(BoundedFile.MAX_BYTES + 1L);
        }
        assertEquals(1, run(args(dir)));
        assertEquals("Unable to open " + dir.resolve("twamp-server.conf") + ": File too large\n", err());
    }

    /** Opening a FIFO for reading blocks until a writer appears: it must be refused without opening it. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldRefuseFifosWithoutBlocking() throws Exception {
        Files.writeString(dir.resolve("twamp-server.conf"), "authmode O\n");
        Assumptions.assumeTrue(mkfifo(dir.resolve("twamp-server.limits")), "mkfifo not available");
        assertEquals(1, run(args(dir)));
        assertEquals("Unable to open " + dir.resolve("twamp-server.limits") + ": Not a regular file\n", err());

        errBytes.reset();
        Files.delete(dir.resolve("twamp-server.limits"));
        assertTrue(mkfifo(dir.resolve("twamp-server.pfs")));
        assertEquals(1, run(args(dir)));
        assertEquals("Unable to open " + dir.resolve("twamp-server.pfs") + ": Not a regular file\nPolicyInit failed\n",
                err());

        errBytes.reset();
        Files.delete(dir.resolve("twamp-server.conf"));
        assertTrue(mkfifo(dir.resolve("twamp-server.conf")));
        assertEquals(1, run(args(dir)));
        assertEquals("Unable to open " + dir.resolve("twamp-server.conf") + ": Not a regular file\n", err());
    }

    private static boolean mkfifo(Path path) throws Exception {
        try {
            Process p = new ProcessBuilder("mkfifo", path.toString()).redirectErrorStream(true).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }
}
