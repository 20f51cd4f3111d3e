package io.github.twping.jmh.protocol;

import java.util.concurrent.TimeUnit;

import io.github.twping.crypto.KeyDerivation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import java.nio.charset.StandardCharsets;
import org.openjdk.jmh.annotations.Mode;

/**
 * PBKDF2-HMAC-SHA1 of a pass-phrase (RFC 4656 §3.1): done once per control connection by each side, so its
 * cost is part of the control RTT estimate ({@code rtt_bound}) that sets the start time and the default
 * loss timeout. Count 2048 is twampd's default {@code pbkdf2_count}; 1 is the baseline.
 *
 * <p>Run: {@code jmh/run-benchmarks.sh KeyDerivation}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class KeyDerivationBenchmark {
    @Param({"1", "2048"})
    public int count;

    private final byte[] passphrase = "s3cret-lab-key".getBytes(StandardCharsets.US_ASCII);
    private final byte[] salt = new byte[16];

    @Benchmark
    public byte[] pbkdf2() {
        return KeyDerivation.pbkdf2HmacSha1(passphrase, salt, count);
    }
}
