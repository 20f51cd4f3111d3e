package io.github.twping.report.extended;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end through the CLI entry point against the embedded server over loopback: every result output of
 * one real measurement, the JSON validated against docs/twping-result.schema.json, the stream's events,
 * the CSV rows, re-reporting the saved file, and write failures.
 */
class ResultOutputsSystemTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Schema schema;

    @TempDir
    static Path dir;
    private static ResultRuns.Run measured;

    @BeforeAll
    static void measureOnce() throws IOException {
        String schemaText = Files.readString(ResultRuns.docs().resolve("twping-result.schema.json"));
        schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(schemaText,
                InputFormat.JSON);
        measured = ResultRuns.run("--loopback", "-c", "40", "-i", "0.002f", "-L", "3", "--exact",
                "--json", dir.resolve("r.json").toString(), "--json-stream", dir.resolve("s.ndjson").toString(),
                "--json-stream-packets", "--interval", "0.02", "--csv", dir.resolve("r.csv").toString(),
                "--html", dir.resolve("r.html").toString(), "-F", dir.resolve("r.owp").toString(), "--explain");
    }

    private static void assertValid(String json) {
        List<Error> errors = schema.validate(json, InputFormat.JSON);
        assertTrue(errors.isEmpty(), () -> "schema errors: " + errors + "\nin " + json);
    }

    @Test
    void jsonDocumentOfARealRunValidatesAgainstTheSchema() throws IOException {
        assertEquals(0, measured.status(), measured.err());
        String text = Files.readString(dir.resolve("r.json"));
        assertValid(text);
        JsonNode doc = JSON.readTree(text);
        assertEquals("measurement", doc.at("/session/origin").asText());
        assertEquals("twamp", doc.get("protocol").asText());
        assertFalse(doc.has("stamp"), "TWAMP: no STAMP TLV results");
        assertEquals(40, doc.at("/session/packet_count").asLong());
        JsonNode packets = doc.at("/exact/packets");
        assertEquals(40, packets.get("sent").asLong());
        assertEquals(packets.get("received").asLong() + packets.get("lost").asLong(), 40);
        JsonNode rtt = doc.at("/exact/delays/round_trip");
        assertEquals(packets.get("received").asLong(), rtt.get("count").asLong());
        assertTrue(rtt.get("min_ns").asLong() > 0, "loopback RTT is positive");
        assertTrue(rtt.get("min_ns").asLong() <= rtt.get("p50_ns").asLong());
        assertTrue(rtt.get("p50_ns").asLong() <= rtt.get("p99_ns").asLong());
        assertTrue(rtt.get("p99_ns").asLong() <= rtt.get("max_ns").asLong());
        // every reply has a known t1 and t4 source on a measured session
        assertEquals(0, doc.at("/exact/timestamp_sources/t4/unknown").asLong());
        long t4 = 0;
        for (String k : List.of("user", "kernel_software", "kernel_hardware")) {
            t4 += doc.at("/exact/timestamp_sources/t4/" + k).asLong();
        }
        assertEquals(packets.get("received").asLong(), t4);
        assertEquals(40, doc.at("/owamp/sent").asLong());
        // the delay breakdown: one count per first reply, the dominant component one of the path's
        JsonNode breakdown = doc.get("breakdown");
        assertEquals(rtt.get("count").asLong(), breakdown.get("packets").asLong());
        assertEquals(rtt.get("count").asLong(), breakdown.at("/components/forward/distribution/count").asLong());
        assertEquals(rtt.get("count").asLong(),
                breakdown.at("/components/reflector_stack/absent/no_follow_up_telemetry").asLong(), "TWAMP");
        assertTrue(List.of("sender_stack", "forward", "reflector_residence", "back", "receiver_wakeup")
                .contains(breakdown.get("dominant_p99").asText()), breakdown.toString());
        assertEquals(Math.min(3, rtt.get("count").asLong()), breakdown.get("slowest").size());
        long previous = Long.MAX_VALUE;
        for (JsonNode slow : breakdown.get("slowest")) {
            assertTrue(slow.get("span_ns").asLong() <= previous, "largest span first");
            previous = slow.get("span_ns").asLong();
        }
        assertEquals(breakdown.at("/span/max_ns").asLong(), breakdown.at("/slowest/0/span_ns").asLong());
    }

    @Test
    void exactBlockFollowsTheUnchangedHumanSummary() {
        String out = measured.out();
        int summary = out.indexOf("--- twping statistics from");
        int exact = out.indexOf("--- exact statistics (1 ns resolution, exact sort) ---");
        assertTrue(summary >= 0 && exact > summary, out);
        assertTrue(out.substring(summary, exact).contains("reflect hops = "), "C summary complete before the block");
        String block = out.substring(exact);
        for (String label : List.of("\nround-trip: min ", "\nsend: min ", "\nreflect: min ", "\nreflector processing: min ",
                "\nround-trip IPDV (RFC 3393): ", "\njitter P95-P50: round-trip ", "\nloss: ", "\nhops: send ",
                "\nclocks: local ", "\ntimestamps: send ")) {
            assertTrue(block.contains(label), label + " in " + block);
        }
        assertTrue(block.contains(" p99.999 "), block);
        int breakdown = out.indexOf("\n\n--- delay breakdown (docs/STATISTICS.md; p50 p99 p99.9 max, ms) ---\n"); // after an empty line
        int explain = out.indexOf("--- explain: the slowest packets (span from the send stamp to the receiver thread,"
                + " ms) ---\n");
        assertTrue(breakdown > exact && explain > breakdown, "the breakdown ends the --exact block, --explain follows: "
                + out);
        for (String label : List.of("\npacing lateness: p50 ", "\nsender stack: ", "\nforward: p50 ",
                "\nreflector residence: p50 ", "\nreflector stack: not known: no_follow_up_telemetry ",
                "\nback: p50 ", "\nreceiver wake-up: ", "\ndominant component of the p99: ")) {
            assertTrue(out.substring(breakdown, explain).contains(label), label + " in " + out.substring(breakdown));
        }
        String explained = out.substring(explain);
        assertEquals(3, explained.split("\npacket ", -1).length - 1, "three slowest packets: " + explained);
        assertEquals(3, explained.split("\n  reflector stack: unknown \\(no_follow_up_telemetry\\)", -1).length - 1,
                explained);
        assertTrue(explained.contains("\ndominant component of the p99: "), explained);
    }

    @Test
    void streamHasStartIntervalsPacketsAndEnd() throws IOException {
        List<String> lines = Files.readAllLines(dir.resolve("s.ndjson"));
        List<JsonNode> events = new ArrayList<>();
        for (String line : lines) {
            events.add(JSON.readTree(line));
        }
        assertEquals("start", events.get(0).get("event").asText());
        assertEquals("end", events.get(events.size() - 1).get("event").asText());
        assertValid(lines.get(lines.size() - 1));
        ResultRuns.assertValidStream(ResultRuns.streamSchema(), lines);
        // the schema does check the breakdown of a packet event: an invented reason or a value without its stamps
        String packet = lines.stream().filter(l -> l.contains("\"breakdown\"")).findFirst().orElseThrow();
        for (String broken : List.of(packet.replace("\"no_follow_up_telemetry\"", "\"guessed\""),
                packet.replaceFirst("\"from\":\"schedule\",\"to\":\"user\"", "\"reason\":\"lost\""))) {
            assertTrue(!broken.equals(packet), "mutated: " + packet);
            assertFalse(ResultRuns.streamSchema().validate(broken, InputFormat.JSON).isEmpty(), broken);
        }
        long packetEvents = events.stream().filter(e -> e.get("event").asText().equals("packet")).count();
        long records = events.get(events.size() - 1).at("/exact/packets/records").asLong();
        assertEquals(records, packetEvents, "one packet event per record");
        for (JsonNode e : events) {
            if (e.get("event").asText().equals("packet") && !e.get("lost").asBoolean()) {
                JsonNode b = e.get("breakdown");
                long sum = 0;
                for (String part : List.of("sender_stack", "forward", "reflector_residence", "reflector_stack", "back",
                        "receiver_wakeup")) {
                    sum += b.at("/" + part + "/ns").asLong();        // null (not known) reads as 0
                }
                assertEquals(b.get("span_ns").asLong(), sum, e.toString());
                assertEquals("no_follow_up_telemetry", b.at("/reflector_stack/reason").asText());
            }
        }
        long intervalRecords = 0;
        long lastIndex = -1;
        int intervals = 0;
        for (JsonNode e : events) {
            if (e.get("event").asText().equals("interval")) {
                assertTrue(e.get("index").asLong() > lastIndex, "interval indices increase");
                lastIndex = e.get("index").asLong();
                intervalRecords += e.at("/packets/records").asLong();
                intervals++;
            }
        }
        assertTrue(intervals >= 2, "a 40 x 2 ms session has several 20 ms intervals: " + intervals);
        assertEquals(records, intervalRecords, "every record is in exactly one interval");
    }

    @Test
    void csvHasOneRowPerRecord() throws IOException {
        List<String> rows = Files.readAllLines(dir.resolve("r.csv"));
        assertEquals(CsvWriter.HEADER.strip(), rows.get(0));
        JsonNode doc = JSON.readTree(dir.resolve("r.json").toFile());
        assertEquals(doc.at("/exact/packets/records").asLong() + 1, rows.size());
        List<String> header = List.of(rows.get(0).split(",", -1));
        assertEquals(35, header.size(), "20 columns and the delay breakdown's 15");
        assertEquals(header.size(), new java.util.HashSet<>(header).size(), "no column name twice");
        int span = header.indexOf("breakdown_span_ns");
        int received = 0;
        for (String row : rows.subList(1, rows.size())) {
            String[] cells = row.split(",", -1);
            assertEquals(header.size(), cells.length, row);
            if (cells[2].equals("1")) {
                assertEquals("lost", cells[header.indexOf("breakdown_forward_stamps")], row);
                continue;
            }
            received++;
            long sum = 0;                  // the components on the path add up to the span, to the nanosecond
            for (String part : List.of("sender_stack", "forward", "reflector_residence", "reflector_stack", "back",
                    "receiver_wakeup")) {
                String ns = cells[header.indexOf("breakdown_" + part + "_ns")];
                sum += ns.isEmpty() ? 0 : Long.parseLong(ns);
            }
            assertEquals(Long.parseLong(cells[span]), sum, row);
            // the loopback run has kernel TX and RX stamps: the client's parts are known, with their provenance
            assertTrue(Set.of("user>kernel_software", "user>kernel_hardware", "no_kernel_tx_stamp")
                    .contains(cells[header.indexOf("breakdown_sender_stack_stamps")]), row);
            assertTrue(Set.of("kernel_software>user", "kernel_hardware>user", "no_kernel_rx_stamp")
                    .contains(cells[header.indexOf("breakdown_receiver_wakeup_stamps")]), row);
            assertEquals("schedule>user", cells[header.indexOf("breakdown_pacing_lateness_stamps")], row);
            assertEquals("no_follow_up_telemetry", cells[header.indexOf("breakdown_reflector_stack_stamps")], row);
        }
        assertTrue(received > 0, "no reply in the CSV");
        String[] first = rows.get(1).split(",", -1);
        long t1 = Long.parseLong(first[4]);
        if (first[2].equals("0")) {
            long t4 = Long.parseLong(first[7]);
            long t2 = Long.parseLong(first[5]);
            long t3 = Long.parseLong(first[6]);
            assertEquals((t4 - t1) - (t3 - t2), Long.parseLong(first[8]), 2, "rtt = (t4 - t1) - (t3 - t2)");
        }
    }

    @Test
    void reReportingTheSavedFileGivesTheSameStatistics() throws IOException {
        Path again = dir.resolve("again.json");
        ResultRuns.Run r = ResultRuns.run("--report", dir.resolve("r.owp").toString(), "-Q", "--json", again.toString());
        assertEquals(0, r.status(), r.err());
        assertEquals("", r.out());
        assertValid(Files.readString(again));
        JsonNode a = JSON.readTree(dir.resolve("r.json").toFile());
        JsonNode b = JSON.readTree(again.toFile());
        assertEquals("file", b.at("/session/origin").asText());
        assertFalse(b.has("protocol"), "the data file does not record the protocol");
        assertEquals(a.at("/exact/delays"), b.at("/exact/delays"));
        assertEquals(a.at("/exact/packets"), b.at("/exact/packets"));
        assertEquals(a.at("/owamp"), b.at("/owamp"));
        // the side table is not in the file: sources are unknown when re-reported
        assertEquals(b.at("/exact/packets/received").asLong(), b.at("/exact/timestamp_sources/t1/unknown").asLong());
    }

    @Test
    void reReportPrintsTheCSummaryAndTheRussianBlock() {
        ResultRuns.Run r = ResultRuns.run("--report", dir.resolve("r.owp").toString(), "--exact", "--lang", "ru");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("--- точная статистика (разрешение 1 нс, точная сортировка) ---"), r.out());
        assertTrue(r.out().contains("время кругового пути: min "), r.out());
    }

    @Test
    void jsonToStdoutMovesTheCOutputsToStderr() throws IOException {
        ResultRuns.Run r = ResultRuns.run("--report", dir.resolve("r.owp").toString(), "--exact", "--json", "-");
        assertEquals(0, r.status(), r.err());
        assertValid(r.out());
        JSON.readTree(r.out());
        assertTrue(r.err().contains(" sent, ") && r.err().contains("--- exact statistics"), r.err());
    }

    @Test
    void jsonStreamToStdoutOfAMeasurementIsNdjsonOnly() throws IOException {
        ResultRuns.Run r = ResultRuns.run("--loopback", "-c", "10", "-i", "0.002f", "-L", "1", "--json-stream", "-",
                "--json-stream-packets");
        assertEquals(0, r.status(), r.err());
        List<String> lines = r.out().lines().toList();
        ResultRuns.assertValidStream(ResultRuns.streamSchema(), lines);
        assertEquals("start", JSON.readTree(lines.get(0)).get("event").asText());
        assertEquals("end", JSON.readTree(lines.get(lines.size() - 1)).get("event").asText());
        assertTrue(r.err().contains("Approximately ") && r.err().contains("--- twping statistics from"), r.err());
    }

    @Test
    void jsonToStdoutWithQuietIsOneDocument() throws IOException {
        ResultRuns.Run r = ResultRuns.run("--report", dir.resolve("r.owp").toString(), "-Q", "--json", "-");
        assertEquals(0, r.status(), r.err());
        assertValid(r.out());
    }

    @Test
    void writeFailuresAreOneLineEachAndTheOtherOutputsAreWritten() throws IOException {
        Path html = dir.resolve("still.html");
        Path missing = dir.resolve("no-such-dir").resolve("x.csv");
        ResultRuns.Run r = ResultRuns.run("--report", dir.resolve("r.owp").toString(), "--json", "/dev/full",
                "--csv", missing.toString(), "--html", html.toString());
        assertEquals(ResultOutputs.EXIT_OUTPUT_FAILED, r.status(), r.err());
        assertTrue(r.out().contains(" sent, "), "the C summary is still printed: " + r.out());
        List<String> errLines = r.err().lines().filter(l -> !l.contains("NTP")).toList();
        assertEquals(2, errLines.size(), r.err());
        assertEquals("twping: write(/dev/full): No space left on device", errLines.get(0));
        assertEquals("twping: fopen(" + missing + "): No such file or directory", errLines.get(1));
        assertTrue(Files.readString(html).contains("data-chart=\"ts-rtt\""), "the HTML report is still written");
    }

    @Test
    void unreadableReportFileFailsLikeOwstats() throws IOException {
        Path bogus = dir.resolve("bogus.owp");
        Files.writeString(bogus, "not a session file");
        ResultRuns.Run r = ResultRuns.run("--report", bogus.toString(), "--json", dir.resolve("x.json").toString());
        assertEquals(1, r.status());
        assertTrue(r.err().contains("Invalid owp file"), r.err());
        assertFalse(Files.exists(dir.resolve("x.json")));
    }

    @Test
    void forcedProgressGoesToStderrOnlyAndEndsCleared() {
        // stderr here is not a terminal: --progress draws anyway, -Q keeps stdout empty
        ResultRuns.Run r = ResultRuns.run("--loopback", "-c", "20", "-i", "0.05f", "-L", "3", "-Q", "--progress");
        assertEquals(0, r.status(), r.err());
        assertEquals("", r.out());
        // not a terminal: $COLUMNS or 80 columns, so at most the 80-column form
        assertTrue(r.err().contains("\rtwping: ") && r.err().contains("  sent ") && r.err().contains("p50 "),
                r.err());
        for (String drawn : r.err().split("\r")) {
            assertTrue(drawn.replace("\033[K", "").length() < 80 || drawn.startsWith("twping: NTP"), drawn);
        }
        assertTrue(r.err().endsWith("\r\033[K"), "the line is cleared at the end");
        ResultRuns.Run quiet = ResultRuns.run("--loopback", "-c", "5", "-i", "0.01f", "-L", "1", "-Q");
        assertFalse(quiet.err().contains("rtt p50"), "no progress without a terminal: " + quiet.err());
    }

    @Test
    void badIntervalIsAUsageError() {
        ResultRuns.Run r = ResultRuns.run("--interval", "0", "--loopback");
        assertEquals(1, r.status());
        assertTrue(r.err().contains("twping: Invalid '--interval' value. Seconds 0.01..86400 expected\n"), r.err());
    }
}
