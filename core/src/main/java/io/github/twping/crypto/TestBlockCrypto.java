package io.github.twping.crypto;

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
    static final int BLOCK = 16;
    static final int HMAC_LENGTH = 16;

    private final BlockCipher encryptor = AESEngine.newInstance();
    private final BlockCipher decryptor = AESEngine.newInstance();
    private final HMac hmac = new HMac(new SHA1Digest());
    private final byte[] in = new byte[BLOCK];
    private final byte[] out = new byte[BLOCK];
    private final byte[] chain = new byte[BLOCK];
    private final byte[] nextChain = new byte[BLOCK];
    private final byte[] macOutput = new byte[20];
    private final byte[] macInput = new byte[6 * BLOCK];

    TestBlockCrypto(TestSessionKeys keys) {
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

    /** CBC-encrypts {@code blocks} blocks from offset 0 in place with IV 0. */
    void encryptCbc(MemorySegment segment, int blocks) {
        resetChain();
        for (int b = 0; b < blocks; b++) {
            encryptBlock(segment, (long) b * BLOCK);
        }
    }

    /** CBC-decrypts {@code blocks} blocks from offset 0 in place with IV 0. */
    void decryptCbc(MemorySegment segment, int blocks) {
        resetChain();
        for (int b = 0; b < blocks; b++) {
            decryptBlock(segment, (long) b * BLOCK);
        }
    }

    /** Starts a new HMAC computation (drops any partial one). */
    void macReset() {
        hmac.reset();
    }

    /** Feeds {@code length} plaintext bytes at {@code offset} into the running HMAC. */
    void macUpdate(MemorySegment segment, long offset, int length) {
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, macInput, 0, length);
        hmac.update(macInput, 0, length);
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
