package io.github.twping.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Reference;
import java.util.Locale;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The libc functions this package calls, as {@code static final} downcall handles, each linked on first use.
 *
 * <p>Calls that can fail take a call-state segment (see {@link #allocateCallState}); errno is captured by
 * the linker right after the call and returned as {@code -errno}. Nothing here allocates on the Java heap.
 *
 * <p><b>Two ways to the kernel, chosen once.</b> The FFM linker generates (and C1 then compiles) a class per
 * downcall <em>shape</em>, about 7 ms of CPU each, and the JDK's AOT cache does not keep them
 * (docs/notes/2026-12-05-ffm-link.md). On Linux x86-64 every system call here therefore goes through one handle,
 * glibc's variadic {@code long syscall(long number, ...)}, linked with every argument a {@code long}
 * ({@link Linker.Option#firstVariadicArg}: the variadic contract, under which glibc reads its six arguments as
 * {@code long}s, so passing {@code long}s is exactly what it reads), the syscall numbers of
 * {@code arch/x86/entry/syscalls/syscall_64.tbl} and pointers as {@link MemorySegment#address()}. A run then
 * links two shapes (this one and {@code clock_gettime}, which stays a libc call: the vDSO) where it linked twelve
 * (docs/notes/2026-12-05-syscall-shape.md). On every other architecture (aarch64), or with
 * {@code -Dtwping.ffm.syscall=false}, each function keeps its own libc handle with its C signature, as before
 * (sched_getattr and sched_setattr, which glibc 2.36 does not wrap, take the syscall handle everywhere).
 * strerror, malloc_trim and sched_getcpu are library functions and keep their own handles everywhere.
 *
 * <p><b>Memory on the syscall path.</b> A downcall with an {@code ADDRESS} parameter keeps the segment's arena
 * alive during the call (a shared arena cannot be closed, an automatic one cannot be collected); a raw address
 * does neither. So each pointer argument is first checked (native, alive, accessible from this thread: what the
 * linker checked) and fenced ({@link Reference#reachabilityFence}) after the call, which keeps an automatic
 * arena's memory ({@link ClockStatusReader}'s) from being freed while the kernel writes it. That no explicitly
 * closed arena is closed during a call is the callers' guarantee: {@link NativeUdpSocket}'s shared arena is closed
 * only by {@link SocketLifecycle}'s release, which runs once, after close, by the last thread to leave a call,
 * and every call on its memory is made inside {@code enter()}/{@code exit()} (or before the socket is published);
 * the {@link ThreadTuning} and {@code connect} scratch arenas are closed by the calling thread after its call
 * returned; a {@link DatagramBatch} and a caller's send or receive buffer must not be closed while a call uses
 * them ({@link UdpSocket}'s contract: a receive's buffer always reached the kernel as a raw address inside the
 * iovec).
 */
final class Libc {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET = CALL_STATE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));

    /** True on Linux x86-64 unless {@code -Dtwping.ffm.syscall=false}: every system call through {@link Syscall}. */
    static final boolean SYSCALL = syscallPath();

    static {
        loadSegmentClasses();
    }

    // x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl; asm/unistd_64.h)
    private static final long SYS_CLOSE = 3;
    private static final long SYS_RT_SIGACTION = 13;
    private static final long SYS_SOCKET = 41;
    private static final long SYS_CONNECT = 42;
    private static final long SYS_SENDTO = 44;
    private static final long SYS_SENDMSG = 46;
    private static final long SYS_RECVMSG = 47;
    private static final long SYS_SHUTDOWN = 48;
    private static final long SYS_BIND = 49;
    private static final long SYS_GETSOCKNAME = 51;
    private static final long SYS_SETSOCKOPT = 54;
    private static final long SYS_GETSOCKOPT = 55;
    private static final long SYS_SCHED_SETSCHEDULER = 144;
    private static final long SYS_SCHED_GETSCHEDULER = 145;
    private static final long SYS_PRCTL = 157;
    private static final long SYS_ADJTIMEX = 159;
    private static final long SYS_SCHED_SETAFFINITY = 203;
    private static final long SYS_SCHED_GETAFFINITY = 204;
    private static final long SYS_RECVMMSG = 299;
    private static final long SYS_SENDMMSG = 307;

    /**
     * {@code long syscall(long number, ...)} with six variadic {@code long}s and errno capture: the one shape of the
     * syscall path, and on every architecture the way to the calls glibc 2.36 does not wrap (sched_getattr,
     * sched_setattr). {@code IGNORED_STATE} takes the errno of the calls whose result is not looked at (close,
     * shutdown); threads may write it at the same time, nobody reads it.
     */
    private static final class Syscall {
        @SuppressWarnings("restricted")
        static final MethodHandle H = LINKER.downcallHandle(LIBC.findOrThrow("syscall"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            ERRNO, Linker.Option.firstVariadicArg(1));
        static final MemorySegment IGNORED_STATE = Arena.global().allocate(CALL_STATE);
    }

    // One holder class per function: a handle is linked on first use only, so a run that needs two of
    // them (`-h`: the clock state) does not pay for linking all of them at start-up.
    private static final class Socket {
        static final MethodHandle H = errnoHandle("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    }

    private static final class Bind {
        static final MethodHandle H = errnoHandle("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    }

    private static final class Setsockopt {
        static final MethodHandle H = errnoHandle("setsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    }

    private static final class Getsockopt {
        static final MethodHandle H = errnoHandle("getsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    }

    private static final class Getsockname {
        static final MethodHandle H = errnoHandle("getsockname",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    }

    private static final class Sendto {
        static final MethodHandle H = errnoHandle("sendto",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    }

    private static final class Sendmsg {
        static final MethodHandle H = errnoHandle("sendmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    }

    private static final class Recvmsg {
        static final MethodHandle H = errnoHandle("recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    }

    private static final class NtpAdjtime {
        static final MethodHandle H = errnoHandle("ntp_adjtime", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /**
     * ntp_adjtime without errno capture, for the read that succeeds: the capture's per-call slice of the state
     * segment is allocated whenever the JIT does not inline the call deep enough (40 B per read seen in a JVM
     * whose profiles other code had shaped); the capturing handle is used only to learn a failure's errno.
     */
    private static final class NtpAdjtimeRead {
        static final MethodHandle H = plainHandle("ntp_adjtime", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    private static final class Shutdown {
        static final MethodHandle H = plainHandle("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    }

    private static final class Close {
        static final MethodHandle H = plainHandle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    private static final class ClockGettime {
        static final MethodHandle H = plainHandle("clock_gettime", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }

    private static final class Strerror {
        static final MethodHandle H = plainHandle("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    private static final class Recvmmsg {
        static final MethodHandle H = errnoHandle("recvmmsg",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
    }

    /** malloc_trim(3) is glibc's: null where the C library lacks it. */
    private static final class MallocTrim {
        @SuppressWarnings("restricted")
        static final MethodHandle H = LIBC.find("malloc_trim")
                .map(address -> LINKER.downcallHandle(address, FunctionDescriptor.of(JAVA_INT, JAVA_LONG)))
                .orElse(null);
    }

    private static final class Connect {
        static final MethodHandle H = errnoHandle("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    }

    private static final class Sendmmsg {
        static final MethodHandle H = errnoHandle("sendmmsg",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    }

    private static final class SchedSetaffinity {
        static final MethodHandle H = errnoHandle("sched_setaffinity",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
    }

    private static final class SchedGetaffinity {
        static final MethodHandle H = errnoHandle("sched_getaffinity",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
    }

    private static final class SchedSetscheduler {
        static final MethodHandle H = errnoHandle("sched_setscheduler",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    }

    private static final class SchedGetscheduler {
        static final MethodHandle H = errnoHandle("sched_getscheduler", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    private static final class SchedGetcpu {
        static final MethodHandle H = plainHandle("sched_getcpu", FunctionDescriptor.of(JAVA_INT));
    }

    private static final class Prctl {
        @SuppressWarnings("restricted")
        static final MethodHandle H = LINKER.downcallHandle(LIBC.findOrThrow("prctl"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            ERRNO, Linker.Option.firstVariadicArg(1));
    }

    /** The architecture's numbers of sched_setattr and sched_getattr; {-1, -1} where unknown here. */
    private static final long[] SCHED_ATTR_CALLS = switch (System.getProperty("os.arch", "")) {
        case "amd64", "x86_64" -> new long[] {314, 315};
        case "aarch64", "riscv64" -> new long[] {274, 275};
        default -> new long[] {-1, -1};
    };

    private Libc() {
    }

    /**
     * Loads every class the JDK implements memory segments and their sessions with, before any downcall is compiled.
     * C2 compiles the downcalls on the assumption that the segment classes loaded so far are all there are (while only
     * native segments exist, {@code NativeMemorySegmentImpl} is the one concrete segment class); the first heap
     * segment created anywhere later, a {@code MemorySegment.ofArray} in unrelated code, then invalidated every
     * compiled downcall at once, and each ran in C1 code or the interpreter until compiled again, allocating the
     * linker's 40-byte slice of the errno call-state segment per call (docs/notes/2026-12-05-allocation-order.md).
     * Heap segments of each array kind, the heap and the confined, shared and automatic sessions are made here (none
     * holds memory); the mapped-file segment class is loaded by name, where this JDK has it.
     */
    private static void loadSegmentClasses() {
        MemorySegment.ofArray(new byte[0]);
        MemorySegment.ofArray(new char[0]);
        MemorySegment.ofArray(new short[0]);
        MemorySegment.ofArray(new int[0]);
        MemorySegment.ofArray(new long[0]);
        MemorySegment.ofArray(new float[0]);
        MemorySegment.ofArray(new double[0]);
        Arena.ofConfined().close();
        Arena.ofAuto();
        Arena.ofShared();                                 // no memory, never closed: closing would stop every thread
        try {
            Class.forName("jdk.internal.foreign.MappedMemorySegmentImpl", false, null);
        } catch (ClassNotFoundException e) {
            // another JDK's names: a mapped file's segment may still invalidate compiled downcalls once
        }
    }

    private static boolean syscallPath() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64"))
                && !"false".equals(System.getProperty("twping.ffm.syscall"));
    }

    /**
     * syscall(2); @return the result (>= 0), or -errno.
     *
     * <p>Without a branch on the result: C2 compiles a branch that no call has taken yet as a trap, and every system
     * call passes here, so the first one to fail anywhere in the process (an EAGAIN of an empty error queue, a
     * refused option) threw away the compiled code of this method, which the callers that do not inline it share;
     * until C2 had compiled it again the linker's slice of the call-state segment was allocated per call
     * (docs/notes/2026-12-05-allocation-order.md). errno is read from the call state after every call and masked
     * out on success.
     */
    private static long syscall(MemorySegment callState, long number, long a1, long a2, long a3, long a4, long a5,
                                long a6) {
        try {
            long rc = (long) Syscall.H.invokeExact(callState, number, a1, a2, a3, a4, a5, a6);
            long failed = rc >> 63;                       // all ones when the call failed (-1), else 0
            return (rc & ~failed) | (-errno(callState) & failed);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /**
     * The address of {@code segment} for the syscall path, after the checks the linker makes for an {@code ADDRESS}
     * argument: a heap segment has no address, a closed one no memory, and a confined one belongs to another thread.
     */
    private static long address(MemorySegment segment) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("Heap segment not allowed: " + segment);
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("Already closed");
        }
        if (!segment.isAccessibleBy(Thread.currentThread())) {
            throw new WrongThreadException("Attempted access outside owning thread");
        }
        return segment.address();
    }

    @SuppressWarnings("restricted")
    private static MethodHandle errnoHandle(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LIBC.findOrThrow(name), descriptor, ERRNO);
    }

    @SuppressWarnings("restricted")
    private static MethodHandle plainHandle(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LIBC.findOrThrow(name), descriptor);
    }

    /**
     * Links one handle (the clock state's, which every run reads first: on the syscall path the one handle of every
     * system call), so that {@link NativeSupport} learns whether downcalls work here without linking all of them.
     */
    static void probe() {
        if ((SYSCALL ? Syscall.H : NtpAdjtimeRead.H) == null) {
            throw new IllegalStateException("ntp_adjtime not linked");
        }
    }

    /**
     * Allocates the segment the linker writes errno into, in {@code arena}; one per thread role (send, receive, ...).
     *
     * <p>What is returned is a view of that memory in the global scope, as {@link Syscall#IGNORED_STATE} is: every
     * call-state segment then has the same session class. The downcall stub acquires and releases the session of its
     * call-state argument, a virtual call on a site all the calls of one downcall shape share (on x86-64 every system
     * call: one shape). With the sessions of several arena kinds (the sockets' shared arenas, the global
     * {@code IGNORED_STATE} of close, the clock reader's automatic arena, the confined arenas of the thread tuning) a
     * kind that C2 had not seen there when it compiled a caller made that compiled code trap and be thrown away; until
     * C2 had compiled it again the calls ran in C1 code or the interpreter, which do not remove the linker's
     * per-call slice of this segment: 40 B per call (docs/notes/2026-12-05-allocation-order.md). With one class the
     * site is monomorphic in every JVM whatever ran before, and the global session's acquire and release do nothing
     * (two atomic updates per call fewer than a shared arena's). The view does not keep {@code arena} alive: callers
     * keep it open during their calls, as they already must for the raw addresses of the syscall path (class comment).
     */
    @SuppressWarnings("restricted")
    static MemorySegment allocateCallState(Arena arena) {
        return MemorySegment.ofAddress(arena.allocate(CALL_STATE).address()).reinterpret(CALL_STATE.byteSize());
    }

    private static int errno(MemorySegment callState) {
        return callState.get(JAVA_INT, ERRNO_OFFSET);
    }

    private static AssertionError linkageBug(Throwable t) {
        return new AssertionError("libc downcall failed to link or invoke", t);
    }

    /** @return a file descriptor, or -errno. */
    static int socket(MemorySegment callState, int domain, int type, int protocol) {
        if (SYSCALL) {
            return (int) syscall(callState, SYS_SOCKET, domain, type, protocol, 0, 0, 0);
        }
        try {
            int fd = (int) Socket.H.invokeExact(callState, domain, type, protocol);
            return fd >= 0 ? fd : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** @return 0, or -errno. */
    static int bind(MemorySegment callState, int fd, MemorySegment sockaddr, int length) {
        if (SYSCALL) {
            try {
                return (int) syscall(callState, SYS_BIND, fd, address(sockaddr), length, 0, 0, 0);
            } finally {
                Reference.reachabilityFence(sockaddr);
            }
        }
        try {
            int rc = (int) Bind.H.invokeExact(callState, fd, sockaddr, length);
            return rc == 0 ? 0 : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** @return 0, or -errno. */
    static int setsockopt(MemorySegment callState, int fd, int level, int name, MemorySegment value, int length) {
        if (SYSCALL) {
            try {
                return (int) syscall(callState, SYS_SETSOCKOPT, fd, level, name, address(value), length, 0);
            } finally {
                Reference.reachabilityFence(value);
            }
        }
        try {
            int rc = (int) Setsockopt.H.invokeExact(callState, fd, level, name, value, length);
            return rc == 0 ? 0 : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** @return 0, or -errno; {@code lengthInOut} holds a socklen_t (int). */
    static int getsockopt(MemorySegment callState, int fd, int level, int name, MemorySegment value,
                          MemorySegment lengthInOut) {
        if (SYSCALL) {
            try {
                return (int) syscall(callState, SYS_GETSOCKOPT, fd, level, name, address(value), address(lengthInOut),
                        0);
            } finally {
                Reference.reachabilityFence(value);
                Reference.reachabilityFence(lengthInOut);
            }
        }
        try {
            int rc = (int) Getsockopt.H.invokeExact(callState, fd, level, name, value, lengthInOut);
            return rc == 0 ? 0 : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** @return 0, or -errno; {@code lengthInOut} holds a socklen_t (int). */
    static int getsockname(MemorySegment callState, int fd, MemorySegment sockaddr, MemorySegment lengthInOut) {
        if (SYSCALL) {
            try {
                return (int) syscall(callState, SYS_GETSOCKNAME, fd, address(sockaddr), address(lengthInOut), 0, 0, 0);
            } finally {
                Reference.reachabilityFence(sockaddr);
                Reference.reachabilityFence(lengthInOut);
            }
        }
        try {
            int rc = (int) Getsockname.H.invokeExact(callState, fd, sockaddr, lengthInOut);
            return rc == 0 ? 0 : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** @return bytes sent, or -errno. */
    static long sendto(MemorySegment callState, int fd, MemorySegment buffer, long length, int flags,
                       MemorySegment sockaddr, int sockaddrLength) {
        if (SYSCALL) {
            try {
                return syscall(callState, SYS_SENDTO, fd, address(buffer), length, flags, address(sockaddr),
                        sockaddrLength);
            } finally {
                Reference.reachabilityFence(buffer);
                Reference.reachabilityFence(sockaddr);
            }
        }
        try {
            long n = (long) Sendto.H.invokeExact(callState, fd, buffer, length, flags, sockaddr, sockaddrLength);
            return n >= 0 ? n : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** @return bytes sent, or -errno. */
    static long sendmsg(MemorySegment callState, int fd, MemorySegment msghdr, int flags) {
        if (SYSCALL) {
            try {
                return syscall(callState, SYS_SENDMSG, fd, address(msghdr), flags, 0, 0, 0);
            } finally {
                Reference.reachabilityFence(msghdr);
            }
        }
        try {
            long n = (long) Sendmsg.H.invokeExact(callState, fd, msghdr, flags);
            return n >= 0 ? n : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** @return bytes received, or -errno. */
    static long recvmsg(MemorySegment callState, int fd, MemorySegment msghdr, int flags) {
        if (SYSCALL) {
            try {
                return syscall(callState, SYS_RECVMSG, fd, address(msghdr), flags, 0, 0, 0);
            } finally {
                Reference.reachabilityFence(msghdr);
            }
        }
        try {
            long n = (long) Recvmsg.H.invokeExact(callState, fd, msghdr, flags);
            return n >= 0 ? n : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** recvmmsg(2) without its (unreliable) timeout argument; @return messages received, or -errno. */
    static int recvmmsg(MemorySegment callState, int fd, MemorySegment mmsghdrs, int count, int flags) {
        if (SYSCALL) {
            try {
                // timeout NULL (0), as below
                return (int) syscall(callState, SYS_RECVMMSG, fd, address(mmsghdrs), count, flags, 0, 0);
            } finally {
                Reference.reachabilityFence(mmsghdrs);
            }
        }
        try {
            int n = (int) Recvmmsg.H.invokeExact(callState, fd, mmsghdrs, count, flags, MemorySegment.NULL);
            return n >= 0 ? n : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** malloc_trim(0); @return false when the C library has no malloc_trim. */
    static boolean mallocTrim() {
        MethodHandle h = MallocTrim.H;
        if (h == null) {
            return false;
        }
        try {
            int ignored = (int) h.invokeExact(0L);
            return true;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** @return 0, or -errno. */
    static int connect(MemorySegment callState, int fd, MemorySegment sockaddr, int length) {
        if (SYSCALL) {
            try {
                return (int) syscall(callState, SYS_CONNECT, fd, address(sockaddr), length, 0, 0, 0);
            } finally {
                Reference.reachabilityFence(sockaddr);
            }
        }
        try {
            int rc = (int) Connect.H.invokeExact(callState, fd, sockaddr, length);
            return rc == 0 ? 0 : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** sendmmsg(2); @return messages sent, or -errno (only when none was sent). */
    static int sendmmsg(MemorySegment callState, int fd, MemorySegment mmsghdrs, int count, int flags) {
        if (SYSCALL) {
            try {
                return (int) syscall(callState, SYS_SENDMMSG, fd, address(mmsghdrs), count, flags, 0, 0);
            } finally {
                Reference.reachabilityFence(mmsghdrs);
            }
        }
        try {
            int n = (int) Sendmmsg.H.invokeExact(callState, fd, mmsghdrs, count, flags);
            return n >= 0 ? n : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** sched_setaffinity(2) of thread {@code tid} (0 = the calling thread); @return 0, or -errno. */
    static int schedSetaffinity(MemorySegment callState, int tid, MemorySegment mask) {
        if (SYSCALL) {
            try {
                long rc = syscall(callState, SYS_SCHED_SETAFFINITY, tid, mask.byteSize(), address(mask), 0, 0, 0);
                return rc == 0 ? 0 : (int) rc;
            } finally {
                Reference.reachabilityFence(mask);
            }
        }
        try {
            int rc = (int) SchedSetaffinity.H.invokeExact(callState, tid, mask.byteSize(), mask);
            return rc == 0 ? 0 : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** sched_setscheduler(2) for thread {@code tid} (0 = the calling thread); @return 0, or -errno. */
    static int schedSetscheduler(MemorySegment callState, int tid, int policy, MemorySegment param) {
        if (SYSCALL) {
            try {
                long rc = syscall(callState, SYS_SCHED_SETSCHEDULER, tid, policy, address(param), 0, 0, 0);
                return rc == 0 ? 0 : (int) rc;
            } finally {
                Reference.reachabilityFence(param);
            }
        }
        try {
            int rc = (int) SchedSetscheduler.H.invokeExact(callState, tid, policy, param);
            return rc == 0 ? 0 : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** @return true when {@link #schedSetattr} and {@link #schedGetattr} know this architecture's numbers. */
    static boolean schedAttrKnown() {
        return SCHED_ATTR_CALLS[0] >= 0;
    }

    /**
     * sched_getattr(2) of thread {@code tid} (0: the calling thread) into {@code attr} (a {@code struct sched_attr}
     * of {@code attr.byteSize()} bytes); @return 0, or -errno (-ENOSYS where the number is unknown here).
     */
    static int schedGetattr(MemorySegment callState, int tid, MemorySegment attr) {
        return schedAttrCall(callState, SCHED_ATTR_CALLS[1], tid, attr, attr.byteSize());
    }

    /** sched_setattr(2) of thread {@code tid} (0: the caller) from {@code attr}; @return 0, or -errno. */
    static int schedSetattr(MemorySegment callState, int tid, MemorySegment attr) {
        return schedAttrCall(callState, SCHED_ATTR_CALLS[0], tid, attr, 0);
    }

    private static int schedAttrCall(MemorySegment callState, long number, int tid, MemorySegment attr, long third) {
        if (number < 0) {
            return -Errno.ENOSYS;
        }
        try {
            // the caller's arena stays open for the call (ThreadTuning: try-with-resources on the calling thread)
            long rc = syscall(callState, number, tid, address(attr), third, 0, 0, 0);
            return rc == 0 ? 0 : (int) rc;
        } finally {
            Reference.reachabilityFence(attr);
        }
    }

    /** Bytes of the kernel's signal set on x86-64 (64 signals), rt_sigaction's last argument. */
    private static final long KERNEL_SIGSET_BYTES = 8;
    /** The kernel's {@code struct sigaction} on x86-64: handler, flags, restorer, mask (8 bytes each). */
    static final long KERNEL_SIGACTION_BYTES = 32;

    /**
     * rt_sigaction(2) on the syscall path (x86-64 only): {@code act} (null: none) and {@code oldact} (null: none)
     * are the kernel's {@code struct sigaction} ({@link #KERNEL_SIGACTION_BYTES}), whose first word is the handler
     * as in glibc's. For a handler of SIG_DFL or SIG_IGN no restorer is needed. @return 0, or -errno.
     *
     * @throws IllegalStateException off the syscall path
     */
    static int rtSigaction(MemorySegment callState, int signo, MemorySegment act, MemorySegment oldact) {
        if (!SYSCALL) {
            throw new IllegalStateException("rt_sigaction is called through syscall(2) on x86-64 only");
        }
        try {
            return (int) syscall(callState, SYS_RT_SIGACTION, signo, address(act), address(oldact),
                    KERNEL_SIGSET_BYTES, 0, 0);
        } finally {
            Reference.reachabilityFence(act);
            Reference.reachabilityFence(oldact);
        }
    }

    /** sched_getscheduler(2); @return the policy (>= 0), or -errno. */
    static int schedGetscheduler(MemorySegment callState, int tid) {
        if (SYSCALL) {
            return (int) syscall(callState, SYS_SCHED_GETSCHEDULER, tid, 0, 0, 0, 0, 0);
        }
        try {
            int rc = (int) SchedGetscheduler.H.invokeExact(callState, tid);
            return rc >= 0 ? rc : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** sched_getaffinity(2); @return 0, or -errno. */
    static int schedGetaffinity(MemorySegment callState, int tid, MemorySegment mask) {
        if (SYSCALL) {
            // the kernel returns the bytes it wrote (> 0) and leaves the rest of the mask as it was; glibc zeroes it
            mask.fill((byte) 0);
            try {
                long rc = syscall(callState, SYS_SCHED_GETAFFINITY, tid, mask.byteSize(), address(mask), 0, 0, 0);
                return rc >= 0 ? 0 : (int) rc;
            } finally {
                Reference.reachabilityFence(mask);
            }
        }
        try {
            int rc = (int) SchedGetaffinity.H.invokeExact(callState, tid, mask.byteSize(), mask);
            return rc >= 0 ? 0 : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** sched_getcpu(3) (vDSO): the CPU the calling thread runs on, or -1. */
    static int schedGetcpu() {
        try {
            return (int) SchedGetcpu.H.invokeExact();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** prctl(2) with one argument; @return the call's result (>= 0), or -errno. */
    static int prctl(MemorySegment callState, int option, long argument) {
        if (SYSCALL) {
            return (int) syscall(callState, SYS_PRCTL, option, argument, 0, 0, 0, 0);
        }
        try {
            int rc = (int) Prctl.H.invokeExact(callState, option, argument, 0L, 0L, 0L);
            return rc >= 0 ? rc : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** @return the clock state (TIME_OK .. TIME_ERROR), or -errno. */
    static int ntpAdjtime(MemorySegment callState, MemorySegment timex) {
        if (SYSCALL) {
            // adjtimex(2): on 64-bit Linux glibc's struct timex is the kernel's, and ntp_adjtime(3) is this call
            try {
                return (int) syscall(callState, SYS_ADJTIMEX, address(timex), 0, 0, 0, 0, 0);
            } finally {
                Reference.reachabilityFence(timex);
            }
        }
        try {
            int rc = (int) NtpAdjtimeRead.H.invokeExact(timex);
            if (rc >= 0) {
                return rc;
            }
            rc = (int) NtpAdjtime.H.invokeExact(callState, timex); // again, to learn why
            return rc >= 0 ? rc : -errno(callState);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** shutdown(2); the result is not needed (an unconnected UDP socket answers ENOTCONN but is still woken). */
    static void shutdown(int fd, int how) {
        if (SYSCALL) {
            syscall(Syscall.IGNORED_STATE, SYS_SHUTDOWN, fd, how, 0, 0, 0, 0);
            return;
        }
        try {
            int ignored = (int) Shutdown.H.invokeExact(fd, how);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** close(2); on Linux the descriptor is released even when close reports an error. */
    static void close(int fd) {
        if (SYSCALL) {
            syscall(Syscall.IGNORED_STATE, SYS_CLOSE, fd, 0, 0, 0, 0, 0);
            return;
        }
        try {
            int ignored = (int) Close.H.invokeExact(fd);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** Reads CLOCK_REALTIME (vDSO, no syscall) through a 16-byte timespec segment; @return epoch ns. */
    static long realtimeEpochNs(MemorySegment timespec) {
        try {
            int ignored = (int) ClockGettime.H.invokeExact(SocketConstants.CLOCK_REALTIME, timespec);
            return Structs.timespecNs(timespec, 0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }

    /** strerror(3) text in the process locale; only for errnos missing from {@link Errno}'s table. */
    @SuppressWarnings("restricted")
    static String strerror(int errno) {
        try {
            MemorySegment text = (MemorySegment) Strerror.H.invokeExact(errno);
            return text.equals(MemorySegment.NULL) ? null : text.reinterpret(1024).getString(0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw linkageBug(t);
        }
    }
}
