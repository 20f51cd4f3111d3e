package io.github.twping.jmh.stamp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.stamp.StampHmac;
import io.github.twping.protocol.StampLayouts;
import io.github.twping.stamp.StampSenderCodec;
import io.github.twping.stamp.StampSenderSpec;
import io.github.twping.stamp.StampTelemetry;
import io.github.twping.stamp.StampTlv;
import io.github.twping.stamp.StampTlvRequest;
import io.github.twping.stamp.TimestampFormat;
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
 * Per-packet cost of the STAMP sender codec with the RFC 8972 TLVs (docs/STAMP.md): sealing a request with every
 * TLV ({@code seal}), and reading a reply's TLVs into the telemetry ({@code open}); {@code none} is the base packet
 * without TLVs, {@code all} every TLV (with the HMAC TLV in the authenticated format).
 *
 * <p>Run: {@code jmh/run-benchmarks.sh StampTlvCodec}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StampTlvCodecBenchmark {
    private static final int PACKETS = 1 << 20;
    private static final byte[] KEY = {1, 2, 3, 4, 5, 6, 7, 8};

    @Param({"none", "all"})
    public String tlvs;

    @Param({"false", "true"})
    public boolean authenticated;

    private StampSenderCodec sender;
    private StampSenderCodec receiver;
    private MemorySegment request;
    private MemorySegment reply;
    private MemorySegment replyTemplate;
    private SenderPacket out;
    private int length;
    private long seq;

    @Setup
    public void setUp() {
        StampTlvRequest request = tlvs.equals("all")
                ? new StampTlvRequest(true, 46, true, 1, 1, true, authenticated) : StampTlvRequest.NONE;
        StampSenderSpec spec = new StampSenderSpec(authenticated, authenticated ? KEY : null, TimestampFormat.NTP, 1,
                0, request);
        sender = new StampSenderCodec(spec);
        receiver = new StampSenderCodec(spec, new StampTelemetry(PACKETS, request));
        length = sender.senderLayout().length() + spec.tlvBytes();
        Arena arena = Arena.ofAuto();
        this.request = arena.allocate(length);
        reply = arena.allocate(length);
        replyTemplate = arena.allocate(length);
        out = new SenderPacket(sender.senderLayout()).wrap(this.request);
        // one reply as our reflector builds it, signed once; opened again and again
        out.clearMbz().sequenceNumber(0);
        sender.sealSenderHead(this.request);
        out.timestampNtp(1L << 62).errorEstimate(1);
        sender.sealSenderTail(this.request);
        MemorySegment.copy(this.request, 0, replyTemplate, 0, length);
        int base = sender.senderLayout().length();
        ValueLayout.OfShort be = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        for (int at = base; at < length; at += 4 + (replyTemplate.get(be, at + 2) & 0xFFFF)) {
            replyTemplate.set(ValueLayout.JAVA_BYTE, at, (byte) 0);
        }
        new ReflectorPacket(receiver.reflectorLayout()).wrap(replyTemplate).clearMbz().sequenceNumber(0)
                .timestampNtp(1L << 62).errorEstimate(1).receiveTimestampNtp(1L << 62).senderSequenceNumber(0)
                .senderTimestampNtp(1L << 62).senderErrorEstimate(1).senderTtl(64);
        if (authenticated) {
            StampHmac hmac = new StampHmac(KEY, 4096);
            int hmacAt = sender.tlvOffset(StampTlv.HMAC);
            if (hmacAt >= 0) {
                hmac.signTlvs(replyTemplate, base, hmacAt, hmacAt + 4);
            }
            hmac.sign(replyTemplate, 0, StampLayouts.HMAC_COVERED, receiver.reflectorLayout().hmacOffset());
        }
    }

    @Benchmark
    public MemorySegment seal() {
        out.clearMbz().sequenceNumber(seq++ & (PACKETS - 1));
        sender.sealSenderHead(request);
        out.timestampNtp(1L << 62).errorEstimate(1);
        sender.sealSenderTail(request);
        return request;
    }

    @Benchmark
    public boolean open() {
        MemorySegment.copy(replyTemplate, 0, reply, 0, length);
        return receiver.openReflector(reply, length);
    }
}
