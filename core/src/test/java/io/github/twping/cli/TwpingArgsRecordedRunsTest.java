package io.github.twping.cli;

import io.github.twping.client.TwpingOptions;
import io.github.twping.config.DscpParser;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.datafile.SessionHeader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cross-checks the parsed options of every successful recorded C twping run against what C used:
 * the {@code -M} header fields (PACKET_PADDING, DSCP, SESSION_PACKET_COUNT, BUCKET_WIDTH) and, for runs
 * saved with {@code -F}, the session data file header (count, padding, Type-P, schedule slots).
 */
class TwpingArgsRecordedRunsTest {

    static Stream<RecordedRun> successfulRuns() throws IOException {
        List<RecordedRun> runs = new ArrayList<>();
        try (Stream<Path> files = Files.list(RecordedRun.vectors())) {
            for (Path f : files.sorted().toList()) {
                String name = f.getFileName().toString();
                if (!name.endsWith(".txt") || name.startsWith("error-")) {
                    continue;
                }
                String first = Files.readAllLines(f, StandardCharsets.UTF_8).stream().findFirst().orElse("");
                if (!first.startsWith("# cmd:") || !first.matches(".*(^|[ /])twping .*")) {
                    continue;
                }
                runs.addAll(RecordedRun.load(name).stream().map(r -> normalise(r, name)).toList());
            }
        }
        assertTrue(runs.size() >= 60, "recorded twping runs found: " + runs.size());
        return runs.stream();
    }

    /** Reduces shell decoration to {@code twping args}; the piped text (if any) is kept after a NUL. */
    private static RecordedRun normalise(RecordedRun r, String file) {
        String cmd = r.cmd();
        String stdin = "";
        int pipe = cmd.indexOf("| twping ");
        if (cmd.startsWith("printf '") && pipe > 0) {
            stdin = cmd.substring(8, cmd.lastIndexOf('\'', pipe)).replace("\\n", "\n");
        }
        int at = cmd.indexOf("twping ");
        cmd = cmd.substring(at);
        int comment = cmd.indexOf("   (");
        if (comment > 0) {
            cmd = cmd.substring(0, comment);
        }
        return new RecordedRun(cmd.strip() + "\u0000" + stdin + "\u0000" + file, r.rc(), r.stdout(), r.stderr());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("successfulRuns")
    void shouldParseWhatCUsed(RecordedRun tagged) throws IOException {
        String[] parts = tagged.cmd().split("\u0000", -1);
        RecordedRun run = new RecordedRun(parts[0], tagged.rc(), tagged.stdout(), tagged.stderr());
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
        PassphrasePrompt stdin = PassphrasePrompt.fromStreams(
                new ByteArrayInputStream(parts[1].getBytes(StandardCharsets.UTF_8)), err);
        Path vectors = RecordedRun.vectors();
        TwpingArgs parser = new TwpingArgs(RecordedRun.C_VERSION, stdin, new PrintStream(new ByteArrayOutputStream()),
                err, false).pathResolver(p -> vectors.resolve(p.startsWith("etc/") ? "server-config/" + p.substring(4) : p));

        TwpingOptions o = assertInstanceOf(TwpingArgs.Parsed.class, parser.parse("twping", run.argv()),
                () -> errBytes.toString(StandardCharsets.UTF_8)).options();

        // what the parser printed is what C printed first (after any start-up lines)
        String printed = errBytes.toString(StandardCharsets.UTF_8);
        List<String> printedLines = printed.isEmpty() ? List.of() : List.of(printed.split("\n", -1)).subList(0,
                printed.split("\n", -1).length - 1);
        List<String> recorded = run.stderr().stream().filter(l -> !l.startsWith("OWAMP_DEBUG_TIMEOFFSET")
                && !l.startsWith("twping: OWAMP_DEBUG_TIMEOFFSET")).toList();
        assertEquals(printedLines, recorded.subList(0, Math.min(printedLines.size(), recorded.size())));

        String padding = field(run.stdout(), "PACKET_PADDING");
        if (padding != null) {
            assertEquals(Long.parseLong(padding), o.test().paddingBytes(), "PACKET_PADDING");
            assertEquals(String.format("0x%02x", o.test().dscp()), field(run.stdout(), "DSCP"), "DSCP");
            assertEquals(Long.parseLong(field(run.stdout(), "SESSION_PACKET_COUNT")), o.test().packetCount(), "count");
            assertEquals(Float.parseFloat(field(run.stdout(), "BUCKET_WIDTH")), o.output().bucketWidthSeconds(),
                    1e-6f * o.output().bucketWidthSeconds(), "BUCKET_WIDTH");
        }
        String saveFile = o.test().saveFile();
        if (saveFile != null && Files.isRegularFile(vectors.resolve(saveFile))) {
            byte[] bytes = Files.readAllBytes(vectors.resolve(saveFile));
            SessionHeader h = SessionHeader.decode(MemorySegment.ofArray(bytes));
            assertEquals(o.test().packetCount(), h.packetCount());
            assertEquals(o.test().paddingBytes(), h.paddingBytes());
            assertEquals(DscpParser.typeP(o.test().dscp()), h.typeP());
            ScheduleSlot[] slots = o.test().scheduleSlots();
            ScheduleSlot[] recordedSlots = new ScheduleSlot[h.slotCount()];
            for (int i = 0; i < recordedSlots.length; i++) {
                recordedSlots[i] = new ScheduleSlot(h.slotFixed(i), h.slotValueNtp(i));
            }
            assertArrayEquals(recordedSlots, slots);
        }
    }

    private static String field(List<String> stdout, String name) {
        for (String line : stdout) {
            if (line.startsWith(name + "\t")) {
                return line.substring(name.length() + 1);
            }
        }
        return null;
    }
}
