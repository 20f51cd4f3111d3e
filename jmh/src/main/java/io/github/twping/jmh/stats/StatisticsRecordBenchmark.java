package io.github.twping.jmh.stats;

import io.github.twping.datafile.ScheduleDeltas;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.stats.owamp.SummaryResult;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.stats.owamp.TwoWayStatistics;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Cost per record of the two record paths: recording one record into the data file
 * ({@link SessionDataWriter#append}, batched writes to an anonymous temp file) and processing one
 * record in the statistics pass ({@link TwoWayStatistics}, amortised over a 4096-record file).
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar StatisticsRecord -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StatisticsRecordBenchmark {
    private static final int RECORDS = 4096;

    private SessionDataReader reader;
    private TwoWayStatistics engine;
    private final SummaryResult result = new SummaryResult(0.0001f);
    private final List<String> diagnostics = new ArrayList<>();

    private FileChannel channel;
    private SessionDataWriter writer;
    private final TwoWayRecord record = new TwoWayRecord();

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        reader = SyntheticSession.create(RECORDS);
        engine = new TwoWayStatistics(reader.header(), ScheduleDeltas.of(reader.header()));
        channel = SessionDataWriter.openAnonymousTempFile(null);
        writer = SessionDataWriter.onChannel(channel, SyntheticSession.header(1L << 30),
            SessionDataWriter.DEFAULT_BATCH_RECORDS);
        SyntheticSession.record(record, 7, false, new SplittableRandom(1));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        writer.close();
        channel.close();
        reader.close();
    }

    @TearDown(Level.Iteration)
    public void rewind() throws IOException {
        writer.flush();
        channel.truncate(4096);
    }

    /** Recording: one 50-byte record appended (a write syscall every 256 records). */
    @Benchmark
    public long appendRecord() throws IOException {
        record.sentSeq++;
        writer.append(record);
        return writer.recordsWritten();
    }

    /** Processing: the statistics pass over the file, reported per record. */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long processRecord() {
        diagnostics.clear();
        engine.summarize(reader, 0, RECORDS, 0, 0, null, result, diagnostics);
        return result.sent();
    }
}
