package io.github.twping.protocol;

import java.lang.foreign.MemorySegment;

/** Flyweight for the 32-byte Start-Ack (RFC 5357 section 3.7, RFC 4656 section 3.7): Accept, MBZ, HMAC. */
public final class StartAck {
    public static final int ACCEPT_OFFSET = 0;
    /** Bytes 1..15: must be zero. */
    public static final int MBZ_OFFSET = 1;
    public static final int HMAC_OFFSET = 16;
    public static final int LENGTH = 32;

    private MemorySegment segment;

    /** Points this flyweight at a segment of at least {@link #LENGTH} bytes. */
    public StartAck wrap(MemorySegment segment) {
        this.segment = segment;
        return this;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Zero-fills the whole message. */
    public StartAck clear() {
        segment.asSlice(0, LENGTH).fill((byte) 0);
        return this;
    }

    /** @return the Accept octet 0..255; see {@link AcceptCode#isValid(int)}. */
    public int accept() {
        return Wire.uint8(segment, ACCEPT_OFFSET);
    }

    public StartAck accept(int acceptCode) {
        Wire.uint8(segment, ACCEPT_OFFSET, acceptCode);
        return this;
    }
}
