package io.github.twping.crypto;

import java.lang.foreign.MemorySegment;

/**
 * Protection of the TWAMP-Control stream after Server-Start byte 31 (RFC 4656 section 3.4, RFC 4656 §3.4),
 * for one connection end: a send direction and a receive direction, each with its own continuous
 * CBC chain and running HMAC. Chosen once per connection: {@link #open()} for Open mode (and after
 * a rejected Server-Start), {@link #protectedMode} for Authenticated, Encrypted and Mixed.
 *
 * <p>A message is sent as {@code encrypt(header)} then {@code sealHmac(hmacField)}; it is received
 * as {@code decrypt(header)} then {@code verifyHmac(hmacField)}. Lengths are multiples of 16.
 * Not thread-safe: one thread per direction at most.
 */
public interface ControlCipher extends AutoCloseable {
    /** HMAC field length. */
    int HMAC_LENGTH = 16;

    /**
     * Feeds the plaintext blocks to the send HMAC and encrypts them in place (continuing the send
     * CBC chain). Used for message bodies and for Server-Start bytes 32..47 (server side).
     */
    void encrypt(MemorySegment segment, long offset, int length);

    /**
     * Writes the truncated send HMAC into the 16 bytes at {@code offset}, re-initialises the send
     * HMAC, then encrypts that block in place. Open mode writes zeros.
     */
    void sealHmac(MemorySegment segment, long offset);

    /**
     * Decrypts received blocks in place (continuing the receive CBC chain) and feeds the plaintext to
     * the receive HMAC. Used for message bodies and for Server-Start bytes 32..47 (client side).
     */
    void decrypt(MemorySegment segment, long offset, int length);

    /**
     * Decrypts the 16-byte HMAC field at {@code offset} in place, compares it in constant time with
     * the finalised receive HMAC and re-initialises the receive HMAC.
     *
     * @return true when it matches (always true in Open mode, where the field is not checked)
     */
    boolean verifyHmac(MemorySegment segment, long offset);

    /** Discards what the receive HMAC has absorbed since its last finalisation. */
    void resetReceiveHmac();

    /** Wipes the keys and cipher state; the cipher must not be used afterwards. */
    @Override
    void close();

    /** @return the pass-through cipher of Open mode (no encryption, zero HMAC fields sent, none checked). */
    static ControlCipher open() {
        return OpenControlCipher.INSTANCE;
    }

    /**
     * Creates the AES-128-CBC + HMAC-SHA1/128 cipher of the protected modes. The arrays are copied;
     * the caller wipes its own copies.
     *
     * @param aesKey16  K_aes from the Token
     * @param hmacKey32 K_hmac from the Token
     * @param sendIv16  initial IV of this end's send direction (client: Client-IV, server: Server-IV)
     * @param receiveIv16 initial IV of the receive direction (client: Server-IV, server: Client-IV)
     */
    static ControlCipher protectedMode(byte[] aesKey16, byte[] hmacKey32, byte[] sendIv16, byte[] receiveIv16) {
        return new ChainedControlCipher(aesKey16, hmacKey32, sendIv16, receiveIv16);
    }
}
