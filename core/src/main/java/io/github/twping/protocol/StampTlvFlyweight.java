package io.github.twping.protocol;

import static io.github.twping.protocol.StampTlvLayout.ACCESS_ID;
import static io.github.twping.protocol.StampTlvLayout.ACCESS_RESERVED;
import static io.github.twping.protocol.StampTlvLayout.ACCESS_RETURN_CODE;
import static io.github.twping.protocol.StampTlvLayout.CONTROL_CODE_FLAGS;
import static io.github.twping.protocol.StampTlvLayout.COS_EC1_RPE;
import static io.github.twping.protocol.StampTlvLayout.RPE_NOT_SET;
import static io.github.twping.protocol.StampTlvLayout.COS_WORD;
import static io.github.twping.protocol.StampTlvLayout.DIRECT_REFLECTOR_RX;
import static io.github.twping.protocol.StampTlvLayout.DIRECT_REFLECTOR_TX;
import static io.github.twping.protocol.StampTlvLayout.DIRECT_SENDER_TX;
import static io.github.twping.protocol.StampTlvLayout.FLAGS;
import static io.github.twping.protocol.StampTlvLayout.FOLLOW_UP_MODE;
import static io.github.twping.protocol.StampTlvLayout.FOLLOW_UP_RESERVED;
import static io.github.twping.protocol.StampTlvLayout.FOLLOW_UP_SEQUENCE;
import static io.github.twping.protocol.StampTlvLayout.FOLLOW_UP_TIMESTAMP;
import static io.github.twping.protocol.StampTlvLayout.HEADER_LENGTH;
import static io.github.twping.protocol.StampTlvLayout.LENGTH;
import static io.github.twping.protocol.StampTlvLayout.LOCATION_DESTINATION_PORT;
import static io.github.twping.protocol.StampTlvLayout.LOCATION_SOURCE_PORT;
import static io.github.twping.protocol.StampTlvLayout.MICRO_SESSION_REFLECTOR;
import static io.github.twping.protocol.StampTlvLayout.MICRO_SESSION_SENDER;
import static io.github.twping.protocol.StampTlvLayout.TIMESTAMP_METHOD_IN;
import static io.github.twping.protocol.StampTlvLayout.TIMESTAMP_METHOD_OUT;
import static io.github.twping.protocol.StampTlvLayout.TIMESTAMP_SYNC_IN;
import static io.github.twping.protocol.StampTlvLayout.TIMESTAMP_SYNC_OUT;
import static io.github.twping.protocol.StampTlvLayout.TYPE;
import static io.github.twping.protocol.Wire.LONG_BE;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Flyweight over one STAMP TLV or sub-TLV (RFC 8972 §4): the header, and the fields of each known value by the named
 * offsets of {@link StampTlvLayout}. Wrap it at the header's offset; {@link #next()} is where the following TLV
 * starts. No bounds are checked beyond the segment's own: callers check {@link #fits(long)} before reading a value.
 * No allocation; one instance per thread.
 */
public final class StampTlvFlyweight {
    private MemorySegment segment;
    private long at;

    /** Wraps the TLV whose header starts at {@code offset} of {@code segment}. */
    public StampTlvFlyweight wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.at = offset;
        return this;
    }

    /** @return the wrapped segment */
    public MemorySegment segment() {
        return segment;
    }

    /** @return the offset of the header in the segment */
    public long offset() {
        return at;
    }

    /** @return the offset of the value's first octet in the segment */
    public long valueOffset() {
        return at + HEADER_LENGTH;
    }

    /** @return the offset just after the value: the next TLV's header */
    public long next() {
        return at + HEADER_LENGTH + length();
    }

    /** @return true when the header, and then the value its Length announces, end at or before {@code end} */
    public boolean fits(long end) {
        return end - at >= HEADER_LENGTH && next() <= end;
    }

    /** @return true when at least a header fits before {@code end} */
    public static boolean headerFits(long at, long end) {
        return end - at >= HEADER_LENGTH;
    }

    public int flags() {
        return Wire.uint8(segment, at + FLAGS);
    }

    public StampTlvFlyweight flags(int flags) {
        Wire.uint8(segment, at + FLAGS, flags);
        return this;
    }

    public int type() {
        return Wire.uint8(segment, at + TYPE);
    }

    /** @return the value's length in octets */
    public int length() {
        return Wire.uint16(segment, at + LENGTH);
    }

    /** Writes the header. */
    public StampTlvFlyweight header(int flags, int type, int length) {
        Wire.uint8(segment, at + FLAGS, flags);
        Wire.uint8(segment, at + TYPE, type);
        Wire.uint16(segment, at + LENGTH, length);
        return this;
    }

    /** Zeroes the value (the Length's octets). */
    public StampTlvFlyweight zeroValue() {
        Wire.zero(segment, valueOffset(), length());
        return this;
    }

    /** Copies the value's first {@code n} octets to {@code dst}. */
    public void readValue(byte[] dst, int n) {
        Wire.copyOut(segment, valueOffset(), dst, n);
    }

    /** Copies {@code n} octets of {@code src} into the value. */
    public StampTlvFlyweight writeValue(byte[] src, int n) {
        Wire.copyIn(src, segment, valueOffset(), n);
        return this;
    }

    /** @return true when the value's first {@code n} octets equal {@code other}'s first {@code n} */
    public boolean valueEquals(byte[] other, int n) {
        long v = valueOffset();
        for (int i = 0; i < n; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, v + i) != other[i]) {
                return false;
            }
        }
        return true;
    }

    // --- Timestamp Information (RFC 8972 §4.3) ---
    public int syncIn() {
        return Wire.uint8(segment, valueOffset() + TIMESTAMP_SYNC_IN);
    }

    public int methodIn() {
        return Wire.uint8(segment, valueOffset() + TIMESTAMP_METHOD_IN);
    }

    public int syncOut() {
        return Wire.uint8(segment, valueOffset() + TIMESTAMP_SYNC_OUT);
    }

    public int methodOut() {
        return Wire.uint8(segment, valueOffset() + TIMESTAMP_METHOD_OUT);
    }

    public StampTlvFlyweight timestampInformation(int syncIn, int methodIn, int syncOut, int methodOut) {
        long v = valueOffset();
        Wire.uint8(segment, v + TIMESTAMP_SYNC_IN, syncIn);
        Wire.uint8(segment, v + TIMESTAMP_METHOD_IN, methodIn);
        Wire.uint8(segment, v + TIMESTAMP_SYNC_OUT, syncOut);
        Wire.uint8(segment, v + TIMESTAMP_METHOD_OUT, methodOut);
        return this;
    }

    // --- Class of Service (RFC 8972 §4.4, erratum 8199; draft-ietf-ippm-stamp-cos-ecn §3.1) ---
    /** @return the 16-bit word DSCP1(6) DSCP2(6) EC2(2) RPD(2) */
    public int classOfServiceWord() {
        return Wire.uint16(segment, valueOffset() + COS_WORD);
    }

    /** @return the whole 32-bit value: DSCP1(6) DSCP2(6) EC2(2) RPD(2) EC1(2) RPE(2) Reserved(12) */
    public int classOfServiceValue() {
        return (int) Wire.uint32(segment, valueOffset() + COS_WORD);
    }

    /** @return DSCP1, the DSCP the reply is to carry */
    public int dscp1() {
        return classOfServiceWord() >>> 10;
    }

    /** @return EC1, the ECN the reply is to carry (0 from a sender that knows only RFC 8972: Not-ECT) */
    public int ec1() {
        return Wire.uint8(segment, valueOffset() + COS_EC1_RPE) >>> 6;
    }

    /** Writes DSCP1 DSCP2 EC2 RPD, EC1 and RPE 0, and zeroes the Reserved bits. */
    public StampTlvFlyweight classOfService(int dscp1, int dscp2, int ecn, int rp) {
        return classOfService(dscp1, dscp2, ecn, rp, 0, 0);
    }

    /** Writes DSCP1 DSCP2 EC2 RPD EC1 RPE and zeroes the twelve Reserved bits. */
    public StampTlvFlyweight classOfService(int dscp1, int dscp2, int ecn, int rp, int ec1, int rpe) {
        long v = valueOffset();
        Wire.uint16(segment, v + COS_WORD, (dscp1 & 0x3F) << 10 | (dscp2 & 0x3F) << 4 | (ecn & 3) << 2 | (rp & 3));
        Wire.uint8(segment, v + COS_EC1_RPE, (ec1 & 3) << 6 | (rpe & 3) << 4);
        Wire.uint8(segment, v + COS_EC1_RPE + 1, 0);
        return this;
    }

    /**
     * The reply could not carry DSCP1 and EC1: RPD = 0b01, and RPE = 0b10 (the reply's ECN is then not EC1;
     * draft-ietf-ippm-stamp-cos-ecn §3.2).
     */
    public StampTlvFlyweight classOfServiceRefused() {
        long v = valueOffset() + COS_WORD;
        Wire.uint16(segment, v, Wire.uint16(segment, v) | 1);
        long e = valueOffset() + COS_EC1_RPE;
        Wire.uint8(segment, e, (Wire.uint8(segment, e) & 0xC0) | RPE_NOT_SET << 4);
        return this;
    }

    // --- Direct Measurement (RFC 8972 §4.5) ---
    public long senderTxCount() {
        return Wire.uint32(segment, valueOffset() + DIRECT_SENDER_TX);
    }

    public long reflectorRxCount() {
        return Wire.uint32(segment, valueOffset() + DIRECT_REFLECTOR_RX);
    }

    public long reflectorTxCount() {
        return Wire.uint32(segment, valueOffset() + DIRECT_REFLECTOR_TX);
    }

    /** The sender's side: S_TxC, the reflector's counters zero. */
    public StampTlvFlyweight directMeasurementSender(long senderTx) {
        long v = valueOffset();
        Wire.uint32(segment, v + DIRECT_SENDER_TX, senderTx);
        Wire.uint32(segment, v + DIRECT_REFLECTOR_RX, 0);
        Wire.uint32(segment, v + DIRECT_REFLECTOR_TX, 0);
        return this;
    }

    /** The reflector's side: R_RxC and R_TxC (S_TxC kept). */
    public StampTlvFlyweight directMeasurementReflector(long rx, long tx) {
        long v = valueOffset();
        Wire.uint32(segment, v + DIRECT_REFLECTOR_RX, rx);
        Wire.uint32(segment, v + DIRECT_REFLECTOR_TX, tx);
        return this;
    }

    // --- Access Report (RFC 8972 §4.6) ---
    /** @return ID(4 bits) Resv(4 bits) Return Code(8) as one 16-bit word */
    public int accessReportWord() {
        return Wire.uint16(segment, valueOffset() + ACCESS_ID);
    }

    public StampTlvFlyweight accessReport(int id, int returnCode) {
        long v = valueOffset();
        Wire.uint8(segment, v + ACCESS_ID, (id & 0xF) << 4);
        Wire.uint8(segment, v + ACCESS_RETURN_CODE, returnCode);
        Wire.uint16(segment, v + ACCESS_RESERVED, 0);
        return this;
    }

    // --- Follow-Up Telemetry (RFC 8972 §4.7) ---
    public long followUpSequence() {
        return Wire.uint32(segment, valueOffset() + FOLLOW_UP_SEQUENCE);
    }

    public long followUpTimestamp() {
        return segment.get(LONG_BE, valueOffset() + FOLLOW_UP_TIMESTAMP);
    }

    public int followUpMode() {
        return Wire.uint8(segment, valueOffset() + FOLLOW_UP_MODE);
    }

    /** Writes Sequence Number, Timestamp and Mode and zeroes Reserved (all zero: no stamp to report). */
    public StampTlvFlyweight followUp(long sequence, long timestamp, int mode) {
        long v = valueOffset();
        Wire.uint32(segment, v + FOLLOW_UP_SEQUENCE, sequence);
        segment.set(LONG_BE, v + FOLLOW_UP_TIMESTAMP, timestamp);
        Wire.uint8(segment, v + FOLLOW_UP_MODE, mode);
        Wire.zero(segment, v + FOLLOW_UP_RESERVED, StampTlvLayout.FOLLOW_UP_TELEMETRY_LENGTH - FOLLOW_UP_RESERVED);
        return this;
    }

    // --- Location (RFC 8972 §4.2) ---
    public int locationDestinationPort() {
        return Wire.uint16(segment, valueOffset() + LOCATION_DESTINATION_PORT);
    }

    public int locationSourcePort() {
        return Wire.uint16(segment, valueOffset() + LOCATION_SOURCE_PORT);
    }

    public StampTlvFlyweight locationPorts(int destinationPort, int sourcePort) {
        long v = valueOffset();
        Wire.uint16(segment, v + LOCATION_DESTINATION_PORT, destinationPort);
        Wire.uint16(segment, v + LOCATION_SOURCE_PORT, sourcePort);
        return this;
    }

    /** @return where the sub-TLVs of a Location, Timestamp Information or Return Path TLV start */
    public long subTlvsOffset() {
        return valueOffset() + switch (type()) {
            case StampTlvLayout.TYPE_LOCATION -> StampTlvLayout.LOCATION_SUB_TLVS;
            case StampTlvLayout.TYPE_TIMESTAMP_INFORMATION -> StampTlvLayout.TIMESTAMP_INFORMATION_LENGTH;
            default -> 0;
        };
    }

    // --- Micro-session ID (RFC 9534 §3.1) ---
    public int senderMicroSessionId() {
        return Wire.uint16(segment, valueOffset() + MICRO_SESSION_SENDER);
    }

    public int reflectorMicroSessionId() {
        return Wire.uint16(segment, valueOffset() + MICRO_SESSION_REFLECTOR);
    }

    public StampTlvFlyweight microSession(int sender, int reflector) {
        long v = valueOffset();
        Wire.uint16(segment, v + MICRO_SESSION_SENDER, sender);
        Wire.uint16(segment, v + MICRO_SESSION_REFLECTOR, reflector);
        return this;
    }

    // --- Return Path Control Code sub-TLV (RFC 9503 §4.1.1) ---
    public long controlCodeFlags() {
        return Wire.uint32(segment, valueOffset() + CONTROL_CODE_FLAGS);
    }

    public StampTlvFlyweight controlCodeFlags(long flags) {
        Wire.uint32(segment, valueOffset() + CONTROL_CODE_FLAGS, flags);
        return this;
    }

    /** @return the 32-bit entry {@code index} of the value (SR-MPLS label stack entries) */
    public long valueWord(int index) {
        return Wire.uint32(segment, valueOffset() + (long) index * Integer.BYTES);
    }

    public StampTlvFlyweight valueWord(int index, long word) {
        Wire.uint32(segment, valueOffset() + (long) index * Integer.BYTES, word);
        return this;
    }
}
