package io.github.twping.jmh.protocol;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import io.github.twping.crypto.ControlCipher;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.annotations.Mode;

/**
 * Cost of protecting one TWAMP-Control message on the chained control channel (RFC 4656 §3.4): HMAC over the
 * body, then AES-CBC over body and HMAC field, continuing the direction's CBC chain. {@code Open} is the
 * pass-through baseline. Sizes: Start-Sessions (32 bytes) and Request-TW-Session (112 bytes).
 *
 * <p>Run: {@code jmh/run-benchmarks.sh ControlMessageSeal}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ControlMessageSealBenchmark {
    /** Message length including the 16-byte HMAC field. */
    @Param({"32", "112"})
    public int length;

    private ControlCipher chained;
    private ControlCipher open;
    private MemorySegment message;

    @Setup
    public void setUp() {
        byte[] aes = new byte[16];
        byte[] hmac = new byte[32];
        byte[] iv = new byte[16];
        for (int i = 0; i < 32; i++) {
            hmac[i] = (byte) i;
            if (i < 16) {
                aes[i] = (byte) (0x40 + i);
                iv[i] = (byte) (0x80 + i);
            }
        }
        chained = ControlCipher.protectedMode(aes, hmac, iv, iv);
        open = ControlCipher.open();
        message = MemorySegment.ofArray(new byte[length]);
    }

    @Benchmark
    public MemorySegment openBaseline() {
        open.encrypt(message, 0, length - ControlCipher.HMAC_LENGTH);
        open.sealHmac(message, length - ControlCipher.HMAC_LENGTH);
        return message;
    }

    @Benchmark
    public MemorySegment sealChained() {
        chained.encrypt(message, 0, length - ControlCipher.HMAC_LENGTH);
        chained.sealHmac(message, length - ControlCipher.HMAC_LENGTH);
        return message;
    }
}
