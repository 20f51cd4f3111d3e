package io.github.twping.datafile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The client-stamp table's size: an agent keeps one per target between sessions (docs/PERFORMANCE.md). */
class RecordStampsTest {
    @Test
    void aHundredPacketSessionGetsRoomForItsDuplicatesNotAThousandSpareRecords() {
        RecordStamps t = RecordStamps.forPacketCount(100);
        // 100 packets, an eighth more for duplicates (12), 64 spare: 176 records of 33 bytes, 5.8 KB
        assertEquals(176, t.capacity());
        assertTrue(t.holds(100));
        assertTrue(t.holds(99));
        assertFalse(t.holds(101), "a longer session gets a larger table");
        t.set(175, 1, 2, 3, true, 4);
        t.set(176, 1, 2, 3, true, 4);
        assertTrue(t.recorded(175));
        assertEquals(3, t.kernelTxNtp(175));
        assertFalse(t.recorded(176), "records beyond the capacity have no entry");
        assertEquals(0, t.receiptNtp(176));
    }

    @Test
    void aClearedTableForgetsItsEntries() {
        RecordStamps t = RecordStamps.forPacketCount(10);
        t.set(3, 5, 6, 0, false, 7);
        assertTrue(t.recorded(3));
        assertFalse(t.kernelTxHardware(3));
        t.clear();
        assertFalse(t.recorded(3));
        assertEquals(0, t.scheduledNtp(3));
    }
}
