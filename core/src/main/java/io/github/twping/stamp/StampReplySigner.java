package io.github.twping.stamp;

import java.lang.foreign.MemorySegment;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.StampLayouts;
import io.github.twping.protocol.StampTlvLayout;
import io.github.twping.protocol.TestPacketLayout;

/**
 * The STAMP reflector's integrity work, kept apart from the TLV answers and the reply's TOS: verifying a request
 * (STAMP's HMAC over octets 0..95, RFC 8762 §4.4; authenticated TWAMP-Light's RFC 5357 test-packet protection with
 * the configured keys), verifying and signing the HMAC TLV (RFC 8972 §4.8), and signing or sealing the reply as the
 * last step before each send attempt. Unauthenticated reflectors get an instance that does nothing. Reflector thread
 * only; nothing is allocated per packet.
 */
final class StampReplySigner {
    private final StampHmac hmac;
    /** Authenticated TWAMP-Light: the RFC 5357 test-packet protection with the configured keys, else null. */
    private final TestPacketCipher lightCipher;
    private final TestPacketLayout senderLayout;
    private final TestPacketLayout replyLayout;
    private final ReflectorPacket lightReply;

    StampReplySigner(StampReflectorSpec spec, TestPacketLayout senderLayout, TestPacketLayout replyLayout,
                     int maxRange) {
        this.senderLayout = senderLayout;
        this.replyLayout = replyLayout;
        this.lightReply = new ReflectorPacket(replyLayout);
        this.hmac = spec.authenticated() && !spec.light() ? new StampHmac(spec.key(), maxRange) : null;
        this.lightCipher = spec.authenticated() && spec.light() ? TestPacketCipher.forMode(
                Mode.AUTHENTICATED, StampReflectorSpec.lightKeys(spec.key())) : null;
    }

    /** @return true when the HMAC TLV can be checked and answered (an authenticated STAMP reflector) */
    boolean hasTlvKey() {
        return hmac != null;
    }

    /** @return true when the request of {@code n} octets is authentic (always, unauthenticated) */
    boolean verifyRequest(MemorySegment request, int n) {
        if (hmac != null) {
            return hmac.verify(request, 0, StampLayouts.HMAC_COVERED, senderLayout.hmacOffset());
        }
        return lightCipher == null || lightCipher.openSender(request, n);
    }

    /**
     * @return true when the request's HMAC TLV at {@code hmacTlvAt} holds the HMAC of its Sequence Number and the TLVs
     * before it
     */
    boolean verifyTlvs(MemorySegment request, int hmacTlvAt) {
        return hmac.verifyTlvs(request, senderLayout.length(), hmacTlvAt, hmacTlvAt + StampTlvLayout.HEADER_LENGTH);
    }

    /** Signs the reply's HMAC TLV at {@code hmacTlvAt} (-1: none) over its final TLVs; made once per reply. */
    void signTlvs(MemorySegment reply, int hmacTlvAt) {
        if (hmacTlvAt >= 0) {
            hmac.signTlvs(reply, replyLayout.length(), hmacTlvAt, hmacTlvAt + StampTlvLayout.HEADER_LENGTH);
        }
    }

    /**
     * Signs (STAMP) or seals (TWAMP-Light) the reply after its send timestamp was written; on a retry the TWAMP-Light
     * block 0 the previous attempt encrypted (sequence number and MBZ) is first rebuilt in plaintext.
     */
    void seal(MemorySegment reply, int attempt, long seq) {
        if (hmac != null) {
            hmac.sign(reply, 0, StampLayouts.HMAC_COVERED, replyLayout.hmacOffset());
        }
        if (lightCipher != null) {
            if (attempt > 0) {
                lightReply.wrap(reply).clearMbz().sequenceNumber(seq);
            }
            lightCipher.sealReflector(reply);
        }
    }
}
