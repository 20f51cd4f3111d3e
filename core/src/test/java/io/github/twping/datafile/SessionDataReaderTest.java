package io.github.twping.datafile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.lang.foreign.ValueLayout;

class SessionDataReaderTest {

    @Test
    void shouldDecodeVectorHeader() throws IOException {
        try (SessionDataReader r = SessionDataReader.open(TestData.vector("datafile-open.owp"))) {
            SessionHeader h = r.header();
            assertEquals("7f000001eeb7e6fc46fcefaaf99a610c", h.sidHex());
            assertEquals(4, h.ipVersion());
            assertEquals(9417, h.senderPort());
            assertEquals(18884, h.receiverPort());
            assertEquals(20, h.packetCount());
            assertEquals(27, h.paddingBytes());
            assertEquals(1, h.slotCount());
            assertTrue(h.slotFixed(0));
            assertEquals(0x028F5C28L, h.slotValueNtp(0));
            assertEquals(SessionHeader.FINISHED_NORMAL, h.finished());
            assertEquals(184, r.dataOffset());
            assertEquals(20, r.recordCount());
            assertArrayEquals(new byte[] {127, 0, 0, 1}, h.receiverAddress());
        }
    }

    @Test
    void shouldReencodeHeadersAndRecordsOfEveryVectorFileByteForByte() throws IOException {
        for (String name : List.of("datafile-open.owp", "datafile-exp.owp", "datafile-offset.owp",
            "datafile-loss.owp", "datafile-fwdloss.owp", "fakerefl-dupfwd.owp", "fakerefl-short.owp")) {
            byte[] original = TestData.vectorBytes(name);
            try (SessionDataReader r = SessionDataReader.of(original)) {
                TwoWayRecord[] records = new TwoWayRecord[(int) r.recordCount()];
                for (int i = 0; i < records.length; i++) {
                    records[i] = r.read(i, new TwoWayRecord());
                }
                assertArrayEquals(original, TestData.file(r.header(), records), name);
            }
        }
    }

    @Test
    void shouldMatchLostRecordLayoutOfLossVector() throws IOException {
        try (SessionDataReader r = SessionDataReader.open(TestData.vector("datafile-loss.owp"))) {
            TwoWayRecord rec = r.read(63, new TwoWayRecord());
            assertTrue(rec.isLost());
            assertEquals(63, rec.sentSeq);
            long scheduled = r.header().startTimeNtp() + 64 * r.header().slotValueNtp(0);
            assertEquals(scheduled, rec.sentSendNtp);
            TwoWayRecord expected = new TwoWayRecord().setLost(63, scheduled, rec.sentRecvErr);
            byte[] a = TestData.file(r.header(), rec);
            byte[] b = TestData.file(r.header(), expected);
            assertArrayEquals(b, a);
        }
    }

    @Test
    void shouldReportCTextsForEmptyFile(@TempDir Path dir) throws IOException {
        Path empty = Files.createFile(dir.resolve("empty.owp"));
        InvalidDataFileException e = assertThrows(InvalidDataFileException.class, () -> SessionDataReader.open(empty));
        assertEquals(List.of("_OWPReadDataHeaderInitial: Invalid owp file", "OWPReadDataHeader: Invalid file?"),
            e.diagnostics());
    }

    @Test
    void shouldRejectBadMagicAndOneWayVersion() {
        byte[] bytes = TestData.vectorBytes("datafile-open.owp");
        byte[] badMagic = bytes.clone();
        badMagic[0] = 'X';
        assertThrows(InvalidDataFileException.class, () -> SessionDataReader.of(badMagic));
        byte[] oneWay = bytes.clone();
        oneWay[7] = 0x03;
        assertThrows(InvalidDataFileException.class, () -> SessionDataReader.of(oneWay));
        byte[] headerOnlyHalf = Arrays.copyOf(bytes, 100);
        assertThrows(InvalidDataFileException.class, () -> SessionDataReader.of(headerOnlyHalf));
    }

    @Test
    void shouldIgnoreTruncatedTrailingRecord() throws IOException {
        byte[] bytes = TestData.vectorBytes("datafile-open.owp");
        byte[] truncated = Arrays.copyOf(bytes, bytes.length - 20);
        try (SessionDataReader r = SessionDataReader.of(truncated)) {
            assertEquals(19, r.recordCount());
        }
    }

    @Test
    void shouldReadHeaderOnlyFileAsZeroRecords() throws IOException {
        SessionHeader h = TestData.header(10);
        try (SessionDataReader r = SessionDataReader.of(TestData.file(h))) {
            assertEquals(0, r.recordCount());
            byte[] sidBack = r.header().sid();
            assertArrayEquals(h.sid(), sidBack);
            MemorySegment seg = MemorySegment.ofArray(new byte[h.dataOffset()]);
            r.header().encode(seg);
            assertArrayEquals(TestData.file(h), seg.toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
