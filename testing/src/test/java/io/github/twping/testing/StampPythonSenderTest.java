package io.github.twping.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import io.github.twping.stamp.StampReflector;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.stamp.TimestampFormat;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * Our STAMP / TWAMP-Light reflector against {@code testing/stamp/stamp_sender.py}, a second sender written from
 * RFC 8762, RFC 8972 and RFC 5357 in Python (its AES-128 from FIPS 197, for authenticated TWAMP-Light) that
 * checks every reply field itself (docs/STAMP.md). Skips, saying
 * so, when python3 is not installed ({@code .ci/run} installs it when it can).
 */
class StampPythonSenderTest {
    private static final byte[] KEY = "python and java".getBytes(StandardCharsets.US_ASCII);
    /** Authenticated TWAMP-Light: the AES-128 test key (16 octets), then the HMAC-SHA1 test key (32). */
    private static final byte[] LIGHT_KEY = "0123456789abcdefTWAMP-Light HMAC key, 32 octets!".getBytes(
            StandardCharsets.US_ASCII);

    @Timeout(120)
    @ParameterizedTest(name = "{0} stateful={1} ptp={2} ssid={3} tlv={4} rfc8972={5}")
    @CsvSource({
            "stamp, false, false, 0, 0, false",
            "stamp, true, true, 4242, 100, false",
            "stamp-auth, false, false, 9, 0, false",
            "stamp-auth, true, true, 9, 32, false",
            "light, false, false, 0, 0, false",
            "light-auth, false, false, 0, 0, false",
            "light-auth, true, false, 0, 0, false",
            "stamp, false, false, 0, 0, true",
            "stamp, true, true, 11, 24, true",
            "stamp-auth, false, true, 9, 0, true",
            "stamp-auth, true, false, 9, 32, true"})
    void independentSenderAcceptsEveryReply(String format, boolean stateful, boolean ptp, int ssid, int tlv,
                                            boolean extensions) throws Exception {
        assumeTrue(python3Available(), "python3 is not installed; the independent sender cannot run");
        Path script = repositoryRoot().resolve("testing/stamp/stamp_sender.py");
        boolean light = format.startsWith("light");
        boolean auth = format.endsWith("-auth");
        byte[] key = light ? LIGHT_KEY : KEY;
        StampReflectorSpec spec = new StampReflectorSpec(light, auth, auth ? key : null, stateful,
                ptp ? TimestampFormat.PTP : TimestampFormat.NTP, List.of(), 0, 64);
        try (StampReflector reflector = new StampReflector(spec, StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null)) {
            reflector.start();
            List<String> command = new ArrayList<>(List.of("python3", script.toString(), "127.0.0.1",
                    Integer.toString(reflector.localAddress().getPort()), "--format", format, "--count", "20",
                    "--ssid", Integer.toString(ssid), "--tlv-padding", Integer.toString(tlv), "--ttl", "37"));
            if (extensions) {
                command.add("--tlvs");
            }
            if (auth) {
                command.add("--key-hex");
                command.add(HexFormat.of().formatHex(key));
            }
            StreamedProcess.Outcome outcome = StreamedProcess.run(command, script.getParent(), 60, 5,
                    new PrintStream(PrintStream.nullOutputStream()));
            assertFalse(outcome.timedOut(), () -> "stamp_sender.py did not finish: " + outcome.tail(5));
            assertEquals(0, outcome.exitStatus(), () -> outcome.tail(5));
            assertEquals("ok 20 20", outcome.lines().get(outcome.lines().size() - 1));
            for (int i = 0; i < 20; i++) {
                String line = outcome.lines().get(i);
                int expectedReflectorSeq = i;   // one session: stateless copies i, stateful counts from 0
                assertEquals("seq=" + i + " rseq=" + expectedReflectorSeq + " ttl=37",
                        line.substring(0, line.indexOf(" turn=")));
            }
            assertEquals(20, reflector.reflected());
        }
    }

    @Timeout(120)
    @Test
    void authenticatedTwampLightWithAnotherKeyIsDroppedAndTheScriptSaysSo() throws Exception {
        assumeTrue(python3Available(), "python3 is not installed; the independent sender cannot run");
        Path script = repositoryRoot().resolve("testing/stamp/stamp_sender.py");
        StampReflectorSpec spec = new StampReflectorSpec(true, true, LIGHT_KEY, false, TimestampFormat.NTP,
                List.of(), 0, 64);
        byte[] other = LIGHT_KEY.clone();
        other[20] ^= 1;                                   // one bit of the HMAC key
        try (StampReflector reflector = new StampReflector(spec, StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null)) {
            reflector.start();
            StreamedProcess.Outcome outcome = StreamedProcess.run(List.of("python3", script.toString(), "127.0.0.1",
                    Integer.toString(reflector.localAddress().getPort()), "--format", "light-auth", "--count", "3",
                    "--timeout", "1", "--key-hex", HexFormat.of().formatHex(other)), script.getParent(), 60, 5,
                    new PrintStream(PrintStream.nullOutputStream()));
            assertFalse(outcome.timedOut(), () -> "stamp_sender.py did not finish: " + outcome.tail(5));
            assertEquals(1, outcome.exitStatus(), () -> outcome.tail(5));
            assertEquals("FAIL no reply to seq 0 within 1.0 s", outcome.lines().get(outcome.lines().size() - 1));
            reflector.stop();
            Assertions.assertTrue(reflector.awaitEnd(10_000_000_000L));
            assertEquals(1, reflector.badHmac(), "the request failed the reflector's HMAC check");
            assertEquals(0, reflector.reflected());
        }
    }

    private static boolean python3Available() {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import argparse, hashlib, hmac, socket, struct")
                    .redirectErrorStream(true).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path candidate = dir; candidate != null; candidate = candidate.getParent()) {
            if (Files.isRegularFile(candidate.resolve("testing/stamp/stamp_sender.py"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("no repository root with testing/stamp/stamp_sender.py above " + dir);
    }
}
