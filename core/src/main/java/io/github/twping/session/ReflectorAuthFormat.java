package io.github.twping.session;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.digests.SHA1Digest;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.modes.CBCBlockCipher;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * Authenticated-format TWAMP-Test layouts (modes Authenticated and Encrypted): 48-byte sender header,
 * 112-byte reply header (spec 3.1, 3.2, 3.4). Authenticated: block 0 AES-ECB, HMAC over block 0 only;
 * Encrypted: AES-CBC with a zero IV per packet over 32 (sender) / 96 (reply) bytes, HMAC over the same
 * plaintext. HMAC-SHA1 truncated to 16 bytes. The reply is built in a plaintext scratch array whose MBZ
 * bytes stay zero, then encrypted into the wire buffer.
 */
final class ReflectorAuthFormat extends ReflectorFormat {
    static final int SENDER_SEQ = 0;
    static final int SENDER_TIMESTAMP = 16;
    static final int SENDER_ERROR = 24;
    static final int SENDER_HMAC = 32;
    static final int SENDER_HEADER = 48;
    static final int SEQ = 0;
    static final int TIMESTAMP = 16;
    static final int ERROR = 24;
    static final int RECEIVE_TIMESTAMP = 32;
    static final int COPIED_SEQ = 48;
    static final int COPIED_TIMESTAMP = 64;
    static final int COPIED_ERROR = 72;
    static final int SENDER_TTL = 80;
    static final int REPLY_HMAC = 96;
    static final int REPLY_HEADER = 112;
    static final int HMAC_LENGTH = 16;

    private final boolean encrypted;
    private final int senderCovered;
    private final int replyCovered;
    private final BlockCipher ecbDecrypt;
    private final BlockCipher ecbEncrypt;
    private final CBCBlockCipher cbcDecrypt;
    private final CBCBlockCipher cbcEncrypt;
    private final HMac hmac;
    private final byte[] senderScratch = new byte[SENDER_HEADER];
    private final byte[] replyPlain = new byte[REPLY_HEADER];
    private final byte[] replyCipher = new byte[REPLY_HEADER];
    private final byte[] mac = new byte[20];
    private final MemorySegment plain = MemorySegment.ofArray(replyPlain);

    ReflectorAuthFormat(boolean encrypted, byte[] testAesKey, byte[] testHmacKey) {
        if (testAesKey == null || testAesKey.length != 16 || testHmacKey == null || testHmacKey.length != 32) {
            throw new IllegalArgumentException("test keys must be 16 (AES) and 32 (HMAC) bytes");
        }
        this.encrypted = encrypted;
        this.senderCovered = encrypted ? 32 : 16;
        this.replyCovered = encrypted ? 96 : 16;
        KeyParameter aes = new KeyParameter(testAesKey);
        ecbDecrypt = AESEngine.newInstance();
        ecbDecrypt.init(false, aes);
        ecbEncrypt = AESEngine.newInstance();
        ecbEncrypt.init(true, aes);
        byte[] zeroIv = new byte[16];
        cbcDecrypt = (CBCBlockCipher) CBCBlockCipher.newInstance(AESEngine.newInstance());
        cbcDecrypt.init(false, new ParametersWithIV(aes, zeroIv));
        cbcEncrypt = (CBCBlockCipher) CBCBlockCipher.newInstance(AESEngine.newInstance());
        cbcEncrypt.init(true, new ParametersWithIV(aes, zeroIv));
        hmac = new HMac(new SHA1Digest());
        hmac.init(new KeyParameter(testHmacKey));
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
        MemorySegment.copy(request, ValueLayout.JAVA_BYTE, 0, senderScratch, 0, SENDER_HEADER);
        if (encrypted) {
            cbcDecrypt.reset();
            cbcDecrypt.processBlock(senderScratch, 0, senderScratch, 0);
            cbcDecrypt.processBlock(senderScratch, 16, senderScratch, 16);
        } else {
            ecbDecrypt.processBlock(senderScratch, 0, senderScratch, 0);
        }
        hmac.update(senderScratch, 0, senderCovered);
        hmac.doFinal(mac, 0);
        int diff = 0;
        for (int i = 0; i < HMAC_LENGTH; i++) {
            diff |= mac[i] ^ senderScratch[SENDER_HMAC + i];
        }
        if (diff != 0) {
            return false;
        }
        MemorySegment.copy(senderScratch, 0, request, ValueLayout.JAVA_BYTE, 0, senderCovered);
        return true;
    }

    @Override
    void buildReply(MemorySegment request, long reflectorSeq, long receiveNtp, int senderTtl) {
        plain.set(INT_BE, SEQ, (int) reflectorSeq);
        plain.set(LONG_BE, RECEIVE_TIMESTAMP, receiveNtp);
        MemorySegment.copy(request, SENDER_SEQ, plain, COPIED_SEQ, 4);
        MemorySegment.copy(request, SENDER_TIMESTAMP, plain, COPIED_TIMESTAMP, 8);
        MemorySegment.copy(request, SENDER_ERROR, plain, COPIED_ERROR, 2);
        plain.set(ValueLayout.JAVA_BYTE, SENDER_TTL, (byte) senderTtl);
    }

    @Override
    void sealReply(MemorySegment wire, long sendNtp, int errorEstimate) {
        plain.set(LONG_BE, TIMESTAMP, sendNtp);
        plain.set(SHORT_BE, ERROR, (short) errorEstimate);
        if (encrypted) {
            cbcEncrypt.reset();
            for (int off = 0; off < replyCovered; off += 16) {
                cbcEncrypt.processBlock(replyPlain, off, replyCipher, off);
            }
        } else {
            ecbEncrypt.processBlock(replyPlain, 0, replyCipher, 0);
            System.arraycopy(replyPlain, 16, replyCipher, 16, REPLY_HMAC - 16);
        }
        hmac.update(replyPlain, 0, replyCovered);
        hmac.doFinal(mac, 0);
        System.arraycopy(mac, 0, replyCipher, REPLY_HMAC, HMAC_LENGTH);
        MemorySegment.copy(replyCipher, 0, wire, ValueLayout.JAVA_BYTE, 0, REPLY_HEADER);
    }

    @Override
    int replyHmacOffset() {
        return REPLY_HMAC;
    }

    @Override
    void destroy() {
        byte[] zero = new byte[16];
        ecbDecrypt.init(false, new KeyParameter(zero));
        ecbEncrypt.init(true, new KeyParameter(zero));
        hmac.init(new KeyParameter(new byte[32]));
        Arrays.fill(senderScratch, (byte) 0);
        Arrays.fill(replyPlain, (byte) 0);
        Arrays.fill(replyCipher, (byte) 0);
        Arrays.fill(mac, (byte) 0);
    }
}
