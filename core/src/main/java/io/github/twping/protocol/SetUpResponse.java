package io.github.twping.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Flyweight for the 164-byte Set-Up-Response (RFC 4656 section 3.1, RFC 5357 section 3.1): the
 * chosen Mode, the KeyID (identity, NUL padded), the encrypted Token and the Client-IV. Always
 * sent in clear; KeyID, Token and Client-IV are zero in Open mode.
 */
public final class SetUpResponse {
    public static final int MODE_OFFSET = 0;
    public static final int KEY_ID_OFFSET = 4;
    public static final int KEY_ID_LENGTH = 80;
    public static final int TOKEN_OFFSET = 84;
    public static final int TOKEN_LENGTH = 64;
    public static final int CLIENT_IV_OFFSET = 148;
    public static final int CLIENT_IV_LENGTH = 16;
    public static final int LENGTH = 164;

    private MemorySegment segment;

    /** Points this flyweight at a segment of at least {@link #LENGTH} bytes. */
    public SetUpResponse wrap(MemorySegment segment) {
        this.segment = segment;
        return this;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Zero-fills the whole message. */
    public SetUpResponse clear() {
        segment.asSlice(0, LENGTH).fill((byte) 0);
        return this;
    }

    /** @return the raw Mode word; {@link Mode#fromBits(int)} validates it. */
    public int mode() {
        return segment.get(Wire.INT_BE, MODE_OFFSET);
    }

    public SetUpResponse mode(int modeBits) {
        segment.set(Wire.INT_BE, MODE_OFFSET, modeBits);
        return this;
    }

    /** Writes the identity, truncated to 80 bytes and NUL padded. */
    public SetUpResponse keyId(byte[] identity) {
        segment.asSlice(KEY_ID_OFFSET, KEY_ID_LENGTH).fill((byte) 0);
        if (identity != null) {
            Wire.copyIn(identity, segment, KEY_ID_OFFSET, Math.min(identity.length, KEY_ID_LENGTH));
        }
        return this;
    }

    /** @return the number of KeyID bytes before the first NUL (0..80). */
    public int keyIdLength() {
        for (int i = 0; i < KEY_ID_LENGTH; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, KEY_ID_OFFSET + i) == 0) {
                return i;
            }
        }
        return KEY_ID_LENGTH;
    }

    /** Copies the KeyID bytes before the first NUL into a new array (set-up time only). */
    public byte[] keyIdBytes() {
        byte[] id = new byte[keyIdLength()];
        Wire.copyOut(segment, KEY_ID_OFFSET, id, id.length);
        return id;
    }

    public SetUpResponse copyTokenTo(byte[] dst64) {
        Wire.copyOut(segment, TOKEN_OFFSET, dst64, TOKEN_LENGTH);
        return this;
    }

    public SetUpResponse token(byte[] src64) {
        Wire.copyIn(src64, segment, TOKEN_OFFSET, TOKEN_LENGTH);
        return this;
    }

    public SetUpResponse copyClientIvTo(byte[] dst16) {
        Wire.copyOut(segment, CLIENT_IV_OFFSET, dst16, CLIENT_IV_LENGTH);
        return this;
    }

    public SetUpResponse clientIv(byte[] src16) {
        Wire.copyIn(src16, segment, CLIENT_IV_OFFSET, CLIENT_IV_LENGTH);
        return this;
    }
}
