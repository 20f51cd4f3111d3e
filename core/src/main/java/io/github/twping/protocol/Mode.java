package io.github.twping.protocol;

/**
 * TWAMP-Control mode: one bit of the Modes field of the Server-Greeting and the Mode word of the
 * Set-Up-Response (RFC 4656 section 3.1, RFC 5357 section 3.1, RFC 5618 for {@link #MIXED}).
 *
 * <p>The control channel is protected (AES-CBC + HMAC) in every mode except {@link #OPEN}; the test
 * packets use the authenticated layout only in {@link #AUTHENTICATED} and {@link #ENCRYPTED}.
 */
public enum Mode {
    /** Unauthenticated: clear control channel with zero HMAC fields, unauthenticated test packets. */
    OPEN(1, 'O'),
    /** Authenticated: protected control channel, test packets with block 0 AES-ECB and an HMAC. */
    AUTHENTICATED(2, 'A'),
    /** Encrypted: protected control channel, test packets AES-CBC encrypted with an HMAC. */
    ENCRYPTED(4, 'E'),
    /** Mixed (RFC 5618): protected control channel, test packets exactly as in Open mode. */
    MIXED(8, 'M');

    /** Bit mask of every mode defined for TWAMP. */
    public static final int ALL_BITS = 0x0F;

    /** Preference order of the C client: Encrypted, Authenticated, Mixed, Open (RFC 4656 §3.1 step 5). */
    private static final Mode[] CLIENT_PREFERENCE = {ENCRYPTED, AUTHENTICATED, MIXED, OPEN};

    private final int bits;
    private final char letter;

    Mode(int bits, char letter) {
        this.bits = bits;
        this.letter = letter;
    }

    /** @return the single-bit wire value of this mode (1, 2, 4 or 8). */
    public int bits() {
        return bits;
    }

    /** @return the {@code -A} letter naming this mode ({@code O}, {@code A}, {@code E}, {@code M}). */
    public char letter() {
        return letter;
    }

    /** @return true when the control messages after Server-Start byte 31 are encrypted and HMAC-protected. */
    public boolean protectsControl() {
        return this != OPEN;
    }

    /** @return true when TWAMP-Test packets use the authenticated (keyed) layout. */
    public boolean authenticatedTestPackets() {
        return this == AUTHENTICATED || this == ENCRYPTED;
    }

    /** @return true when {@code mask} contains this mode's bit. */
    public boolean isIn(int mask) {
        return (mask & bits) != 0;
    }

    /**
     * Decodes a Mode word that must carry exactly one defined bit.
     *
     * @return the mode, or {@code null} for 0, several bits, or undefined bits (the server closes then)
     */
    public static Mode fromBits(int value) {
        return switch (value) {
            case 1 -> OPEN;
            case 2 -> AUTHENTICATED;
            case 4 -> ENCRYPTED;
            case 8 -> MIXED;
            default -> null;
        };
    }

    /**
     * Chooses the mode the C client would use from the modes available to it (offered AND requested,
     * minus the keyed modes when no identity is in effect): E &gt; A &gt; M &gt; O.
     *
     * @return the preferred mode, or {@code null} when the mask holds no mode ("No Common Modes")
     */
    public static Mode choose(int availableMask) {
        for (Mode mode : CLIENT_PREFERENCE) {
            if (mode.isIn(availableMask)) {
                return mode;
            }
        }
        return null;
    }

    /**
     * Parses an {@code -A} argument: each character (case-insensitive) adds one mode bit, order and
     * repetition do not matter, the empty string gives 0.
     *
     * @return the mask (0..15), or {@code -1 - index} of the first invalid character
     */
    public static int parseLetters(CharSequence letters) {
        int mask = 0;
        for (int i = 0; i < letters.length(); i++) {
            switch (Character.toUpperCase(letters.charAt(i))) {
                case 'O' -> mask |= OPEN.bits;
                case 'A' -> mask |= AUTHENTICATED.bits;
                case 'E' -> mask |= ENCRYPTED.bits;
                case 'M' -> mask |= MIXED.bits;
                default -> {
                    return -1 - i;
                }
            }
        }
        return mask;
    }

    /** @return the letters of the modes in {@code mask}, in the order O, A, E, M ({@code ""} for none). */
    public static String letters(int mask) {
        StringBuilder sb = new StringBuilder(4);
        for (Mode mode : values()) {
            if (mode.isIn(mask)) {
                sb.append(mode.letter);
            }
        }
        return sb.toString();
    }

    /** @return the mask of the given modes. */
    public static int mask(Mode... modes) {
        int mask = 0;
        for (Mode mode : modes) {
            mask |= mode.bits;
        }
        return mask;
    }

    /** @return the mask with the keyed modes (A, E, M) removed, as when no identity is in effect. */
    public static int withoutKeyedModes(int mask) {
        return mask & OPEN.bits;
    }
}
