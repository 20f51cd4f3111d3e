package io.github.twping.crypto;

import static io.github.twping.crypto.ControlVectors.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TokenTest {
    private static final byte[] DK = hex("16f7b626d9e63369d75e956febbd0472");
    private static final byte[] CHALLENGE = "just a challenge".getBytes(StandardCharsets.US_ASCII);
    private static final String APPENDIX_C_TOKEN = "31c272def01165f643386a4c022dc09d46006e8aaa8c749ac77a2ba33be03c06"
            + "219c4a78302ae50c98920626bf8100bfffb07cb6c1553d873c9bac778ef7733b";

    private static byte[] range(int from, int count) {
        byte[] b = new byte[count];
        for (int i = 0; i < count; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    @Test
    void shouldSealAppendixCToken() {
        assertEquals(APPENDIX_C_TOKEN, hex(Token.seal(DK, CHALLENGE, range(0x10, 16), range(0x20, 32))));
    }

    @Test
    void shouldOpenAppendixCTokenAndExtractKeys() {
        byte[] aes = new byte[16];
        byte[] hmac = new byte[32];
        assertTrue(Token.open(DK, hex(APPENDIX_C_TOKEN), CHALLENGE, aes, hmac));
        assertEquals(hex(range(0x10, 16)), hex(aes));
        assertEquals(hex(range(0x20, 32)), hex(hmac));
    }

    @Test
    void shouldRefuseTokenWithOtherChallengeAndZeroKeys() {
        byte[] aes = new byte[16];
        byte[] hmac = new byte[32];
        byte[] other = CHALLENGE.clone();
        other[15] ^= 1;
        assertFalse(Token.open(DK, hex(APPENDIX_C_TOKEN), other, aes, hmac));
        assertEquals(hex(new byte[16]), hex(aes));
        assertEquals(hex(new byte[32]), hex(hmac));
    }

    @Test
    void shouldRefuseTokenUnderWrongKey() {
        byte[] wrongDk = DK.clone();
        wrongDk[0] ^= 0x40;
        assertFalse(Token.open(wrongDk, hex(APPENDIX_C_TOKEN), CHALLENGE, new byte[16], new byte[32]));
    }
}
