package io.github.twping.ffm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Signal dispositions the JVM will not change on its own. A shell starts background jobs
 * ({@code cmd &} in a script) with SIGINT and SIGQUIT ignored, and {@code nohup} ignores SIGHUP; the JVM
 * then refuses to install a handler for them ({@code Signal.handle} silently keeps
 * {@code SIG_IGN}). A C program calling {@code signal(2)} gets its handler regardless;
 * {@link #unignore} restores that: an ignored signal is set back to {@code SIG_DFL} so that the Java
 * handler installed next takes effect.
 */
public final class ProcessSignals {
    /** Linux signal numbers (the same on x86-64 and aarch64). */
    public static final int SIGHUP = 1;
    public static final int SIGINT = 2;
    public static final int SIGTERM = 15;

    /** glibc's {@code struct sigaction} is 152 bytes on x86-64 and aarch64; the handler is its first word. */
    private static final long SIGACTION_BYTES = 256;
    private static final long SIG_IGN = 1;

    private ProcessSignals() {
    }

    /**
     * Sets {@code signo} back to its default action if it is ignored now; call before installing a Java
     * handler for it.
     *
     * @return true when the signal was ignored and is now at its default; false when it was not ignored
     *         or native access is unavailable
     */
    public static boolean unignore(int signo) {
        // The common case (nothing ignored) is answered from /proc without linking a downcall: linking costs
        // tens of milliseconds of start-up, which `twping -h` would otherwise pay for nothing.
        if (!ignoredPerProc(signo) || !NativeSupport.isAvailable()) {
            return false;
        }
        if (Libc.SYSCALL) {
            // the sockets' one downcall shape (rt_sigaction through syscall(2)) instead of linking signal(3): two
            // more shapes cost a `nohup twping -h` 0.08 s of CPU (docs/notes/2026-12-05-syscall-shape.md)
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment dfl = arena.allocate(Libc.KERNEL_SIGACTION_BYTES, 8); // zeroes: SIG_DFL, no flags, empty mask
                MemorySegment old = arena.allocate(Libc.KERNEL_SIGACTION_BYTES, 8);
                int rc = Libc.rtSigaction(Libc.allocateCallState(arena), signo, dfl, old);
                return rc == 0 && old.get(JAVA_LONG, 0) == SIG_IGN;
            }
        }
        try {
            MemorySegment previous = (MemorySegment) Handles.SIGNAL.invokeExact(signo, MemorySegment.NULL);
            return previous.address() == SIG_IGN;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError("libc downcall failed to link or invoke", t);
        }
    }

    /**
     * Whether {@code signo} is in the {@code SigIgn} mask of {@code /proc/self/status}; true when the file
     * cannot be read or parsed (the caller then asks libc).
     */
    static boolean ignoredPerProc(int signo) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("SigIgn:")) {
                    long mask = Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
                    return signo >= 1 && signo <= 64 && (mask >>> (signo - 1) & 1) != 0;
                }
            }
        } catch (IOException | RuntimeException e) {
            return true;
        }
        return true;
    }

    /** Whether {@code signo} is ignored now (false when native access is unavailable). */
    public static boolean isIgnored(int signo) {
        if (!NativeSupport.isAvailable()) {
            return false;
        }
        if (Libc.SYSCALL) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment old = arena.allocate(Libc.KERNEL_SIGACTION_BYTES, 8);
                int rc = Libc.rtSigaction(Libc.allocateCallState(arena), signo, MemorySegment.NULL, old);
                return rc == 0 && old.get(JAVA_LONG, 0) == SIG_IGN;
            }
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment old = arena.allocate(SIGACTION_BYTES, 8);
            int rc = (int) Handles.SIGACTION.invokeExact(signo, MemorySegment.NULL, old);
            return rc == 0 && old.get(ADDRESS, 0).address() == SIG_IGN;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError("libc downcall failed to link or invoke", t);
        }
    }

    /** Linked on first use only (the sockets never need them). */
    private static final class Handles {
        private static final Linker LINKER = Linker.nativeLinker();
        static final MethodHandle SIGACTION = link("sigaction", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
        /** {@code signal(signo, SIG_DFL)}: SIG_DFL is the null pointer. */
        static final MethodHandle SIGNAL = link("signal", FunctionDescriptor.of(ADDRESS, JAVA_INT, ADDRESS));

        @SuppressWarnings("restricted")
        private static MethodHandle link(String name, FunctionDescriptor d) {
            return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), d);
        }
    }
}
