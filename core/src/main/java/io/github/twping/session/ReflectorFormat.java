package io.github.twping.session;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.crypto.TestSessionKeys;
import java.lang.foreign.MemorySegment;

/**
 * The per-mode packet handling of a reflector (RFC 5357 §4.1.2): the layouts (through the protocol
 * flyweights) and the session's {@link TestPacketCipher}. Chosen once per session, so the per-packet path
 * has no mode checks. Confined to the reflector thread.
 */
public abstract class ReflectorFormat {
    /** The session's test-packet protection (open/verify sender packets, seal replies). */
    protected final TestPacketCipher cipher;

    ReflectorFormat(TestPacketCipher cipher) {
        this.cipher = cipher;
    }

    /** Bytes of a sender packet before its padding: 14 (unauthenticated) or 48. */
    public abstract int senderHeaderLength();

    /** Bytes of a reply before its padding: 41 (unauthenticated) or 112. */
    public abstract int replyHeaderLength();

    /**
     * Decrypts the sender packet in place (if the mode encrypts) and checks its HMAC.
     *
     * @param length the length to treat the request as (Lq: C processes short datagrams with stale bytes)
     * @return false if the HMAC does not verify (the packet must be ignored)
     */
    final boolean openRequest(MemorySegment request, int length) {
        return cipher.openSender(request, length);
    }

    /** Binds the session's wire reply buffer (once, before the first packet). */
    abstract void bind(MemorySegment wire);

    /**
     * Writes every reply field except the reflector's send timestamp and error estimate from the opened
     * {@code request} (MBZ zeroed); padding is copied separately by the caller.
     */
    abstract void buildReply(MemorySegment request, long reflectorSeq, long receiveNtp, int senderTtl);

    /** Writes the send timestamp and error estimate, then protects the reply in place. */
    abstract void stampAndSeal(long sendNtp, int errorEstimate);

    /** Offset of the reply HMAC in the wire packet, or -1 when the mode has none. */
    abstract int replyHmacOffset();

    /**
     * The format for {@code mode} (1 Open, 2 Authenticated, 4 Encrypted, 8 Mixed); {@code keys} are the
     * session's test keys (RFC 4656 §4.1.1, docs/PROTOCOL-TEST.md), required for 2 and 4, ignored otherwise.
     */
    public static ReflectorFormat forMode(int mode, TestSessionKeys keys) {
        TestPacketCipher cipher = TestPacketCipher.forMode(mode, keys);
        return switch (mode) {
            case TestPacketCipher.MODE_OPEN, TestPacketCipher.MODE_MIXED -> new ReflectorOpenFormat(cipher);
            default -> new ReflectorAuthFormat(cipher);
        };
    }
}
