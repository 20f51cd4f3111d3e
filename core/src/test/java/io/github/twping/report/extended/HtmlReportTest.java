package io.github.twping.report.extended;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.stats.breakdown.Component;
import io.github.twping.stats.breakdown.StampOrigin;
import io.github.twping.stats.owamp.SummaryResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code --html} page of made-up sessions ({@link SyntheticSessions}), without a browser: its size for
 * 100,000 packets, that the embedded chart data accounts for every record, the percentile curves, the order
 * of the lateness series, the title, and that nothing is loaded from elsewhere.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HtmlReportTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PACKETS = 100_000;

    @TempDir
    static Path dir;
    private static SyntheticSessions.Written written;
    private static SessionResults results;
    private static String page;

    @BeforeAll
    static void writeTheBigSession() throws IOException {
        Path file = dir.resolve("big.owp");
        written = SyntheticSessions.write(file, PACKETS, 1_000_000, 97, 1000);
        try (SessionDataReader reader = SessionDataReader.open(file)) {
            results = SessionResults.compute(reader, null, null, SessionResults.FILE, file.toString(), "twping", "test",
                    0.0001f);
            page = page(results, reader, null);
        }
    }

    private static String page(SessionResults r, SessionDataReader reader, PacketDelayParts breakdown) throws IOException {
        StringWriter w = new StringWriter();
        HtmlReport.write(w, r, reader, "twamp", null, breakdown);
        return w.toString();
    }

    private static JsonNode data(String html) throws IOException {
        Matcher m = Pattern.compile("<script type=\"application/json\" id=\"twping-data\">(.*?)</script>",
                Pattern.DOTALL).matcher(html);
        assertTrue(m.find(), "the page embeds its chart data");
        return JSON.readTree(m.group(1));
    }

    private static long sum(JsonNode array) {
        long s = 0;
        for (JsonNode n : array) {
            s += n.asLong();
        }
        return s;
    }

    @Test
    void shouldStayUnderOneMegabyteFor100000Packets() {
        assertEquals(PACKETS, results.exact().total().sent());
        int bytes = page.getBytes(StandardCharsets.UTF_8).length;
        assertTrue(bytes < 1_000_000, bytes + " bytes");
        System.out.println("HtmlReportTest: the page of " + PACKETS + " packets is " + bytes + " bytes");
    }

    @Test
    void shouldBeSelfContained() {
        assertTrue(page.contains("var uPlot="), "uPlot is inlined");
        assertTrue(page.contains("Permission is hereby granted"), "with its licence");
        assertFalse(Pattern.compile("<(script|img|iframe)[^>]*\\ssrc=|<link[^>]*href=|@import|url\\(",
                Pattern.CASE_INSENSITIVE).matcher(page).find(), "nothing is loaded from elsewhere");
    }

    @Test
    void shouldCountEveryRecordInTheIntervals() throws IOException {
        JsonNode iv = data(page).get("intervals");
        int n = iv.get("start_s").size();
        assertTrue(n > 100 && n <= HtmlReportData.MAX_INTERVALS, n + " intervals");
        for (int i = 1; i < n; i++) {
            assertTrue(iv.get("start_s").get(i).asDouble() > iv.get("start_s").get(i - 1).asDouble());
        }
        assertEquals(written.lost(), sum(iv.get("lost")));
        assertEquals(written.duplicates(), sum(iv.get("duplicates")));
        assertEquals(results.exact().total().received(), sum(iv.get("received")));
        for (String k : List.of("rtt", "forward", "back", "lateness", "received", "lost", "duplicates")) {
            JsonNode series = iv.get(k).isArray() ? iv.get(k) : iv.get(k).get("p50");
            assertEquals(n, series.size(), k);
        }
        // the 9 ms spike is in the max of its interval only; the p99 of that interval stays in microseconds
        JsonNode max = iv.at("/rtt/max");
        int spikes = 0;
        for (int i = 0; i < n; i++) {
            if (max.get(i).asLong() >= 9_000_000) {
                spikes++;
                assertTrue(iv.at("/rtt/p99").get(i).asLong() < 1_000_000);
            }
        }
        assertEquals(1, spikes);
        assertTrue(iv.at("/rtt/positive").asBoolean());
    }

    @Test
    void shouldDrawExactPercentilesAgainstTheBucketedMedian() throws IOException {
        JsonNode pc = data(page).get("percentiles");
        for (String k : List.of("rtt", "forward", "back")) {
            JsonNode c = pc.get(k);
            JsonNode x = c.get("x");
            JsonNode ns = c.get("ns");
            assertEquals(x.size(), ns.size());
            assertTrue(x.size() < 200, x.size() + " points for " + k);
            assertEquals(1.0, x.get(0).asDouble());
            assertEquals((double) results.exact().total().roundTrip().count(), x.get(x.size() - 1).asDouble());
            boolean hasMedian = false;
            for (int i = 1; i < x.size(); i++) {
                assertTrue(x.get(i).asDouble() > x.get(i - 1).asDouble(), k + " x rises");
                assertTrue(ns.get(i).asLong() >= ns.get(i - 1).asLong(), k + " values never fall");
                hasMedian |= x.get(i).asDouble() == 2.0;
            }
            assertTrue(hasMedian, "the curve has the median's point");
        }
        JsonNode rtt = pc.get("rtt");
        assertEquals(results.exact().total().roundTrip().min(), rtt.get("ns").get(0).asLong());
        assertEquals(results.exact().total().roundTrip().max(), rtt.get("ns").get(rtt.get("ns").size() - 1).asLong());
        assertTrue(Math.abs(written.maxRttNs() - results.exact().total().roundTrip().max()) <= 2);
        assertEquals(Math.round(results.owamp().median(SummaryResult.RT) * 1e9), rtt.get("c_median_ns").asLong());
    }

    @Test
    void shouldOrderLatenessBySendTime() throws IOException {
        // lateness rising by 1 µs a packet, replies arriving in swapped pairs: each interval's lateness is higher
        // than the one before (the old page drew this series against the wrong times, backwards)
        Path file = dir.resolve("late.owp");
        SyntheticSessions.write(file, 600, 10_000_000, 0, 0, 1_000);
        try (SessionDataReader reader = SessionDataReader.open(file)) {
            SessionResults r = SessionResults.compute(reader, null, null, SessionResults.FILE, null, "twping", "test",
                    0.0001f);
            JsonNode late = data(page(r, reader, null)).at("/intervals/lateness");
            List<Long> min = new ArrayList<>();
            late.get("min").forEach(v -> min.add(v.asLong()));
            assertTrue(min.size() > 10, min.toString());
            for (int i = 1; i < min.size(); i++) {
                assertTrue(min.get(i) > min.get(i - 1), "interval " + i + ": " + min);
            }
            assertTrue(Math.abs(min.getFirst() - 2_000) <= 2, "first lateness (ns, NTP rounding) " + min.getFirst());
        }
    }

    @Test
    void shouldTitleTheResultNotTheSid() {
        Matcher m = Pattern.compile("<title>(.*?)</title>").matcher(page);
        assertTrue(m.find());
        String title = m.group(1);
        assertFalse(title.contains(results.header().sidHex()), title);
        assertTrue(title.startsWith("twping 127.0.0.1 \u2192 127.0.0.1: RTT p50 "), title);
        assertTrue(title.endsWith(", loss " + HtmlReport.percent(results.exact().total().lossPercent())), title);
        assertTrue(page.contains("<div class=\"kpi kpi-loss alert\" id=\"kpi-loss\"><div class=\"k\">loss</div>"), "loss headline");
    }

    @Test
    void shouldFormatDurationsWithUnits() {
        assertEquals(List.of("0 ns", "999 ns", "1 \u00b5s", "32.6 \u00b5s", "9 ms", "1.5 s", "-2 \u00b5s"),
                Arrays.stream(new double[] {0, 999, 1000, 32_649, 9_000_000, 1.5e9, -2000}).mapToObj(HtmlReport::duration)
                        .toList());
        assertEquals(List.of(1_000L, 1_000L, 2_000L, 5_000L, 10_000L, 200_000_000L),
                Arrays.stream(new long[] {1, 1000, 1001, 4999, 5001, 123_456_789}).mapToObj(HtmlReportData::niceWidth)
                        .toList());
    }

    /**
     * Parts of a made-up breakdown: a sender stack of 3 µs from kernel stamps (20 µs from user stamps for
     * every tenth packet), a forward part of 5 µs unknown for the first 50 packets, and a receiver wake-up
     * unknown for every packet.
     */
    static PacketDelayParts madeUpParts() {
        return new PacketDelayParts() {
            @Override
            public List<Part> parts() {
                return List.of(new Part("sender stack", "user send stamp \u2192 kernel TX stamp"),
                        new Part("forward", "kernel TX stamp \u2192 reflector receive"),
                        new Part("receiver wake-up", "kernel RX stamp \u2192 user receipt"));
            }

            @Override
            public int sources() {
                return 3;
            }

            @Override
            public String sourceName(int code) {
                return List.of("unknown", "kernel", "user").get(code);
            }

            @Override
            public void read(long index, TwoWayRecord r, long[] ns, int[] source) {
                boolean user = r.sentSeq % 10 == 0;
                ns[0] = user ? 20_000 : 3_000;
                source[0] = user ? 2 : 1;
                ns[1] = 5_000;
                source[1] = r.sentSeq < 50 ? UNKNOWN : 1;
                ns[2] = 0;
                source[2] = UNKNOWN;
            }
        };
    }

    @Test
    void shouldCarryABreakdownOnlyWhenGiven() throws IOException {
        assertTrue(data(page).get("breakdown").isNull());
        assertTrue(page.contains("id=\"breakdown-missing\""));
        assertFalse(page.contains("data-chart=\"breakdown\""));
        Path file = dir.resolve("small.owp");
        SyntheticSessions.write(file, 100, 10_000_000, 0, 0);
        try (SessionDataReader reader = SessionDataReader.open(file)) {
            SessionResults r = SessionResults.compute(reader, null, null, SessionResults.FILE, null, "twping", "test",
                    0.0001f);
            int n = data(page(r, reader, null)).at("/intervals/start_s").size();
            String withBreakdown = page(r, reader, madeUpParts());
            JsonNode bd = data(withBreakdown).get("breakdown");
            assertEquals(List.of("sender stack", "forward", "receiver wake-up"),
                    List.of(bd.at("/parts/0/name").asText(), bd.at("/parts/1/name").asText(),
                            bd.at("/parts/2/name").asText()));
            assertEquals(List.of("kernel 90, user 10", "kernel", "unknown"), List.of(bd.at("/parts/0/source").asText(),
                    bd.at("/parts/1/source").asText(), bd.at("/parts/2/source").asText()));
            assertEquals(List.of(100L, 50L, 0L), List.of(bd.at("/parts/0/known").asLong(), bd.at("/parts/1/known").asLong(),
                    bd.at("/parts/2/known").asLong()));
            assertEquals(100, bd.at("/parts/2/unknown").asLong());
            for (int k = 0; k < 3; k++) {
                assertEquals(n, bd.at("/median_ns/" + k).size());
            }
            // the interval whose packets lack the forward part has no value for it, not a zero
            assertTrue(data(withBreakdown).at("/intervals/received/0").asLong() > 0);
            assertTrue(bd.at("/median_ns/1/0").isNull(), bd.at("/median_ns/1").toString());
            assertEquals(5_000, bd.at("/median_ns/1/" + (n - 1)).asLong());
            assertEquals(3_000, bd.at("/median_ns/0/1").asLong());
            for (JsonNode v : bd.at("/median_ns/2")) {
                assertTrue(v.isNull(), "a part unknown for every packet has no value: " + bd.at("/median_ns/2"));
            }
            assertTrue(withBreakdown.contains("data-chart=\"breakdown\""));
            assertFalse(withBreakdown.contains("id=\"breakdown-missing\""));
            // the page says which part is unknown, and the table gives each part's stamp source
            assertTrue(withBreakdown.contains("id=\"breakdown-unknown\">Unknown for every packet, so not drawn:"
                    + " receiver wake-up.</p>"), withBreakdown);
            assertTrue(withBreakdown.contains("<tr class=\"unknown\"><td>receiver wake-up</td>"));
            assertTrue(withBreakdown.contains("<td class=\"source\">kernel 90, user 10</td><td>100</td><td>0</td>"));
            assertTrue(withBreakdown.contains("<td class=\"source\">kernel</td><td>50</td><td>50</td>"));
        }
    }

    @Test
    void shouldStayUnderOneMegabyteWithABreakdownToo() throws IOException {
        try (SessionDataReader reader = SessionDataReader.open(dir.resolve("big.owp"))) {
            String withBreakdown = page(results, reader, madeUpParts());
            int bytes = withBreakdown.getBytes(StandardCharsets.UTF_8).length;
            System.out.println("HtmlReportTest: the page of " + PACKETS + " packets with a breakdown is " + bytes + " bytes");
            assertTrue(bytes < 1_000_000, bytes + " bytes");
            JsonNode bd = data(withBreakdown).get("breakdown");
            assertEquals(PACKETS - written.lost(), bd.at("/parts/0/known").asLong(), "every first reply counted once");
        }
    }

    @Test
    void shouldNameEachSourceOfAPart() {
        PacketDelayParts parts = madeUpParts();
        assertEquals("unknown", DelayBreakdown.sourceLabel(new long[] {5, 0, 0}, parts));
        assertEquals("user", DelayBreakdown.sourceLabel(new long[] {5, 0, 7}, parts));
        assertEquals("user 9, kernel 7", DelayBreakdown.sourceLabel(new long[] {0, 7, 9}, parts));
        BreakdownParts model = new BreakdownParts(null, null, null);
        assertEquals(Component.COUNT, model.parts().size());
        int ordinals = StampOrigin.values().length;
        assertEquals("user \u2192 kernel", model.sourceName(1 + StampOrigin.USER.ordinal() * ordinals
                + StampOrigin.KERNEL_SOFTWARE.ordinal()));
        assertEquals("hardware", model.sourceName(1 + StampOrigin.KERNEL_HARDWARE.ordinal() * (ordinals + 1)));
        assertEquals("unknown", model.sourceName(0));
    }
}
