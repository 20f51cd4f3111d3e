package io.github.twping.crypto;

/** Comparison helpers whose running time does not depend on where inputs differ (MAC and challenge checks). */
final class ConstantTime {
    private ConstantTime() {
    }

    /** @return true when {@code a[aOff..aOff+len)} equals {@code b[bOff..bOff+len)}, in time independent of the content. */
    static boolean equals(byte[] a, int aOff, byte[] b, int bOff, int len) {
        int diff = 0;
        for (int i = 0; i < len; i++) {
            diff |= a[aOff + i] ^ b[bOff + i];
        }
        return diff == 0;
    }
}
