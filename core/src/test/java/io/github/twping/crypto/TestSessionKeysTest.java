package io.github.twping.crypto;

import static io.github.twping.crypto.TestVectors.HEX;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TestSessionKeysTest {

    @Test
    void shouldDeriveAppendixCVector() {
        byte[] kAes = new byte[16];
        byte[] kHmac = new byte[32];
        for (int i = 0; i < 16; i++) {
            kAes[i] = (byte) (0x10 + i);
        }
        for (int i = 0; i < 32; i++) {
            kHmac[i] = (byte) (0x20 + i);
        }
        TestSessionKeys keys = TestSessionKeys.derive(HEX.parseHex("c0000201e9b1a2c38000000012345678"), kAes, kHmac);
        assertArrayEquals(HEX.parseHex("3feb50bbc878c62a4932ee163a5bae6e"), keys.aesKey());
        assertArrayEquals(HEX.parseHex("cc5927c1630e9c0e2cdc3be4fab7b882add443e3bf9fd2012e94effebb12467b"), keys.hmacKey());
    }

    @ParameterizedTest
    @ValueSource(strings = {"auth", "enc"})
    void shouldDeriveRecordedSessionKeys(String mode) throws Exception {
        TestSessionKeys keys = TestSessionKeys.derive(TestVectors.cryptoValue(mode, "sid="),
            TestVectors.cryptoValue(mode, "aes_session_key="), TestVectors.cryptoValue(mode, "hmac_key="));
        assertArrayEquals(TestVectors.cryptoValue(mode, "test aes key="), keys.aesKey());
        assertArrayEquals(TestVectors.cryptoValue(mode, "test hmac key="), keys.hmacKey());
    }

    @Test
    void shouldRejectWrongKeyLengths() {
        assertThrows(IllegalArgumentException.class, () -> TestSessionKeys.derive(new byte[15], new byte[16], new byte[32]));
        assertThrows(IllegalArgumentException.class, () -> TestSessionKeys.derive(new byte[16], new byte[16], new byte[16]));
        assertThrows(IllegalArgumentException.class, () -> TestSessionKeys.derive(new byte[16], null, new byte[32]));
    }
}
