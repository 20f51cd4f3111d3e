package io.github.twping.session;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import java.lang.foreign.MemorySegment;

/** Unauthenticated TWAMP-Test layouts (Open and Mixed): 14-byte sender header, 41-byte reply header. */
final class ReflectorOpenFormat extends ReflectorFormat {
    private final ReflectorPacket reply = new ReflectorPacket();
    private MemorySegment wire;

    ReflectorOpenFormat(TestPacketCipher cipher) {
        super(cipher);
    }

    @Override
    public int senderHeaderLength() {
        return SenderPacket.LENGTH;
    }

    @Override
    public int replyHeaderLength() {
        return ReflectorPacket.LENGTH;
    }

    @Override
    void bind(MemorySegment wireBuffer) {
        wire = wireBuffer;
        reply.wrap(wireBuffer);
    }

    @Override
    void buildReply(MemorySegment request, long reflectorSeq, long receiveNtp, int senderTtl) {
        reply.clearMbz().sequenceNumber(reflectorSeq).receiveTimestampNtp(receiveNtp).senderTtl(senderTtl);
        MemorySegment.copy(request, SenderPacket.SEQUENCE_NUMBER_OFFSET, wire,
                ReflectorPacket.SENDER_SEQUENCE_NUMBER_OFFSET, 4);
        MemorySegment.copy(request, SenderPacket.TIMESTAMP_OFFSET, wire, ReflectorPacket.SENDER_TIMESTAMP_OFFSET, 8);
        MemorySegment.copy(request, SenderPacket.ERROR_ESTIMATE_OFFSET, wire,
                ReflectorPacket.SENDER_ERROR_ESTIMATE_OFFSET, 2);
    }

    @Override
    void stampAndSeal(long sendNtp, int errorEstimate) {
        reply.timestampNtp(sendNtp).errorEstimate(errorEstimate);
        cipher.sealReflector(wire);
    }

    @Override
    int replyHmacOffset() {
        return -1;
    }
}
