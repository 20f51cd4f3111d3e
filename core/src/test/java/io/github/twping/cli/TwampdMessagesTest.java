package io.github.twping.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** twampd's start-up messages (issue 26, item 5): each one line, saying once what failed and why. */
class TwampdMessagesTest {
    @TempDir
    Path dir;

    @Test
    void stampOnABusyPortSaysBindOnce() throws Exception {
        try (DatagramSocket busy = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            int status = new StampReflectorMain().execute(new String[] {"--stamp", "127.0.0.1:" + busy.getLocalPort()},
                    System.out, new PrintStream(e, true, StandardCharsets.UTF_8), null);
            assertEquals(1, status);
            assertEquals("twampd: bind([127.0.0.1]:" + busy.getLocalPort() + "): Address already in use\n",
                    e.toString(StandardCharsets.UTF_8));
        }
    }

    /** C twampd 5.2.3 prints {@code Unable to open <file>: No such file or directory} (no program prefix). */
    @Test
    void missingConfigurationDirectorySaysWhy() {
        Path missing = dir.resolve("nonexistent");
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int status = TwampdMain.run(new String[] {"-Z", "-c", missing.toString()},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(e, true, StandardCharsets.UTF_8));
        assertEquals(1, status);
        assertEquals("Unable to open " + missing.resolve("twamp-server.conf") + ": No such file or directory\n",
                e.toString(StandardCharsets.UTF_8));
    }

    /** {@code -Z} (foreground) is accepted with {@code --stamp}/{@code --light}, as TWAMP twampd documents it. */
    @Test
    void stampAcceptsTheForegroundFlag() throws Exception {
        for (String option : List.of("--stamp", "--light")) {
            StampCliExchange.Result r = StampCliExchange.run(dir, List.of(option, "127.0.0.1:0", "-Z"),
                    List.of("-c", "2", "-i", "0.01"), option);
            assertEquals(0, r.status(), r.err() + r.reflectorErr());
            assertEquals(false, r.reflectorErr().contains("Usage"), r.reflectorErr());
            assertEquals(true, r.reflectorErr().startsWith("twampd: " + (option.equals("--stamp") ? "STAMP" : "TWAMP-Light")
                    + " reflector on [127.0.0.1]:" + r.port()), r.reflectorErr());
        }
    }

    /** A key file that others may read: one warning at start, and the reflector still runs (issue 26, item 7). */
    @Test
    void stampWarnsOnceAboutAKeyFileOthersCanRead() throws Exception {
        Path keys = dir.resolve("stamp.pfs");
        Files.writeString(keys, "alice 73656372657421\n");
        Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-r--r--"));
        StampCliExchange.Result r = StampCliExchange.run(dir, List.of("--stamp", "127.0.0.1:0", "-a", "A", "-u", "alice",
                "-k", keys.toString()), List.of("-c", "2", "-i", "0.01", "-A", "A", "-u", "alice", "-k", keys.toString()),
                "--stamp");
        assertEquals(0, r.status(), r.err() + r.reflectorErr());
        String warning = "twampd: WARNING: pass-phrase file " + keys + " can be read or written by group or others"
                + " (mode 0644); chmod go-rw " + keys;
        assertEquals(1, r.reflectorErr().lines().filter(warning::equals).count(), r.reflectorErr());
    }
}
