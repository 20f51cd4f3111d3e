package io.github.twping.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.protocol.TestPacketLayout.Protection;
import org.junit.jupiter.api.Test;

class TestPacketLayoutTest {

    private static String mbz(TestPacketLayout layout) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < layout.mbzRanges(); i++) {
            sb.append(i == 0 ? "" : " ").append(layout.mbzOffset(i)).append('+').append(layout.mbzLength(i));
        }
        return sb.toString();
    }

    @Test
    void shouldDeriveTheMbzRangesOfRfc5357() {
        assertEquals("", mbz(TestPacketLayout.UNAUTHENTICATED_SENDER));
        assertEquals("4+12 26+6", mbz(TestPacketLayout.AUTHENTICATED_SENDER));
        assertEquals("14+2 38+2", mbz(TestPacketLayout.UNAUTHENTICATED_REFLECTOR));
        assertEquals("4+12 26+6 40+8 52+12 74+6 81+15", mbz(TestPacketLayout.AUTHENTICATED_REFLECTOR));
    }

    @Test
    void shouldDescribeLengthsAndHmacFields() {
        assertEquals(14, TestPacketLayout.UNAUTHENTICATED_SENDER.length());
        assertEquals(48, TestPacketLayout.AUTHENTICATED_SENDER.length());
        assertEquals(41, TestPacketLayout.UNAUTHENTICATED_REFLECTOR.length());
        assertEquals(112, TestPacketLayout.AUTHENTICATED_REFLECTOR.length());
        assertFalse(TestPacketLayout.UNAUTHENTICATED_SENDER.authenticated());
        assertEquals(TestPacketLayout.ABSENT, TestPacketLayout.UNAUTHENTICATED_REFLECTOR.hmacOffset());
        assertEquals(32, TestPacketLayout.AUTHENTICATED_SENDER.hmacOffset());
        assertEquals(96, TestPacketLayout.AUTHENTICATED_REFLECTOR.hmacOffset());
        assertEquals(TestPacketLayout.ABSENT, TestPacketLayout.AUTHENTICATED_SENDER.receiveTimestampOffset());
    }

    @Test
    void shouldProtectBlockZeroInAuthenticatedAndThePrefixInEncryptedMode() {
        assertEquals(new Protection(0, 16, 0, 16), TestPacketLayout.AUTHENTICATED_SENDER.protection(Mode.AUTHENTICATED));
        assertEquals(new Protection(0, 32, 0, 32), TestPacketLayout.AUTHENTICATED_SENDER.protection(Mode.ENCRYPTED));
        assertEquals(new Protection(0, 16, 0, 16),
            TestPacketLayout.AUTHENTICATED_REFLECTOR.protection(Mode.AUTHENTICATED));
        assertEquals(new Protection(0, 96, 0, 96), TestPacketLayout.AUTHENTICATED_REFLECTOR.protection(Mode.ENCRYPTED));
        for (Mode mode : Mode.values()) {
            assertSame(Protection.NONE, TestPacketLayout.UNAUTHENTICATED_SENDER.protection(mode));
            assertSame(Protection.NONE, TestPacketLayout.UNAUTHENTICATED_REFLECTOR.protection(mode));
        }
        assertTrue(TestPacketLayout.AUTHENTICATED_SENDER.protection(Mode.ENCRYPTED).authenticates());
    }

    @Test
    void shouldCheckThatADatagramHoldsTheLayout() {
        assertTrue(TestPacketLayout.UNAUTHENTICATED_REFLECTOR.fits(41, 41));
        assertFalse(TestPacketLayout.UNAUTHENTICATED_REFLECTOR.fits(41, 40));
        assertFalse(TestPacketLayout.UNAUTHENTICATED_REFLECTOR.fits(40, 41));
    }

    @Test
    void shouldRefuseOverlappingOrIncompleteDescriptions() {
        assertThrows(IllegalArgumentException.class, () -> TestPacketLayout.builder("overlap", TestPacketLayout.Role.SENDER)
            .sequence(0).timestamp(2).errorEstimate(12).length(14).build());
        assertThrows(IllegalArgumentException.class, () -> TestPacketLayout.builder("outside", TestPacketLayout.Role.SENDER)
            .sequence(0).timestamp(4).errorEstimate(12).length(13).build());
        assertThrows(IllegalArgumentException.class, () -> TestPacketLayout.builder("reflector", TestPacketLayout.Role.REFLECTOR)
            .sequence(0).timestamp(4).errorEstimate(12).length(14).build());
        assertThrows(IllegalArgumentException.class, () -> TestPacketLayout.builder("half block", TestPacketLayout.Role.SENDER)
            .sequence(0).timestamp(16).errorEstimate(24).hmac(32).length(48).protect(Mode.ENCRYPTED, 0, 24, 0, 24)
            .build());
        assertThrows(IllegalArgumentException.class, () -> TestPacketLayout.builder("no hmac", TestPacketLayout.Role.SENDER)
            .sequence(0).timestamp(4).errorEstimate(12).length(32).protect(Mode.AUTHENTICATED, 0, 16, 0, 16).build());
    }

    @Test
    void shouldDescribeAnotherLayoutAsOneMoreConstant() {
        // an HMAC over everything before it and no encryption, as an authenticated STAMP packet has
        TestPacketLayout hmacOnly = TestPacketLayout.builder("hmac only", TestPacketLayout.Role.SENDER)
            .sequence(0).timestamp(16).errorEstimate(24).hmac(96).length(112).protect(Mode.AUTHENTICATED, 0, 0, 0, 96)
            .build();
        assertEquals("4+12 26+70", mbz(hmacOnly));
        assertEquals(new Protection(0, 0, 0, 96), hmacOnly.protection(Mode.AUTHENTICATED));
    }
}
