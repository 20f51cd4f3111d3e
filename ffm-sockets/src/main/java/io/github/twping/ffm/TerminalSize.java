package io.github.twping.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The width of the terminal behind a file descriptor: {@code ioctl(fd, TIOCGWINSZ, &winsize)} (Linux, the
 * same request number on x86-64 and aarch64). For a progress line that must fit one row.
 */
public final class TerminalSize {
    /** {@code TIOCGWINSZ} of asm-generic/ioctls.h. */
    private static final long TIOCGWINSZ = 0x5413;
    /** {@code struct winsize}: four unsigned shorts, rows then columns. */
    private static final long WINSIZE_BYTES = 8;
    private static final long WS_COL_OFFSET = 2;

    private TerminalSize() {
    }

    /** Linked on first use only. */
    private static final class Ioctl {
        private static final Linker LINKER = Linker.nativeLinker();
        @SuppressWarnings("restricted")
        static final MethodHandle H = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("ioctl"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), Linker.Option.firstVariadicArg(2));
    }

    /**
     * @return the columns of the terminal on {@code fd}, or -1 when {@code fd} is not a terminal, the terminal
     *         reports no size (0 columns), or native calls are not available here
     */
    public static int columns(int fd) {
        if (!NativeSupport.isAvailable()) {
            return -1;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment winsize = arena.allocate(WINSIZE_BYTES, 2);
            int rc = (int) Ioctl.H.invokeExact(fd, TIOCGWINSZ, winsize);
            if (rc != 0) {
                return -1;
            }
            int columns = Short.toUnsignedInt(winsize.get(JAVA_SHORT, WS_COL_OFFSET));
            return columns == 0 ? -1 : columns;
        } catch (Throwable t) {
            return -1;
        }
    }
}
