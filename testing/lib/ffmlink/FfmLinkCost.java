import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * What linking FFM downcalls costs a fresh JVM (testing/ffm-link-cost.sh runs it): the first link (which
 * initialises the linker), then the descriptors the client linked in a {@code twping -c 1} before December 2026
 * ({@code distinct}: 12 more shapes, each a generated class and its method handles), or 12 more links of the one
 * descriptor already linked ({@code same}: cache hits), or none. {@code syscall}: what the x86-64 client links since
 * then instead (docs/notes/2026-12-05-syscall-shape.md): first glibc's variadic syscall(2) with six longs and errno
 * capture, then clock_gettime. Prints the wall time of each part on stderr; the script takes the process's CPU from
 * /usr/bin/time. Calls nothing but ntp_adjtime (a read), or in {@code syscall} mode getpid(2) through syscall(2).
 */
public final class FfmLinkCost {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");

    private FfmLinkCost() {
    }

    private static MethodHandle errno(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LIBC.findOrThrow(name), d, ERRNO);
    }

    private static MethodHandle plain(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LIBC.findOrThrow(name), d);
    }

    public static void main(String[] args) throws Throwable {
        String mode = args.length > 0 ? args[0] : "distinct";
        boolean syscall = mode.equals("syscall");
        long t0 = System.nanoTime();
        MethodHandle read = syscall
                ? LINKER.downcallHandle(LIBC.findOrThrow("syscall"), FunctionDescriptor.of(JAVA_LONG, JAVA_LONG,
                        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                        ERRNO, Linker.Option.firstVariadicArg(1))
                : plain("ntp_adjtime", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        long t1 = System.nanoTime();
        int more = 0;
        if (syscall) {
            plain("clock_gettime", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
            more = 1;
        } else if (mode.equals("distinct")) {
            errno("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
            errno("setsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
            errno("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
            errno("getsockname", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
            errno("sendto", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
            errno("recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
            errno("recvmmsg", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
            errno("getsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
            plain("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
            plain("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            plain("clock_gettime", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
            LINKER.downcallHandle(LIBC.findOrThrow("prctl"),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                    ERRNO, Linker.Option.firstVariadicArg(1));
            more = 12;
        } else if (mode.equals("same")) {
            for (String name : new String[] {"socket", "setsockopt", "bind", "getsockname", "sendto", "recvmsg",
                    "recvmmsg", "getsockopt", "shutdown", "close", "clock_gettime", "prctl"}) {
                plain(name, FunctionDescriptor.of(JAVA_INT, ADDRESS)); // only linked, never called
            }
            more = 12;
        } else if (!mode.equals("none")) {
            throw new IllegalArgumentException("mode: distinct, same, none or syscall");
        }
        long t2 = System.nanoTime();
        try (Arena arena = Arena.ofConfined()) {
            if (syscall) {
                long getpid = System.getProperty("os.arch").equals("aarch64") ? 172 : 39;
                long pid = (long) read.invokeExact(arena.allocate(Linker.Option.captureStateLayout()), getpid,
                        0L, 0L, 0L, 0L, 0L, 0L);
            } else {
                int state = (int) read.invokeExact(arena.allocate(256, 8));
            }
        }
        long t3 = System.nanoTime();
        System.err.printf("%s: first link %.1f ms, %d more links %.1f ms, first call %.1f ms%n",
                mode, (t1 - t0) / 1e6, more, (t2 - t1) / 1e6, (t3 - t2) / 1e6);
    }
}
