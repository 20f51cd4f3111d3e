package io.github.twping.session;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The per-mode packet handling of a reflector (spec 3.1, 3.2): where the fields are, how a sender packet is
 * opened and verified, and how a reply is built and sealed. Chosen once per session, so the per-packet path
 * has no mode checks. Implementations reuse preallocated scratch arrays and are confined to one thread.
 */
public abstract class ReflectorFormat {
    static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Mode bits as on the wire. */
    public static final int MODE_OPEN = 1;
    public static final int MODE_AUTHENTICATED = 2;
    public static final int MODE_ENCRYPTED = 4;
    public static final int MODE_MIXED = 8;

    /** Bytes of a sender packet before its padding: 14 (unauthenticated) or 48. */
    public abstract int senderHeaderLength();

    /** Bytes of a reply before its padding: 41 (unauthenticated) or 112. */
    public abstract int replyHeaderLength();

    /**
     * Decrypts the sender packet header in {@code request} in place (if the mode encrypts) and checks its HMAC.
     *
     * @return false if the HMAC does not verify (the packet must be ignored)
     */
    abstract boolean openRequest(MemorySegment request);

    /**
     * Writes every reply field except the reflector's send timestamp and error estimate, from the opened
     * {@code request}; padding is copied separately by the caller.
     */
    abstract void buildReply(MemorySegment request, long reflectorSeq, long receiveNtp, int senderTtl);

    /** Writes the send timestamp and error estimate, then encrypts/HMACs the reply header into {@code wire}. */
    abstract void sealReply(MemorySegment wire, long sendNtp, int errorEstimate);

    /** Binds the session's wire reply buffer (once, before the first packet). */
    void bind(MemorySegment wireBuffer) {
        // formats that build in a scratch array do not need it
    }

    /** Offset of the reply HMAC in the wire packet, or -1 when the mode has none. */
    abstract int replyHmacOffset();

    /** Overwrites key material held by this format. */
    abstract void destroy();

    /**
     * The format for {@code mode}; {@code testAesKey} (16 bytes) and {@code testHmacKey} (32 bytes) are the
     * session's test keys (spec 3.4) for modes 2 and 4, ignored otherwise.
     */
    public static ReflectorFormat forMode(int mode, byte[] testAesKey, byte[] testHmacKey) {
        return switch (mode) {
            case MODE_OPEN, MODE_MIXED -> new ReflectorOpenFormat();
            case MODE_AUTHENTICATED -> new ReflectorAuthFormat(false, testAesKey, testHmacKey);
            case MODE_ENCRYPTED -> new ReflectorAuthFormat(true, testAesKey, testHmacKey);
            default -> throw new IllegalArgumentException("unsupported test mode " + mode);
        };
    }
}
