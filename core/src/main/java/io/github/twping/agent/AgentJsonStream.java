package io.github.twping.agent;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.twping.report.owamp.HostInfo;
import io.github.twping.report.extended.ResultJson;
import io.github.twping.report.extended.SessionResults;
import io.github.twping.report.extended.StampTlvAnalysis;
import io.github.twping.report.extended.StampTlvResults;
import io.github.twping.stamp.ClockSyncSource;
import io.github.twping.stamp.StampTelemetry;
import io.github.twping.stamp.StampTlvRequest;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.SessionDataReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The agent's {@code --json-stream FILE|-}: NDJSON (docs/agent-json-stream.schema.json). Per session and target,
 * the {@code interval} events of {@link SessionIntervals} while it runs, then one {@code end} line, written and
 * flushed when the session's statistics are done: the {@code end} event of twping's {@code --json-stream} (the
 * {@code --json} document, docs/twping-result.schema.json) with two more fields first: {@code target} (the
 * configured name) and {@code protocol} ({@code twamp}, {@code stamp}, {@code light}); a STAMP target with
 * {@code tlv} also has twping's {@code stamp} object (the values of the TLV report, {@link StampTlvAnalysis}).
 *
 * <p>Runs off the packet path (the targets' loop threads); the lines of concurrent targets never interleave. A write error
 * is reported once and ends the stream (the measurements and metrics go on).
 */
final class AgentJsonStream implements AutoCloseable {
    /** Bucket width of the owamp-compatible part of the document (twping's default {@code -b}). */
    private static final float BUCKET_WIDTH = 0.0001f;
    /**
     * Its buffers come from one pool shared by all threads: Jackson's default pool keeps them per thread, and every
     * target's virtual thread writes lines, so 100 targets held about 470 char buffers (1.7 MB of the live heap).
     */
    static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool()).build());

    private final OutputStream out;
    private final String name;
    private final boolean closeOut;
    private final Consumer<String> log;
    private final String version;
    private boolean failed;

    /**
     * @param out      where the lines go
     * @param name     the stream's name in messages ({@code -} for stdout)
     * @param closeOut whether {@link #close} closes {@code out}
     * @param log      one line on a write error
     */
    AgentJsonStream(OutputStream out, String name, boolean closeOut, Consumer<String> log) {
        this.out = out;
        this.name = name;
        this.closeOut = closeOut;
        this.log = log;
        String v = AgentJsonStream.class.getPackage().getImplementationVersion();
        this.version = v != null ? v : "dev";
    }

    /**
     * Builds the line of one session from its data file.
     *
     * @param telemetry what the replies' RFC 8972 TLVs reported (a STAMP target with {@code tlv}), or null: then
     *                  the line has no {@code stamp} object, as twping's {@code end} event without {@code --tlv}
     */
    static ObjectNode event(TargetConfig target, FileChannel data, RecordSources sources, StampTelemetry telemetry,
                            String version) throws IOException {
        SessionResults results;
        try (SessionDataReader reader = SessionDataReader.open(data)) {
            HostInfo numeric = HostInfo.numericFrom(reader.header());
            HostInfo hosts = new HostInfo(numeric.fromHost(), numeric.fromServ(), numeric.fromAddr(), target.host(),
                    numeric.toServ(), numeric.toAddr());
            results = SessionResults.compute(reader, sources, hosts, SessionResults.MEASUREMENT, null,
                    "twping", version, BUCKET_WIDTH);
        }
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("event", "end");
        o.put("target", target.name());
        o.put("protocol", target.protocol().configName());
        o.setAll(ResultJson.document(results, null, stampResults(target, data, sources, telemetry)));
        return o;
    }

    /**
     * The {@code stamp} object's values, as twping's {@code --stamp --tlv} computes them (the same builder, the
     * same PTP evidence lookup when Timestamp Information was asked for); the agent's requests carry the target's
     * DSCP and ECN 0. Null without telemetry or when the data file cannot be read (no {@code stamp} object).
     */
    private static StampTlvResults stampResults(TargetConfig target, FileChannel data, RecordSources sources,
                                                StampTelemetry telemetry) throws IOException {
        if (telemetry == null) {
            return null;
        }
        StampTlvRequest tlvs = target.stamp().tlvs();
        boolean ptpEvidence = tlvs.timestampInformation() && ClockSyncSource.detect();
        return StampTlvAnalysis.results(data, sources, telemetry, tlvs, target.dscp(), 0, ptpEvidence, null);
    }

    /** Writes the line of one session; never throws. */
    void session(TargetConfig target, FileChannel data, RecordSources sources) {
        session(target, data, sources, null);
    }

    /** Writes the line of one session, with a {@code stamp} object when {@code telemetry} is not null; never throws. */
    void session(TargetConfig target, FileChannel data, RecordSources sources, StampTelemetry telemetry) {
        ObjectNode event;
        try {
            event = event(target, data, sources, telemetry, version);
        } catch (IOException | RuntimeException e) {
            log.accept("--json-stream: target " + target.name() + ": " + e.getMessage());
            return;
        }
        write(event);
    }

    /** Writes one event as a line and flushes; never throws (a write error ends the stream, reported once). */
    void write(ObjectNode event) {
        byte[] line;
        try {
            line = (MAPPER.writeValueAsString(event) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            log.accept("--json-stream: " + e.getMessage());
            return;
        }
        synchronized (this) {
            if (failed) {
                return;
            }
            try {
                out.write(line);
                out.flush();
            } catch (IOException e) {
                failed = true;
                log.accept("--json-stream " + name + ": " + e.getMessage() + " (stream ended; measuring goes on)");
            }
        }
    }

    /** Reports a problem of one target's lines in the log. */
    void problem(String line) {
        log.accept(line);
    }

    @Override
    public synchronized void close() {
        try {
            out.flush();
            if (closeOut) {
                out.close();
            }
        } catch (IOException e) {
            if (!failed) {
                log.accept("--json-stream " + name + ": " + e.getMessage());
            }
        }
    }
}
