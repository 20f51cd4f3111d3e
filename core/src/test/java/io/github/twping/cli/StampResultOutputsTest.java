package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import io.github.twping.report.extended.CsvWriter;
import io.github.twping.report.extended.ResultOutputs;
import io.github.twping.report.extended.ResultRuns;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The result outputs of {@code twping --stamp} and {@code twping --light} against the in-process reflector
 * ({@code twampd --stamp/--light}): {@code --json} validated against docs/twping-result.schema.json with the
 * protocol and the TLV results checked against the wire (the Location TLV's ports are the sockets' ports) and
 * against the text TLV report of the same run, {@code --json-stream} with the packets' reflector timestamp
 * sources, {@code --exact}, {@code --csv}, {@code --html}, and exit 4 when an output cannot be written.
 */
class StampResultOutputsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int COUNT = 20;

    @TempDir
    static Path dir;
    private static Schema schema;
    private static StampCliExchange.Result stamp;

    private static StampCliExchange.Result exchange(List<String> reflectorArgs, List<String> twpingArgs, String flag) throws Exception {
        return StampCliExchange.run(dir, reflectorArgs, twpingArgs, flag);
    }

    @BeforeAll
    static void measureOnce() throws Exception {
        schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(
                Files.readString(ResultRuns.docs().resolve("twping-result.schema.json")), InputFormat.JSON);
        stamp = exchange(List.of("--stamp", "127.0.0.1:0"), List.of("-c", Integer.toString(COUNT), "-i", "0.005f",
                "-D", "10", "--tlv", "loc,ts,cos=0,fut", "--exact", "--json", dir.resolve("s.json").toString(),
                "--json-stream", dir.resolve("s.ndjson").toString(), "--json-stream-packets",
                "--csv", dir.resolve("s.csv").toString(), "--html", dir.resolve("s.html").toString()), "--stamp");
    }

    private static void assertValid(String json) {
        List<Error> errors = schema.validate(json, InputFormat.JSON);
        assertTrue(errors.isEmpty(), () -> "schema errors: " + errors + "\nin " + json);
    }

    private static long textValue(String out, String regex) {
        Matcher m = Pattern.compile(regex).matcher(out);
        assertTrue(m.find(), regex + " in " + out);
        return Long.parseLong(m.group(1));
    }

    @Test
    void stampJsonCarriesTheProtocolAndTheTlvResultsOfTheWire() throws IOException {
        assertEquals(0, stamp.status(), stamp.err());
        String text = Files.readString(dir.resolve("s.json"));
        assertValid(text);
        JsonNode doc = JSON.readTree(text);
        assertEquals("stamp", doc.get("protocol").asText());
        JsonNode s = doc.get("stamp");
        assertNotNull(s, text);
        List<String> tlvs = new ArrayList<>();
        s.get("tlvs").forEach(n -> tlvs.add(n.asText()));
        assertEquals(List.of("location", "timestamp_information", "class_of_service", "follow_up_telemetry"), tlvs);
        long received = doc.at("/exact/packets/received").asLong();
        assertTrue(received > 0, text);
        assertEquals(received, s.get("replies").asLong());
        // Location: what the reflector saw are the two sockets' real addresses and ports
        JsonNode loc = s.get("location");
        assertEquals("127.0.0.1", loc.get("source_address").asText());
        assertEquals(doc.at("/session/sender/port").asInt(), loc.get("source_port").asInt());
        assertEquals("127.0.0.1", loc.get("destination_address").asText());
        assertEquals(stamp.port(), loc.get("destination_port").asInt());
        assertEquals(stamp.port(), doc.at("/session/reflector/port").asInt());
        assertEquals(received, loc.get("replies").asLong());
        // Class of Service: reply DSCP 0 asked for, our -D 10 received by the reflector
        JsonNode cos = s.get("class_of_service");
        assertEquals(0, cos.get("requested_dscp").asInt());
        assertEquals(10, cos.get("sender_dscp").asInt());
        assertEquals(received, cos.get("reflector_received_sender_dscp").asLong());
        assertEquals(received, cos.get("replies_with_requested_dscp").asLong());
        assertEquals(doc.at("/exact/reply_dscp/0").asLong(), cos.get("replies_with_requested_dscp").asLong());
        assertEquals(0, cos.get("not_applied").asLong());
        // Timestamp Information and the kernel stamps: t1/t4 counts agree with exact.timestamp_sources
        JsonNode ti = s.get("timestamp_information");
        assertEquals(received, ti.get("replies").asLong());
        assertTrue(ti.get("method_in").asText().length() > 0, text);
        JsonNode k = s.get("kernel_timestamps");
        assertEquals(doc.at("/exact/timestamp_sources/t1/kernel_software").asLong()
                + doc.at("/exact/timestamp_sources/t1/kernel_hardware").asLong(), k.get("t1").asLong());
        assertEquals(doc.at("/exact/timestamp_sources/t4/kernel_software").asLong()
                + doc.at("/exact/timestamp_sources/t4/kernel_hardware").asLong(), k.get("t4").asLong());
        assertTrue(k.get("all_four").asLong() <= Math.min(k.get("t2").asLong(), k.get("t3").asLong()), text);
        // Follow-Up Telemetry: each reply reports the kernel stamp of the previous one
        JsonNode fut = s.get("follow_up_telemetry");
        assertTrue(fut.get("kernel_t3").asLong() <= received, text);
        if (doc.at("/exact/packets/lost").asLong() == 0) {
            assertEquals(COUNT - 1, fut.get("kernel_t3").asLong(), text);
        }
        if (fut.get("kernel_t3").asLong() > 0) {
            JsonNode rtt = fut.get("rtt_kernel_t3");
            assertTrue(rtt.get("min_ns").asLong() <= rtt.get("median_ns").asLong()
                    && rtt.get("median_ns").asLong() <= rtt.get("max_ns").asLong(), text);
        }
        assertTrue(s.get("direct_measurement").isNull(), "dm not asked for");
        assertEquals(0, s.at("/flags/malformed").asLong());
        assertEquals(0, s.at("/flags/unrecognised").asLong());
    }

    @Test
    void jsonTlvResultsEqualTheTextTlvReport() throws IOException {
        JsonNode s = JSON.readTree(dir.resolve("s.json").toFile()).get("stamp");
        String out = stamp.out();
        assertTrue(out.contains("\n--- STAMP TLVs (RFC 8972) ---\n"), out);
        JsonNode k = s.get("kernel_timestamps");
        assertEquals(k.get("t1").asLong(), textValue(out, "kernel timestamps: t1 (\\d+),"));
        assertEquals(k.get("t2").asLong(), textValue(out, "kernel timestamps: t1 \\d+, t2 (\\d+),"));
        assertEquals(k.get("t3").asLong(), textValue(out, ", t3 (\\d+), t4"));
        assertEquals(k.get("t4").asLong(), textValue(out, ", t4 (\\d+), all four"));
        assertEquals(k.get("all_four").asLong(), textValue(out, "all four (\\d+) of"));
        assertEquals(s.get("replies").asLong(), textValue(out, "all four \\d+ of (\\d+) replies"));
        assertEquals(s.at("/follow_up_telemetry/kernel_t3").asLong(),
                textValue(out, "follow-up telemetry: (\\d+) kernel t3"));
        assertEquals(s.at("/location/source_port").asLong(), textValue(out, "reflector saw source \\S+ port (\\d+),"));
        assertTrue(out.contains("reflector clock: sync in " + s.at("/timestamp_information/sync_in").asText()
                + ", sync out " + s.at("/timestamp_information/sync_out").asText() + "; timestamp in "
                + s.at("/timestamp_information/method_in").asText()), out);
        assertTrue(out.contains("\nsender clock: sync " + s.get("sender_sync").asText() + "\n"), out);
    }

    @Test
    void exactBlockSitsBetweenTheSummaryAndTheTlvReport() {
        String out = stamp.out();
        int summary = out.indexOf(COUNT + " sent, ");
        int exact = out.indexOf("--- exact statistics (1 ns resolution, exact sort) ---");
        int tlvs = out.indexOf("--- STAMP TLVs (RFC 8972) ---");
        assertTrue(summary >= 0 && exact > summary && tlvs > exact, out);
    }

    @Test
    void streamNamesTheProtocolAndThePacketsReflectorSources() throws IOException {
        List<String> lines = Files.readAllLines(dir.resolve("s.ndjson"));
        JsonNode start = JSON.readTree(lines.get(0));
        assertEquals("start", start.get("event").asText());
        assertEquals("stamp", start.get("protocol").asText());
        String endLine = lines.get(lines.size() - 1);
        assertValid(endLine);
        ResultRuns.assertValidStream(ResultRuns.streamSchema(), lines);
        JsonNode end = JSON.readTree(endLine);
        assertEquals("end", end.get("event").asText());
        assertEquals("stamp", end.get("protocol").asText());
        assertEquals(JSON.readTree(dir.resolve("s.json").toFile()).get("stamp"), end.get("stamp"));
        int packets = 0;
        for (String line : lines) {
            JsonNode e = JSON.readTree(line);
            if (!e.get("event").asText().equals("packet") || e.get("lost").asBoolean()) {
                continue;
            }
            packets++;
            for (String key : List.of("t1_source", "t2_source", "t3_source", "t4_source")) {
                assertTrue(List.of("user", "kernel_software", "kernel_hardware", "control_plane", "unknown")
                        .contains(e.get(key).asText()), key + " in " + line);
            }
            assertFalse(e.get("t2_source").asText().equals("unknown"), "every reply carried Timestamp Information: "
                    + line);
        }
        assertEquals(end.at("/exact/packets/received").asLong(), packets);
    }

    @Test
    void csvKeepsItsColumns() throws IOException {
        List<String> rows = Files.readAllLines(dir.resolve("s.csv"));
        assertEquals(CsvWriter.HEADER.strip(), rows.get(0));
        JsonNode doc = JSON.readTree(dir.resolve("s.json").toFile());
        assertEquals(doc.at("/exact/packets/records").asLong() + 1, rows.size());
        int columns = CsvWriter.HEADER.strip().split(",", -1).length;
        for (String row : rows) {
            assertEquals(columns, row.split(",", -1).length, row);
        }
        // the delay breakdown with Follow-Up Telemetry: the reflector's stack is known on every reply whose next
        // reply came back, and the path components add up to the span on every row
        List<String> header = List.of(rows.get(0).split(",", -1));
        int followedUp = 0;
        for (String row : rows.subList(1, rows.size())) {
            String[] cells = row.split(",", -1);
            if (cells[2].equals("1") || cells[3].equals("1")) {
                continue;                       // lost, or a duplicate (the JSON counts first replies)
            }
            long sum = 0;
            for (String part : List.of("sender_stack", "forward", "reflector_residence", "reflector_stack", "back",
                    "receiver_wakeup")) {
                String ns = cells[header.indexOf("breakdown_" + part + "_ns")];
                sum += ns.isEmpty() ? 0 : Long.parseLong(ns);
            }
            assertEquals(Long.parseLong(cells[header.indexOf("breakdown_span_ns")]), sum, row);
            String stack = cells[header.indexOf("breakdown_reflector_stack_stamps")];
            if (stack.endsWith(">kernel_software") || stack.endsWith(">kernel_hardware")) {
                followedUp++;
            } else {
                assertEquals("follow_up_not_received", stack, row);
            }
        }
        JsonNode breakdown = doc.get("breakdown");
        assertEquals(followedUp, breakdown.at("/components/reflector_stack/distribution/count").asLong());
        assertTrue(followedUp >= doc.at("/exact/packets/received").asLong() - 2, "replies followed up: " + followedUp);
    }

    @Test
    void htmlShowsTheProtocolAndTheTlvTable() throws IOException {
        String html = Files.readString(dir.resolve("s.html"));
        JsonNode s = JSON.readTree(dir.resolve("s.json").toFile()).get("stamp");
        assertTrue(html.contains("<tr><th>protocol</th><td style=\"text-align:left\">stamp</td></tr>"), html);
        assertTrue(html.contains("<h2>STAMP TLVs (RFC 8972)</h2>"), html);
        assertTrue(html.contains("kernel timestamps</th><td style=\"text-align:left\">t1 "
                + s.at("/kernel_timestamps/t1").asLong() + ", t2 "), html);
        assertTrue(html.contains("reflector saw source 127.0.0.1 port " + s.at("/location/source_port").asInt()
                + ", destination 127.0.0.1 port " + stamp.port()), html);
        assertTrue(html.contains("<div class=\"chart\" data-chart=\"ts-rtt\">"), html);
    }

    /**
     * The STAMP page in Debian's headless Chromium (the pattern of {@code HtmlReportBrowserTest}): no console
     * message, every chart drawn, the TLV table in the DOM. Skipped, saying so, without {@code chromium}.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void htmlRendersInChromium() throws Exception {
        String chromium = Files.isExecutable(Path.of("/usr/bin/chromium")) ? "/usr/bin/chromium"
                : Files.isExecutable(Path.of("/usr/bin/chromium-browser")) ? "/usr/bin/chromium-browser" : null;
        Assumptions.assumeTrue(chromium != null, "chromium not installed: skipping the browser check of --html");
        Path out = Files.createTempFile(dir, "chromium", ".out");
        Path err = Files.createTempFile(dir, "chromium", ".err");
        Process p = new ProcessBuilder(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-extensions", "--enable-logging=stderr", "--v=0",
                "--user-data-dir=" + Files.createTempDirectory(dir, "profile"), "--dump-dom",
                dir.resolve("s.html").toUri().toString()).redirectOutput(out.toFile()).redirectError(err.toFile())
                .start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish within 180 s");
        }
        String dom = Files.readString(out);
        List<String> console = Files.readAllLines(err).stream()
                .filter(l -> Pattern.compile(":CONSOLE[:(]").matcher(l).find()).toList();
        assertEquals(List.of(), console, "console messages of the report");
        Matcher charts = Pattern.compile("data-charts=\"(\\d+)\"").matcher(dom);
        Matcher drawn = Pattern.compile("data-charts-drawn=\"(\\d+)\"").matcher(dom);
        assertTrue(charts.find() && drawn.find(), "the page's check ran: " + dom.length() + " bytes of DOM");
        assertEquals(charts.group(1), drawn.group(1), "every chart has a rendered plot");
        assertTrue(dom.contains("<table class=\"stamp-tlvs\">"), "the TLV table is in the DOM");
    }

    @Test
    void lightJsonSaysLightAndHasNoTlvs() throws Exception {
        StampCliExchange.Result r = exchange(List.of("--light", "127.0.0.1:0"), List.of("-c", "10", "-i", "0.005f", "-Q", "--json",
                "-"), "--light");
        assertEquals(0, r.status(), r.err());
        assertValid(r.out());
        JsonNode doc = JSON.readTree(r.out());
        assertEquals("light", doc.get("protocol").asText());
        assertFalse(doc.has("stamp"), r.out());
        assertEquals(10, doc.at("/exact/packets/sent").asLong());
        assertEquals(r.port(), doc.at("/session/reflector/port").asInt());
    }

    @Test
    void stampWithoutTlvsHasTheProtocolOnlyAndAnUnwritableOutputExitsFour() throws Exception {
        Path missing = dir.resolve("no-such-dir").resolve("x.csv");
        Path json = dir.resolve("plain.json");
        StampCliExchange.Result r = exchange(List.of("--stamp", "127.0.0.1:0"), List.of("-c", "5", "-i", "0.005f", "--json",
                json.toString(), "--csv", missing.toString()), "--stamp");
        assertEquals(ResultOutputs.EXIT_OUTPUT_FAILED, r.status(), r.err());
        assertTrue(r.out().contains("5 sent, "), "the C summary is still printed: " + r.out());
        List<String> errLines = r.err().lines().filter(l -> !l.contains("NTP")).toList();
        assertEquals(List.of("twping: fopen(" + missing + "): No such file or directory"), errLines);
        String text = Files.readString(json);
        assertValid(text);
        JsonNode doc = JSON.readTree(text);
        assertEquals("stamp", doc.get("protocol").asText());
        assertFalse(doc.has("stamp"), "no --tlv: no TLV results");
    }
}
