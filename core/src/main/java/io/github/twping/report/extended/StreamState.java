package io.github.twping.report.extended;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.github.twping.stats.exact.ExactStatistics;
import io.github.twping.stats.exact.ExactSummary;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;
import java.util.Arrays;

/**
 * The record-driven part of {@code --json-stream} and the progress line: feeds an {@link ExactStatistics}
 * with records in data-file order and cuts intervals of {@code --interval} seconds from the session start
 * by each record's event time (a reply's arrival t4; for a lost packet, its send time plus the loss
 * timeout, when it was declared lost). A record whose interval was already emitted counts in the current
 * one. Writes the NDJSON lines to its target (may be null: progress only), one flush per line.
 */
final class StreamState {
    private final SessionHeader header;
    private final ExactStatistics engine;
    private final OutputTarget target;
    private final boolean packets;
    private final long intervalNtp;
    private final long startNtp;
    private final String protocol;
    private final PacketTimestampSources reflectorSources;
    private long index;
    private long lastP50 = -1;
    private long lastP99 = -1;

    StreamState(SessionHeader header, OutputTarget target, boolean packets, double intervalSeconds) {
        this(header, target, packets, intervalSeconds, null, null);
    }

    /**
     * @param protocol         the {@code protocol} of the start and end events, or null (none)
     * @param reflectorSources the packet events' t2/t3 sources, or null (none)
     */
    StreamState(SessionHeader header, OutputTarget target, boolean packets, double intervalSeconds, String protocol,
                PacketTimestampSources reflectorSources) {
        this.protocol = protocol;
        this.reflectorSources = reflectorSources;
        this.header = header;
        this.engine = ExactStatistics.sizedForSession(header);
        this.target = target;
        this.packets = packets;
        this.intervalNtp = Math.max(1, NtpTime.fromSeconds(intervalSeconds));
        this.startNtp = header.startTimeNtp();
    }

    ExactStatistics engine() {
        return engine;
    }

    void start(String tool, String version, double intervalSeconds) {
        emit(ResultJson.startEvent(header, tool, version, intervalSeconds, protocol));
    }

    /** One record (in data-file order). */
    void accept(long recordIndex, TwoWayRecord r, short sources) {
        long eventNtp = r.isLost() ? r.sentSendNtp + header.timeoutNtp() : r.reflRecvNtp;
        advanceTo(eventNtp);
        engine.accept(r, sources);
        if (packets) {
            emit(ResultJson.packetEvent(recordIndex, r, sources, reflectorSources));
        }
    }

    /** Emits every interval that ended before {@code nowNtp} (the wall clock, minus a grace period). */
    void advanceTo(long nowNtp) {
        long elapsed = nowNtp - startNtp;
        if (elapsed < 0) {
            return;
        }
        long k = Long.divideUnsigned(elapsed, intervalNtp);
        while (index < k) {
            emitInterval();
        }
    }

    /** Emits the current interval (the last, partial one at the end). */
    void emitInterval() {
        long from = startNtp + index * intervalNtp;
        ExactSummary s = engine.interval();
        if (s.roundTrip().count() > 0) {
            lastP50 = s.roundTrip().percentile(50);
            lastP99 = s.roundTrip().percentile(99);
        }
        if (target != null) {
            emit(ResultJson.intervalEvent(index, from, from + intervalNtp, s));
        }
        engine.resetInterval();
        index++;
    }

    /** @return the RTT p50 of the current interval, else of the last one with replies (ns), -1 if none yet */
    long currentP50() {
        ExactSummary s = engine.interval();
        return s.roundTrip().count() > 0 ? s.roundTrip().percentile(50) : lastP50;
    }

    /** @return the RTT p99 like {@link #currentP50()} */
    long currentP99() {
        ExactSummary s = engine.interval();
        return s.roundTrip().count() > 0 ? s.roundTrip().percentile(99) : lastP99;
    }

    void end(SessionResults results, StampTlvResults stamp, java.util.function.Consumer<ObjectNode> fields) {
        ObjectNode event = ResultJson.endEvent(results, protocol, stamp);
        fields.accept(event);
        emit(event);
    }

    private void emit(ObjectNode event) {
        if (target == null) {
            return;
        }
        try {
            byte[] line = ResultJson.MAPPER.writeValueAsBytes(event);
            byte[] withNewline = Arrays.copyOf(line, line.length + 1);
            withNewline[line.length] = '\n';
            target.write(withNewline, true);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);         // a tree of plain values always serialises
        }
    }
}
