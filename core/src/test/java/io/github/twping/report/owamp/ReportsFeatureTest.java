package io.github.twping.report.owamp;

import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.TwoWayRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** Output features beyond the recorded data-file runs: -R of the four modes, -p, -U, -n, -a, ru. */
class ReportsFeatureTest {
    private static final OutputOptions UTC = OutputOptions.defaults().withZone(ZoneOffset.UTC);
    private static final HostInfo OPEN_HOSTS =
        new HostInfo("localhost", "9417", "127.0.0.1", "localhost", "18884", "127.0.0.1");

    private record Run(String out, String err, boolean ok) {
    }

    private static Run run(OutputOptions opts, String owp) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        boolean ok;
        try (PrintStream o = new PrintStream(out, false, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, false, StandardCharsets.UTF_8)) {
            ok = Reports.writeFile(opts, VectorFiles.file(owp), OPEN_HOSTS, o, e);
        }
        return new Run(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), ok);
    }

    /** Parses a -R line back into a record; error fields are found by their %g text. */
    private static TwoWayRecord parseRaw(String line, Map<String, Integer> fieldByText) {
        String[] t = line.split(" ");
        TwoWayRecord r = new TwoWayRecord();
        r.sentSeq = Long.parseLong(t[0]);
        r.sentSendNtp = Long.parseUnsignedLong(t[1]);
        r.sentSendErr = field(t[2], t[3], fieldByText);
        r.sentRecvNtp = Long.parseUnsignedLong(t[4]);
        r.sentRecvErr = field(t[5], t[6], fieldByText);
        r.sentTtl = Integer.parseInt(t[7]);
        r.reflSeq = Long.parseLong(t[8]);
        r.reflSendNtp = Long.parseUnsignedLong(t[9]);
        r.reflSendErr = field(t[10], t[11], fieldByText);
        r.reflRecvNtp = Long.parseUnsignedLong(t[12]);
        r.reflRecvErr = field(t[13], t[14], fieldByText);
        r.reflTtl = Integer.parseInt(t[15]);
        return r;
    }

    private static int field(String sync, String errText, Map<String, Integer> fieldByText) {
        Integer f = fieldByText.computeIfAbsent(errText, text -> {
            for (int scale = 0; scale < 64; scale++) {
                for (int mult = 1; mult < 256; mult++) {
                    int candidate = (scale << 8) | mult;
                    if (CFormat.g(new StringBuilder(), RawRecordWriter.errorSeconds(candidate)).toString().equals(text)) {
                        return candidate;
                    }
                }
            }
            throw new AssertionError("no error field prints as " + text);
        });
        return f | (Integer.parseInt(sync) << 15);
    }

    @ParameterizedTest
    @ValueSource(strings = {"open", "auth", "enc", "mixed"})
    void shouldRoundTripRawRecordsOfEveryMode(String mode) {
        Map<String, Integer> fields = new HashMap<>();
        int lines = 0;
        for (String line : VectorFiles.read(mode + "-R.txt").split("\n")) {
            if (line.startsWith("#") || line.isEmpty()) {
                continue;
            }
            TwoWayRecord r = parseRaw(line, fields);
            assertEquals(line + "\n", RawRecordWriter.write(new StringBuilder(), r).toString());
            lines++;
        }
        assertEquals(100, lines);
    }

    @Test
    void shouldFormatSpecPerPacketExampleInBothForms() {
        // docs/STATISTICS.md raw example record, 7.5 expected lines
        TwoWayRecord r = parseRaw("0 16788979087547850752 0 2.32831e-10 16788979087548250112 0 2.32831e-10 255 0 "
            + "16788979087548388352 0 2.32831e-10 16788979087548762112 0 2.32831e-10 255", new HashMap<>());
        assertEquals("seq_no=0          fwd_delay=0.093 ms bck_delay=0.0873 ms delay=0.18 ms proc_delay=0.0319 ms"
            + "\t(err=9.31e-07 ms)\n", perPacket(r, UTC));
        assertEquals("seq_no=0 fwd_delay=9.298325e-02 ms bck_delay=8.726120e-02 ms delay=1.802444e-01 ms "
            + "proc_delay=3.194809e-02 ms (err=9.31e-07 ms) sent=1700000007.245123 recv=1700000007.245216 "
            + "reflected=1700000007.245248 recv=1700000007.245335\n", perPacket(r, UTC.withUnix(true)));
        TwoWayRecord lost = parseRaw("57 16788979109258429440 0 2.32831e-10 00000000000000000000 0 2.32831e-10 255 "
            + "0 00000000000000000000 0 2.32831e-10 00000000000000000000 0 2.32831e-10 255", new HashMap<>());
        assertTrue(lost.isLost());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PerPacketWriter w = new PerPacketWriter(new PrintStream(bytes, false, StandardCharsets.UTF_8), UTC);
        w.onLost(lost);
        w.flush();
        assertEquals("seq_no=57         *LOST*\n", bytes.toString(StandardCharsets.UTF_8));
    }

    private static String perPacket(TwoWayRecord r, OutputOptions opts) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PerPacketWriter w = new PerPacketWriter(new PrintStream(bytes, false, StandardCharsets.UTF_8), opts);
        double ss = NtpTime.toDouble(r.sentSendNtp);
        double sr = NtpTime.toDouble(r.sentRecvNtp);
        double rs = NtpTime.toDouble(r.reflSendNtp);
        double rr = NtpTime.toDouble(r.reflRecvNtp);
        double proc = rs - sr;
        w.onReceived(r, sr - ss, rr - rs, (rr - ss) - proc, proc, 4 * 0x1.0p-32);
        w.flush();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldPrintCMessagesForEmptyFile(@TempDir Path dir) throws IOException {
        Path empty = Files.createFile(dir.resolve("empty.owp"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        boolean ok = Reports.writeFile(UTC, empty, OPEN_HOSTS, new PrintStream(out), new PrintStream(err));
        assertFalse(ok);
        assertEquals("", out.toString());
        // error-c0.txt: the last three stderr lines come from the statistics
        List<String> expected = new ArrayList<>();
        for (String line : VectorFiles.stderr("error-c0.txt").split("\n")) {
            if (line.contains("OWPReadDataHeader") || line.contains("do_stats")) {
                expected.add(line);
            }
        }
        assertEquals(String.join("\n", expected) + "\n", err.toString());
    }

    @Test
    void shouldReadFromAnonymousTempFileChannel(@TempDir Path dir) throws IOException {
        try (FileChannel ch = SessionDataWriter.openAnonymousTempFile(dir)) {
            ch.write(ByteBuffer.wrap(Files.readAllBytes(VectorFiles.file("datafile-open.owp"))));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertTrue(Reports.writeChannel(UTC.withMachine(true), ch, OPEN_HOSTS, null, new PrintStream(out),
                System.err));
            assertEquals(VectorFiles.results("datafile-open-owstats-M.txt"), out.toString(StandardCharsets.UTF_8));
            assertTrue(ch.isOpen());
        }
        try (FileChannel empty = SessionDataWriter.openAnonymousTempFile(dir)) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertFalse(Reports.writeChannel(UTC, empty, OPEN_HOSTS, null, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err)));
            assertEquals("twping: _OWPReadDataHeaderInitial: Invalid owp file\ntwping: OWPReadDataHeader: Invalid file?\n"
                + "twping: do_stats(\"from\" session)\n", err.toString());
        }
    }

    @Test
    void shouldWriteSummaryFilesWithMinusP(@TempDir Path dir) throws IOException {
        String d = dir.toString();
        Run r = run(UTC.withPerFile(true, d), "datafile-open.owp");
        assertTrue(r.ok(), r.err());
        String start = VectorFiles.machineValue(VectorFiles.stdout("datafile-open-owstats-M.txt"), "START_TIME");
        String end = VectorFiles.machineValue(VectorFiles.stdout("datafile-open-owstats-M.txt"), "END_TIME");
        String path = d + "/" + start + "_" + end + ".txt";
        assertEquals(path + "\n", r.out());
        assertEquals(VectorFiles.results("datafile-open-owstats-summary.txt"), Files.readString(Path.of(path)));
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count()); // the temporary <start>.i name is gone
        }
        Run m = run(UTC.withPerFile(true, d).withMachine(true), "datafile-open.owp");
        String sum = d + "/" + start + "_" + end + ".sum";
        assertEquals(sum + "\n", m.out());
        assertEquals(VectorFiles.results("datafile-open-owstats-M.txt"), Files.readString(Path.of(sum)));
        Run n = run(UTC.withPerFile(true, d).withSubsession(5), "datafile-open.owp");
        assertEquals(4, n.out().lines().count());
    }

    @Test
    void shouldReportLinkFailureForMissingDirectory(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("nope");
        Run r = run(UTC.withPerFile(true, missing.toString()), "datafile-open.owp");
        assertFalse(r.ok());
        assertTrue(r.err().startsWith("twping: OWStatsParse: fopen(" + missing + "/"), r.err());
        assertTrue(r.err().endsWith(".i): No such file or directory\ntwping: do_stats(\"from\" session)\n"), r.err());
    }

    @Test
    void shouldLimitStatisticsWithVerboseCountUnderMachineOutput() throws IOException {
        Run r = run(UTC.withMachine(true).withRecordLimit(5), "datafile-open.owp");
        assertEquals("5", VectorFiles.machineValue(r.out(), "SENT"));
        assertEquals("20", VectorFiles.machineValue(r.out(), "SAMPLE_PACKET_COUNT"));
        assertFalse(r.out().contains("seq_no="));
    }

    @Test
    void shouldAddUnixTimesToMachineOutput() throws IOException {
        Run r = run(UTC.withMachine(true).withUnix(true), "datafile-open.owp");
        long start = Long.parseUnsignedLong(VectorFiles.machineValue(r.out(), "START_TIME"));
        String expected = CFormat.f(new StringBuilder(), NtpTime.toDouble(start) - 2208988800.0)
            .toString();
        assertEquals(expected, VectorFiles.machineValue(r.out(), "UNIX_START_TIME"));
        assertTrue(r.out().indexOf("UNIX_END_TIME") < r.out().indexOf("DSCP"));
        assertTrue(expected.startsWith("1796040829.2"), expected); // 2026-11-30T12:13:49.288 UTC
    }

    @Test
    void shouldPrintEmptyUnitLabelForSeconds() throws IOException {
        Run r = run(UTC.withUnits('s').withVerbose(true, 1), "datafile-open.owp");
        assertTrue(r.out().contains("fwd_delay=0.000281  bck_delay="), r.out());
        assertTrue(r.out().contains(" , (err=9.31e-10 )\n"), r.out());
        assertTrue(r.out().contains("reflector processing time min/max = 5.63e-05/5.63e-05 \n"), r.out());
        assertTrue(r.out().contains("two-way jitter = 0  (P95-P50)\n"), r.out());
    }

    @Test
    void shouldPrintPercentileBlockWithFloatLabels() throws IOException {
        // alpha 0 gives the lowest existing bucket (1: it holds only reflect-time samples), docs/STATISTICS.md
        Run r = run(UTC.withPercentiles(0f, 5.55f, 50f, 100f).withUnits('u'), "datafile-open.owp");
        assertTrue(r.out().contains("reflect jitter = 0 us (P95-P50)\nPercentiles:\n\t0.0: 100 us\n\t5.6: 200 us\n"
            + "\t50.0: 200 us\n\t100.0: 400 us\nsend hops"), r.out());
    }

    private static final Pattern NUMBER = Pattern.compile("-?\\d+(\\.\\d+)?(e[+-]\\d+)?|nan");

    @Test
    void shouldPrintRussianSummaryWithSameNumbersAndStructure() throws IOException {
        for (String owp : new String[] {"datafile-open.owp", "datafile-loss.owp", "datafile-offset.owp"}) {
            Run en = run(UTC.withPercentiles(50f, 95f), owp);
            Run ru = run(UTC.withPercentiles(50f, 95f).withLanguage(Language.RU), owp);
            String[] a = en.out().split("\n", -1);
            String[] b = ru.out().split("\n", -1);
            assertEquals(a.length, b.length, owp);
            for (int i = 0; i < a.length; i++) {
                assertEquals(numbers(a[i].replace("P95-P50", "")), numbers(b[i].replace("P95-P50", "")),
                    owp + " line " + i);
            }
            assertTrue(ru.out().contains("мс"), ru.out());
            assertTrue(ru.out().contains("--- статистика twping от [localhost]:9417 до [localhost]:18884 ---"));
        }
    }

    private static List<String> numbers(String line) {
        List<String> out = new ArrayList<>();
        Matcher m = NUMBER.matcher(line);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    @Test
    void shouldPrintClockOffsetWarningBeforeSecondHeaderWithNegativeMedianBelowMinimum() throws IOException {
        Run r = run(UTC.withVerbose(true, 2), "datafile-offset.owp");
        String warning = "\nDirectional delays may be inaccurate due to out of sync clocks!\n";
        int firstHeader = r.out().indexOf("\n--- twping statistics");
        int warn = r.out().indexOf(warning);
        int secondHeader = r.out().indexOf("\n--- twping statistics", firstHeader + 1);
        assertEquals(0, firstHeader);
        assertTrue(warn > 0 && secondHeader == warn + warning.length(), r.out());
        // -M of the same file (golden): MIN_BCK -0.02553.., MEDIAN_BCK -0.0256: quantised away from zero
        Run full = run(UTC, "datafile-offset.owp");
        Matcher m = Pattern.compile("reflect time min/median/max = (-[0-9.]+)/(-[0-9.]+)/(-[0-9.]+) ms")
            .matcher(full.out());
        assertTrue(m.find(), full.out());
        assertTrue(Double.parseDouble(m.group(2)) < Double.parseDouble(m.group(1)), full.out());
        assertTrue(full.out().startsWith(warning + "\n--- twping statistics"), full.out());
    }

    @Test
    void shouldFormatFirstAndLastInGivenZone() throws IOException {
        Run r = run(OutputOptions.defaults().withZone(ZoneId.of("Europe/Moscow")), "datafile-open.owp");
        assertTrue(r.out().contains("first:\t2026-11-30T15:13:49.288\n"), r.out());
    }

    @Test
    void shouldPrintThousandMillisecondsQuirk() {
        // 0.9996 s into the second: (float) ns / 1e6 = 999.6 -> "%03.0f" -> 1000
        long ntp = ((2208988800L + 5) << 32) | (long) (0.9996 * 4294967296.0);
        StringBuilder sb = new StringBuilder();
        HumanSummaryWriter.appendLocalTime(sb, ntp, ZoneOffset.UTC);
        assertEquals("1970-01-01T00:00:05.1000", sb.toString());
    }

    @Test
    void shouldPrintSpecZeroRecordSummary() throws IOException {
        // docs/CLI.md, exit statuses: a header without records gives "0 sent", nan delays, "(err=0 ms)", "TTL not reported"
        SessionHeader h = new SessionHeader(new byte[16], 4,
            new byte[] {127, 0, 0, 1}, 9000, new byte[] {127, 0, 0, 1}, 18000, 10, 27, 3_973_000_000L << 32,
            2L << 32, 0, new boolean[] {true}, new long[] {0x028F5C28L}, 1);
        byte[] bytes = new byte[h.dataOffset()];
        h.encode(MemorySegment.ofArray(bytes));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (SessionDataReader reader = SessionDataReader.of(bytes)) {
            assertTrue(Reports.write(UTC, reader, null, new PrintStream(out), System.err));
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("\n--- twping statistics from [127.0.0.1]:9000 to [127.0.0.1]:18000 ---\n"), text);
        assertTrue(text.contains("0 sent, 0 lost (0.000%), 0 send duplicates, 0 reflect duplicates\n"
            + "round-trip time min/median/max = nan/nan/nan ms, (err=0 ms)\n"), text);
        assertTrue(text.contains("reflector processing time min/max = nan/nan ms\ntwo-way jitter = nan ms (P95-P50)\n"),
            text);
        assertTrue(text.endsWith("send TTL not reported\nreflect TTL not reported\n\n"), text);
    }

    @Test
    void shouldPrintNothingWhenQuiet() throws IOException {
        Run r = run(UTC.withQuiet(true), "datafile-open.owp");
        assertEquals("", r.out());
        assertEquals("", r.err());
    }

    @Test
    void shouldReadHeaderBackForHostStrings() throws IOException {
        try (SessionDataReader reader = SessionDataReader.open(VectorFiles.file("datafile-open.owp"))) {
            HostInfo h = HostInfo.numericFrom(reader.header());
            assertEquals(new HostInfo("127.0.0.1", "9417", "127.0.0.1", "127.0.0.1", "18884", "127.0.0.1"), h);
        }
    }
}
