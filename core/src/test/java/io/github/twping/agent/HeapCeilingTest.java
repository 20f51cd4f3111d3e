package io.github.twping.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The agent's soft ceiling on the Serial collector's old generation, driven by a fake pool. */
class HeapCeilingTest {
    private static final long MB = 1L << 20;

    @Test
    void collectsOnlyAboveTheLimitAndThenFollowsWhatTheCollectionLeftLive() {
        AtomicLong used = new AtomicLong(10 * MB);
        AtomicLong live = new AtomicLong(-1);
        AtomicLong gcs = new AtomicLong();
        HeapCeiling c = new HeapCeiling(used::get, live::get, () -> {
            gcs.incrementAndGet();
            live.set(30 * MB);   // what the collection left
            used.set(30 * MB);
        });
        assertEquals(HeapCeiling.FLOOR_BYTES, c.limit());
        assertFalse(c.check(), "under the floor: no collection");
        used.set(HeapCeiling.FLOOR_BYTES);
        assertFalse(c.check(), "at the limit: no collection");
        used.set(HeapCeiling.FLOOR_BYTES + 1);
        assertTrue(c.check());
        assertEquals(1, gcs.get());
        assertEquals(30 * MB + 30 * MB / 4, c.limit(), "a quarter more than the 30 MB left live");
        assertFalse(c.check(), "right after the collection: no second one (no storm)");
        used.set(37 * MB);
        assertFalse(c.check());
        used.set(38 * MB);
        live.set(30 * MB);
        assertTrue(c.check());
        assertEquals(2, c.collections());
    }

    @Test
    void theLimitNeverFallsBelowTheFloorAndGrowsWithTheLiveData() {
        assertEquals(HeapCeiling.FLOOR_BYTES, HeapCeiling.limitFor(-1), "no full collection reported yet");
        assertEquals(HeapCeiling.FLOOR_BYTES, HeapCeiling.limitFor(2 * MB));
        assertEquals(250 * MB, HeapCeiling.limitFor(200 * MB), "a larger fleet gets a larger limit");
    }
}
