package io.github.twping.schedule;

import org.bouncycastle.crypto.MultiBlockCipher;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * The owamp uniform 32-bit generator: AES-128 in counter mode keyed by the SID (RFC 4656 §5, docs/PROTOCOL-TEST.md).
 *
 * <p>State: a 128-bit counter C (starts at 0) advanced once per 32-bit word, and the output block
 * {@code O = AES_SID(C)} computed whenever {@code C mod 4 == 0}; word {@code C mod 4} of O is returned,
 * big-endian. The keystream is therefore {@code AES(0) ‖ AES(4) ‖ AES(8) ‖ …}. One AES block per four
 * words; no allocation after construction. Not thread-safe.
 */
public final class AesCounterRandom {
    private final MultiBlockCipher aes = AESEngine.newInstance();
    private final byte[] counterBlock = new byte[16];
    private final byte[] outputBlock = new byte[16];
    private long counterHigh;
    private long counterLow;

    /** Creates a generator keyed by the 16-byte SID. */
    public AesCounterRandom(byte[] sid16) {
        if (sid16 == null || sid16.length != 16) {
            throw new IllegalArgumentException("SID must be 16 bytes");
        }
        aes.init(true, new KeyParameter(sid16.clone()));
    }

    /** Resets the counter to 0. */
    public void reset() {
        counterHigh = 0;
        counterLow = 0;
    }

    /** Returns the next uniform 32-bit word as an unsigned value in a {@code long} (0 .. 2^32-1). */
    public long nextUnsigned32() {
        int q = (int) (counterLow & 3);
        if (q == 0) {
            writeBigEndian(counterHigh, counterBlock, 0);
            writeBigEndian(counterLow, counterBlock, 8);
            aes.processBlock(counterBlock, 0, outputBlock, 0);
        }
        counterLow++;
        if (counterLow == 0) {
            counterHigh++;
        }
        int offset = q << 2;
        return ((outputBlock[offset] & 0xFFL) << 24) | ((outputBlock[offset + 1] & 0xFFL) << 16)
            | ((outputBlock[offset + 2] & 0xFFL) << 8) | (outputBlock[offset + 3] & 0xFFL);
    }

    private static void writeBigEndian(long value, byte[] target, int offset) {
        for (int i = 7; i >= 0; i--) {
            target[offset + i] = (byte) value;
            value >>>= 8;
        }
    }
}
