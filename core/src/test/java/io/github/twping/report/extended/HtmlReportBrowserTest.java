package io.github.twping.report.extended;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.imageio.ImageIO;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.twping.datafile.SessionDataReader;
import io.github.twping.server.EmbeddedServer;
import io.github.twping.session.ReflectorFaultInjection;
import io.github.twping.testdata.RecordedVectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code --html} report of a real loopback measurement (with a reflector that drops every 50th reply and
 * answers every 97th twice), loaded in Debian's headless Chromium: no console message at all, every chart drew
 * with labelled ticks on both axes (what the page's script sets on each chart, read back with
 * {@code --dump-dom}), the lost and duplicate packets are marked, and the screenshot has the plotted colours.
 * A made-up session with a delay breakdown draws the stacked chart too. The screenshot is written to
 * {@code target/html-report.png}, and to {@code docs/html-report.png} with {@code -Dtwping.docs.screenshot=true}.
 * Skipped, saying so, when there is no {@code chromium} (.ci/run installs it).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class HtmlReportBrowserTest {
    private static final Pattern CONSOLE = Pattern.compile(":CONSOLE[:(]");
    private static final List<String> CHARTS = List.of("pct-rtt", "pct-forward", "pct-back", "ts-rtt", "ts-forward",
            "ts-back", "ts-lateness");
    private static final Pattern DURATION = Pattern.compile("-?\\d+(\\.\\d+)? (ns|\u00b5s|ms|s)|0");
    private static final Pattern PERCENT = Pattern.compile("\\d+(\\.\\d+)?%");

    @TempDir
    static Path dir;
    private static Path html;
    private static JsonNode json;

    @BeforeAll
    static void measure() throws IOException {
        Assumptions.assumeTrue(chromium() != null, "chromium not installed: skipping the browser check of --html");
        html = dir.resolve("report.html");
        Path jsonFile = dir.resolve("report.json");
        try (EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.options().authModes("O")
                .faults(new ReflectorFaultInjection(50, 97, 0, 0)))) {
            ResultRuns.Run r = ResultRuns.run("-c", "1000", "-i", "0.001f", "-L", "3", "-Q", "--html", html.toString(),
                    "--json", jsonFile.toString(), "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
        }
        json = new ObjectMapper().readTree(jsonFile.toFile());
    }

    private static String chromium() {
        for (String p : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser")) {
            if (Files.isExecutable(Path.of(p))) {
                return p;
            }
        }
        return null;
    }

    private record Browser(String stdout, String stderr) {
    }

    private static Browser browse(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-extensions", "--enable-logging=stderr", "--v=0",
                "--user-data-dir=" + Files.createTempDirectory(dir, "profile")));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "chromium", ".out");
        Path err = Files.createTempFile(dir, "chromium", ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish within 120 s");
        }
        return new Browser(Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private static List<String> consoleLines(String stderr) {
        return stderr.lines().filter(l -> CONSOLE.matcher(l).find()).toList();
    }

    /** The attributes of each {@code <div class="chart">} of a dumped DOM, by chart name. */
    private static Map<String, Map<String, String>> charts(String dom) {
        Map<String, Map<String, String>> charts = new LinkedHashMap<>();
        Matcher div = Pattern.compile("<div class=\"chart\"([^>]*)>").matcher(dom);
        while (div.find()) {
            Map<String, String> attrs = new LinkedHashMap<>();
            Matcher a = Pattern.compile("([\\w-]+)=\"([^\"]*)\"").matcher(div.group(1));
            while (a.find()) {
                attrs.put(a.group(1), a.group(2).replace("&amp;", "&"));
            }
            charts.put(attrs.get("data-chart"), attrs);
        }
        return charts;
    }

    private static List<String> ticks(Map<String, String> chart, String axis) {
        String t = chart.getOrDefault("data-ticks-" + axis, "");
        return t.isEmpty() ? List.of() : Arrays.asList(t.split("\\|"));
    }

    private static void assertLabelled(String name, List<String> labels, Pattern form) {
        assertTrue(labels.size() >= 2, name + ": at least two labelled ticks: " + labels);
        for (String l : labels) {
            assertTrue(form.matcher(l).matches(), name + ": tick label " + l + " of " + labels);
        }
    }

    private static void assertBody(String dom, int charts) {
        Matcher all = Pattern.compile("data-charts=\"(\\d+)\"").matcher(dom);
        Matcher drawn = Pattern.compile("data-charts-drawn=\"(\\d+)\"").matcher(dom);
        assertTrue(all.find() && drawn.find(), "the page's check ran: " + dom.length() + " bytes of DOM");
        assertEquals(charts, Integer.parseInt(all.group(1)));
        assertEquals(charts, Integer.parseInt(drawn.group(1)), "every chart has a rendered plot");
    }

    @Test
    void consoleCheckSeesAPageError() throws Exception {
        // the check below can fail: a page with an error is reported on chromium's stderr
        Path bad = dir.resolve("bad.html");
        Files.writeString(bad, "<html><body><script>undefinedFunction();</script></body></html>");
        Browser b = browse("--dump-dom", bad.toUri().toString());
        assertTrue(consoleLines(b.stderr()).stream().anyMatch(l -> l.contains("undefinedFunction")), b.stderr());
    }

    @Test
    void everyChartDrawsWithLabelledTicks() throws Exception {
        Browser b = browse("--dump-dom", html.toUri().toString());
        assertEquals(List.of(), consoleLines(b.stderr()), "console messages of the report");
        List<String> all = new ArrayList<>(CHARTS);
        all.add("breakdown");
        assertBody(b.stdout(), all.size());
        Map<String, Map<String, String>> charts = charts(b.stdout());
        assertEquals(all, List.copyOf(charts.keySet()));
        for (String name : all) {
            Map<String, String> c = charts.get(name);
            assertEquals("yes", c.get("data-drawn"), name);
            assertLabelled(name, ticks(c, "y"), DURATION);
            assertLabelled(name, ticks(c, "x"), name.startsWith("pct-") ? PERCENT : Pattern.compile("\\d+(\\.\\d+)? m?s"));
        }
        // the measurement's delay breakdown: every part in the legend with its stamps' source; TWAMP reports no
        // reflector TX stamp, so the reflector stack is unknown (labelled, not drawn) and its time is inside back
        Map<String, String> bd = charts.get("breakdown");
        assertEquals("pacing lateness|sender stack|forward|reflector residence|reflector stack|back|receiver wake-up",
                bd.get("data-parts"), bd.toString());
        List<String> sources = Arrays.asList(bd.get("data-sources").split("\\|"));
        assertEquals("reflector", sources.get(3), "t2 and t3 of a TWAMP reflector: " + sources);
        assertEquals("unknown", sources.get(4), sources.toString());
        assertTrue(sources.get(2).endsWith("\u2192 reflector"), "forward: our send stamp to t2: " + sources);
        assertEquals("reflector stack", bd.get("data-unknown-parts"));
        assertTrue(Arrays.asList(bd.get("data-drawn-parts").split("\\|")).containsAll(
                List.of("pacing lateness", "forward", "reflector residence", "back")), bd.toString());
        System.out.println("HtmlReportBrowserTest: breakdown of the measurement: " + bd);
        assertEquals("0%", ticks(charts.get("pct-rtt"), "x").getFirst());
        assertTrue(ticks(charts.get("pct-rtt"), "x").contains("99%"), ticks(charts.get("pct-rtt"), "x").toString());
        // every lost packet and duplicate reply is marked on the round-trip chart
        long lost = json.at("/exact/packets/lost").asLong();
        long duplicates = json.at("/exact/packets/duplicates").asLong();
        assertEquals(20, lost);
        assertTrue(duplicates >= 9, "duplicates " + duplicates);
        assertEquals(Long.toString(lost), charts.get("ts-rtt").get("data-marked-lost"));
        assertEquals(Long.toString(duplicates), charts.get("ts-rtt").get("data-marked-duplicates"));
        // the title says the result
        Matcher title = Pattern.compile("<title>([^<]*)</title>").matcher(b.stdout());
        assertTrue(title.find());
        assertTrue(title.group(1).matches("twping \\S+ \u2192 127\\.0\\.0\\.1: RTT p50 .+, p99 .+, loss 2%"),
                title.group(1));
    }

    @Test
    void breakdownDrawsAsAStackedChart() throws Exception {
        Path file = dir.resolve("breakdown.owp");
        SyntheticSessions.write(file, 500, 2_000_000, 0, 0);
        Path page = dir.resolve("breakdown.html");
        int gaps = 0;
        try (SessionDataReader reader = SessionDataReader.open(file)) {
            SessionResults r = SessionResults.compute(reader, null, null, SessionResults.FILE, null, "twping", "test",
                    0.0001f);
            JsonNode data = HtmlReportData.build(r, reader, HtmlReportTest.madeUpParts()).json();
            for (int i = 0; i < data.at("/intervals/received").size(); i++) {
                boolean gap = data.at("/breakdown/median_ns/1/" + i).isNull();
                gaps += gap && data.at("/intervals/received/" + i).asLong() > 0 ? 1 : 0;
            }
            assertTrue(gaps > 0, "the first packets lack the forward part");
            StringWriter w = new StringWriter();
            HtmlReport.write(w, r, reader, null, null, HtmlReportTest.madeUpParts());
            Files.writeString(page, w.toString());
        }
        Browser b = browse("--dump-dom", page.toUri().toString());
        assertEquals(List.of(), consoleLines(b.stderr()), "console messages of the report");
        assertBody(b.stdout(), CHARTS.size() + 1);
        Map<String, String> c = charts(b.stdout()).get("breakdown");
        assertEquals("yes", c.get("data-drawn"));
        assertLabelled("breakdown", ticks(c, "y"), DURATION);
        assertLabelled("breakdown", ticks(c, "x"), Pattern.compile("\\d+(\\.\\d+)? m?s"));
        // the series are the parts, each with the source of its stamps in the legend
        assertEquals("sender stack|forward|receiver wake-up", c.get("data-parts"));
        assertEquals("kernel 450, user 50|kernel|unknown", c.get("data-sources"));
        assertTrue(b.stdout().contains("sender stack \u00b7 kernel 450, user 50"), "legend of the sender stack");
        assertTrue(b.stdout().contains("forward \u00b7 kernel"), "legend of the forward part");
        // the part unknown for every packet is labelled so and not drawn (no area of zero height either)
        assertEquals("receiver wake-up", c.get("data-unknown-parts"));
        assertTrue(b.stdout().contains("receiver wake-up \u00b7 unknown, not drawn"), "legend of the unknown part");
        assertEquals("sender stack|forward", c.get("data-drawn-parts"));
        // the first intervals, whose packets lack the forward part, are marked instead of drawn as zero
        assertEquals(Integer.toString(gaps), c.get("data-marked-unknown"));
    }

    @Test
    void sessionsWithoutRepliesOrWithOnePacketDrawWithoutErrors() throws Exception {
        for (int[] c : new int[][] {{50, 1}, {1, 0}}) {
            Path file = dir.resolve("edge" + c[0] + ".owp");
            SyntheticSessions.write(file, c[0], 10_000_000, c[1], 0);
            Path page = dir.resolve("edge" + c[0] + ".html");
            try (SessionDataReader reader = SessionDataReader.open(file)) {
                SessionResults r = SessionResults.compute(reader, null, null, SessionResults.FILE, null, "twping",
                        "test", 0.0001f);
                StringWriter w = new StringWriter();
                HtmlReport.write(w, r, reader, null, null, HtmlReportTest.madeUpParts());
                Files.writeString(page, w.toString());
            }
            Browser b = browse("--dump-dom", page.toUri().toString());
            assertEquals(List.of(), consoleLines(b.stderr()), c[0] + " packets: console messages of the report");
            Map<String, Map<String, String>> charts = charts(b.stdout());
            if (c[1] == 1) {
                // no replies: the round-trip chart still draws its axes and the 50 loss markers
                assertEquals("50", charts.get("ts-rtt").get("data-marked-lost"));
                assertTrue(b.stdout().contains("<p class=\"note\">no replies</p>"), "the percentile charts say so");
                // and the breakdown, without a packet that has a part, says each is unknown and draws nothing
                assertEquals("sender stack|forward|receiver wake-up", charts.get("breakdown").get("data-unknown-parts"));
            } else {
                assertBody(b.stdout(), CHARTS.size() + 1);
            }
        }
    }

    @Test
    void negativeOneWayDelaysGetLabelledTicks() throws Exception {
        // the recorded owamp session with offset clocks: back delays near -25 ms, drawn on an asinh axis
        Path page = dir.resolve("offset.html");
        try (SessionDataReader reader = SessionDataReader.open(RecordedVectors.file("datafile-offset.owp"))) {
            SessionResults r = SessionResults.compute(reader, null, null, SessionResults.FILE, null, "twping", "test",
                    0.0001f);
            assertTrue(r.exact().total().back().max() < 0, "the vector's back delays are negative");
            StringWriter w = new StringWriter();
            // as --report gives it: the client's stamps of the file were not kept
            HtmlReport.write(w, r, reader, null, null, new BreakdownParts(null, null, null));
            Files.writeString(page, w.toString());
        }
        Browser b = browse("--dump-dom", page.toUri().toString());
        assertEquals(List.of(), consoleLines(b.stderr()), "console messages of the report");
        assertBody(b.stdout(), CHARTS.size() + 1);
        // the breakdown stacks the negative back part down from forward; the client's parts are unknown
        Map<String, String> bd = charts(b.stdout()).get("breakdown");
        assertEquals("forward|reflector residence|back", bd.get("data-drawn-parts"), bd.toString());
        assertEquals("pacing lateness|sender stack|reflector stack|receiver wake-up", bd.get("data-unknown-parts"));
        for (String name : List.of("pct-back", "ts-back")) {
            List<String> y = ticks(charts(b.stdout()).get(name), "y");
            assertLabelled(name, y, DURATION);
            assertTrue(y.stream().allMatch(l -> l.startsWith("-")), name + ": " + y);
        }
    }

    @Test
    void screenshotShowsThePlottedSeries() throws Exception {
        Path png = Path.of("target", "html-report.png").toAbsolutePath();
        Files.createDirectories(png.getParent());
        Files.deleteIfExists(png);
        browse("--hide-scrollbars", "--force-device-scale-factor=1", "--window-size=1200,1990",
                "--screenshot=" + png, html.toUri().toString());
        BufferedImage image = ImageIO.read(new File(png.toString()));
        assertTrue(image != null && image.getWidth() == 1200, "a 1200 px wide screenshot");
        int rtt = 0;
        int forward = 0;
        int back = 0;
        int lost = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y) & 0xFFFFFF;
                rtt += near(rgb, 0x1f5fa8) ? 1 : 0;
                forward += near(rgb, 0x2e8b3e) ? 1 : 0;
                back += near(rgb, 0xd9730d) ? 1 : 0;
                lost += near(rgb, 0xd0021b) ? 1 : 0;
            }
        }
        assertTrue(rtt > 500, "round-trip curves: " + rtt + " blue pixels");
        assertTrue(forward > 300, "forward curves: " + forward + " green pixels");
        assertTrue(back > 300, "back curves: " + back + " orange pixels");
        assertTrue(lost > 100, "lost-packet markers: " + lost + " red pixels");
        if (Boolean.getBoolean("twping.docs.screenshot")) {
            Files.copy(png, ResultRuns.docs().resolve("html-report.png"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static boolean near(int rgb, int target) {
        int dr = Math.abs(((rgb >> 16) & 0xFF) - ((target >> 16) & 0xFF));
        int dg = Math.abs(((rgb >> 8) & 0xFF) - ((target >> 8) & 0xFF));
        int db = Math.abs((rgb & 0xFF) - (target & 0xFF));
        return dr + dg + db < 60;
    }
}
