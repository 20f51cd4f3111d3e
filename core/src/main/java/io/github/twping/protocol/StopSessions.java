package io.github.twping.protocol;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight for the 32-byte TWAMP Stop-Sessions (RFC 5357 section 3.8): Command 3, Accept,
 * Number of Sessions, MBZ and the HMAC over bytes 0..15; TWAMP carries no session records.
 */
public final class StopSessions {
    /** Command value of Stop-Sessions. */
    public static final int COMMAND = 3;

    public static final int COMMAND_OFFSET = 0;
    public static final int ACCEPT_OFFSET = 1;
    /** Bytes 2..3: must be zero. */
    public static final int MBZ_OFFSET = 2;
    public static final int NUMBER_OF_SESSIONS_OFFSET = 4;
    /** Bytes 8..15: must be zero. */
    public static final int MBZ2_OFFSET = 8;
    public static final int HMAC_OFFSET = 16;
    public static final int LENGTH = 32;

    private MemorySegment segment;

    /** Points this flyweight at a segment of at least {@link #LENGTH} bytes. */
    public StopSessions wrap(MemorySegment segment) {
        this.segment = segment;
        return this;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Zero-fills the whole message and sets Command 3. */
    public StopSessions reset() {
        segment.asSlice(0, LENGTH).fill((byte) 0);
        return command(COMMAND);
    }

    public int command() {
        return Wire.uint8(segment, COMMAND_OFFSET);
    }

    public StopSessions command(int command) {
        Wire.uint8(segment, COMMAND_OFFSET, command);
        return this;
    }

    /** @return the Accept octet 0..255 (the client's test outcome). */
    public int accept() {
        return Wire.uint8(segment, ACCEPT_OFFSET);
    }

    public StopSessions accept(int acceptCode) {
        Wire.uint8(segment, ACCEPT_OFFSET, acceptCode);
        return this;
    }

    /** @return Number of Sessions (unsigned 32 bits). */
    public long numberOfSessions() {
        return Wire.uint32(segment, NUMBER_OF_SESSIONS_OFFSET);
    }

    public StopSessions numberOfSessions(long count) {
        Wire.uint32(segment, NUMBER_OF_SESSIONS_OFFSET, count);
        return this;
    }
}
