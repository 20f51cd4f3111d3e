package io.github.twping.protocol;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight for the 48-byte Accept-Session (RFC 5357 section 3.5, RFC 4656 section 3.5): Accept,
 * the reflector Port, the SID assigned by the server, 12 MBZ bytes and the HMAC (bytes 32..47).
 */
public final class AcceptSession {
    public static final int ACCEPT_OFFSET = 0;
    /** Octet 1: must be zero. */
    public static final int MBZ_OFFSET = 1;
    public static final int PORT_OFFSET = 2;
    public static final int SID_OFFSET = 4;
    public static final int SID_LENGTH = 16;
    /** Bytes 20..31: must be zero (RFC 6038 gave meaning to some; twping ignores them). */
    public static final int MBZ2_OFFSET = 20;
    public static final int HMAC_OFFSET = 32;
    public static final int LENGTH = 48;

    private MemorySegment segment;

    /** Points this flyweight at a segment of at least {@link #LENGTH} bytes. */
    public AcceptSession wrap(MemorySegment segment) {
        this.segment = segment;
        return this;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Zero-fills the whole message. */
    public AcceptSession clear() {
        segment.asSlice(0, LENGTH).fill((byte) 0);
        return this;
    }

    /** @return the Accept octet 0..255; see {@link AcceptCode#isValid(int)}. */
    public int accept() {
        return Wire.uint8(segment, ACCEPT_OFFSET);
    }

    public AcceptSession accept(int acceptCode) {
        Wire.uint8(segment, ACCEPT_OFFSET, acceptCode);
        return this;
    }

    /** @return the UDP port of the Session-Reflector. */
    public int port() {
        return Wire.uint16(segment, PORT_OFFSET);
    }

    public AcceptSession port(int port) {
        Wire.uint16(segment, PORT_OFFSET, port);
        return this;
    }

    public AcceptSession copySidTo(byte[] dst16) {
        Wire.copyOut(segment, SID_OFFSET, dst16, SID_LENGTH);
        return this;
    }

    public AcceptSession sid(byte[] src16) {
        Wire.copyIn(src16, segment, SID_OFFSET, SID_LENGTH);
        return this;
    }
}
