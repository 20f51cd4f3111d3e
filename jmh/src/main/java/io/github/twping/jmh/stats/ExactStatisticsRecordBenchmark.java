package io.github.twping.jmh.stats;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.github.twping.stats.exact.DelayDistribution;
import io.github.twping.stats.exact.ExactStatistics;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.TwoWayRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost per record of the exact statistics engine ({@link ExactStatistics#accept}) in a long session: the
 * distributions already hold more than {@link DelayDistribution#EXACT_LIMIT} values (HdrHistogram mode),
 * sequence numbers keep increasing (each record is a first reply, with IPDV pairs and schedule lookups).
 * {@code -prof gc} shows what the record path allocates (the duplicate bitmap grows by doubling: amortised
 * to near zero).
 *
 * <p>Run: {@code jmh/run-benchmarks.sh ExactStatisticsRecord}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ExactStatisticsRecordBenchmark {
    private static final int TEMPLATES = 4096;
    private static final short SOURCES = RecordSources.pack(RecordSources.KERNEL_SOFTWARE,
            RecordSources.KERNEL_SOFTWARE, 0);

    private final TwoWayRecord[] templates = new TwoWayRecord[TEMPLATES];
    private final TwoWayRecord record = new TwoWayRecord();
    private ExactStatistics engine;
    private long seq;

    @Setup(Level.Trial)
    public void setUp() {
        SplittableRandom rnd = new SplittableRandom(3);
        for (int i = 0; i < TEMPLATES; i++) {
            templates[i] = SyntheticSession.record(new TwoWayRecord(), i, false, rnd);
        }
        engine = new ExactStatistics(SyntheticSession.header(0xFFFF_FFFFL));
        for (int i = 0; i < DelayDistribution.EXACT_LIMIT + 1000; i++) {
            accept();
        }
    }

    /** One first reply through the engine (total and interval summaries, IPDV, schedule, counts). */
    @Benchmark
    public long accept() {
        long s = seq++;
        TwoWayRecord t = templates[(int) s & (TEMPLATES - 1)];
        long shift = (s & ~(long) (TEMPLATES - 1)) * SyntheticSession.ONE_MS_NTP;
        TwoWayRecord r = record.copyFrom(t);
        r.sentSeq = s & 0xFFFF_FFFFL;
        r.reflSeq = r.sentSeq;
        r.sentSendNtp += shift;
        r.sentRecvNtp += shift;
        r.reflSendNtp += shift;
        r.reflRecvNtp += shift;
        engine.accept(r, SOURCES);
        if ((s & 0xFFFF) == 0) {
            engine.resetInterval();
        }
        return engine.total().received();
    }
}
