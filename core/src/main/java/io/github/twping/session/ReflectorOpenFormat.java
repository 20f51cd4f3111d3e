package io.github.twping.session;

import java.lang.foreign.MemorySegment;

/**
 * Unauthenticated TWAMP-Test layouts (Open and Mixed modes): 14-byte sender header, 41-byte reply header
 * (spec 3.1, 3.2). The reply is built directly in the wire buffer; MBZ bytes are never written.
 */
final class ReflectorOpenFormat extends ReflectorFormat {
    static final int SENDER_SEQ = 0;
    static final int SENDER_TIMESTAMP = 4;
    static final int SENDER_ERROR = 12;
    static final int SENDER_HEADER = 14;
    static final int SEQ = 0;
    static final int TIMESTAMP = 4;
    static final int ERROR = 12;
    static final int RECEIVE_TIMESTAMP = 16;
    static final int COPIED_SEQ = 24;
    static final int COPIED_TIMESTAMP = 28;
    static final int COPIED_ERROR = 36;
    static final int SENDER_TTL = 40;
    static final int REPLY_HEADER = 41;

    private MemorySegment wire;

    @Override
    void bind(MemorySegment wireBuffer) {
        this.wire = wireBuffer;
    }

    @Override
    public int senderHeaderLength() {
        return SENDER_HEADER;
    }

    @Override
    public int replyHeaderLength() {
        return REPLY_HEADER;
    }

    @Override
    boolean openRequest(MemorySegment request) {
        return true;
    }

    @Override
    void buildReply(MemorySegment request, long reflectorSeq, long receiveNtp, int senderTtl) {
        wire.set(INT_BE, SEQ, (int) reflectorSeq);
        wire.set(LONG_BE, RECEIVE_TIMESTAMP, receiveNtp);
        MemorySegment.copy(request, SENDER_SEQ, wire, COPIED_SEQ, 4);
        MemorySegment.copy(request, SENDER_TIMESTAMP, wire, COPIED_TIMESTAMP, 8);
        MemorySegment.copy(request, SENDER_ERROR, wire, COPIED_ERROR, 2);
        wire.set(java.lang.foreign.ValueLayout.JAVA_BYTE, SENDER_TTL, (byte) senderTtl);
    }

    @Override
    void sealReply(MemorySegment wireBuffer, long sendNtp, int errorEstimate) {
        wireBuffer.set(LONG_BE, TIMESTAMP, sendNtp);
        wireBuffer.set(SHORT_BE, ERROR, (short) errorEstimate);
    }

    @Override
    int replyHmacOffset() {
        return -1;
    }

    @Override
    void destroy() {
        // no keys
    }
}
