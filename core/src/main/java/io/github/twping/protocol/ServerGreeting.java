package io.github.twping.protocol;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight for the 64-byte Server-Greeting (RFC 4656 section 3.1, RFC 5357 section 3.1): the
 * offered Modes, the Challenge and Salt for the Token, and the PBKDF2 Count. Always sent in clear.
 */
public final class ServerGreeting {
    /** Bytes 0..11: unused, ignored on receipt. */
    public static final int UNUSED_OFFSET = 0;
    public static final int MODES_OFFSET = 12;
    public static final int CHALLENGE_OFFSET = 16;
    public static final int SALT_OFFSET = 32;
    public static final int COUNT_OFFSET = 48;
    /** Bytes 52..63: must be zero, ignored on receipt. */
    public static final int MBZ_OFFSET = 52;
    public static final int CHALLENGE_LENGTH = 16;
    public static final int SALT_LENGTH = 16;
    public static final int LENGTH = 64;

    private MemorySegment segment;

    /** Points this flyweight at a segment of at least {@link #LENGTH} bytes. */
    public ServerGreeting wrap(MemorySegment segment) {
        this.segment = segment;
        return this;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Zero-fills the whole message. */
    public ServerGreeting clear() {
        segment.asSlice(0, LENGTH).fill((byte) 0);
        return this;
    }

    /** @return the offered modes bit mask (unsigned 32 bits, only the low bits are defined). */
    public int modes() {
        return segment.get(Wire.INT_BE, MODES_OFFSET);
    }

    public ServerGreeting modes(int modes) {
        segment.set(Wire.INT_BE, MODES_OFFSET, modes);
        return this;
    }

    public ServerGreeting copyChallengeTo(byte[] dst16) {
        Wire.copyOut(segment, CHALLENGE_OFFSET, dst16, CHALLENGE_LENGTH);
        return this;
    }

    public ServerGreeting challenge(byte[] src16) {
        Wire.copyIn(src16, segment, CHALLENGE_OFFSET, CHALLENGE_LENGTH);
        return this;
    }

    public ServerGreeting copySaltTo(byte[] dst16) {
        Wire.copyOut(segment, SALT_OFFSET, dst16, SALT_LENGTH);
        return this;
    }

    public ServerGreeting salt(byte[] src16) {
        Wire.copyIn(src16, segment, SALT_OFFSET, SALT_LENGTH);
        return this;
    }

    /** @return the PBKDF2 iteration count as an unsigned 32-bit value (not validated by the C client). */
    public long count() {
        return Wire.uint32(segment, COUNT_OFFSET);
    }

    public ServerGreeting count(long count) {
        Wire.uint32(segment, COUNT_OFFSET, count);
        return this;
    }
}
