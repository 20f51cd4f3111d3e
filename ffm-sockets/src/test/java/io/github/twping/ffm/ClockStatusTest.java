package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

/** ntp_adjtime(3) read-out. */
class ClockStatusTest {
    @Test
    void shouldReadConsistentClockState() {
        ClockStatus clock = ClockStatus.read();
        assertTrue(clock.available(), clock.toString());
        assertNull(clock.problem());
        assertEquals((clock.status() & ClockStatus.STA_UNSYNC) == 0, clock.synchronised());
        assertTrue(clock.state() >= 0 && clock.state() <= 5, "TIME_OK..TIME_ERROR: " + clock.state());
        assertTrue(clock.esterrorMicros() >= 0 && clock.maxerrorMicros() >= 0);
        assertTrue(clock.esterrorMicros() <= clock.maxerrorMicros() || !clock.synchronised(), clock.toString());
        if (!clock.synchronised()) {
            assertTrue(clock.toString().startsWith("unsynchronised"), clock.toString());
        }
    }

    @Test
    void shouldReadTheSameStateWithTheReusableReaderWithoutAllocating() {
        ClockStatusReader reader = new ClockStatusReader();
        assertTrue(reader.read());
        ClockStatus once = ClockStatus.read();
        assertEquals(once.synchronised(), reader.synchronised());
        assertEquals(once.status(), reader.snapshot().status());
        ThreadMXBean threads =
                (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long fewestBytes = Long.MAX_VALUE;
        // A round of reads, repeated until the JIT has compiled them (bounded in rounds and time: on a loaded
        // machine the compiler may take seconds to get to it).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int round = 0; round < 5_000 && fewestBytes > 0 && System.nanoTime() < deadline; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 1_000; i++) {
                reader.read();
            }
            fewestBytes = Math.min(fewestBytes, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertEquals(0, fewestBytes, "bytes allocated by 1000 reads");
        assertTrue(reader.available());
    }

    @Test
    void shouldDecodeHandBuiltTimex() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timex = arena.allocate(Structs.TIMEX);
            timex.set(JAVA_LONG, 8, -1500);
            timex.set(JAVA_LONG, 24, 2000);
            timex.set(JAVA_LONG, 32, 300);
            timex.set(JAVA_INT, 40, 0x2001);
            ClockStatus clock = ClockStatus.fromTimex(0, timex);
            assertTrue(clock.synchronised());
            assertTrue(clock.nano());
            assertEquals(-1500, clock.offset());
            assertEquals(-1500, clock.offsetNs());
            assertEquals(2000, clock.maxerrorMicros());
            assertEquals(300, clock.esterrorMicros());
            assertEquals(0, clock.taiOffsetSeconds(), "the kernel's default: unknown");
            timex.set(JAVA_INT, 160, 37);
            assertEquals(37, ClockStatus.fromTimex(0, timex).taiOffsetSeconds(), "timex.tai");

            timex.set(JAVA_INT, 40, ClockStatus.STA_UNSYNC);
            ClockStatus unsync = ClockStatus.fromTimex(ClockStatus.TIME_ERROR, timex);
            assertFalse(unsync.synchronised());
            assertFalse(unsync.nano());
            assertEquals(-1_500_000, unsync.offsetNs());
        }
    }
}
