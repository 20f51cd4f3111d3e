package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import java.nio.file.Path;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code -B} and {@code -S} fail where C fails, with C's lines: a missing device before the control
 * connection is opened, a source address not on this host with the bind error first (docs/CLI.md).
 */
class ClientBindOrderTest {
    private record Run(int status, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream o = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        int status = Twping.create(List.of(args), "twping", o, e, new ByteArrayInputStream(new byte[0]), Map.of()).run();
        String text = err.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.startsWith("twping: NTP"))
                .collect(Collectors.joining("\n", "", "\n"));
        return new Run(status, text);
    }

    @Test
    void shouldFailOnAMissingDeviceBeforeConnecting() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            String server = "127.0.0.1:" + listener.getLocalPort();
            Run r = run("-B", "nosuchif0", "-c", "1", server);
            assertEquals(1, r.status(), r.err());
            assertEquals("twping: SO_BINDTODEVICE nosuchif0: No such device\n"
                    + "twping: Unable to open control connection to " + server + ".\n", r.err());
            listener.setSoTimeout(200);
            try {
                listener.accept().close();
                throw new AssertionError("the control connection was opened");
            } catch (SocketTimeoutException expected) {
                // nothing connected
            }
        }
    }

    @Test
    void shouldPrintTheBindErrorFirstForASourceAddressNotOnThisHost() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            String server = "127.0.0.1:" + listener.getLocalPort();
            Run r = run("-S", "192.0.2.99", "-c", "1", server); // documentation range: not assigned here
            assertEquals(1, r.status(), r.err());
            assertEquals("twping: bind(): Cannot assign requested address\n"
                    + "twping: Unable to open control connection to " + server + ".\n", r.err());
        }
    }

    /** {@code -b 1e40} overflows the float bucket width: C's %f prints it as {@code inf}. */
    @Test
    void shouldPrintAnInfiniteBucketWidthAsC() {
        Run r = run("--loopback", "-b", "1e40", "-c", "1");
        assertEquals(1, r.status(), r.err());
        Assertions.assertTrue(r.err().contains("< BucketWidth (inf) '-b'\n"), r.err());
    }

    @Test
    void shouldReportAServiceWithTrailingGarbageAsGetaddrinfoDoes() {
        Run r = run("-c", "1", "127.0.0.1:862x");
        assertEquals(1, r.status(), r.err());
        assertEquals("twping: getaddrinfo(): Servname not supported for ai_socktype\n"
                + "twping: Unable to open control connection to 127.0.0.1:862x.\n", r.err());
    }

    @Test
    void shouldReportAnEmptyOrDirectorySaveFileAsFopenDoes(@TempDir Path dir) {
        Run empty = run("--loopback", "-c", "1", "-F", "");
        assertEquals(1, empty.status(), empty.err());
        Assertions.assertTrue(empty.err().contains("twping: fopen(): No such file or directory\n"),
                empty.err());
        Run directory = run("--loopback", "-c", "1", "-F", dir.toString());
        assertEquals(1, directory.status(), directory.err());
        Assertions.assertTrue(directory.err().contains("twping: fopen(" + dir + "): Is a directory\n"),
                directory.err());
    }
}
