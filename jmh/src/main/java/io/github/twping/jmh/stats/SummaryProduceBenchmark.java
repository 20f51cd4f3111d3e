package io.github.twping.jmh.stats;

import io.github.twping.report.owamp.HostInfo;
import io.github.twping.report.owamp.HumanSummaryWriter;
import io.github.twping.report.owamp.MachineSummaryWriter;
import io.github.twping.report.owamp.OutputOptions;
import io.github.twping.datafile.ScheduleDeltas;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.stats.owamp.SummaryResult;
import io.github.twping.stats.owamp.TwoWayStatistics;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Time to produce a complete summary (statistics pass plus the human or {@code -M} text) from a
 * data file of 100,000 synthetic records (1 % loss).
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar Summary -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SummaryProduceBenchmark {
    private static final int RECORDS = 100_000;

    @Param({"human", "machine"})
    public String format;

    private SessionDataReader reader;
    private TwoWayStatistics engine;
    private final SummaryResult result = new SummaryResult(0.0001f);
    private final List<String> diagnostics = new ArrayList<>();
    private final StringBuilder text = new StringBuilder(4096);
    private final OutputOptions options = OutputOptions.defaults().withZone(ZoneOffset.UTC);
    private final HostInfo hosts = new HostInfo("localhost", "9000", "127.0.0.1", "127.0.0.1", "18000",
        "127.0.0.1");

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        reader = SyntheticSession.create(RECORDS);
        engine = new TwoWayStatistics(reader.header(), ScheduleDeltas.of(reader.header()));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        reader.close();
    }

    @Benchmark
    public int produceSummary() {
        diagnostics.clear();
        engine.summarize(reader, 0, RECORDS, 0, 0, null, result, diagnostics);
        text.setLength(0);
        if (format.equals("machine")) {
            MachineSummaryWriter.write(text, reader.header(), result, hosts, options);
        } else {
            HumanSummaryWriter.write(text, reader.header(), result, hosts, options);
        }
        return text.length();
    }
}
