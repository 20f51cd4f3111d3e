package io.github.twping.session;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.TestPacketLayout;
import java.lang.foreign.MemorySegment;

/**
 * The per-mode packet handling of a reflector (RFC 5357 §4.2.1): the session's sender and reply layouts (offsets
 * from {@link TestPacketLayout}) and its {@link TestPacketCipher}. Chosen once per session, so the per-packet
 * path has no mode checks; the cipher works in place, so every MBZ range is zeroed again for each reply.
 * Confined to the reflector thread.
 */
final class ReflectorFormat {
    private final TestPacketCipher cipher;
    private final TestPacketLayout senderLayout;
    private final TestPacketLayout replyLayout;
    private final ReflectorPacket reply;
    private MemorySegment wire;

    private ReflectorFormat(TestPacketCipher cipher) {
        this.cipher = cipher;
        this.senderLayout = cipher.senderLayout();
        this.replyLayout = cipher.reflectorLayout();
        this.reply = new ReflectorPacket(replyLayout);
    }

    /**
     * The format for {@code mode}; {@code keys} are the session's test keys (RFC 4656 §4.1.1,
     * docs/PROTOCOL-TEST.md), required for Authenticated and Encrypted, ignored otherwise.
     */
    public static ReflectorFormat forMode(Mode mode, TestSessionKeys keys) {
        return new ReflectorFormat(TestPacketCipher.forMode(mode, keys));
    }

    /** Bytes of a sender packet before its padding: 14 (unauthenticated) or 48. */
    public int senderHeaderLength() {
        return senderLayout.length();
    }

    /** Bytes of a reply before its padding: 41 (unauthenticated) or 112. */
    public int replyHeaderLength() {
        return replyLayout.length();
    }

    /**
     * Decrypts the sender packet in place (if the mode encrypts) and checks its HMAC.
     *
     * @param length the length to treat the request as (Lq: C processes short datagrams with stale bytes)
     * @return false if the HMAC does not verify (the packet must be ignored)
     */
    boolean openRequest(MemorySegment request, int length) {
        return cipher.openSender(request, length);
    }

    /** Binds the session's wire reply buffer (once, before the first packet). */
    void bind(MemorySegment wireBuffer) {
        wire = wireBuffer;
        reply.wrap(wireBuffer);
    }

    /**
     * Writes every reply field except the reflector's send timestamp and error estimate (MBZ zeroed), copying
     * the sender fields byte for byte from the {@code opened} request; padding is copied separately by the caller.
     */
    void buildReply(MemorySegment opened, long reflectorSeq, long receiveNtp, int senderTtl) {
        reply.clearMbz().sequenceNumber(reflectorSeq).receiveTimestampNtp(receiveNtp).senderTtl(senderTtl);
        MemorySegment.copy(opened, senderLayout.sequenceOffset(), wire, replyLayout.senderSequenceOffset(),
                TestPacketLayout.SEQUENCE_LENGTH);
        MemorySegment.copy(opened, senderLayout.timestampOffset(), wire, replyLayout.senderTimestampOffset(),
                TestPacketLayout.TIMESTAMP_LENGTH);
        MemorySegment.copy(opened, senderLayout.errorEstimateOffset(), wire, replyLayout.senderErrorEstimateOffset(),
                TestPacketLayout.ERROR_ESTIMATE_LENGTH);
    }

    /** Writes the send timestamp and error estimate, then protects the reply in place. */
    void stampAndSeal(long sendNtp, int errorEstimate) {
        reply.timestampNtp(sendNtp).errorEstimate(errorEstimate);
        cipher.sealReflector(wire);
    }

    /** Offset of the reply HMAC in the wire packet, or -1 when the mode has none. */
    int replyHmacOffset() {
        return replyLayout.hmacOffset();
    }
}
