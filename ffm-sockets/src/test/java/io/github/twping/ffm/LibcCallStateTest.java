package io.github.twping.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;

/**
 * The errno call-state segments ({@link Libc#allocateCallState}): whatever arena holds their memory, they reach the
 * downcall stub with one session, the global one, so that the stub's acquire of that session is one receiver class in
 * every JVM (docs/notes/2026-12-05-allocation-order.md); and a call's result or -errno still comes back through them.
 */
class LibcCallStateTest {
    @Test
    void everyCallStateHasTheGlobalSessionWhateverItsArena() {
        assumeTrue(NativeSupport.isAvailable(), "FFM unavailable: " + NativeSupport.unavailableReason());
        MemorySegment.Scope global = MemorySegment.NULL.scope();
        try (Arena shared = Arena.ofShared(); Arena confined = Arena.ofConfined()) {
            for (Arena arena : new Arena[] {shared, confined, Arena.ofAuto()}) {
                MemorySegment state = Libc.allocateCallState(arena);
                assertEquals(global, state.scope(), "the call state's session, allocated in " + arena);
                assertEquals(Linker.Option.captureStateLayout().byteSize(), state.byteSize());
                assertTrue(state.isNative());
            }
        }
    }

    @Test
    void aFailedCallReturnsMinusErrnoAndASuccessfulOneItsResult() {
        assumeTrue(NativeSupport.isAvailable(), "FFM unavailable: " + NativeSupport.unavailableReason());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.allocateCallState(arena);
            MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
            length.set(ValueLayout.JAVA_INT, 0, 4);
            assertEquals(-Errno.EBADF, Libc.getsockopt(state, -1, SocketConstants.SOL_SOCKET,
                    SocketConstants.SO_RCVBUF, value, length), "no such descriptor");
            int fd = Libc.socket(state, SocketConstants.AF_INET, SocketConstants.SOCK_DGRAM, 0);
            assertTrue(fd >= 0, "socket: " + fd);
            try {
                assertEquals(0, Libc.getsockopt(state, fd, SocketConstants.SOL_SOCKET, SocketConstants.SO_RCVBUF,
                        value, length));
                assertTrue(value.get(ValueLayout.JAVA_INT, 0) > 0, "the receive buffer's size");
                // a failure after successes (the syscall path has no branch on the result to learn it from)
                assertEquals(-Errno.EBADF, Libc.getsockopt(state, -1, SocketConstants.SOL_SOCKET,
                        SocketConstants.SO_RCVBUF, value, length));
            } finally {
                Libc.close(fd);
            }
        }
    }
}
