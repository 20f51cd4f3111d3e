package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.control.ControlClient;
import io.github.twping.control.ControlClientOptions;
import io.github.twping.control.SessionAcceptance;
import io.github.twping.control.SessionRequest;
import io.github.twping.protocol.Mode;
import io.github.twping.session.HandBuiltSender;
import io.github.twping.testdata.RecordedVectors;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TwampdMainTest {
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldPrintUsageAndExitZeroForHelp() {
        assertEquals(0, TwampdMain.run(new String[] {"-h"}, out, err));
        assertEquals(TwampdArgs.USAGE, outBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldListEveryLongOptionForDashDashHelp() {
        assertEquals(0, TwampdMain.run(new String[] {"--help"}, out, err));
        String help = outBytes.toString(StandardCharsets.UTF_8);
        assertEquals(TwampdArgs.USAGE, help);
        for (String option : new String[] {"--stamp", "--light", "--metrics-listen", "--reflector-wait", "--cpu",
                "--rt-priority", "--rx-stamp", "--stateful", "--ptp", "--allow", "--rate", "--asymmetric",
                "--reflect-octets", "--help"}) {
            assertTrue(help.contains(option + " "), "twampd -h lists " + option);
        }
        assertTrue(help.lines().allMatch(l -> l.length() <= 110), help);
    }

    @Test
    void shouldExitOneWithUsageForBadOption() {
        assertEquals(1, TwampdMain.run(new String[] {"-q"}, out, err));
        assertTrue(err().startsWith("twampd: invalid option -- 'q'\nUsage: twampd"), err());
    }

    @Test
    void shouldExitOneNamingFileAndLineForUnknownKey(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("twamp-server.conf"), "verbose\nfrobnicate 3\n");
        assertEquals(1, TwampdMain.run(new String[] {"-c", dir.toString(), "-Z", "-f"}, out, err));
        assertEquals(dir.resolve("twamp-server.conf") + ":2: Unknown key=frobnicate\n", err());
    }

    @Test
    void shouldExitOneWhenThePortIsTaken(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("twamp-server.conf"), "authmode O\n");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int status = TwampdMain.run(new String[] {"-c", dir.toString(), "-R", dir.toString(), "-Z", "-f",
                "-S", "127.0.0.1:" + taken.getLocalPort()}, out, err);
            assertEquals(1, status);
            assertTrue(err().startsWith("twampd: bind([127.0.0.1]:" + taken.getLocalPort() + "): "), err());
        }
    }

    /** The recorded 5.2.3 configuration, with only vardir/datadir pointed at a temporary directory. */
    @Test
    void shouldRunWithTheRecordedConfiguration(@TempDir Path dir) throws Exception {
        Path source = RecordedVectors.dir().resolve("server-config");
        String conf = Files.readString(source.resolve("twamp-server.conf"))
                .replace("/var/lib/twamp-ref/var", dir.toString())
                .replace("/var/lib/twamp-ref/data", dir.toString());
        Files.writeString(dir.resolve("twamp-server.conf"), conf);
        Files.copy(source.resolve("twamp-server.limits"), dir.resolve("twamp-server.limits"));
        Files.copy(source.resolve("twamp-server.pfs"), dir.resolve("twamp-server.pfs"));
        Files.setPosixFilePermissions(dir.resolve("twamp-server.pfs"), PosixFilePermissions.fromString("rw-rw----"));
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        TwampdMain daemon = new TwampdMain();
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> daemon.execute(
                new String[] {"-c", dir.toString(), "-Z", "-S", "127.0.0.1:" + port}, out, err));
        try {
            assertTrue(daemon.awaitReady(TimeUnit.SECONDS.toNanos(60)), err());
            assertEquals(port, daemon.port());
            assertTrue(Files.readString(dir.resolve("twamp-server.pid")).strip()
                    .equals(Long.toString(ProcessHandle.current().pid())));
            byte[] passphrase = HexFormat.of().parseHex("7333637265742d6c61622d6b6579");
            try (ControlClient c = ControlClient.connect(ControlClientOptions.of("127.0.0.1", port)
                    .requestedModes(Mode.MIXED.bits()).identity("alice".getBytes(), passphrase)
                    .readTimeoutMs(30_000));
                 HandBuiltSender sender = new HandBuiltSender(8, null, null)) {
                long now = NtpTime.fromEpochNanos(WallClock.system().nowEpochNs());
                SessionAcceptance a = c.requestSession(SessionRequest.forTwping(4, InetAddress.getLoopbackAddress(),
                        sender.address().getPort(), InetAddress.getLoopbackAddress(), 0, 27, now,
                        NtpTime.ONE_SECOND, 0));
                assertTrue(a.port() >= 18760 && a.port() <= 19960, "testports from the file: " + a.port());
                c.startSessions();
                sender.send(sender.build(0, now, 1, 27), new InetSocketAddress("127.0.0.1", a.port()));
                assertEquals(41, sender.receive().length());
                c.stopSessions(0);
            }
        } finally {
            daemon.stop();
        }
        assertEquals(0, status.get(60, TimeUnit.SECONDS));
        assertFalse(Files.exists(dir.resolve("twamp-server.pid")), "pid file removed on exit");
        assertTrue(err().contains("twampd: exited."), err());
        // a pass-phrase file the group may read and write: one warning at start (issue 26, item 7)
        String warning = "WARNING: pass-phrase file " + dir.resolve("twamp-server.pfs")
                + " can be read or written by group or others (mode 0660); chmod go-rw " + dir.resolve("twamp-server.pfs");
        assertEquals(1, err().lines().filter(l -> l.contains(warning)).count(), err());
    }
}
