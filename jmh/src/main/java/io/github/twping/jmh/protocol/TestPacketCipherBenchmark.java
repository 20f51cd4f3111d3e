package io.github.twping.jmh.protocol;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
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

/**
 * Per-packet cost of TWAMP-Test protection by mode: sealing a sender packet as the client's send path does it
 * (fields through the {@link SenderPacket} flyweight, then the cipher's two steps) and opening a reflector packet
 * (client receive path, which includes restoring the sealed bytes: see {@link #copyOnly}).
 * Packets are the twping default sizes (padding 27 open, 64 authenticated/encrypted).
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar TestPacketCipher -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TestPacketCipherBenchmark {
    /**
     * {@link Mode#bits()}, kept as numbers so results compare across versions: 1 Open (= Mixed for test packets),
     * 2 Authenticated, 4 Encrypted.
     */
    @Param({"1", "2", "4"})
    public int mode;

    private TestPacketCipher cipher;
    private SenderPacket sender;
    private MemorySegment senderPacket;
    private MemorySegment sealedReply;
    private MemorySegment reply;
    private int replyLength;
    private long sequenceNumber;
    private long timestampNtp = 0xE8FE6F801F9ACFFAL;

    @Setup
    public void setUp() {
        byte[] sid = new byte[16];
        byte[] kAes = new byte[16];
        byte[] kHmac = new byte[32];
        for (int i = 0; i < 32; i++) {
            kHmac[i] = (byte) (0x20 + i);
            if (i < 16) {
                sid[i] = (byte) (0xC0 + i);
                kAes[i] = (byte) (0x10 + i);
            }
        }
        TestSessionKeys keys = TestSessionKeys.derive(sid, kAes, kHmac);
        Mode negotiated = Mode.fromBits(mode);
        cipher = TestPacketCipher.forMode(negotiated, keys);
        TestPacketCipher reflectorSide = TestPacketCipher.forMode(negotiated, keys);
        Arena arena = Arena.ofAuto();
        senderPacket = arena.allocate(cipher.senderLayout().packetLength(negotiated.authenticatedTestPackets() ? 64 : 27), 8);
        sender = new SenderPacket(cipher.senderLayout()).wrap(senderPacket);
        replyLength = cipher.reflectorLayout().length();
        sealedReply = arena.allocate(replyLength, 8);
        reply = arena.allocate(replyLength, 8);
        new ReflectorPacket(cipher.reflectorLayout()).wrap(sealedReply).clearMbz().sequenceNumber(7)
            .timestampNtp(timestampNtp).errorEstimate(1).receiveTimestampNtp(timestampNtp).senderSequenceNumber(7)
            .senderTimestampNtp(timestampNtp).senderErrorEstimate(1).senderTtl(255);
        reflectorSide.sealReflector(sealedReply);
        MemorySegment.copy(sealedReply, 0, reply, 0, replyLength);
        if (!cipher.openReflector(reply, replyLength)) {
            throw new IllegalStateException("benchmark set-up: reply does not open");
        }
    }

    @Benchmark
    public MemorySegment sealSender() {
        sender.clearMbz().sequenceNumber(sequenceNumber++);
        cipher.sealSenderHead(senderPacket);
        sender.timestampNtp(timestampNtp++).errorEstimate(0x0001);
        cipher.sealSenderTail(senderPacket);
        return senderPacket;
    }

    @Benchmark
    public MemorySegment copyOnly() {
        MemorySegment.copy(sealedReply, 0, reply, 0, replyLength);
        return reply;
    }

    @Benchmark
    public boolean openReflector() {
        MemorySegment.copy(sealedReply, 0, reply, 0, replyLength);
        return cipher.openReflector(reply, replyLength);
    }
}
