package io.github.twping.cli;

import io.github.twping.client.TwpingOptions;
import io.github.twping.config.ScheduleSpec;
import io.github.twping.protocol.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.io.UncheckedIOException;

/**
 * Replays the recorded C twping 5.2.3 option cases ({@code error-options-matrix.txt} and the
 * parse-time {@code error-*.txt} runs): stderr after the NTP lines byte for byte and the exit status
 * when C stops while parsing; where C goes on to connect, the messages printed so far and the option
 * values.
 */
class TwpingArgsMatrixTest {

    /**
     * Cases where C continues past option parsing: how many leading stderr lines are printed while
     * parsing, and what to check on the options. Every other case must end at parse time.
     */
    private static final Map<String, Continues> CONTINUES = Map.ofEntries(
            Map.entry("twping -A '' -c 3 -i 0.01f 127.0.0.1:8700",
                    new Continues(0, o -> assertEquals(0, o.connection().modeMask()))),
            Map.entry("twping -L 0.00005 -c 3 -i 0.01f 127.0.0.1:8700",
                    new Continues(0, o -> assertEquals(0.00005, o.test().lossTimeoutSeconds()))),
            Map.entry("twping -F nonexistent-dir/x.owp -c 3 -i 0.01f 127.0.0.1:8700",
                    new Continues(0, o -> assertEquals("nonexistent-dir/x.owp", o.test().saveFile()))),
            Map.entry("twping -u alice -k nonexistent.pfs -A A -c 3 -i 0.01f 127.0.0.1:8700",
                    new Continues(1, o -> {
                        assertNull(o.connection().identity());
                        assertEquals(Mode.AUTHENTICATED.bits(), o.connection().modeMask());
                    })),
            Map.entry("twping -u alice -k nonexistent.pfs -c 3 -i 0.01f -Q 127.0.0.1:8700",
                    new Continues(1, o -> {
                        assertNull(o.connection().identity());
                        assertEquals(Mode.OPEN.bits(), o.connection().modeMask());
                        assertEquals(27, o.test().paddingBytes());
                    })),
            Map.entry("twping -u carol -k server-config/alice.pfs -c 3 -i 0.01f -Q 127.0.0.1:8700",
                    new Continues(1, o -> {
                        assertNull(o.connection().identity());
                        assertEquals(Mode.OPEN.bits(), o.connection().modeMask());
                    })),
            Map.entry("twping -u alice -A A -c 3 -i 0.01f -Q 127.0.0.1:8700",
                    new Continues(1, o -> {
                        assertEquals("alice", o.connection().identity());
                        assertArrayEquals(new byte[0], o.connection().passphrase());
                        assertEquals(64, o.test().paddingBytes());
                    })),
            Map.entry("twping -c 0 -i 0.01f 127.0.0.1:8700",
                    new Continues(0, o -> assertEquals(0, o.test().packetCount()))),
            Map.entry("twping -c '' -i 0.01f 127.0.0.1:8700",
                    new Continues(0, o -> assertEquals(0, o.test().packetCount()))),
            Map.entry("twping -s -1 -c 3 -i 0.01f -M 127.0.0.1:8700",
                    new Continues(0, o -> {
                        assertEquals(27, o.test().paddingBytes());
                        assertFalse(o.test().paddingGiven());
                        assertTrue(o.output().machine());
                    })),
            Map.entry("twping -s 70000 -c 3 -i 0.01f -M 127.0.0.1:8700",
                    new Continues(0, o -> assertEquals(65000, o.test().paddingBytes()))),
            Map.entry("twping -R -M -c 3 -i 0.01f 127.0.0.1:8700",
                    new Continues(1, o -> {
                        assertTrue(o.output().raw());
                        assertTrue(o.output().quiet());
                        assertFalse(o.output().machine());
                    })),
            Map.entry("twping -Q -v -c 3 -i 0.01f 127.0.0.1:8700",
                    new Continues(1, o -> assertFalse(o.output().verbose()))),
            Map.entry("twping -M -v -c 3 -i 0.01f 127.0.0.1:8700",
                    new Continues(1, o -> {
                        assertFalse(o.output().verbose());
                        assertTrue(o.output().machine());
                    })),
            // error-*.txt runs that connect
            Map.entry("twping -A A -u alice -k etc/nonexistent.pfs -c 10 -i 0.01f 127.0.0.1:8620",
                    new Continues(1, o -> assertNull(o.connection().identity()))),
            Map.entry("twping -A A -u carol -k etc/alice.pfs -c 10 -i 0.01f 127.0.0.1:8620",
                    new Continues(1, o -> assertNull(o.connection().identity()))),
            Map.entry("twping -A A -u alice -k server-config-leading-space.pfs -c 3 -i 0.01f 127.0.0.1:8700",
                    new Continues(2, o -> assertNull(o.connection().identity()))),
            Map.entry("twping -A A -u alice -c 10 -i 0.01f 127.0.0.1:8620",
                    new Continues(1, o -> assertEquals("alice", o.connection().identity()))),
            Map.entry("twping -A A -u alice -c 5 -i 0.01f 127.0.0.1:8700",
                    new Continues(1, o -> assertArrayEquals(new byte[0], o.connection().passphrase()))));

    private record Continues(int parseLines, Consumer<TwpingOptions> check) {
    }

    @TempDir
    static Path tmp;

    static List<RecordedRun> matrix() throws IOException {
        return RecordedRun.load("error-options-matrix.txt");
    }

    static List<RecordedRun> errorFiles() throws IOException {
        return List.of("error-bad-count.txt", "error-bad-interval.txt", "error-invalid-mode-letter.txt",
                        "error-no-args.txt", "error-too-many-args.txt", "error-missing-keyfile.txt",
                        "error-user-not-in-keyfile.txt", "error-pfs-leading-space.txt",
                        "error-no-keyfile-no-tty.txt", "error-no-keyfile-stdin-empty.txt").stream()
                .map(f -> {
                    try {
                        List<RecordedRun> runs = RecordedRun.load(f);
                        assertEquals(1, runs.size(), f);
                        return runs.get(0);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }).toList();
    }

    @Test
    void shouldHaveAllMatrixCases() throws IOException {
        // README-extra-runs.txt says 57 cases; the file holds 56 "# cmd:" blocks. Every one is replayed.
        long blocks = Files.readAllLines(RecordedRun.vectors().resolve("error-options-matrix.txt")).stream()
                .filter(l -> l.startsWith("# cmd:")).count();
        assertEquals(blocks, matrix().size());
        assertTrue(blocks >= 56, "matrix cases found: " + blocks);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("matrix")
    void shouldReproduceMatrixCase(RecordedRun run) throws IOException {
        replay(run);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("errorFiles")
    void shouldReproduceErrorRun(RecordedRun run) throws IOException {
        replay(run);
    }

    private static Path resolvePfs(String typed) {
        Path vectors = RecordedRun.vectors();
        return switch (typed) {
            case "server-config-leading-space.pfs" -> leadingSpaceFile();
            default -> vectors.resolve(typed.startsWith("etc/") ? "server-config/" + typed.substring(4) : typed);
        };
    }

    private static Path leadingSpaceFile() {
        try {
            // README-extra-runs.txt: one line, two spaces then alice's entry
            Path f = tmp.resolve("leading-space.pfs");
            Files.writeString(f, "  alice 7333637265742d6c61622d6b6579\n");
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void replay(RecordedRun run) throws IOException {
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
        PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
        PassphrasePrompt noTty = PassphrasePrompt.fromStreams(new ByteArrayInputStream(new byte[0]), err);
        TwpingArgs parser = new TwpingArgs(RecordedRun.C_VERSION, noTty, out, err, false)
                .pathResolver(TwpingArgsMatrixTest::resolvePfs);

        TwpingArgs.Result result = parser.parse("twping", run.argv());
        String stderr = errBytes.toString(StandardCharsets.UTF_8);

        Continues continues = CONTINUES.get("twping " + String.join(" ", quoteEmpty(run)));
        if (continues == null) {
            TwpingArgs.Exit exit = assertInstanceOf(TwpingArgs.Exit.class, result, "C stops while parsing");
            // -h prints the C text byte for byte, then this port's long options (docs/CLI.md)
            String added = run.cmd().equals("twping -h") ? Usage.LONG_OPTIONS_TEXT : "";
            assertEquals(run.stderrText(run.stderr().size()) + added, stderr);
            assertEquals(run.rc(), exit.status());
        } else {
            TwpingArgs.Parsed parsed = assertInstanceOf(TwpingArgs.Parsed.class, result, "C goes on to connect");
            assertEquals(run.stderrText(continues.parseLines()), stderr);
            assertFalse(run.stderr().contains(RecordedRun.USAGE_MARKER));
            continues.check().accept(parsed.options());
        }
        assertEquals("", outBytes.toString(StandardCharsets.UTF_8));
    }

    /** Rebuilds the command text used as the key (the recorded {@code # cmd:} line). */
    private static String[] quoteEmpty(RecordedRun run) {
        return run.cmd().substring("twping".length()).strip().split(" ");
    }

    @Test
    void shouldUseTheDefaultScheduleWhenNoInterval() {
        TwpingArgs.Parsed p = (TwpingArgs.Parsed) new TwpingArgs("x", prompt -> new byte[0],
                System.out, new PrintStream(new ByteArrayOutputStream()), false).parse("twping", new String[] {"h"});
        assertEquals(ScheduleSpec.DEFAULT_MEAN_NTP, p.options().test().schedule().valueNtp(0));
    }
}
