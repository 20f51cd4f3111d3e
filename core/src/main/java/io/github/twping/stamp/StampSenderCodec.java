package io.github.twping.stamp;

import java.lang.foreign.MemorySegment;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.protocol.TestPacketLayout;

/**
 * The Session-Sender's side of a STAMP session as a {@link TestPacketCipher}, so that the client's sender, reply
 * receiver, pacing and statistics ({@code session.ClientTestSession}) run STAMP unchanged. It works in place at the
 * wire boundary: inside the program every timestamp is NTP and every Error Estimate has Z = 0; on the wire the
 * timestamps are in the configured format with the Z flag (RFC 8762 §4.2.1), the SSID and the Extra Padding TLV
 * header are written (RFC 8972 §3, §4.1), and the authenticated format carries HMAC-SHA-256/128 over bytes 0..95
 * (RFC 8762 §4.2.2, §4.3.2). The other TLVs of {@link StampTlvRequest} follow the Extra Padding TLV, every header
 * with U = 1 as RFC 8972 §4 asks of a Session-Sender, the HMAC TLV last (§4.8). On a reply, the TLVs are read into a
 * {@link StampTelemetry} (the receiving instance only) and an HMAC TLV is verified. The reflector-side operations
 * are those of {@link StampReflector} and are not offered here. One instance per thread; nothing is allocated per
 * packet.
 */
public final class StampSenderCodec implements TestPacketCipher {
    private final StampSenderSpec spec;
    private final TestPacketLayout senderLayout;
    private final TestPacketLayout reflectorLayout;
    private final int ssidOffset;
    private final StampHmac hmac;
    private final StampTelemetry telemetry;
    private final int paddingAt;
    private final int timestampInformationAt;
    private final int classOfServiceAt;
    private final int directMeasurementAt;
    private final int accessReportAt;
    private final int followUpAt;
    private final int locationAt;
    private final int hmacTlvAt;

    /** A sending codec (no telemetry). */
    public StampSenderCodec(StampSenderSpec spec) {
        this(spec, null);
    }

    /**
     * @param telemetry where the receiving codec puts what the replies' TLVs say (null: not kept)
     */
    public StampSenderCodec(StampSenderSpec spec, StampTelemetry telemetry) {
        this.spec = spec;
        this.telemetry = telemetry;
        this.senderLayout = StampLayouts.sender(spec.authenticated());
        this.reflectorLayout = StampLayouts.reflector(spec.authenticated());
        this.ssidOffset = StampLayouts.ssidOffset(spec.authenticated());
        this.hmac = spec.authenticated()
                ? new StampHmac(spec.key(), Math.max(StampLayouts.HMAC_COVERED, 4 + spec.tlvBytes())) : null;
        StampTlvRequest t = spec.tlvs();
        int at = senderLayout.length();
        paddingAt = spec.extraPadding() > 0 ? at : -1;
        at += spec.extraPadding() > 0 ? StampTlv.HEADER_LENGTH + spec.extraPadding() : 0;
        timestampInformationAt = t.timestampInformation() ? at : -1;
        at += t.timestampInformation() ? StampTlv.HEADER_LENGTH + StampTlv.TIMESTAMP_INFORMATION_LENGTH : 0;
        classOfServiceAt = t.classOfServiceDscp() >= 0 ? at : -1;
        at += t.classOfServiceDscp() >= 0 ? StampTlv.HEADER_LENGTH + StampTlv.CLASS_OF_SERVICE_LENGTH : 0;
        directMeasurementAt = t.directMeasurement() ? at : -1;
        at += t.directMeasurement() ? StampTlv.HEADER_LENGTH + StampTlv.DIRECT_MEASUREMENT_LENGTH : 0;
        accessReportAt = t.accessId() >= 0 ? at : -1;
        at += t.accessId() >= 0 ? StampTlv.HEADER_LENGTH + StampTlv.ACCESS_REPORT_LENGTH : 0;
        followUpAt = t.followUpTelemetry() ? at : -1;
        at += t.followUpTelemetry() ? StampTlv.HEADER_LENGTH + StampTlv.FOLLOW_UP_TELEMETRY_LENGTH : 0;
        locationAt = t.location() ? at : -1;
        at += t.location() ? StampTlv.HEADER_LENGTH + StampTlvRequest.LOCATION_VALUE_LENGTH : 0;
        hmacTlvAt = t.hmac() ? at : -1;
    }

    /** @return the offset of the TLV of {@code type} in our sender packets, -1 when not sent (for tests) */
    public int tlvOffset(int type) {
        return switch (type) {
            case StampTlv.EXTRA_PADDING -> paddingAt;
            case StampTlv.TIMESTAMP_INFORMATION -> timestampInformationAt;
            case StampTlv.CLASS_OF_SERVICE -> classOfServiceAt;
            case StampTlv.DIRECT_MEASUREMENT -> directMeasurementAt;
            case StampTlv.ACCESS_REPORT -> accessReportAt;
            case StampTlv.FOLLOW_UP_TELEMETRY -> followUpAt;
            case StampTlv.LOCATION -> locationAt;
            case StampTlv.HMAC -> hmacTlvAt;
            default -> -1;
        };
    }

    @Override
    public TestPacketLayout senderLayout() {
        return senderLayout;
    }

    @Override
    public TestPacketLayout reflectorLayout() {
        return reflectorLayout;
    }

    /**
     * Writes the SSID and the TLVs: the Extra Padding header (its value, the padding, is already filled) and the
     * others' headers and sender fields, all with U = 1 (RFC 8972 §4).
     */
    @Override
    public void sealSenderHead(MemorySegment packet) {
        StampWire.uint16(packet, ssidOffset, spec.ssid());
        if (paddingAt >= 0) {
            header(packet, paddingAt, StampTlv.EXTRA_PADDING, spec.extraPadding());
        }
        StampTlvRequest t = spec.tlvs();
        if (timestampInformationAt >= 0) {
            header(packet, timestampInformationAt, StampTlv.TIMESTAMP_INFORMATION,
                    StampTlv.TIMESTAMP_INFORMATION_LENGTH);
            StampWire.int32(packet, timestampInformationAt + StampTlv.HEADER_LENGTH, 0);
        }
        if (classOfServiceAt >= 0) {
            header(packet, classOfServiceAt, StampTlv.CLASS_OF_SERVICE, StampTlv.CLASS_OF_SERVICE_LENGTH);
            StampWire.int32(packet, classOfServiceAt + StampTlv.HEADER_LENGTH, t.classOfServiceDscp() << 26);
        }
        if (directMeasurementAt >= 0) {
            int v = directMeasurementAt + StampTlv.HEADER_LENGTH;
            header(packet, directMeasurementAt, StampTlv.DIRECT_MEASUREMENT, StampTlv.DIRECT_MEASUREMENT_LENGTH);
            StampWire.int32(packet, v, (int) (StampWire.uint32(packet, 0) + 1));   // S_TxC, this packet included
            StampWire.int64(packet, v + 4, 0);
        }
        if (accessReportAt >= 0) {
            header(packet, accessReportAt, StampTlv.ACCESS_REPORT, StampTlv.ACCESS_REPORT_LENGTH);
            StampWire.int32(packet, accessReportAt + StampTlv.HEADER_LENGTH,
                    t.accessId() << 28 | t.accessReturnCode() << 16);
        }
        if (followUpAt >= 0) {
            int v = followUpAt + StampTlv.HEADER_LENGTH;
            header(packet, followUpAt, StampTlv.FOLLOW_UP_TELEMETRY, StampTlv.FOLLOW_UP_TELEMETRY_LENGTH);
            StampWire.int64(packet, v, 0);
            StampWire.int64(packet, v + 8, 0);
        }
        if (locationAt >= 0) {
            header(packet, locationAt, StampTlv.LOCATION, StampTlvRequest.LOCATION_VALUE_LENGTH);
            int v = locationAt + StampTlv.HEADER_LENGTH;
            StampWire.int32(packet, v, 0);                               // ports: the reflector fills them
            v += StampTlv.LOCATION_LENGTH;
            v = subTlv(packet, v, StampTlv.SUB_DESTINATION_IPV4, 4);
            v = subTlv(packet, v, StampTlv.SUB_SOURCE_IPV4, 4);
            v = subTlv(packet, v, StampTlv.SUB_DESTINATION_IPV6, 16);
            subTlv(packet, v, StampTlv.SUB_SOURCE_IPV6, 16);
        }
        if (hmacTlvAt >= 0) {
            header(packet, hmacTlvAt, StampTlv.HMAC, StampTlv.HMAC_LENGTH);
        }
    }

    /** A Location sub-TLV with a zero value of {@code length} octets; @return the offset after it. */
    private static int subTlv(MemorySegment packet, int at, int type, int length) {
        StampWire.uint8(packet, at, 0);
        StampWire.uint8(packet, at + 1, type);
        StampWire.uint16(packet, at + 2, length);
        for (int i = 0; i < length; i += 4) {
            StampWire.int32(packet, at + StampTlv.HEADER_LENGTH + i, 0);
        }
        return at + StampTlv.HEADER_LENGTH + length;
    }

    private static void header(MemorySegment packet, int at, int type, int length) {
        StampWire.uint8(packet, at, StampTlv.FLAG_U);
        StampWire.uint8(packet, at + 1, type);
        StampWire.uint16(packet, at + 2, length);
    }

    /** Puts the timestamp into the wire format, marks Z and signs (authenticated). */
    @Override
    public void sealSenderTail(MemorySegment packet) {
        int ts = senderLayout.timestampOffset();
        int ee = senderLayout.errorEstimateOffset();
        TimestampFormat format = spec.format();
        StampWire.int64(packet, ts, format.fromNtp(StampWire.int64(packet, ts)));
        StampWire.uint16(packet, ee, format.markErrorEstimate(StampWire.uint16(packet, ee)));
        if (hmac != null) {
            hmac.sign(packet, 0, StampLayouts.HMAC_COVERED, senderLayout.hmacOffset());
        }
        if (hmacTlvAt >= 0) {
            hmac.signTlvs(packet, senderLayout.length(), hmacTlvAt, hmacTlvAt + StampTlv.HEADER_LENGTH);
        }
    }

    @Override
    public boolean openSender(MemorySegment packet, int length) {
        throw new UnsupportedOperationException("the STAMP reflector is StampReflector");
    }

    @Override
    public void sealReflector(MemorySegment packet) {
        throw new UnsupportedOperationException("the STAMP reflector is StampReflector");
    }

    /**
     * Verifies the reply (authenticated) and converts its three timestamps to NTP by the Z flags of their Error
     * Estimates (the reflector's for its two, ours for the copied one), clearing Z.
     */
    @Override
    public boolean openReflector(MemorySegment packet, int length) {
        if (length < reflectorLayout.length() || packet.byteSize() < reflectorLayout.length()) {
            return false;
        }
        if (hmac != null && !hmac.verify(packet, 0, StampLayouts.HMAC_COVERED, reflectorLayout.hmacOffset())) {
            return false;
        }
        if (length > reflectorLayout.length() && !readTlvs(packet, Math.min(length, (int) packet.byteSize()))) {
            return false;
        }
        normalise(packet, reflectorLayout.errorEstimateOffset(), reflectorLayout.timestampOffset(),
                reflectorLayout.receiveTimestampOffset());
        normalise(packet, reflectorLayout.senderErrorEstimateOffset(), reflectorLayout.senderTimestampOffset(), -1);
        return true;
    }

    /**
     * Reads the reply's TLVs (before the timestamps are normalised: the Follow-Up stamp is in the reflector's
     * format); @return false when an HMAC TLV we sent comes back recognised (U = 0) but does not verify, or is
     * missing.
     */
    private boolean readTlvs(MemorySegment packet, int end) {
        int from = reflectorLayout.length();
        long seq = StampWire.uint32(packet, reflectorLayout.senderSequenceOffset());
        boolean keep = telemetry != null && telemetry.kept(seq);
        int s = (int) seq;
        TimestampFormat reflectorFormat = TimestampFormat.ofErrorEstimate(
                StampWire.uint16(packet, reflectorLayout.errorEstimateOffset()));
        boolean hmacSeen = false;
        int at = from;
        while (end - at >= StampTlv.HEADER_LENGTH) {
            int flags = StampWire.uint8(packet, at);
            int type = StampWire.uint8(packet, at + 1);
            int length = StampWire.uint16(packet, at + 2);
            int value = at + StampTlv.HEADER_LENGTH;
            if (value + length > end) {
                break;
            }
            if (telemetry != null) {
                if ((flags & StampTlv.FLAG_U) != 0) {
                    telemetry.unrecognised++;
                }
                if ((flags & StampTlv.FLAG_M) != 0) {
                    telemetry.malformed++;
                }
                if ((flags & StampTlv.FLAG_I) != 0) {
                    telemetry.integrityFailed++;
                }
                if (keep) {
                    telemetry.mark(s, ((flags & StampTlv.FLAG_U) != 0 ? StampTelemetry.SAW_U : 0)
                            | ((flags & StampTlv.FLAG_M) != 0 ? StampTelemetry.SAW_M : 0)
                            | ((flags & StampTlv.FLAG_I) != 0 ? StampTelemetry.SAW_I : 0));
                }
            }
            boolean answered = (flags & (StampTlv.FLAG_U | StampTlv.FLAG_M)) == 0
                    && StampTlv.recognised(type) && StampTlv.validLength(type, length);
            if (type == StampTlv.HMAC && hmacTlvAt >= 0) {
                // U: the reflector does not support the HMAC TLV and copied ours (the base HMAC still holds)
                if ((flags & StampTlv.FLAG_U) == 0
                        && (length != StampTlv.HMAC_LENGTH || !hmac.verifyTlvs(packet, from, at, value))) {
                    return false;
                }
                hmacSeen = true;
            } else if (answered && telemetry != null && requested(type)) {
                // a TLV we did not send (a faulty or hostile reflector) has no place in the telemetry
                read(packet, type, value, length, keep, s, reflectorFormat);
            }
            at = value + length;
        }
        if (telemetry != null) {
            telemetry.replies++;
            if (keep) {
                telemetry.reply(s, StampWire.uint32(packet, reflectorLayout.sequenceOffset()),
                        reflectorFormat.toNtp(StampWire.int64(packet, reflectorLayout.timestampOffset())));
            }
        }
        return hmacTlvAt < 0 || hmacSeen;
    }

    /** @return whether this session's requests carry a TLV of {@code type} (Extra Padding: always readable) */
    private boolean requested(int type) {
        return switch (type) {
            case StampTlv.TIMESTAMP_INFORMATION -> timestampInformationAt >= 0;
            case StampTlv.CLASS_OF_SERVICE -> classOfServiceAt >= 0;
            case StampTlv.DIRECT_MEASUREMENT -> directMeasurementAt >= 0;
            case StampTlv.ACCESS_REPORT -> accessReportAt >= 0;
            case StampTlv.FOLLOW_UP_TELEMETRY -> followUpAt >= 0;
            case StampTlv.LOCATION -> locationAt >= 0;
            default -> true;
        };
    }

    private void read(MemorySegment packet, int type, int value, int length, boolean keep, int seq,
                      TimestampFormat format) {
        switch (type) {
            case StampTlv.TIMESTAMP_INFORMATION -> {
                int subTlvs = 0;
                int end = value + length;
                for (int at = value + StampTlv.TIMESTAMP_INFORMATION_LENGTH; end - at >= StampTlv.HEADER_LENGTH; ) {
                    int n = StampWire.uint16(packet, at + 2);
                    if (at + StampTlv.HEADER_LENGTH + n > end) {
                        break;
                    }
                    subTlvs++;
                    at += StampTlv.HEADER_LENGTH + n;
                }
                telemetry.timestampInformationSeen(StampWire.uint8(packet, value), StampWire.uint8(packet, value + 1),
                        StampWire.uint8(packet, value + 2), StampWire.uint8(packet, value + 3), subTlvs);
                if (keep) {
                    telemetry.timestampInformation(seq, StampWire.uint8(packet, value),
                            StampWire.uint8(packet, value + 1), StampWire.uint8(packet, value + 2),
                            StampWire.uint8(packet, value + 3));
                }
            }
            case StampTlv.CLASS_OF_SERVICE -> {
                if (keep) {
                    telemetry.classOfService(seq, StampWire.uint16(packet, value));
                }
            }
            case StampTlv.DIRECT_MEASUREMENT -> {
                if (keep) {
                    telemetry.directMeasurement(seq, (int) StampWire.uint32(packet, value + 4),
                            (int) StampWire.uint32(packet, value + 8));
                }
            }
            case StampTlv.ACCESS_REPORT -> telemetry.lastAccessReport = StampWire.uint16(packet, value);
            case StampTlv.LOCATION -> telemetry.location(packet, value, StampWire.uint16(packet, value - 2));
            case StampTlv.FOLLOW_UP_TELEMETRY -> {
                long wire = StampWire.int64(packet, value + 4);
                telemetry.followUp(StampWire.uint32(packet, value), wire == 0 ? 0 : format.toNtp(wire),
                        StampWire.uint8(packet, value + 12));
            }
            default -> {
                // Extra Padding: nothing to read
            }
        }
    }

    private static void normalise(MemorySegment packet, int errorOffset, int timestampOffset, int secondOffset) {
        int field = StampWire.uint16(packet, errorOffset);
        TimestampFormat format = TimestampFormat.ofErrorEstimate(field);
        if (format == TimestampFormat.NTP) {
            return;
        }
        StampWire.int64(packet, timestampOffset, format.toNtp(StampWire.int64(packet, timestampOffset)));
        if (secondOffset >= 0) {
            StampWire.int64(packet, secondOffset, format.toNtp(StampWire.int64(packet, secondOffset)));
        }
        StampWire.uint16(packet, errorOffset, field & ~TimestampFormat.Z_BIT);
    }
}
