package io.github.twping.crypto;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The TWAMP-Test cipher of mode Encrypted (RFC 5357 §4.1.2): AES-128-CBC with a zero IV per packet over
 * bytes 0..31 (sender) resp. 0..95 (reflector); HMAC-SHA1 truncated to 16 bytes over the same plaintext
 * bytes, stored in clear after them. One instance per thread (the two sender steps share chaining state).
 */
public final class EncryptedTestPacketCipher implements TestPacketCipher {
    private static final int SENDER_LENGTH = 48;
    private static final int REFLECTOR_LENGTH = 112;
    private static final int SENDER_BLOCKS = 2;
    private static final int REFLECTOR_BLOCKS = 6;
    private static final int SENDER_HMAC_OFFSET = 32;
    private static final int REFLECTOR_HMAC_OFFSET = 96;
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final TestBlockCrypto crypto;

    /** Creates the cipher for one session (engines keyed once). */
    public EncryptedTestPacketCipher(TestSessionKeys keys) {
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

    /** Writes block 0, feeds it to the HMAC and encrypts it (CBC block 0 = ECB with IV 0). */
    @Override
    public void prepareSender(MemorySegment packet, long sequenceNumber) {
        packet.set(INT_BE, 0, (int) sequenceNumber);
        packet.set(INT_BE, 4, 0);
        packet.set(LONG_BE, 8, 0L);
        crypto.macReset();
        crypto.macUpdate(packet, 0, TestBlockCrypto.BLOCK);
        crypto.resetChain();
        crypto.encryptBlock(packet, 0);
    }

    /** Writes block 1 (timestamp, error estimate, MBZ), completes the HMAC and encrypts block 1 chained on block 0. */
    @Override
    public void finishSender(MemorySegment packet, long timestampNtp, int errorEstimate) {
        packet.set(LONG_BE, 16, timestampNtp);
        packet.set(SHORT_BE, 24, (short) errorEstimate);
        packet.set(SHORT_BE, 26, (short) 0);
        packet.set(INT_BE, 28, 0);
        crypto.macUpdate(packet, TestBlockCrypto.BLOCK, TestBlockCrypto.BLOCK);
        crypto.macWrite(packet, SENDER_HMAC_OFFSET);
        crypto.encryptBlock(packet, TestBlockCrypto.BLOCK);
    }

    @Override
    public boolean openSender(MemorySegment packet, int length) {
        return open(packet, length, SENDER_LENGTH, SENDER_BLOCKS, SENDER_HMAC_OFFSET);
    }

    @Override
    public void sealReflector(MemorySegment packet) {
        crypto.macReset();
        crypto.macUpdate(packet, 0, REFLECTOR_BLOCKS * TestBlockCrypto.BLOCK);
        crypto.macWrite(packet, REFLECTOR_HMAC_OFFSET);
        crypto.encryptCbc(packet, REFLECTOR_BLOCKS);
    }

    @Override
    public boolean openReflector(MemorySegment packet, int length) {
        return open(packet, length, REFLECTOR_LENGTH, REFLECTOR_BLOCKS, REFLECTOR_HMAC_OFFSET);
    }

    private boolean open(MemorySegment packet, int length, int minimumLength, int blocks, int hmacOffset) {
        if (length < minimumLength || packet.byteSize() < minimumLength) {
            return false;
        }
        crypto.decryptCbc(packet, blocks);
        crypto.macReset();
        crypto.macUpdate(packet, 0, blocks * TestBlockCrypto.BLOCK);
        return crypto.macVerify(packet, hmacOffset);
    }
}
