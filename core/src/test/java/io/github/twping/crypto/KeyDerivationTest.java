package io.github.twping.crypto;

import static io.github.twping.crypto.ControlVectors.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeyDerivationTest {
    @Test
    void shouldReproduceAppendixCPbkdf2Vector() {
        byte[] dk = KeyDerivation.pbkdf2HmacSha1("testpass".getBytes(StandardCharsets.US_ASCII),
                "some funny saltT".getBytes(StandardCharsets.US_ASCII), 1024);
        assertEquals("16f7b626d9e63369d75e956febbd0472", hex(dk));
    }

    @Test
    void shouldReproduceEncryptedCaptureKey() {
        byte[] dk = KeyDerivation.pbkdf2HmacSha1(ControlVectors.ALICE_PASSPHRASE,
                hex("8ef5fa9530032002bb9dc45f8e562ad0"), 2048);
        assertEquals("be0000737dc40f8717741c5b0829985d", hex(dk));
    }

    @Test
    void shouldDeriveFromEmptyPassphraseLikeSingleZeroByteKey() {
        byte[] salt = new byte[16];
        byte[] empty = KeyDerivation.pbkdf2HmacSha1(new byte[0], salt, 1);
        byte[] zero = KeyDerivation.pbkdf2HmacSha1(new byte[1], salt, 1);
        assertEquals(16, empty.length);
        // HMAC pads the key with zeros, so "" and "\0" are the same HMAC key.
        assertArrayEquals(zero, empty);
        assertNotEquals(hex(empty), hex(KeyDerivation.pbkdf2HmacSha1(new byte[] {1}, salt, 1)));
    }

    @Test
    void shouldRejectNonPositiveCount() {
        assertThrows(IllegalArgumentException.class, () -> KeyDerivation.pbkdf2HmacSha1(new byte[1], new byte[16], 0));
    }
}
