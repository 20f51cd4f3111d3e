package io.github.twping.crypto;

import org.bouncycastle.crypto.digests.SHA1Digest;
import org.bouncycastle.crypto.generators.PKCS5S2ParametersGenerator;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * Derives the 16-byte Token key from a shared pass-phrase (RFC 4656 section 3.1, RFC 4656 §3.1):
 * PBKDF2 (RFC 2898) with HMAC-SHA1 over the raw pass-phrase bytes and the Greeting's Salt and Count.
 */
public final class KeyDerivation {
    /** Length of the derived key in bytes (an AES-128 key). */
    public static final int KEY_LENGTH = 16;

    private KeyDerivation() {
    }

    /**
     * Computes PBKDF2-HMAC-SHA1(passphrase, salt, count, 16). A zero-length pass-phrase is valid
     * (HMAC with an empty key).
     *
     * @param passphrase raw pass-phrase bytes (not copied, not modified)
     * @param salt16     the Greeting Salt
     * @param count      iteration count, at least 1
     * @return a new 16-byte key; the caller wipes it when done
     * @throws IllegalArgumentException for a count below 1 (the caller validates untrusted input)
     */
    public static byte[] pbkdf2HmacSha1(byte[] passphrase, byte[] salt16, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("PBKDF2 count must be >= 1: " + count);
        }
        PKCS5S2ParametersGenerator generator = new PKCS5S2ParametersGenerator(new SHA1Digest());
        generator.init(passphrase, salt16, count);
        KeyParameter key = (KeyParameter) generator.generateDerivedParameters(KEY_LENGTH * 8);
        return key.getKey();
    }
}
