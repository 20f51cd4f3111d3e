package io.github.twping.datafile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionDataWriterTest {

    @Test
    void shouldRewriteVectorFileIdentically(@TempDir Path dir) throws IOException {
        byte[] original = TestData.vectorBytes("datafile-loss.owp");
        Path copy = dir.resolve("copy.owp");
        try (SessionDataReader r = SessionDataReader.of(original);
             SessionDataWriter w = SessionDataWriter.create(copy, r.header())) {
            assertEquals(SessionHeader.FINISHED_INCOMPLETE, readFinished(copy));
            TwoWayRecord rec = new TwoWayRecord();
            for (long i = 0; i < r.recordCount(); i++) {
                w.append(r.read(i, rec));
            }
            w.finish(true);
            assertEquals(r.recordCount(), w.recordsWritten());
        }
        assertArrayEquals(original, Files.readAllBytes(copy));
    }

    @Test
    void shouldWriteHeaderWithFinishedTwoThenSetZeroOnError(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("x.owp");
        SessionHeader h = TestData.header(3);
        try (SessionDataWriter w = SessionDataWriter.create(file, h)) {
            assertEquals(h.dataOffset(), Files.size(file));
            assertEquals(2, readFinished(file));
            w.append(TestData.received(new TwoWayRecord(), 0, 1000, 100, 1000, 255));
            assertEquals(h.dataOffset(), Files.size(file)); // still buffered
            w.flush();
            assertEquals(h.dataOffset() + 50, Files.size(file));
            w.finish(false);
        }
        assertEquals(0, readFinished(file));
    }

    /**
     * The anonymous data file is made as mkstemp(3) makes C's: owner-only, exclusively, under a fresh name in the
     * directory given, and it is anonymous at once (the JDK unlinks a DELETE_ON_CLOSE file on Linux as it opens it;
     * /proc/self/fd still names and stats it); a missing directory fails as the C message expects
     * (NoSuchFileException, "mkstemp(...): No such file or directory").
     */
    @Test
    void anonymousTempFilesAreOwnerOnlyFreshlyNamedAndUnlinked(@TempDir Path dir) throws IOException {
        try (FileChannel first = SessionDataWriter.openAnonymousTempFile(dir);
             FileChannel second = SessionDataWriter.openAnonymousTempFile(dir)) {
            try (Stream<Path> listing = Files.list(dir)) {
                assertEquals(List.of(), listing.toList(), "no name left in the directory");
            }
            List<Path> open = new ArrayList<>();
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                for (Path fd : fds.toList()) {
                    try {
                        String target = Files.readSymbolicLink(fd).toString();
                        if (target.startsWith(dir + "/")) {
                            assertTrue(target.matches(".*/twping[0-9]+\\.owp \\(deleted\\)"), target);
                            assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(fd));
                            open.add(fd);
                        }
                    } catch (NoSuchFileException e) {
                        // the listing's own descriptor, closed since
                    }
                }
            }
            assertEquals(2, open.size(), "two anonymous files: " + open);
            first.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            assertEquals(3, first.size());
            assertEquals(0, second.size(), "two distinct files");
        }
        assertThrows(NoSuchFileException.class, () -> SessionDataWriter.openAnonymousTempFile(dir.resolve("missing")));
    }

    @Test
    void shouldBatchManyRecordsOnAnonymousTempFile(@TempDir Path dir) throws IOException {
        SessionHeader h = TestData.header(1000);
        try (FileChannel ch = SessionDataWriter.openAnonymousTempFile(dir);
             SessionDataWriter w = SessionDataWriter.onChannel(ch, h, 7)) {
            TwoWayRecord rec = new TwoWayRecord();
            for (int i = 0; i < 1000; i++) {
                w.append(TestData.received(rec, i, 1000 + i, 100, 2000, 255));
            }
            w.finish(true);
            try (SessionDataReader r = SessionDataReader.open(ch)) {
                assertEquals(1000, r.recordCount());
                assertEquals(SessionHeader.FINISHED_NORMAL, r.header().finished());
                TwoWayRecord back = r.read(999, new TwoWayRecord());
                assertEquals(999, back.sentSeq);
                assertEquals(TestData.received(new TwoWayRecord(), 999, 1999, 100, 2000, 255).reflRecvNtp,
                    back.reflRecvNtp);
            }
        }
    }

    /** Without the sync (the anonymous file of a run, docs/CLI.md, signals) the finished file is the same. */
    @Test
    void shouldFinishTheSameFileWithoutTheSync(@TempDir Path dir) throws IOException {
        byte[] original = TestData.vectorBytes("datafile-loss.owp");
        Path copy = dir.resolve("unsynced.owp");
        try (SessionDataReader r = SessionDataReader.of(original);
             SessionDataWriter w = SessionDataWriter.create(copy, r.header()).syncOnFinish(false)) {
            TwoWayRecord rec = new TwoWayRecord();
            for (long i = 0; i < r.recordCount(); i++) {
                w.append(r.read(i, rec));
            }
            w.finish(true);
        }
        assertArrayEquals(original, Files.readAllBytes(copy));
    }

    /**
     * The agent's writers reuse the last session's buffers: a second session written through the buffers of a
     * first, larger one (and truncating its file) gives the bytes of a fresh writer, finished word and all; so does
     * a writer of another batch size, which gets buffers of its own.
     */
    @Test
    void shouldWriteTheSameFileWithTheBuffersOfThePreviousWriter(@TempDir Path dir) throws IOException {
        byte[] original = TestData.vectorBytes("datafile-loss.owp");
        SessionHeader small = TestData.header(3);
        TwoWayRecord[] smallRecords = {TestData.received(new TwoWayRecord(), 0, 1000, 100, 1000, 64),
            new TwoWayRecord().setLost(1, TestData.START + 2 * TestData.TEN_MS, 0x0001),
            TestData.received(new TwoWayRecord(), 2, 3000, 100, 3000, 64)};
        byte[] fresh = TestData.file(small.withFinished(SessionHeader.FINISHED_NORMAL), smallRecords);
        try (FileChannel ch = SessionDataWriter.openAnonymousTempFile(dir);
             SessionDataReader r = SessionDataReader.of(original)) {
            SessionDataWriter first = SessionDataWriter.onChannel(ch, r.header(), 4);
            TwoWayRecord rec = new TwoWayRecord();
            for (long i = 0; i < r.recordCount(); i++) {
                first.append(r.read(i, rec));
            }
            first.finish(true);
            assertArrayEquals(original, readAll(ch));

            SessionDataWriter second = SessionDataWriter.onChannel(ch, small, 4, first);
            for (TwoWayRecord t : smallRecords) {
                second.append(t);
            }
            second.finish(true);
            assertArrayEquals(fresh, readAll(ch), "the same bytes as a fresh writer's");

            SessionDataWriter third = SessionDataWriter.onChannel(ch, small, 64, second); // another batch size
            for (TwoWayRecord t : smallRecords) {
                third.append(t);
            }
            third.finish(true);
            assertArrayEquals(fresh, readAll(ch), "with buffers of its own");
        }
    }

    private static byte[] readAll(FileChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate((int) ch.size());
        while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
            // positional reads until full
        }
        return b.array();
    }

    @Test
    void shouldEncodeLostRecordLayoutOfSpec55() throws IOException {
        TwoWayRecord lost = new TwoWayRecord().setLost(63, TestData.START + 64 * TestData.TEN_MS, 0x0001);
        byte[] bytes = TestData.file(TestData.header(100), lost);
        try (SessionDataReader r = SessionDataReader.of(bytes)) {
            TwoWayRecord back = r.read(0, new TwoWayRecord());
            assertEquals(true, back.isLost());
            assertEquals(255, back.sentTtl);
            assertEquals(255, back.reflTtl);
            assertEquals(0, back.reflSeq);
            assertEquals(0x0001, back.sentSendErr);
        }
    }

    private static int readFinished(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file)) {
            ByteBuffer b = ByteBuffer.allocate(4);
            ch.read(b, 8);
            return b.getInt(0);
        }
    }
}
