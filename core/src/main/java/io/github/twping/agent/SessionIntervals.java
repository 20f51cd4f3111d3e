package io.github.twping.agent;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.twping.stats.exact.DelayDistribution;
import io.github.twping.stats.exact.ExactStatistics;
import io.github.twping.stats.exact.ExactSummary;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.RecordTail;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.time.Instant;
import java.util.function.LongSupplier;

/**
 * The {@code --json-stream} interval events of one running session (docs/FLEET.md, docs/agent-json-stream.schema.json):
 * reads the records the receiver has made visible in the session data file ({@link RecordTail}, one reused buffer and
 * record holder), feeds them to the exact statistics engine ({@link ExactStatistics}, the one the session's
 * {@code end} line and twping's {@code --json} are computed with) and writes one line per interval of
 * {@code json_stream_interval} seconds counted from the session's start time. A record belongs to the interval of its
 * event time, as in twping's stream: the reply's arrival t4, for a lost packet its send time plus the loss timeout;
 * a record whose interval was already written counts in the current one. An interval is written once the wall clock
 * is half a second past its end (the data file's visibility lag); the last, partial one by {@link #finish}.
 *
 * <p>Runs on the target's loop thread, never on the session's sender or receiver: {@link #poll} is called between
 * the loop's waits. Per record it decodes into the reused holder and updates the engine's counters and
 * distributions (which allocate only while their buffers grow); the JSON tree and its formatting happen once per
 * interval.
 */
final class SessionIntervals implements RecordTail.Consumer {
    /** Intervals are written this long after they end by the wall clock (the receiver makes records visible at
     * least every 200 ms). */
    private static final long GRACE_NTP = NtpTime.fromSeconds(0.5);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final double[] PERCENTILES = {50, 90, 99};
    private static final String[] PERCENTILE_KEYS = {"p50_ns", "p90_ns", "p99_ns"};

    private final TargetConfig target;
    private final SessionHeader header;
    private final LongSupplier visibleRecords;
    private final RecordSources sources;
    private final RecordTail tail;
    private final ExactStatistics engine;
    private final AgentJsonStream stream;
    private final WallClock clock;
    private final long intervalNtp;
    private final long startNtp;
    private long index;
    private boolean failed;

    /**
     * @param target          the target (its name and protocol go into every line)
     * @param data            the session data file, header written
     * @param dataOffset      file offset of record 0
     * @param header          the session's header
     * @param visibleRecords  records readable so far (the writer's {@code visibleRecords()})
     * @param sources         the session's timestamp sources per record
     * @param intervalSeconds length of an interval
     * @param stream          where the lines go
     * @param clock           the wall clock of the test packets
     */
    SessionIntervals(TargetConfig target, FileChannel data, long dataOffset, SessionHeader header,
                     LongSupplier visibleRecords, RecordSources sources, double intervalSeconds, AgentJsonStream stream,
                     WallClock clock) {
        this(target, data, dataOffset, header, visibleRecords, sources, intervalSeconds, stream, clock, null);
    }

    /**
     * As above, with the statistics engine of an earlier session's intervals ({@link #engine()}, no longer read)
     * started again for this one when its size fits ({@link ExactStatistics#sizedForSession(SessionHeader,
     * ExactStatistics)}), else a new one.
     */
    SessionIntervals(TargetConfig target, FileChannel data, long dataOffset, SessionHeader header,
                     LongSupplier visibleRecords, RecordSources sources, double intervalSeconds, AgentJsonStream stream,
                     WallClock clock, ExactStatistics reuse) {
        this.target = target;
        this.header = header;
        this.visibleRecords = visibleRecords;
        this.sources = sources;
        this.tail = new RecordTail(data, dataOffset);
        this.engine = ExactStatistics.sizedForSession(header, reuse);
        this.stream = stream;
        this.clock = clock;
        this.intervalNtp = Math.max(1, NtpTime.fromSeconds(intervalSeconds));
        this.startNtp = header.startTimeNtp();
    }

    /** Reads what became visible and writes every interval that ended more than the grace period ago. */
    void poll() {
        if (failed) {
            return;
        }
        try {
            tail.poll(visibleRecords.getAsLong(), this);
            advanceTo(clock.nowNtp() - GRACE_NTP);
        } catch (IOException e) {
            fail(e);
        }
    }

    /** After the session: reads the rest of the file, writes the intervals up to its end and the last, partial one. */
    void finish() {
        if (failed) {
            return;
        }
        try {
            tail.poll(visibleRecords.getAsLong(), this);
        } catch (IOException e) {
            fail(e);
            return;
        }
        emit(true);
    }

    /** @return the statistics engine, for the next session's intervals once this one's are finished */
    ExactStatistics engine() {
        return engine;
    }

    /** @return interval lines written so far */
    long written() {
        return index;
    }

    @Override
    public void accept(long recordIndex, TwoWayRecord r) {
        advanceTo(r.isLost() ? r.sentSendNtp + header.timeoutNtp() : r.reflRecvNtp);
        engine.accept(r, sources.get(recordIndex));
    }

    private void advanceTo(long nowNtp) {
        long elapsed = nowNtp - startNtp;
        if (elapsed < 0) {
            return;
        }
        long k = Long.divideUnsigned(elapsed, intervalNtp);
        while (index < k) {
            emit(false);
        }
    }

    private void emit(boolean last) {
        long from = startNtp + index * intervalNtp;
        stream.write(event(target, header.sidHex(), index, from, from + intervalNtp, last, engine.interval()));
        engine.resetInterval();
        index++;
    }

    private void fail(IOException e) {
        failed = true;
        stream.problem("--json-stream: target " + target.name() + ": reading the session data file: "
                + (e.getMessage() == null ? e.toString() : e.getMessage()) + " (no more interval lines this session)");
    }

    /** The {@code interval} line of one interval's summary. */
    static ObjectNode event(TargetConfig target, String sid, long index, long startNtp, long endNtp, boolean last,
                            ExactSummary s) {
        ObjectNode o = NODES.objectNode();
        o.put("event", "interval");
        o.put("target", target.name());
        o.put("protocol", target.protocol().configName());
        o.put("sid", sid);
        o.put("index", index);
        o.put("start", time(startNtp));
        o.put("end", time(endNtp));
        o.put("last", last);
        ObjectNode packets = o.putObject("packets");
        packets.put("sent", s.sent());
        packets.put("received", s.received());
        packets.put("lost", s.lost());
        if (s.sent() == 0) {
            packets.putNull("loss_percent");
        } else {
            packets.put("loss_percent", s.lossPercent());
        }
        packets.put("duplicates", s.duplicates());
        packets.put("reordered", s.reordered());
        ObjectNode delays = o.putObject("delays");
        delays.set("round_trip", distribution(s.roundTrip()));
        delays.set("forward", distribution(s.forward()));
        delays.set("back", distribution(s.back()));
        ObjectNode hops = o.putObject("hops");
        hops.set("forward", hops(s, true));
        hops.set("back", hops(s, false));
        ObjectNode stamps = o.putObject("timestamp_sources");
        stamps.set("t1", sources(s, true));
        stamps.set("t4", sources(s, false));
        return o;
    }

    private static ObjectNode distribution(DelayDistribution d) {
        ObjectNode o = NODES.objectNode();
        o.put("count", d.count());
        if (d.count() == 0) {
            o.putNull("min_ns");
            for (String k : PERCENTILE_KEYS) {
                o.putNull(k);
            }
            o.putNull("max_ns");
            return o;
        }
        o.put("min_ns", d.min());
        for (int i = 0; i < PERCENTILES.length; i++) {
            o.put(PERCENTILE_KEYS[i], d.percentile(PERCENTILES[i]));
        }
        o.put("max_ns", d.max());
        return o;
    }

    /** Hop counts (255 - TTL) of the interval's replies: min and max, null without replies. */
    private static ObjectNode hops(ExactSummary s, boolean forward) {
        ObjectNode o = NODES.objectNode();
        int minTtl = s.minTtl(forward);
        if (minTtl < 0) {
            o.putNull("min");
            o.putNull("max");
        } else {
            o.put("min", 255 - s.maxTtl(forward));
            o.put("max", 255 - minTtl);
        }
        return o;
    }

    private static ObjectNode sources(ExactSummary s, boolean send) {
        ObjectNode o = NODES.objectNode();
        for (int src = RecordSources.UNKNOWN; src <= RecordSources.KERNEL_HARDWARE; src++) {
            o.put(RecordSources.name(src), send ? s.sendSourceCount(src) : s.receiveSourceCount(src));
        }
        return o;
    }

    /** RFC 3339 UTC with nanoseconds. */
    private static String time(long ntp) {
        long epochNs = NtpTime.toEpochNanos(ntp);
        return Instant.ofEpochSecond(Math.floorDiv(epochNs, 1_000_000_000L), Math.floorMod(epochNs, 1_000_000_000L))
                .toString();
    }
}
