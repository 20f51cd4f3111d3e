package io.github.twping.crypto;

import java.lang.foreign.MemorySegment;

/** Open-mode control "cipher": passes bytes through, sends zero HMAC fields and accepts any received HMAC. */
final class OpenControlCipher implements ControlCipher {
    static final OpenControlCipher INSTANCE = new OpenControlCipher();

    private OpenControlCipher() {
    }

    @Override
    public void encrypt(MemorySegment segment, long offset, int length) {
        // clear text
    }

    @Override
    public void sealHmac(MemorySegment segment, long offset) {
        segment.asSlice(offset, HMAC_LENGTH).fill((byte) 0);
    }

    @Override
    public void decrypt(MemorySegment segment, long offset, int length) {
        // clear text
    }

    @Override
    public boolean verifyHmac(MemorySegment segment, long offset) {
        return true;
    }

    @Override
    public void resetReceiveHmac() {
        // nothing to reset
    }

    @Override
    public void close() {
        // stateless
    }
}
