package io.github.twping.crypto;

import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * The keys protecting one TWAMP-Test session in modes Authenticated and Encrypted (RFC 4656 §4.1.1, docs/PROTOCOL-TEST.md).
 *
 * <p>{@code K_test_aes = AES-128-ECB(key = SID, K_aes)}; {@code K_test_hmac = AES-128-CBC(key = SID,
 * IV = 0, K_hmac)} (32 bytes). Both directions use the same keys. Immutable; accessors return copies.
 */
public final class TestSessionKeys {
    /** Length of K_test_aes. */
    public static final int AES_KEY_LENGTH = 16;
    /** Length of K_test_hmac. */
    public static final int HMAC_KEY_LENGTH = 32;

    private final byte[] aesKey;
    private final byte[] hmacKey;

    private TestSessionKeys(byte[] aesKey, byte[] hmacKey) {
        this.aesKey = aesKey;
        this.hmacKey = hmacKey;
    }

    /**
     * Derives the test keys from the SID of Accept-Session and the control-session keys of the Token.
     *
     * @param sid16   the 16-byte SID
     * @param kAes16  the 16-byte control AES session key K_aes
     * @param kHmac32 the 32-byte control HMAC key K_hmac
     */
    public static TestSessionKeys derive(byte[] sid16, byte[] kAes16, byte[] kHmac32) {
        requireLength(sid16, 16, "SID");
        requireLength(kAes16, 16, "K_aes");
        requireLength(kHmac32, 32, "K_hmac");
        BlockCipher aes = AESEngine.newInstance();
        aes.init(true, new KeyParameter(sid16));
        byte[] testAes = new byte[AES_KEY_LENGTH];
        aes.processBlock(kAes16, 0, testAes, 0);
        byte[] testHmac = new byte[HMAC_KEY_LENGTH];
        byte[] block = new byte[16];
        // CBC with IV 0: block 0 = E(P0), block 1 = E(P1 xor C0)
        aes.processBlock(kHmac32, 0, testHmac, 0);
        for (int i = 0; i < 16; i++) {
            block[i] = (byte) (kHmac32[16 + i] ^ testHmac[i]);
        }
        aes.processBlock(block, 0, testHmac, 16);
        return new TestSessionKeys(testAes, testHmac);
    }

    /** Creates keys from already derived K_test_aes and K_test_hmac (e.g. test vectors). */
    public static TestSessionKeys of(byte[] testAesKey16, byte[] testHmacKey32) {
        requireLength(testAesKey16, AES_KEY_LENGTH, "K_test_aes");
        requireLength(testHmacKey32, HMAC_KEY_LENGTH, "K_test_hmac");
        return new TestSessionKeys(testAesKey16.clone(), testHmacKey32.clone());
    }

    /** Returns a copy of K_test_aes. */
    public byte[] aesKey() {
        return aesKey.clone();
    }

    /** Returns a copy of K_test_hmac. */
    public byte[] hmacKey() {
        return hmacKey.clone();
    }

    private static void requireLength(byte[] value, int length, String name) {
        if (value == null || value.length != length) {
            throw new IllegalArgumentException(name + " must be " + length + " bytes");
        }
    }
}
