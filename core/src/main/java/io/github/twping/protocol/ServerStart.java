package io.github.twping.protocol;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight for the 48-byte Server-Start (RFC 4656 section 3.1, RFC 5357 section 3.1). Bytes 0..31
 * (MBZ, Accept, Server-IV) are clear; bytes 32..47 (Start-Time, MBZ) are the first block of the
 * server-to-client CBC stream in the protected modes and the first input of that direction's HMAC.
 */
public final class ServerStart {
    /** Bytes 0..14: must be zero. */
    public static final int MBZ_OFFSET = 0;
    public static final int ACCEPT_OFFSET = 15;
    public static final int SERVER_IV_OFFSET = 16;
    public static final int SERVER_IV_LENGTH = 16;
    /** Start of the part that is encrypted and HMAC-covered in the protected modes. */
    public static final int PROTECTED_OFFSET = 32;
    /** Length of the clear part (bytes 0..31). */
    public static final int CLEAR_LENGTH = 32;
    public static final int START_TIME_OFFSET = 32;
    /** Bytes 40..47: must be zero. */
    public static final int MBZ2_OFFSET = 40;
    public static final int LENGTH = 48;

    private MemorySegment segment;

    /** Points this flyweight at a segment of at least {@link #LENGTH} bytes. */
    public ServerStart wrap(MemorySegment segment) {
        this.segment = segment;
        return this;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Zero-fills the whole message. */
    public ServerStart clear() {
        segment.asSlice(0, LENGTH).fill((byte) 0);
        return this;
    }

    /** @return the Accept octet 0..255; see {@link AcceptCode#isValid(int)}. */
    public int accept() {
        return Wire.uint8(segment, ACCEPT_OFFSET);
    }

    public ServerStart accept(int acceptCode) {
        Wire.uint8(segment, ACCEPT_OFFSET, acceptCode);
        return this;
    }

    public ServerStart copyServerIvTo(byte[] dst16) {
        Wire.copyOut(segment, SERVER_IV_OFFSET, dst16, SERVER_IV_LENGTH);
        return this;
    }

    public ServerStart serverIv(byte[] src16) {
        Wire.copyIn(src16, segment, SERVER_IV_OFFSET, SERVER_IV_LENGTH);
        return this;
    }

    /** @return the server start time as a raw NTP Num64 (ignored by twping). */
    public long startTimeNtp() {
        return segment.get(Wire.LONG_BE, START_TIME_OFFSET);
    }

    public ServerStart startTimeNtp(long startTimeNtp) {
        segment.set(Wire.LONG_BE, START_TIME_OFFSET, startTimeNtp);
        return this;
    }
}
