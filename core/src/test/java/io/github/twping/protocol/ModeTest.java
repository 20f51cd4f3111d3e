package io.github.twping.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ModeTest {
    @Test
    void shouldPreferEncryptedThenAuthenticatedThenMixedThenOpen() {
        assertEquals(Mode.ENCRYPTED, Mode.choose(0xF));
        assertEquals(Mode.AUTHENTICATED, Mode.choose(0xB));
        assertEquals(Mode.MIXED, Mode.choose(0x9));
        assertEquals(Mode.OPEN, Mode.choose(0x1));
        assertNull(Mode.choose(0));
        assertNull(Mode.choose(0x10));
    }

    @Test
    void shouldDecodeSingleBitModesOnly() {
        assertEquals(Mode.OPEN, Mode.fromBits(1));
        assertEquals(Mode.AUTHENTICATED, Mode.fromBits(2));
        assertEquals(Mode.ENCRYPTED, Mode.fromBits(4));
        assertEquals(Mode.MIXED, Mode.fromBits(8));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 12, 16, -1, 0x80000000})
    void shouldRejectInvalidModeWords(int value) {
        assertNull(Mode.fromBits(value));
    }

    @Test
    void shouldParseLetterMasksCaseInsensitively() {
        assertEquals(0xF, Mode.parseLetters("oaem"));
        assertEquals(0x6, Mode.parseLetters("EAEA"));
        assertEquals(0, Mode.parseLetters(""));
        assertEquals(-1 - 1, Mode.parseLetters("AZ"));
    }

    @Test
    void shouldRenderAndBuildMasks() {
        assertEquals("OAEM", Mode.letters(Mode.parseLetters("meao")));
        assertEquals("AE", Mode.letters(Mode.mask(Mode.ENCRYPTED, Mode.AUTHENTICATED)));
        assertEquals("", Mode.letters(0));
        assertEquals(Mode.ALL_BITS, Mode.mask(Mode.values()));
    }

    @Test
    void shouldDescribeProtection() {
        assertFalse(Mode.OPEN.protectsControl());
        assertTrue(Mode.MIXED.protectsControl());
        assertFalse(Mode.MIXED.authenticatedTestPackets());
        assertTrue(Mode.ENCRYPTED.authenticatedTestPackets());
        assertEquals(1, Mode.withoutKeyedModes(0xF));
    }

    @Test
    void shouldValidateAcceptCodes() {
        for (int i = 0; i <= 5; i++) {
            assertEquals(i, AcceptCode.fromCode(i).code());
        }
        assertNull(AcceptCode.fromCode(6));
        assertNull(AcceptCode.fromCode(-1));
        assertFalse(AcceptCode.isValid(255));
    }
}
