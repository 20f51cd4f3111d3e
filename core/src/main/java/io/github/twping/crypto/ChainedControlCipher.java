package io.github.twping.crypto;

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
 * AES-128-CBC + HMAC-SHA1/128 control protection of the Authenticated, Encrypted and Mixed modes:
 * one unbroken CBC stream and one running HMAC per direction (MAC over plaintext, then encrypt).
 */
final class ChainedControlCipher implements ControlCipher {
    private static final int BLOCK = 16;

    private final BlockCipher sendCbc;
    private final BlockCipher receiveCbc;
    private final HMac sendMac;
    private final HMac receiveMac;
    private final byte[] aesKey;
    private final byte[] hmacKey;
    private final byte[] block = new byte[BLOCK];
    private final byte[] out = new byte[BLOCK];
    private final byte[] digest = new byte[20];
    private boolean closed;

    ChainedControlCipher(byte[] aesKey16, byte[] hmacKey32, byte[] sendIv16, byte[] receiveIv16) {
        this.aesKey = aesKey16.clone();
        this.hmacKey = hmacKey32.clone();
        this.sendCbc = CBCBlockCipher.newInstance(AESEngine.newInstance());
        this.sendCbc.init(true, new ParametersWithIV(new KeyParameter(aesKey), sendIv16.clone()));
        this.receiveCbc = CBCBlockCipher.newInstance(AESEngine.newInstance());
        this.receiveCbc.init(false, new ParametersWithIV(new KeyParameter(aesKey), receiveIv16.clone()));
        this.sendMac = new HMac(new SHA1Digest());
        this.sendMac.init(new KeyParameter(hmacKey));
        this.receiveMac = new HMac(new SHA1Digest());
        this.receiveMac.init(new KeyParameter(hmacKey));
    }

    @Override
    public void encrypt(MemorySegment segment, long offset, int length) {
        checkBlocks(length);
        for (int i = 0; i < length; i += BLOCK) {
            MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset + i, block, 0, BLOCK);
            sendMac.update(block, 0, BLOCK);
            sendCbc.processBlock(block, 0, out, 0);
            MemorySegment.copy(out, 0, segment, ValueLayout.JAVA_BYTE, offset + i, BLOCK);
        }
    }

    @Override
    public void sealHmac(MemorySegment segment, long offset) {
        checkOpen();
        sendMac.doFinal(digest, 0); // finalises and re-initialises with the same key
        sendCbc.processBlock(digest, 0, out, 0);
        MemorySegment.copy(out, 0, segment, ValueLayout.JAVA_BYTE, offset, BLOCK);
    }

    @Override
    public void decrypt(MemorySegment segment, long offset, int length) {
        checkBlocks(length);
        for (int i = 0; i < length; i += BLOCK) {
            MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset + i, block, 0, BLOCK);
            receiveCbc.processBlock(block, 0, out, 0);
            receiveMac.update(out, 0, BLOCK);
            MemorySegment.copy(out, 0, segment, ValueLayout.JAVA_BYTE, offset + i, BLOCK);
        }
    }

    @Override
    public boolean verifyHmac(MemorySegment segment, long offset) {
        checkOpen();
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, block, 0, BLOCK);
        receiveCbc.processBlock(block, 0, out, 0);
        MemorySegment.copy(out, 0, segment, ValueLayout.JAVA_BYTE, offset, BLOCK);
        receiveMac.doFinal(digest, 0);
        return ConstantTime.equals(digest, 0, out, 0, HMAC_LENGTH);
    }

    @Override
    public void resetReceiveHmac() {
        checkOpen();
        receiveMac.reset();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        sendCbc.reset();
        receiveCbc.reset();
        sendMac.reset();
        receiveMac.reset();
        Arrays.fill(aesKey, (byte) 0);
        Arrays.fill(hmacKey, (byte) 0);
        Arrays.fill(block, (byte) 0);
        Arrays.fill(out, (byte) 0);
        Arrays.fill(digest, (byte) 0);
    }

    private void checkBlocks(int length) {
        checkOpen();
        if (length % BLOCK != 0) {
            throw new IllegalArgumentException("control data must be whole 16-byte blocks: " + length);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("control cipher closed");
        }
    }
}
