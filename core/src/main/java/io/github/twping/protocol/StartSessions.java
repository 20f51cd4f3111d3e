package io.github.twping.protocol;

import java.lang.foreign.MemorySegment;

/** Flyweight for the 32-byte Start-Sessions (RFC 5357 section 3.7, RFC 4656 section 3.7): Command 2, MBZ, HMAC. */
public final class StartSessions {
    /** Command value of Start-Sessions. */
    public static final int COMMAND = 2;

    public static final int COMMAND_OFFSET = 0;
    /** Bytes 1..15: must be zero. */
    public static final int MBZ_OFFSET = 1;
    public static final int HMAC_OFFSET = 16;
    public static final int LENGTH = 32;

    private MemorySegment segment;

    /** Points this flyweight at a segment of at least {@link #LENGTH} bytes. */
    public StartSessions wrap(MemorySegment segment) {
        this.segment = segment;
        return this;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Zero-fills the whole message and sets Command 2. */
    public StartSessions reset() {
        segment.asSlice(0, LENGTH).fill((byte) 0);
        return command(COMMAND);
    }

    public int command() {
        return Wire.uint8(segment, COMMAND_OFFSET);
    }

    public StartSessions command(int command) {
        Wire.uint8(segment, COMMAND_OFFSET, command);
        return this;
    }
}
