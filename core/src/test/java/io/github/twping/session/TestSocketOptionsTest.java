package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Socket buffers sized from the schedule's rate (docs/PERFORMANCE.md, "Throughput"). */
class TestSocketOptionsTest {
    @Test
    void slowSessionsKeepTheFloor() {
        assertEquals(4 << 20, TestSocketOptions.bufferBytes(0, 10));
        assertEquals(4 << 20, TestSocketOptions.bufferBytes(0, 0));
        assertEquals(4 << 20, TestSocketOptions.bufferBytes(0, Double.NaN));
    }

    @Test
    void fastSessionsGetAThirdOfASecondOfReplies() {
        int at50k = TestSocketOptions.bufferBytes(0, 50_000);
        // (1152 kernel + 288 frame) bytes x 50,000/s x 0.3 s
        assertEquals(1440L * 50_000 * 3 / 10, at50k);
        assertTrue(TestSocketOptions.bufferBytes(1000, 50_000) > at50k, "padding counts");
    }

    @Test
    void largePaddingKeepsSixtyFourFramesAndTheCeilingHolds() {
        assertEquals((1152 + 288 + 65_000) * 64, TestSocketOptions.bufferBytes(65_000, 1));
        assertEquals(256 << 20, TestSocketOptions.bufferBytes(65_000, 1e9));
    }
}
