package io.github.twping.protocol;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight for the 112-byte Request-TW-Session (RFC 5357 section 3.5, layout of RFC 4656
 * section 3.5 without schedule slots): Command 5, IPVN, sender/receiver ports and addresses, SID,
 * Padding Length, Start Time, Timeout, Type-P Descriptor, HMAC over bytes 0..95.
 */
public final class RequestTwSession {
    /** Command value of Request-TW-Session. */
    public static final int COMMAND = 5;

    public static final int COMMAND_OFFSET = 0;
    /** High nibble MBZ, low nibble IPVN. */
    public static final int IPVN_OFFSET = 1;
    public static final int CONF_SENDER_OFFSET = 2;
    public static final int CONF_RECEIVER_OFFSET = 3;
    public static final int SCHEDULE_SLOTS_OFFSET = 4;
    public static final int PACKETS_OFFSET = 8;
    public static final int SENDER_PORT_OFFSET = 12;
    public static final int RECEIVER_PORT_OFFSET = 14;
    public static final int SENDER_ADDRESS_OFFSET = 16;
    public static final int RECEIVER_ADDRESS_OFFSET = 32;
    public static final int SID_OFFSET = 48;
    public static final int SID_LENGTH = 16;
    public static final int PADDING_LENGTH_OFFSET = 64;
    public static final int START_TIME_OFFSET = 68;
    public static final int TIMEOUT_OFFSET = 76;
    public static final int TYPE_P_OFFSET = 84;
    /** Bytes 88..95: must be zero. */
    public static final int MBZ_OFFSET = 88;
    public static final int HMAC_OFFSET = 96;
    public static final int LENGTH = 112;

    private MemorySegment segment;

    /** Points this flyweight at a segment of at least {@link #LENGTH} bytes. */
    public RequestTwSession wrap(MemorySegment segment) {
        this.segment = segment;
        return this;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Zero-fills the whole message. */
    public RequestTwSession clear() {
        segment.asSlice(0, LENGTH).fill((byte) 0);
        return this;
    }

    public int command() {
        return Wire.uint8(segment, COMMAND_OFFSET);
    }

    public RequestTwSession command(int command) {
        Wire.uint8(segment, COMMAND_OFFSET, command);
        return this;
    }

    /** @return the IP version number (low nibble of octet 1). */
    public int ipvn() {
        return Wire.uint8(segment, IPVN_OFFSET) & 0x0F;
    }

    /** @return the MBZ high nibble of octet 1 (must be zero). */
    public int ipvnMbz() {
        return Wire.uint8(segment, IPVN_OFFSET) >>> 4;
    }

    /** Sets the IPVN (4 or 6) and clears the MBZ nibble. */
    public RequestTwSession ipvn(int ipvn) {
        Wire.uint8(segment, IPVN_OFFSET, ipvn & 0x0F);
        return this;
    }

    public int confSender() {
        return Wire.uint8(segment, CONF_SENDER_OFFSET);
    }

    public RequestTwSession confSender(int value) {
        Wire.uint8(segment, CONF_SENDER_OFFSET, value);
        return this;
    }

    public int confReceiver() {
        return Wire.uint8(segment, CONF_RECEIVER_OFFSET);
    }

    public RequestTwSession confReceiver(int value) {
        Wire.uint8(segment, CONF_RECEIVER_OFFSET, value);
        return this;
    }

    /** @return Number of Schedule Slots (unsigned 32 bits; must be 0 for TWAMP). */
    public long scheduleSlots() {
        return Wire.uint32(segment, SCHEDULE_SLOTS_OFFSET);
    }

    public RequestTwSession scheduleSlots(long value) {
        Wire.uint32(segment, SCHEDULE_SLOTS_OFFSET, value);
        return this;
    }

    /** @return Number of Packets (unsigned 32 bits; must be 0 for TWAMP). */
    public long packets() {
        return Wire.uint32(segment, PACKETS_OFFSET);
    }

    public RequestTwSession packets(long value) {
        Wire.uint32(segment, PACKETS_OFFSET, value);
        return this;
    }

    public int senderPort() {
        return Wire.uint16(segment, SENDER_PORT_OFFSET);
    }

    public RequestTwSession senderPort(int port) {
        Wire.uint16(segment, SENDER_PORT_OFFSET, port);
        return this;
    }

    public int receiverPort() {
        return Wire.uint16(segment, RECEIVER_PORT_OFFSET);
    }

    public RequestTwSession receiverPort(int port) {
        Wire.uint16(segment, RECEIVER_PORT_OFFSET, port);
        return this;
    }

    /** Writes the sender address (4 or 16 bytes; {@code null} = all zero, twping {@code -Z}). */
    public RequestTwSession senderAddress(byte[] address) {
        AddressField.write(segment, SENDER_ADDRESS_OFFSET, address);
        return this;
    }

    /** Copies the first {@code dst.length} (4 or 16) bytes of the sender address field. */
    public RequestTwSession copySenderAddressTo(byte[] dst) {
        AddressField.read(segment, SENDER_ADDRESS_OFFSET, dst);
        return this;
    }

    /** Writes the receiver address (4 or 16 bytes; {@code null} = all zero). */
    public RequestTwSession receiverAddress(byte[] address) {
        AddressField.write(segment, RECEIVER_ADDRESS_OFFSET, address);
        return this;
    }

    /** Copies the first {@code dst.length} (4 or 16) bytes of the receiver address field. */
    public RequestTwSession copyReceiverAddressTo(byte[] dst) {
        AddressField.read(segment, RECEIVER_ADDRESS_OFFSET, dst);
        return this;
    }

    public RequestTwSession copySidTo(byte[] dst16) {
        Wire.copyOut(segment, SID_OFFSET, dst16, SID_LENGTH);
        return this;
    }

    public RequestTwSession sid(byte[] src16) {
        Wire.copyIn(src16, segment, SID_OFFSET, SID_LENGTH);
        return this;
    }

    /** @return Padding Length in bytes (unsigned 32 bits). */
    public long paddingLength() {
        return Wire.uint32(segment, PADDING_LENGTH_OFFSET);
    }

    public RequestTwSession paddingLength(long bytes) {
        Wire.uint32(segment, PADDING_LENGTH_OFFSET, bytes);
        return this;
    }

    /** @return the absolute start time as a raw NTP Num64. */
    public long startTimeNtp() {
        return segment.get(Wire.LONG_BE, START_TIME_OFFSET);
    }

    public RequestTwSession startTimeNtp(long ntp) {
        segment.set(Wire.LONG_BE, START_TIME_OFFSET, ntp);
        return this;
    }

    /** @return the session Timeout as an NTP Num64 duration (seconds in the high 32 bits). */
    public long timeoutNtp() {
        return segment.get(Wire.LONG_BE, TIMEOUT_OFFSET);
    }

    public RequestTwSession timeoutNtp(long ntp) {
        segment.set(Wire.LONG_BE, TIMEOUT_OFFSET, ntp);
        return this;
    }

    /** @return the Type-P Descriptor word (DSCP in bits 24..29 for twping). */
    public int typePDescriptor() {
        return segment.get(Wire.INT_BE, TYPE_P_OFFSET);
    }

    public RequestTwSession typePDescriptor(int typeP) {
        segment.set(Wire.INT_BE, TYPE_P_OFFSET, typeP);
        return this;
    }
}
