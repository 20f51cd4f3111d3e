package io.github.twping.session;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.protocol.AuthReflectorPacket;
import io.github.twping.protocol.AuthSenderPacket;
import java.lang.foreign.MemorySegment;

/**
 * Authenticated-format TWAMP-Test layouts (Authenticated and Encrypted): 48-byte sender header, 112-byte
 * reply header; the cipher encrypts/HMACs in place, so every MBZ range is zeroed again for each reply.
 */
final class ReflectorAuthFormat extends ReflectorFormat {
    private final AuthReflectorPacket reply = new AuthReflectorPacket();
    private MemorySegment wire;

    ReflectorAuthFormat(TestPacketCipher cipher) {
        super(cipher);
    }

    @Override
    public int senderHeaderLength() {
        return AuthSenderPacket.LENGTH;
    }

    @Override
    public int replyHeaderLength() {
        return AuthReflectorPacket.LENGTH;
    }

    @Override
    void bind(MemorySegment wireBuffer) {
        wire = wireBuffer;
        reply.wrap(wireBuffer);
    }

    @Override
    void buildReply(MemorySegment request, long reflectorSeq, long receiveNtp, int senderTtl) {
        reply.clearMbz().sequenceNumber(reflectorSeq).receiveTimestampNtp(receiveNtp).senderTtl(senderTtl);
        MemorySegment.copy(request, AuthSenderPacket.SEQUENCE_NUMBER_OFFSET, wire,
                AuthReflectorPacket.SENDER_SEQUENCE_NUMBER_OFFSET, 4);
        MemorySegment.copy(request, AuthSenderPacket.TIMESTAMP_OFFSET, wire,
                AuthReflectorPacket.SENDER_TIMESTAMP_OFFSET, 8);
        MemorySegment.copy(request, AuthSenderPacket.ERROR_ESTIMATE_OFFSET, wire,
                AuthReflectorPacket.SENDER_ERROR_ESTIMATE_OFFSET, 2);
    }

    @Override
    void stampAndSeal(long sendNtp, int errorEstimate) {
        reply.timestampNtp(sendNtp).errorEstimate(errorEstimate);
        cipher.sealReflector(wire);
    }

    @Override
    int replyHmacOffset() {
        return AuthReflectorPacket.HMAC_OFFSET;
    }
}
