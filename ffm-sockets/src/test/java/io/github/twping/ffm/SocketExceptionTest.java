package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** errno to exception mapping and messages. */
class SocketExceptionTest {
    @Test
    void shouldMapAddressInUseToSubclass() {
        SocketException e = SocketException.of("bind", -Errno.EADDRINUSE);
        assertInstanceOf(AddressInUseException.class, e);
        assertEquals("bind: Address already in use", e.getMessage());
        assertEquals("bind", e.call());
        assertEquals(98, e.errno());
        assertEquals("EADDRINUSE", e.errnoName());
    }

    @Test
    void shouldCarryCallAndStrerrorText() {
        SocketException e = SocketException.of("sendto", Errno.ECONNREFUSED);
        assertFalse(e instanceof AddressInUseException);
        assertEquals("sendto: Connection refused", e.getMessage());
        assertEquals(111, e.errno());
        assertEquals("setsockopt(SO_BINDTODEVICE): Operation not permitted",
                SocketException.of("setsockopt(SO_BINDTODEVICE)", -1).getMessage());
        assertEquals("EAGAIN", Errno.name(11));
        assertEquals("errno 200", Errno.name(200));
    }

    @Test
    void shouldFallBackToLibcForErrnosOutsideTheTable() {
        // EROFS (30) is not in the table: the text comes from strerror(3)
        String message = Errno.message(30);
        assertFalse(message.isBlank());
        assertTrue(Errno.message(100000).contains("100000"), Errno.message(100000));
    }
}
