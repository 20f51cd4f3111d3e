package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Struct layouts against glibc LP64 (sizes and offsets from offsetof on glibc 2.36, x86-64). */
class StructsTest {
    @Test
    void shouldMatchGlibcSizes() {
        assertEquals(56, Structs.MSGHDR.byteSize());
        assertEquals(16, Structs.IOVEC.byteSize());
        assertEquals(16, Structs.CMSGHDR.byteSize());
        assertEquals(16, Structs.SOCKADDR_IN.byteSize());
        assertEquals(28, Structs.SOCKADDR_IN6.byteSize());
        assertEquals(16, Structs.TIMESPEC.byteSize());
        assertEquals(208, Structs.TIMEX.byteSize());
        assertEquals(16, Structs.SOCK_EXTENDED_ERR.byteSize());
        assertEquals(8, Structs.POLLFD.byteSize());
        assertEquals(48, Structs.SCM_TIMESTAMPING_BYTES);
    }

    @Test
    void shouldMatchGlibcOffsets() {
        assertEquals(0, Structs.MSG_NAME);
        assertEquals(8, Structs.MSG_NAMELEN);
        assertEquals(16, Structs.MSG_IOV);
        assertEquals(24, Structs.MSG_IOVLEN);
        assertEquals(32, Structs.MSG_CONTROL);
        assertEquals(40, Structs.MSG_CONTROLLEN);
        assertEquals(48, Structs.MSG_FLAGS);
        assertEquals(0, Structs.CMSG_LEN);
        assertEquals(8, Structs.CMSG_LEVEL);
        assertEquals(12, Structs.CMSG_TYPE);
        assertEquals(4, Structs.SIN_ADDR);
        assertEquals(8, Structs.SIN6_ADDR);
        assertEquals(24, Structs.SIN6_SCOPE_ID);
        assertEquals(0, Structs.TIMEX_MODES);
        assertEquals(8, Structs.TIMEX_OFFSET);
        assertEquals(24, Structs.TIMEX_MAXERROR);
        assertEquals(32, Structs.TIMEX_ESTERROR);
        assertEquals(40, Structs.TIMEX_STATUS);
        assertEquals(160, Structs.TIMEX_TAI);
        assertEquals(4, Structs.EE_ORIGIN);
        assertEquals(8, Structs.EE_INFO);
        assertEquals(12, Structs.EE_DATA);
    }

    @Test
    void shouldRoundTripTimespecNanoseconds() {
        MemorySegment heap = MemorySegment.ofArray(new long[4]);
        Structs.timespecNs(heap, 8, 1_700_000_000_123_456_789L);
        assertEquals(1_700_000_000L, heap.get(Structs.JAVA_LONG_UNALIGNED, 8));
        assertEquals(123_456_789L, heap.get(Structs.JAVA_LONG_UNALIGNED, 16));
        assertEquals(1_700_000_000_123_456_789L, Structs.timespecNs(heap, 8));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timespec = arena.allocate(Structs.TIMESPEC);
            Structs.timespecNs(timespec, 0, 5_000_000_001L);
            assertEquals(5_000_000_001L, Structs.timespecNs(timespec, 0));
        }
    }
}
