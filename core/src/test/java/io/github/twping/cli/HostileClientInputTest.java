package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.config.BoundedFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import io.github.twping.client.HostPort;
import io.github.twping.client.TwpingOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Assumptions;

/** Hostile or mistyped client input: one clear line and the documented status (docs/CLI.md). */
class HostileClientInputTest {
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
    private final PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private TwpingArgs.Result parse(String... argv) {
        PassphrasePrompt prompt = PassphrasePrompt.fromStreams(new ByteArrayInputStream(new byte[0]), err);
        return new TwpingArgs("9.9.9", prompt, out, err, false).parse("twping", argv);
    }

    private String stderr() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldStopWithOneLineForAnOversizedKeyFile() throws Exception {
        Path big = dir.resolve("big.pfs");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(BoundedFile.MAX_BYTES + 1L); // sparse: no disk used
        }
        TwpingArgs.Result r = parse("-u", "alice", "-k", big.toString(), "127.0.0.1");
        assertEquals(1, assertInstanceOf(TwpingArgs.Exit.class, r).status());
        assertEquals("twping: Unable to open " + big + ": File too large\n", stderr());
    }

    @Test
    void shouldStopWithOneLineForAnEndlessDevice() {
        Path zero = Path.of("/dev/zero");
        Assumptions.assumeTrue(Files.isReadable(zero), "no /dev/zero");
        TwpingArgs.Result r = parse("-u", "alice", "-k", "/dev/zero", "127.0.0.1");
        assertEquals(1, assertInstanceOf(TwpingArgs.Exit.class, r).status());
        assertEquals("twping: Unable to open /dev/zero: File too large\n", stderr());
    }

    @ParameterizedTest
    @CsvSource({"--esterror,-1", "--esterror,4294967296", "--esterror,' 5'", "--esterror,5x", "--spin,-5",
        "--spin,+5", "--spin,''", "--spin,99999999999999999999"})
    void shouldRejectNegativeOrOutOfRangeNumbers(String option, String value) {
        TwpingArgs.Result r = parse(option, value, "127.0.0.1");
        assertEquals(1, assertInstanceOf(TwpingArgs.Exit.class, r).status(), stderr());
        assertTrue(stderr().contains("Positive integer expected"), stderr());
    }

    @ParameterizedTest
    @CsvSource({"--esterror,0,0", "--esterror,4294967295,4294967295", "--spin,0,0", "--spin,250,250"})
    void shouldAcceptTheWholeUnsignedRange(String option, String value, long expected) {
        TwpingOptions o = assertInstanceOf(TwpingArgs.Parsed.class, parse(option, value, "127.0.0.1")).options();
        long got = option.equals("--spin") ? o.extras().spinMicros() : o.extras().esterrorMicros();
        assertEquals(expected, got);
    }

    @Test
    void shouldFailToResolveABracketedNameWithoutPort() {
        HostPort hp = HostPort.parse("[::1]");
        assertThrows(UnknownHostException.class, () -> HostPort.resolve(hp.node()));
        assertTrue(HostPort.parse("[::1]:862").hasPort());
    }
}
