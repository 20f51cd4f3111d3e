package io.github.twping.ffm;

/**
 * The C heap of this process. Sockets and batches free their native memory when they close, but glibc keeps
 * freed arenas mapped: after a burst of sessions a server's RSS stays near its peak. {@link #trim} hands what
 * can be returned back to the kernel ({@code malloc_trim(0)}).
 */
public final class NativeMemory {
    private NativeMemory() {
    }

    /**
     * Returns free C heap memory to the kernel where the C library can ({@code malloc_trim}, glibc).
     *
     * @return true when the call was made (glibc); false where the C library has no such call or native
     *         access is unavailable
     */
    public static boolean trim() {
        if (!NativeSupport.isAvailable()) {
            return false;
        }
        return Libc.mallocTrim();
    }
}
