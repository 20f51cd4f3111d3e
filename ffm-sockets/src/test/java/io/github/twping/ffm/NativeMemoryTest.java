package io.github.twping.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Linker;

import org.junit.jupiter.api.Test;

class NativeMemoryTest {
    @Test
    void trimsWhereTheCLibraryCan() {
        assumeTrue(NativeSupport.isAvailable(), NativeSupport.unavailableReason());
        boolean glibc = Linker.nativeLinker().defaultLookup().find("malloc_trim").isPresent();
        assertEquals(glibc, NativeMemory.trim());
        assertEquals(glibc, NativeMemory.trim(), "repeatable");
    }
}
