package io.github.twping.stamp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.List;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.StampLayouts;
import io.github.twping.protocol.StampTlvFlyweight;
import io.github.twping.protocol.StampTlvLayout;
import io.github.twping.protocol.TestPacketLayout;

/**
 * The Session-Sender's side of a STAMP session as a {@link TestPacketCipher}, so that the client's sender, reply
 * receiver, pacing and statistics ({@code session.ClientTestSession}) run STAMP unchanged. It works in place at the
 * wire boundary: inside the program every timestamp is NTP and every Error Estimate has Z = 0; on the wire the
 * timestamps are in the configured format with the Z flag (RFC 8762 §4.2.1), the SSID and the Extra Padding TLV
 * header are written (RFC 8972 §3, §4.1), and the authenticated format carries HMAC-SHA-256/128 over bytes 0..95
 * (RFC 8762 §4.2.2, §4.3.2). The other TLVs of {@link StampTlvRequest} follow the Extra Padding TLV, every header
 * with U = 1 as RFC 8972 §4 asks of a Session-Sender, the HMAC TLV last (§4.8). On a reply, the TLVs are read into a
 * {@link StampTelemetry} (the receiving instance only), an HMAC TLV is verified and a Micro-session ID checked (RFC
 * 9534 §3.2). Every field is read and written through the {@code protocol} flyweights ({@link SenderPacket},
 * {@link ReflectorPacket}, {@link StampTlvFlyweight}). The reflector-side operations
 * are those of {@link StampReflector} and are not offered here. One instance per thread; nothing is allocated per
 * packet.
 */
public final class StampSenderCodec implements TestPacketCipher {
    private final StampSenderSpec spec;
    private final TestPacketLayout senderLayout;
    private final TestPacketLayout reflectorLayout;
    private final SenderPacket sent;
    private final ReflectorPacket received;
    private final StampTlvFlyweight tlv = new StampTlvFlyweight();
    private final StampTlvFlyweight sub = new StampTlvFlyweight();
    private final StampHmac hmac;
    private final StampTelemetry telemetry;
    private final int paddingAt;
    private final int timestampInformationAt;
    private final int classOfServiceAt;
    private final int directMeasurementAt;
    private final int accessReportAt;
    private final int followUpAt;
    private final int locationAt;
    private final int destinationNodeAt;
    private final int returnPathAt;
    private final int microSessionAt;
    private final int hmacTlvAt;
    private final byte[] destinationNode;
    private final byte[] returnAddress;
    private final byte[][] srv6Segments;
    /** Bit {@code 1 << type} for each TLV type our requests carry (all below 32). */
    private final int sentTypes;
    /** The Reflector Micro-session ID replies must carry: the one asked for, else the first seen (0: none yet). */
    private int reflectorMicroSession;
    /** Why the last {@link #openReflector} failed ({@link TestPacketCipher#REJECTED_HMAC} or REJECTED_FOREIGN). */
    private int rejection = REJECTED_HMAC;
    /** Replies whose TLV area did not parse (used all the same: the base packet is whole). */
    private long malformedReplies;
    /** Accepted replies whose reflector timestamps were in the PTP format. */
    private long ptpReplies;

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
        this.sent = new SenderPacket(senderLayout);
        this.received = new ReflectorPacket(reflectorLayout);
        this.hmac = spec.authenticated()
                ? new StampHmac(spec.key(), Math.max(StampLayouts.HMAC_COVERED, 4 + spec.tlvBytes())) : null;
        StampTlvRequest t = spec.tlvs();
        int at = senderLayout.length();
        paddingAt = spec.extraPadding() > 0 ? at : -1;
        at += spec.extraPadding() > 0 ? StampTlv.HEADER_LENGTH + spec.extraPadding() : 0;
        timestampInformationAt = t.timestampInformation() ? at : -1;
        at += t.timestampInformation() ? StampTlvLayout.TIMESTAMP_INFORMATION.size() : 0;
        classOfServiceAt = t.classOfServiceDscp() >= 0 ? at : -1;
        at += t.classOfServiceDscp() >= 0 ? StampTlvLayout.CLASS_OF_SERVICE.size() : 0;
        directMeasurementAt = t.directMeasurement() ? at : -1;
        at += t.directMeasurement() ? StampTlvLayout.DIRECT_MEASUREMENT.size() : 0;
        accessReportAt = t.accessId() >= 0 ? at : -1;
        at += t.accessId() >= 0 ? StampTlvLayout.ACCESS_REPORT.size() : 0;
        followUpAt = t.followUpTelemetry() ? at : -1;
        at += t.followUpTelemetry() ? StampTlvLayout.FOLLOW_UP_TELEMETRY.size() : 0;
        locationAt = t.location() ? at : -1;
        at += t.location() ? StampTlv.HEADER_LENGTH + StampTlvRequest.LOCATION_VALUE_LENGTH : 0;
        destinationNode = t.destinationNode() == null ? null : t.destinationNode().getAddress();
        destinationNodeAt = destinationNode != null ? at : -1;
        at += destinationNode != null ? StampTlv.HEADER_LENGTH + destinationNode.length : 0;
        StampTlvRequest.ReturnPath rp = t.returnPath();
        returnPathAt = rp != null ? at : -1;
        at += rp != null ? StampTlv.HEADER_LENGTH + rp.valueLength() : 0;
        returnAddress = rp == null || rp.returnAddress() == null ? null : rp.returnAddress().getAddress();
        srv6Segments = rp == null ? new byte[0][] : rp.srv6Segments().stream().map(InetAddress::getAddress)
                .toArray(byte[][]::new);
        microSessionAt = t.microSession() ? at : -1;
        at += t.microSession() ? StampTlvLayout.MICRO_SESSION_ID.size() : 0;
        reflectorMicroSession = t.microSessionReflector();
        hmacTlvAt = t.hmac() ? at : -1;
        int types = 0;
        for (int type = StampTlv.EXTRA_PADDING; type <= StampTlv.MICRO_SESSION_ID; type++) {
            if (tlvOffset(type) >= 0) {
                types |= 1 << type;
            }
        }
        sentTypes = types;
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
            case StampTlv.DESTINATION_NODE_ADDRESS -> destinationNodeAt;
            case StampTlv.RETURN_PATH -> returnPathAt;
            case StampTlv.MICRO_SESSION_ID -> microSessionAt;
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
     * others' headers and sender fields, all with U = 1 (RFC 8972 §4); sub-TLVs with flags 0.
     */
    @Override
    public void sealSenderHead(MemorySegment packet) {
        sent.wrap(packet).ssid(spec.ssid());
        if (paddingAt >= 0) {
            header(packet, paddingAt, StampTlv.EXTRA_PADDING, spec.extraPadding());
        }
        StampTlvRequest t = spec.tlvs();
        if (timestampInformationAt >= 0) {
            header(packet, timestampInformationAt, StampTlvLayout.TIMESTAMP_INFORMATION).zeroValue();
        }
        if (classOfServiceAt >= 0) {
            header(packet, classOfServiceAt, StampTlvLayout.CLASS_OF_SERVICE)
                    .classOfService(t.classOfServiceDscp(), 0, 0, 0, spec.ecn(), 0);
        }
        if (directMeasurementAt >= 0) {
            header(packet, directMeasurementAt, StampTlvLayout.DIRECT_MEASUREMENT)
                    .directMeasurementSender(sent.sequenceNumber() + 1);   // S_TxC, this packet included
        }
        if (accessReportAt >= 0) {
            header(packet, accessReportAt, StampTlvLayout.ACCESS_REPORT)
                    .accessReport(t.accessId(), t.accessReturnCode());
        }
        if (followUpAt >= 0) {
            header(packet, followUpAt, StampTlvLayout.FOLLOW_UP_TELEMETRY).zeroValue();
        }
        if (locationAt >= 0) {
            header(packet, locationAt, StampTlv.LOCATION, StampTlvRequest.LOCATION_VALUE_LENGTH)
                    .locationPorts(0, 0);                                   // the reflector fills them
            long v = tlv.subTlvsOffset();
            v = subTlv(packet, v, StampTlv.SUB_DESTINATION_IPV4, StampTlvLayout.IPV4_LENGTH);
            v = subTlv(packet, v, StampTlv.SUB_SOURCE_IPV4, StampTlvLayout.IPV4_LENGTH);
            v = subTlv(packet, v, StampTlv.SUB_DESTINATION_IPV6, StampTlvLayout.IPV6_LENGTH);
            subTlv(packet, v, StampTlv.SUB_SOURCE_IPV6, StampTlvLayout.IPV6_LENGTH);
        }
        if (destinationNodeAt >= 0) {
            header(packet, destinationNodeAt, StampTlv.DESTINATION_NODE_ADDRESS, destinationNode.length)
                    .writeValue(destinationNode, destinationNode.length);
        }
        if (returnPathAt >= 0) {
            returnPath(packet, t.returnPath());
        }
        if (microSessionAt >= 0) {
            header(packet, microSessionAt, StampTlvLayout.MICRO_SESSION_ID)
                    .microSession(t.microSessionSender(), t.microSessionReflector());
        }
        if (hmacTlvAt >= 0) {
            header(packet, hmacTlvAt, StampTlv.HMAC, StampTlv.HMAC_LENGTH);
        }
    }

    /** The Return Path TLV and its sub-TLVs (RFC 9503 §4.1), in the order of the RFC's figures. */
    private void returnPath(MemorySegment packet, StampTlvRequest.ReturnPath rp) {
        header(packet, returnPathAt, StampTlv.RETURN_PATH, rp.valueLength());
        long at = tlv.valueOffset();
        if (rp.controlCode() >= 0) {
            sub.wrap(packet, at).header(0, StampTlvLayout.SUB_RETURN_CONTROL_CODE, StampTlvLayout.CONTROL_CODE_LENGTH)
                    .controlCodeFlags(rp.controlCode());
            at = sub.next();
        }
        if (returnAddress != null) {
            sub.wrap(packet, at).header(0, StampTlvLayout.SUB_RETURN_ADDRESS, returnAddress.length)
                    .writeValue(returnAddress, returnAddress.length);
            at = sub.next();
        }
        List<Integer> labels = rp.mplsLabels();
        if (!labels.isEmpty()) {
            sub.wrap(packet, at).header(0, StampTlvLayout.SUB_RETURN_SR_MPLS,
                    labels.size() * StampTlvLayout.MPLS_ENTRY_LENGTH);
            for (int i = 0; i < labels.size(); i++) {
                sub.valueWord(i, mplsEntry(labels.get(i), i == labels.size() - 1));
            }
            at = sub.next();
        }
        if (srv6Segments.length > 0) {
            sub.wrap(packet, at).header(0, StampTlvLayout.SUB_RETURN_SRV6,
                    srv6Segments.length * StampTlvLayout.SRV6_SEGMENT_LENGTH);
            for (int i = 0; i < srv6Segments.length; i++) {
                MemorySegment.copy(srv6Segments[i], 0, packet, ValueLayout.JAVA_BYTE,
                        sub.valueOffset() + (long) i * StampTlvLayout.SRV6_SEGMENT_LENGTH,
                        StampTlvLayout.SRV6_SEGMENT_LENGTH);
            }
        }
    }

    /**
     * An SR-MPLS label stack entry (RFC 3032 §2.1): Label(20) TC(3) = 0, S(1) on the bottom entry, TTL(8) = 255.
     */
    static long mplsEntry(int label, boolean bottom) {
        return (long) label << 12 | (bottom ? 1 << 8 : 0) | 0xFF;
    }

    /** A sub-TLV with a zero value of {@code length} octets; @return the offset after it. */
    private long subTlv(MemorySegment packet, long at, int type, int length) {
        return sub.wrap(packet, at).header(0, type, length).zeroValue().next();
    }

    private StampTlvFlyweight header(MemorySegment packet, int at, int type, int length) {
        return tlv.wrap(packet, at).header(StampTlv.FLAG_U, type, length);
    }

    private StampTlvFlyweight header(MemorySegment packet, int at, StampTlvLayout layout) {
        return header(packet, at, layout.type(), layout.valueLength());
    }

    /** Puts the timestamp into the wire format, marks Z and signs (authenticated). */
    @Override
    public void sealSenderTail(MemorySegment packet) {
        TimestampFormat format = spec.format();
        sent.wrap(packet);
        sent.timestampNtp(format.fromNtp(sent.timestampNtp(), spec.taiSeconds()))
                .errorEstimate(format.markErrorEstimate(sent.errorEstimate()));
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
    public int lastRejection() {
        return rejection;
    }

    @Override
    public long malformedReplies() {
        return malformedReplies;
    }

    @Override
    public long ptpReplies() {
        return ptpReplies;
    }

    @Override
    public boolean openReflector(MemorySegment packet, int length) {
        rejection = REJECTED_HMAC;
        if (length < reflectorLayout.length() || packet.byteSize() < reflectorLayout.length()) {
            return false;
        }
        if (hmac != null && !hmac.verify(packet, 0, StampLayouts.HMAC_COVERED, reflectorLayout.hmacOffset())) {
            return false;
        }
        if (spec.ssid() != 0 && received.wrap(packet).ssid() != spec.ssid()) {
            // RFC 8972 §3: a reply belongs to the session whose SSID it carries (the reflector copies ours); one
            // with another SSID is not this session's, whatever its sequence number (counted, not used)
            rejection = REJECTED_FOREIGN;
            return false;
        }
        if (length > reflectorLayout.length()) {
            if (!readTlvs(packet, Math.min(length, (int) packet.byteSize()))) {
                return false;
            }
        } else if (sentTypes != 0 && telemetry != null) {
            telemetry.missing++;                          // a base-size reply to a request with TLVs
        }
        received.wrap(packet);
        int field = received.errorEstimate();
        TimestampFormat format = TimestampFormat.ofErrorEstimate(field);
        if (format != TimestampFormat.NTP) {
            ptpReplies++;
            received.timestampNtp(format.toNtp(received.timestampNtp(), spec.taiSeconds()))
                    .receiveTimestampNtp(format.toNtp(received.receiveTimestampNtp(), spec.taiSeconds()))
                    .errorEstimate(field & ~TimestampFormat.Z_BIT);
        }
        field = received.senderErrorEstimate();
        format = TimestampFormat.ofErrorEstimate(field);
        if (format != TimestampFormat.NTP) {
            received.senderTimestampNtp(format.toNtp(received.senderTimestampNtp(), spec.taiSeconds()))
                    .senderErrorEstimate(field & ~TimestampFormat.Z_BIT);
        }
        return true;
    }

    /**
     * Reads the reply's TLVs (before the timestamps are normalised: the Follow-Up stamp is in the reflector's
     * format); @return false when an HMAC TLV we sent comes back recognised (U = 0) but does not verify, or is
     * missing, or when the reply's Micro-session ID is not ours (RFC 9534 §3.2: such replies are discarded).
     */
    private boolean readTlvs(MemorySegment packet, int end) {
        int from = reflectorLayout.length();
        received.wrap(packet);
        long seq = received.senderSequenceNumber();
        boolean keep = telemetry != null && telemetry.kept(seq);
        int s = (int) seq;
        TimestampFormat reflectorFormat = TimestampFormat.ofErrorEstimate(received.errorEstimate());
        boolean hmacSeen = false;
        int seenTypes = 0;
        int at = from;
        for (; StampTlvFlyweight.headerFits(at, end); at = (int) tlv.next()) {
            tlv.wrap(packet, at);
            if (!tlv.fits(end)) {
                break;
            }
            int flags = tlv.flags();
            int type = tlv.type();
            int length = tlv.length();
            if (type < Integer.SIZE) {
                seenTypes |= 1 << type;
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
                        && (length != StampTlv.HMAC_LENGTH
                        || !hmac.verifyTlvs(packet, from, at, (int) tlv.valueOffset()))) {
                    return false;
                }
                hmacSeen = true;
            } else if (type == StampTlv.MICRO_SESSION_ID && microSessionAt >= 0 && answered
                    && !microSessionMatches()) {
                if (telemetry != null) {
                    telemetry.microSessionDiscarded++;
                }
                rejection = REJECTED_FOREIGN;
                return false;
            } else if (telemetry != null && tlvOffset(type) >= 0) {
                // a TLV we did not send (a faulty or hostile reflector) has no place in the telemetry
                read(type, flags, answered, keep, s, reflectorFormat);
            }
        }
        if (at != end) {
            malformedReplies++;                           // a TLV runs past the datagram, or stray octets follow
        }
        if (telemetry != null) {
            telemetry.replies++;
            if ((seenTypes & sentTypes) != sentTypes) {
                telemetry.missing++;                      // a TLV we sent did not come back (dropped or zeroed)
            }
            if (keep) {
                telemetry.reply(s, received.sequenceNumber(), reflectorFormat.toNtp(received.timestampNtp(), spec.taiSeconds()));
            }
        }
        return hmacTlvAt < 0 || hmacSeen;
    }

    /**
     * RFC 9534 §3.2: the reply's Sender Micro-session ID must be ours, and its Reflector Micro-session ID the one we
     * asked for, else the first one a reply carried.
     */
    private boolean microSessionMatches() {
        if (tlv.senderMicroSessionId() != spec.tlvs().microSessionSender()) {
            return false;
        }
        int reflector = tlv.reflectorMicroSessionId();
        if (reflectorMicroSession == 0) {
            reflectorMicroSession = reflector;
            return true;
        }
        return reflector == reflectorMicroSession;
    }

    private void read(int type, int flags, boolean answered, boolean keep, int seq, TimestampFormat format) {
        switch (type) {
            case StampTlv.DESTINATION_NODE_ADDRESS -> telemetry.destinationNode((flags & StampTlv.FLAG_U) != 0);
            case StampTlv.RETURN_PATH -> telemetry.returnPath(flags);
            case StampTlv.MICRO_SESSION_ID -> {
                if (answered) {
                    telemetry.microSession(tlv.reflectorMicroSessionId());
                } else {
                    telemetry.microSessionUnanswered++;
                }
            }
            default -> {
                if (answered) {
                    readAnswered(type, keep, seq, format);
                }
            }
        }
    }

    private void readAnswered(int type, boolean keep, int seq, TimestampFormat format) {
        switch (type) {
            case StampTlv.TIMESTAMP_INFORMATION -> {
                int subTlvs = 0;
                long end = tlv.next();
                for (long at = tlv.subTlvsOffset(); StampTlvFlyweight.headerFits(at, end); at = sub.next()) {
                    if (!sub.wrap(received.segment(), at).fits(end)) {
                        break;
                    }
                    subTlvs++;
                }
                telemetry.timestampInformationSeen(tlv.syncIn(), tlv.methodIn(), tlv.syncOut(), tlv.methodOut(),
                        subTlvs);
                if (keep) {
                    telemetry.timestampInformation(seq, tlv.syncIn(), tlv.methodIn(), tlv.syncOut(), tlv.methodOut());
                }
            }
            case StampTlv.CLASS_OF_SERVICE -> {
                if (keep) {
                    telemetry.classOfService(seq, tlv.classOfServiceValue());
                }
            }
            case StampTlv.DIRECT_MEASUREMENT -> {
                if (keep) {
                    telemetry.directMeasurement(seq, (int) tlv.reflectorRxCount(), (int) tlv.reflectorTxCount());
                }
            }
            case StampTlv.ACCESS_REPORT -> telemetry.lastAccessReport = tlv.accessReportWord();
            case StampTlv.LOCATION -> telemetry.location(tlv, sub);
            case StampTlv.FOLLOW_UP_TELEMETRY -> {
                long wire = tlv.followUpTimestamp();
                telemetry.followUp(tlv.followUpSequence(), wire == 0 ? 0 : format.toNtp(wire, spec.taiSeconds()), tlv.followUpMode());
            }
            default -> {
                // Extra Padding: nothing to read
            }
        }
    }
}
