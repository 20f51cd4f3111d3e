package io.github.twping.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import com.sun.management.ThreadMXBean;
import io.github.twping.stats.exact.ExactStatistics;
import java.lang.management.ManagementFactory;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Locale;
import java.util.Random;

/**
 * The interval events of {@link SessionIntervals} over a session data file written here record by record: where each
 * record lands (its event time), the counts, delays, hops and timestamp sources of each interval, the last partial
 * interval, the JSON Schema of every line; and that reading and accounting records on the interval thread allocates
 * nothing per record.
 */
class SessionIntervalsTest {
    private static final long START_EPOCH_NS = 1_800_000_000_000_000_000L;
    private static final long START_NTP = NtpTime.fromEpochNanos(START_EPOCH_NS);
    private static final long STEP_NS = 1_000_000;                 // one packet per ms
    private static final long LOSS_NS = 500_000_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final AtomicLong nowEpochNs = new AtomicLong(START_EPOCH_NS - 1_000_000_000L);
    private final WallClock clock = new WallClock(nowEpochNs::get, 0);

    private static SessionHeader header(long packets) {
        return new SessionHeader(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 4,
                new byte[] {127, 0, 0, 1}, 9000, new byte[] {127, 0, 0, 1}, 862, packets, 0, START_NTP,
                NtpTime.fromSeconds(LOSS_NS / 1e9), 0, new boolean[] {true}, new long[] {NtpTime.fromSeconds(STEP_NS / 1e9)},
                SessionHeader.FINISHED_INCOMPLETE);
    }

    private static TargetConfig target() {
        return new TargetConfig("lon-1", "127.0.0.1", 862, Protocol.STAMP, 1000, 1, false, 1, null, null, 0, -1, 0.5,
                0, StampOptions.DEFAULT, 1);
    }

    /** Record {@code seq}: forward 10 µs, processing 5 µs, back 25 µs (RTT 35 µs), TTLs 250/253; or lost. */
    private static void record(TwoWayRecord r, long seq, boolean lost) {
        long t1 = START_EPOCH_NS + seq * STEP_NS;
        if (lost) {
            r.setLost(seq, NtpTime.fromEpochNanos(t1), 1);
            return;
        }
        r.sentSeq = seq;
        r.reflSeq = seq;
        r.sentSendNtp = NtpTime.fromEpochNanos(t1);
        r.sentRecvNtp = NtpTime.fromEpochNanos(t1 + 10_000);
        r.reflSendNtp = NtpTime.fromEpochNanos(t1 + 15_000);
        r.reflRecvNtp = NtpTime.fromEpochNanos(t1 + 40_000);
        r.sentSendErr = r.sentRecvErr = r.reflSendErr = r.reflRecvErr = 1;
        r.sentTtl = 250;
        r.reflTtl = 253;
    }

    /** Writes {@code packets} records, the last {@code lostTail} lost, in the data-file order of a receiver. */
    private static FileChannel file(Path p, SessionHeader header, long packets, long lostTail, RecordSources sources,
                                    long[] dataOffset) throws IOException {
        FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE);
        SessionDataWriter w = SessionDataWriter.onChannel(ch, header, SessionDataWriter.DEFAULT_BATCH_RECORDS);
        TwoWayRecord r = new TwoWayRecord();
        for (long seq = 0; seq < packets; seq++) {
            boolean lost = seq >= packets - lostTail;
            record(r, seq, lost);
            if (!lost) {
                sources.set(w.recordsWritten(), RecordSources.pack(seq % 2 == 0 ? RecordSources.KERNEL_SOFTWARE
                        : RecordSources.USER, RecordSources.KERNEL_SOFTWARE, 0));
            }
            w.append(r);
        }
        w.flush();
        dataOffset[0] = w.dataOffset();
        return ch;
    }

    static Schema streamSchema() throws IOException {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("docs/agent-json-stream.schema.json"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "docs/agent-json-stream.schema.json not found");
        String result = Files.readString(p.resolve("docs/twping-result.schema.json"));
        String id = JSON.readTree(result).path("$id").asText();
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                b -> b.schemas(Map.of(id, result)));
        return registry.getSchema(Files.readString(p.resolve("docs/agent-json-stream.schema.json")), InputFormat.JSON);
    }

    @Test
    void shouldCutIntervalsByEventTimeWithTheExactEngineAndEndWithTheLastPartialOne() throws Exception {
        long packets = 1000;
        SessionHeader header = header(packets);
        RecordSources sources = RecordSources.forPacketCount(packets);
        long[] offset = new long[1];
        AtomicLong visible = new AtomicLong();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<String> problems = new ArrayList<>();
        AgentJsonStream stream = new AgentJsonStream(out, "-", false, problems::add);
        try (FileChannel ch = file(dir.resolve("s.owp"), header, packets, 50, sources, offset)) {
            SessionIntervals intervals = new SessionIntervals(target(), ch, offset[0], header, visible::get, sources,
                    0.1, stream, clock);
            intervals.poll();                       // before the start, nothing visible
            assertEquals(0, out.size());
            nowEpochNs.set(START_EPOCH_NS + 350_000_000L);
            intervals.poll();
            assertEquals(0, out.size(), "0.35 s after the start, less the 0.5 s grace: no interval has ended");
            nowEpochNs.set(START_EPOCH_NS + 800_000_000L);
            intervals.poll();                       // 0.8 s - 0.5 s grace: intervals 0..2 ended, written empty
            assertEquals(3, intervals.written());
            visible.set(packets);
            nowEpochNs.set(START_EPOCH_NS + 1_600_000_000L);
            intervals.poll();
            intervals.finish();
        }
        assertEquals(List.of(), problems);
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        Schema schema = streamSchema();
        for (String line : lines) {
            List<Error> errors = schema.validate(line, InputFormat.JSON);
            assertTrue(errors.isEmpty(), () -> "schema errors: " + errors + "\nin " + line);
        }
        // received 0..949 (t4 = start + seq ms + 40 µs), lost 950..999 (event time: send + 0.5 s = 1.45..1.499 s),
        // so interval k < 9 holds 100 replies; the first three were written before any record was visible, so
        // the replies of intervals 0..2 count in interval 3 (as in twping's stream: a record of a written interval
        // counts in the current one)
        assertEquals(15, lines.size(), String.join("\n", lines));
        long sent = 0;
        long received = 0;
        long lost = 0;
        for (int k = 0; k < lines.size(); k++) {
            JsonNode o = JSON.readTree(lines.get(k));
            assertEquals("interval", o.path("event").asText());
            assertEquals("lon-1", o.path("target").asText());
            assertEquals("stamp", o.path("protocol").asText());
            assertEquals(header.sidHex(), o.path("sid").asText());
            assertEquals(k, o.path("index").asInt());
            long startNs = Duration.between(Instant.EPOCH,
                    Instant.parse(o.path("start").asText())).toNanos();
            long endNs = Duration.between(Instant.EPOCH,
                    Instant.parse(o.path("end").asText())).toNanos();
            assertEquals(START_EPOCH_NS + k * 100_000_000L, startNs, 2, lines.get(k));
            assertEquals(100_000_000L, endNs - startNs, 2, lines.get(k));
            assertEquals(k == 14, o.path("last").asBoolean(), lines.get(k));
            JsonNode p = o.path("packets");
            long expectReceived = k < 3 ? 0 : k == 3 ? 400 : k < 9 ? 100 : k == 9 ? 50 : 0;
            assertEquals(expectReceived, p.path("received").asLong(), lines.get(k));
            assertEquals(k == 14 ? 50 : 0, p.path("lost").asLong(), lines.get(k));
            assertEquals(p.path("received").asLong() + p.path("lost").asLong(), p.path("sent").asLong());
            sent += p.path("sent").asLong();
            received += p.path("received").asLong();
            lost += p.path("lost").asLong();
            JsonNode rtt = o.path("delays").path("round_trip");
            if (expectReceived > 0) {
                for (String key : new String[] {"min_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns"}) {
                    assertEquals(35_000, rtt.path(key).asDouble(), 2, key + " " + lines.get(k));
                    assertEquals(10_000, o.path("delays").path("forward").path(key).asDouble(), 2, key);
                    assertEquals(25_000, o.path("delays").path("back").path(key).asDouble(), 2, key);
                }
                assertEquals(expectReceived, rtt.path("count").asLong());
                assertEquals(5, o.path("hops").path("forward").path("min").asInt());
                assertEquals(2, o.path("hops").path("back").path("max").asInt());
                assertEquals(expectReceived / 2, o.path("timestamp_sources").path("t1").path("kernel_software").asLong());
                assertEquals(expectReceived / 2, o.path("timestamp_sources").path("t1").path("user").asLong());
                assertEquals(expectReceived, o.path("timestamp_sources").path("t4").path("kernel_software").asLong());
                assertEquals(0.0, p.path("loss_percent").asDouble());
            } else {
                assertTrue(rtt.path("p50_ns").isNull(), lines.get(k));
                assertTrue(o.path("hops").path("forward").path("min").isNull(), lines.get(k));
                assertTrue(p.path("loss_percent").isNull() || p.path("lost").asLong() > 0, lines.get(k));
            }
        }
        assertEquals(packets, sent);
        assertEquals(950, received);
        assertEquals(50, lost);
    }

    @Test
    void shouldGetTheSameResultsFromTheSessionSizedEngineAsFromTheDefaultOne() {
        // 600 packets in a shuffled arrival order with duplicates and losses: IPDV pairs and scheduled send times
        // looked up across the whole session, so windows below the packet count would differ; the session-sized
        // ones (1024) must not
        long packets = 600;
        SessionHeader header = header(packets);
        ExactStatistics sized = ExactStatistics.sizedForSession(header);
        ExactStatistics full = new ExactStatistics(header);
        Random random = new Random(42);
        List<Long> order = new ArrayList<>();
        for (long seq = 0; seq < packets; seq++) {
            order.add(seq);
            if (seq % 37 == 0) {
                order.add(seq);                   // a duplicate
            }
        }
        Collections.shuffle(order, random);
        TwoWayRecord r = new TwoWayRecord();
        for (long seq : order) {
            record(r, seq, seq % 53 == 0);
            if (!r.isLost()) {
                r.reflRecvNtp += NtpTime.fromSeconds(random.nextInt(1000) * 1e-6);
                r.sentSendNtp += NtpTime.fromSeconds(random.nextInt(5) * 1e-6);     // sent a few µs late
            }
            short src = RecordSources.pack(RecordSources.KERNEL_SOFTWARE, RecordSources.KERNEL_SOFTWARE, 0);
            sized.accept(r, src);
            full.accept(r, src);
        }
        var a = sized.total();
        var b = full.total();
        assertTrue(b.ipdvRoundTrip().count() > 500, "IPDV pairs: " + b.ipdvRoundTrip().count());
        assertEquals(b.received(), b.sendLateness().count(), "every reply's send lateness known");
        assertEquals(List.of(b.sent(), b.received(), b.lost(), b.duplicates(), b.reordered()),
                List.of(a.sent(), a.received(), a.lost(), a.duplicates(), a.reordered()));
        for (var pair : List.of(List.of(a.roundTrip(), b.roundTrip()), List.of(a.ipdvRoundTrip(), b.ipdvRoundTrip()),
                List.of(a.ipdvForward(), b.ipdvForward()), List.of(a.ipdvBack(), b.ipdvBack()),
                List.of(a.sendLateness(), b.sendLateness()))) {
            assertEquals(pair.get(1).count(), pair.get(0).count());
            for (double p : new double[] {0, 1, 50, 90, 99, 100}) {
                assertEquals(pair.get(1).percentile(p), pair.get(0).percentile(p), "percentile " + p);
            }
            assertEquals(pair.get(1).mean(), pair.get(0).mean());
        }
    }

    @Test
    void shouldNotAllocatePerRecordWhileReadingAndAccountingRecords() throws Exception {
        ThreadMXBean threads =
                (ThreadMXBean) ManagementFactory.getThreadMXBean();
        // 150,000 records first: past the engine's exact limit (131,072) every distribution is a histogram and the
        // duplicate bit set covers 2^18, so what follows is the steady state of a long session. Then windows of
        // 10,000 records; a window's figure is the bytes this thread allocated divided by its records. No interval
        // ends in them (interval of a day, the clock before the start), so no line is formatted.
        long packets = 200_000;
        SessionHeader header = header(packets);
        RecordSources sources = RecordSources.forPacketCount(packets);
        long[] offset = new long[1];
        AtomicLong visible = new AtomicLong(150_000);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AgentJsonStream stream = new AgentJsonStream(out, "-", false, line -> { });
        List<String> figures = new ArrayList<>();
        double cheapest = Double.MAX_VALUE;
        try (FileChannel ch = file(dir.resolve("a.owp"), header, packets, 0, sources, offset)) {
            SessionIntervals intervals = new SessionIntervals(target(), ch, offset[0], header, visible::get, sources,
                    86_400, stream, clock);
            intervals.poll();
            while (visible.get() < packets) {
                visible.addAndGet(10_000);
                long before = threads.getCurrentThreadAllocatedBytes();
                intervals.poll();
                double perRecord = (threads.getCurrentThreadAllocatedBytes() - before) / 10_000.0;
                figures.add(String.format(Locale.ROOT, "%.3f", perRecord));
                cheapest = Math.min(cheapest, perRecord);
            }
            assertEquals(0, out.size(), "no interval ended");
            intervals.finish();
        }
        assertTrue(cheapest < 1.0, "bytes allocated per record in windows of 10,000: " + figures);
        JsonNode last = JSON.readTree(out.toString(StandardCharsets.UTF_8));
        assertEquals(packets, last.path("packets").path("received").asLong());
        assertTrue(last.path("last").asBoolean());
    }
}
