package io.github.twping.crypto;

import io.github.twping.protocol.TestPacketLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.digests.SHA1Digest;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * The block operations of the TWAMP-Test ciphers, in place on a {@link MemorySegment}: AES-128 ECB/CBC
 * (IV 0) and the truncated HMAC-SHA1, with preallocated buffers and engines initialised once.
 * Not thread-safe.
 */
final class TestBlockCrypto {
    private static final int BLOCK = TestPacketLayout.BLOCK;
    private static final int HMAC_LENGTH = TestPacketLayout.HMAC_LENGTH;

    private final BlockCipher encryptor = AESEngine.newInstance();
    private final BlockCipher decryptor = AESEngine.newInstance();
    private final HMac hmac = new HMac(new SHA1Digest());
    private final byte[] in = new byte[BLOCK];
    private final byte[] out = new byte[BLOCK];
    private final byte[] chain = new byte[BLOCK];
    private final byte[] nextChain = new byte[BLOCK];
    private final byte[] macOutput = new byte[20];
    private final byte[] macInput;

    /** @param macInputCapacity the longest range {@link #macUpdate} is given */
    TestBlockCrypto(TestSessionKeys keys, int macInputCapacity) {
        macInput = new byte[macInputCapacity];
        KeyParameter aesKey = new KeyParameter(keys.aesKey());
        encryptor.init(true, aesKey);
        decryptor.init(false, aesKey);
        hmac.init(new KeyParameter(keys.hmacKey()));
    }

    /** Resets the CBC chaining value to the zero IV. */
    void resetChain() {
        Arrays.fill(chain, (byte) 0);
    }

    /** Encrypts the block at {@code offset} in place, chained on the previous block (CBC; ECB after reset). */
    void encryptBlock(MemorySegment segment, long offset) {
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, in, 0, BLOCK);
        for (int i = 0; i < BLOCK; i++) {
            in[i] ^= chain[i];
        }
        encryptor.processBlock(in, 0, chain, 0);
        MemorySegment.copy(chain, 0, segment, ValueLayout.JAVA_BYTE, offset, BLOCK);
    }

    /** Decrypts the block at {@code offset} in place, chained on the previous ciphertext block. */
    void decryptBlock(MemorySegment segment, long offset) {
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, nextChain, 0, BLOCK);
        decryptor.processBlock(nextChain, 0, out, 0);
        for (int i = 0; i < BLOCK; i++) {
            out[i] ^= chain[i];
        }
        System.arraycopy(nextChain, 0, chain, 0, BLOCK);
        MemorySegment.copy(out, 0, segment, ValueLayout.JAVA_BYTE, offset, BLOCK);
    }

    /** Encrypts the blocks of {@code [from, to)} in place, chained on the current chaining value. */
    void encrypt(MemorySegment segment, int from, int to) {
        for (int offset = from; offset < to; offset += BLOCK) {
            encryptBlock(segment, offset);
        }
    }

    /** Decrypts the blocks of {@code [from, to)} in place, chained on the current chaining value. */
    void decrypt(MemorySegment segment, int from, int to) {
        for (int offset = from; offset < to; offset += BLOCK) {
            decryptBlock(segment, offset);
        }
    }

    /** Starts a new HMAC computation (drops any partial one). */
    void macReset() {
        hmac.reset();
    }

    /** Feeds the plaintext bytes of {@code [from, to)} into the running HMAC (nothing when the range is empty). */
    void macUpdate(MemorySegment segment, int from, int to) {
        int length = to - from;
        if (length > 0) {
            MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, from, macInput, 0, length);
            hmac.update(macInput, 0, length);
        }
    }

    /** Completes the HMAC and writes its first 16 bytes at {@code macOffset}. */
    void macWrite(MemorySegment segment, long macOffset) {
        hmac.doFinal(macOutput, 0);
        MemorySegment.copy(macOutput, 0, segment, ValueLayout.JAVA_BYTE, macOffset, HMAC_LENGTH);
    }

    /** Completes the HMAC and compares its first 16 bytes with those at {@code macOffset}, in constant time. */
    boolean macVerify(MemorySegment segment, long macOffset) {
        hmac.doFinal(macOutput, 0);
        int difference = 0;
        for (int i = 0; i < HMAC_LENGTH; i++) {
            difference |= macOutput[i] ^ segment.get(ValueLayout.JAVA_BYTE, macOffset + i);
        }
        return difference == 0;
    }
}
