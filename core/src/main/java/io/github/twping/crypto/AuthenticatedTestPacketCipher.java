package io.github.twping.crypto;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The TWAMP-Test cipher of mode Authenticated, as perfSONAR does it (RFC 5357 §4.1.2): block 0
 * ({@code seq ‖ 12 MBZ}) is AES-128-ECB encrypted; the rest of the packet is clear; the HMAC (HMAC-SHA1,
 * 16 bytes) covers the plaintext block 0 only, in both directions. Consequence: the clear timestamps are
 * not integrity-protected (interop quirk of perfSONAR, reproduced on purpose).
 * One instance per thread.
 */
public final class AuthenticatedTestPacketCipher implements TestPacketCipher {
    private static final int SENDER_LENGTH = 48;
    private static final int REFLECTOR_LENGTH = 112;
    private static final int SENDER_HMAC_OFFSET = 32;
    private static final int REFLECTOR_HMAC_OFFSET = 96;
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final TestBlockCrypto crypto;

    /** Creates the cipher for one session (engines keyed once). */
    public AuthenticatedTestPacketCipher(TestSessionKeys keys) {
        this.crypto = new TestBlockCrypto(keys);
    }

    @Override
    public int senderLength() {
        return SENDER_LENGTH;
    }

    @Override
    public int reflectorLength() {
        return REFLECTOR_LENGTH;
    }

    @Override
    public void prepareSender(MemorySegment packet, long sequenceNumber) {
        packet.set(INT_BE, 0, (int) sequenceNumber);
        packet.set(INT_BE, 4, 0);
        packet.set(LONG_BE, 8, 0L);
        crypto.macReset();
        crypto.macUpdate(packet, 0, TestBlockCrypto.BLOCK);
        crypto.macWrite(packet, SENDER_HMAC_OFFSET);
        crypto.resetChain();
        crypto.encryptBlock(packet, 0);
    }

    @Override
    public void finishSender(MemorySegment packet, long timestampNtp, int errorEstimate) {
        packet.set(LONG_BE, 16, timestampNtp);
        packet.set(SHORT_BE, 24, (short) errorEstimate);
        packet.set(SHORT_BE, 26, (short) 0);
        packet.set(INT_BE, 28, 0);
    }

    @Override
    public boolean openSender(MemorySegment packet, int length) {
        return open(packet, length, SENDER_LENGTH, SENDER_HMAC_OFFSET);
    }

    @Override
    public void sealReflector(MemorySegment packet) {
        crypto.macReset();
        crypto.macUpdate(packet, 0, TestBlockCrypto.BLOCK);
        crypto.macWrite(packet, REFLECTOR_HMAC_OFFSET);
        crypto.resetChain();
        crypto.encryptBlock(packet, 0);
    }

    @Override
    public boolean openReflector(MemorySegment packet, int length) {
        return open(packet, length, REFLECTOR_LENGTH, REFLECTOR_HMAC_OFFSET);
    }

    private boolean open(MemorySegment packet, int length, int minimumLength, int hmacOffset) {
        if (length < minimumLength || packet.byteSize() < minimumLength) {
            return false;
        }
        crypto.resetChain();
        crypto.decryptBlock(packet, 0);
        crypto.macReset();
        crypto.macUpdate(packet, 0, TestBlockCrypto.BLOCK);
        return crypto.macVerify(packet, hmacOffset);
    }
}
