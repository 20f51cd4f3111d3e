package io.github.twping.crypto;

import java.util.Arrays;
import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.CBCBlockCipher;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * The 64-byte Token of the Set-Up-Response (RFC 4656 section 3.1, RFC 4656 §3.1): AES-128-CBC with the
 * PBKDF2 key and a zero IV over {@code Challenge(16) || K_aes(16) || K_hmac(32)}.
 */
public final class Token {
    /** Token length in bytes. */
    public static final int LENGTH = 64;
    public static final int CHALLENGE_LENGTH = 16;
    public static final int AES_KEY_LENGTH = 16;
    public static final int HMAC_KEY_LENGTH = 32;

    private static final int BLOCK = 16;

    private Token() {
    }

    /**
     * Builds the encrypted Token (client side).
     *
     * @return a new 64-byte array holding the ciphertext
     */
    public static byte[] seal(byte[] derivedKey16, byte[] challenge16, byte[] aesKey16, byte[] hmacKey32) {
        byte[] plain = new byte[LENGTH];
        System.arraycopy(challenge16, 0, plain, 0, CHALLENGE_LENGTH);
        System.arraycopy(aesKey16, 0, plain, CHALLENGE_LENGTH, AES_KEY_LENGTH);
        System.arraycopy(hmacKey32, 0, plain, CHALLENGE_LENGTH + AES_KEY_LENGTH, HMAC_KEY_LENGTH);
        byte[] token = new byte[LENGTH];
        cbc(true, derivedKey16, plain, token);
        Arrays.fill(plain, (byte) 0);
        return token;
    }

    /**
     * Decrypts a Token and checks its challenge (server side). The whole Token is always decrypted
     * and compared in constant time, so success and failure take the same time.
     *
     * @param aesKeyOut16   receives K_aes (only meaningful on success; zeroed on failure)
     * @param hmacKeyOut32  receives K_hmac (only meaningful on success; zeroed on failure)
     * @return true when the decrypted challenge equals {@code expectedChallenge16}
     */
    public static boolean open(byte[] derivedKey16, byte[] token64, byte[] expectedChallenge16,
                               byte[] aesKeyOut16, byte[] hmacKeyOut32) {
        byte[] plain = new byte[LENGTH];
        cbc(false, derivedKey16, token64, plain);
        boolean ok = ConstantTime.equals(plain, 0, expectedChallenge16, 0, CHALLENGE_LENGTH);
        System.arraycopy(plain, CHALLENGE_LENGTH, aesKeyOut16, 0, AES_KEY_LENGTH);
        System.arraycopy(plain, CHALLENGE_LENGTH + AES_KEY_LENGTH, hmacKeyOut32, 0, HMAC_KEY_LENGTH);
        Arrays.fill(plain, (byte) 0);
        if (!ok) {
            Arrays.fill(aesKeyOut16, (byte) 0);
            Arrays.fill(hmacKeyOut32, (byte) 0);
        }
        return ok;
    }

    private static void cbc(boolean encrypt, byte[] key, byte[] in, byte[] out) {
        BlockCipher cipher = CBCBlockCipher.newInstance(AESEngine.newInstance());
        cipher.init(encrypt, new ParametersWithIV(new KeyParameter(key), new byte[BLOCK]));
        for (int off = 0; off < LENGTH; off += BLOCK) {
            cipher.processBlock(in, off, out, off);
        }
        cipher.reset();
    }
}
