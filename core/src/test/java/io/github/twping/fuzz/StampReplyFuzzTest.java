package io.github.twping.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.twping.stamp.StampSenderCodec;
import io.github.twping.stamp.StampSenderSpec;
import io.github.twping.stamp.StampTelemetry;
import io.github.twping.stamp.StampTlv;
import io.github.twping.stamp.StampTlvRequest;
import io.github.twping.stamp.TimestampFormat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;

/**
 * Fuzz (Jazzer, coverage-guided): the STAMP and TWAMP-Light client's parsing of reflector replies and their
 * RFC 8972 TLVs, through the public entry point {@link StampSenderCodec#openReflector} (which reads the TLVs into
 * a {@link StampTelemetry}). The first input byte selects the sender's configuration (unauthenticated with every
 * TLV, unauthenticated without TLVs, authenticated with every TLV and the HMAC TLV, PTP timestamps), the rest is
 * one reply datagram of any length. A reply is accepted or refused (false); nothing may escape.
 */
@Tag("fuzz-stamp-replies")
class StampReplyFuzzTest {
    private static final byte[] KEY = "s3cret-lab-key".getBytes(StandardCharsets.US_ASCII);
    private static final String ALL = "ts,cos=34,dm,ar=1:1,fut,loc";
    private static final int PACKETS = 16;
    private static final StampSenderSpec[] SPECS = {
        new StampSenderSpec(false, null, TimestampFormat.NTP, 7, 8, StampTlvRequest.parse(ALL, false)),
        new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0),
        new StampSenderSpec(true, KEY, TimestampFormat.NTP, 7, 0, StampTlvRequest.parse(ALL + ",hmac", true)),
        new StampSenderSpec(false, null, TimestampFormat.PTP, 0, 0, StampTlvRequest.parse("ts,fut", false)),
    };

    /** Replies as a reflector that answers every TLV sends them: the base packet, then each TLV in order. */
    static Stream<Arguments> replies() {
        return Stream.of(0, 1, 2, 3).map(i -> FuzzSeeds.seed("reply " + i, i, reply(SPECS[i])));
    }

    private static byte[] reply(StampSenderSpec spec) {
        StampSenderCodec codec = new StampSenderCodec(spec);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[codec.reflectorLayout().length()]);
        StampTlvRequest t = spec.tlvs();
        if (spec.extraPadding() > 0) {
            tlv(b, StampTlv.EXTRA_PADDING, spec.extraPadding());
        }
        if (t.timestampInformation()) {
            tlv(b, StampTlv.TIMESTAMP_INFORMATION, StampTlv.TIMESTAMP_INFORMATION_LENGTH);
        }
        if (t.classOfServiceDscp() >= 0) {
            tlv(b, StampTlv.CLASS_OF_SERVICE, StampTlv.CLASS_OF_SERVICE_LENGTH);
        }
        if (t.directMeasurement()) {
            tlv(b, StampTlv.DIRECT_MEASUREMENT, StampTlv.DIRECT_MEASUREMENT_LENGTH);
        }
        if (t.accessId() >= 0) {
            tlv(b, StampTlv.ACCESS_REPORT, StampTlv.ACCESS_REPORT_LENGTH);
        }
        if (t.followUpTelemetry()) {
            tlv(b, StampTlv.FOLLOW_UP_TELEMETRY, StampTlv.FOLLOW_UP_TELEMETRY_LENGTH);
        }
        if (t.location()) {
            tlv(b, StampTlv.LOCATION, StampTlvRequest.LOCATION_VALUE_LENGTH);
        }
        if (t.hmac()) {
            tlv(b, StampTlv.HMAC, StampTlv.HMAC_LENGTH);
        }
        return b.toByteArray();
    }

    private static void tlv(ByteArrayOutputStream b, int type, int length) {
        b.write(0);
        b.write(type);
        b.write(length >>> 8);
        b.write(length & 0xFF);
        b.writeBytes(new byte[length]);
    }

    @MethodSource("replies")
    @FuzzTest
    void acceptOrRefuse(byte[] input) {
        StampSenderSpec spec = SPECS[FuzzSeeds.selector(input, SPECS.length)];
        byte[] datagram = FuzzSeeds.payload(input);
        StampTelemetry telemetry = new StampTelemetry(PACKETS, spec.tlvs());
        StampSenderCodec codec = new StampSenderCodec(spec, telemetry);
        try (Arena arena = Arena.ofConfined()) {
            // the receive buffer is at least a base reply long, as the session's is; the datagram may be shorter
            MemorySegment packet = arena.allocate(Math.max(datagram.length, codec.reflectorLayout().length()), 8);
            MemorySegment.copy(datagram, 0, packet, ValueLayout.JAVA_BYTE, 0, datagram.length);
            codec.openReflector(packet, datagram.length);
        }
    }
}
