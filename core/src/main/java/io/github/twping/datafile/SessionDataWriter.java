package io.github.twping.datafile;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Writer of a session data file (docs/STATISTICS.md, data file): writes the header with finished = 2 at start,
 * appends 50-byte records in batches from a preallocated direct buffer (no allocation per
 * record), and sets the finished word at the end.
 *
 * <p>Single-threaded: one writer per file.
 */
public final class SessionDataWriter implements AutoCloseable {
    /** Records buffered before a write to the channel. */
    public static final int DEFAULT_BATCH_RECORDS = 256;

    private final FileChannel channel;
    private final boolean ownsChannel;
    private final ByteBuffer buffer;
    private final MemorySegment segment;
    private final ByteBuffer finishedWord;
    private final long dataOffset;
    private long position;
    private long recordsWritten;
    private volatile long visibleRecords;
    private boolean syncOnFinish = true;

    private SessionDataWriter(FileChannel channel, boolean ownsChannel, SessionHeader header, int batchRecords)
        throws IOException {
        this(channel, ownsChannel, header, batchRecords, null);
    }

    private SessionDataWriter(FileChannel channel, boolean ownsChannel, SessionHeader header, int batchRecords,
                              SessionDataWriter previous) throws IOException {
        this.channel = channel;
        this.ownsChannel = ownsChannel;
        int headerLength = header.dataOffset();
        int bytes = Math.max(headerLength, batchRecords * TwoWayRecord.LENGTH);
        if (previous != null && previous.buffer.capacity() == bytes) {
            this.buffer = previous.buffer.clear();
            this.segment = previous.segment;
            this.finishedWord = previous.finishedWord;
        } else {
            this.buffer = ByteBuffer.allocateDirect(bytes);
            this.segment = MemorySegment.ofBuffer(buffer);
            this.finishedWord = ByteBuffer.allocateDirect(4);
        }
        this.dataOffset = headerLength;
        header.withFinished(SessionHeader.FINISHED_INCOMPLETE).encode(segment);
        buffer.clear().limit(headerLength);
        channel.truncate(0);
        writeFully(buffer, 0);
        position = headerLength;
        buffer.clear();
    }

    /** Creates (truncates) {@code file} and writes the header with finished = 2. */
    public static SessionDataWriter create(Path file, SessionHeader header) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.READ, StandardOpenOption.TRUNCATE_EXISTING);
        return new SessionDataWriter(ch, true, header, DEFAULT_BATCH_RECORDS);
    }

    /**
     * Writes to a caller-owned channel (e.g. an anonymous temporary file); the channel stays open
     * on {@link #close()}.
     */
    public static SessionDataWriter onChannel(FileChannel channel, SessionHeader header, int batchRecords)
        throws IOException {
        return new SessionDataWriter(channel, false, header, batchRecords);
    }

    /**
     * As {@link #onChannel(FileChannel, SessionHeader, int)}, with the direct buffers of {@code previous} (when it
     * has the same batch size; null: new ones), for a caller that writes sessions back to back (the agent): its
     * buffer of 12.8 KB off the heap was freed only when a full collection found its writer unreachable, 1.3 MB of
     * native memory with 100 targets at the end of every round. {@code previous} must be finished and never be
     * used again.
     */
    public static SessionDataWriter onChannel(FileChannel channel, SessionHeader header, int batchRecords,
                                              SessionDataWriter previous) throws IOException {
        return new SessionDataWriter(channel, false, header, batchRecords, previous);
    }

    /**
     * Opens an anonymous temporary file (deleted when the channel closes) in {@code dir}
     * (or the default temporary directory, {@code java.io.tmpdir}, when {@code null}), readable and writable.
     *
     * <p>Created as {@code mkstemp(3)} creates the C client's: owner-only (0600), exclusively ({@code O_EXCL}: an
     * existing file or link of that name is never opened), under a name {@code twping<n>.owp} whose number comes
     * from {@code /dev/urandom}, another name being tried when one exists. Not {@code Files.createTempFile}: it names
     * its files with a {@code SecureRandom}, whose first use starts the JDK's security providers (tens of ms of
     * {@code twping -c 1} before its start time, docs/CLIENT.md "Start-up").
     */
    public static FileChannel openAnonymousTempFile(Path dir) throws IOException {
        Path directory = dir != null ? dir : Path.of(System.getProperty("java.io.tmpdir"));
        FileAlreadyExistsException taken = null;
        try (InputStream random = randomSource()) {
            for (int attempt = 0; attempt < TEMP_NAME_ATTEMPTS; attempt++) {
                Path p = directory.resolve("twping" + Long.toUnsignedString(nameNumber(random)) + ".owp");
                try {
                    return FileChannel.open(p, TEMP_OPTIONS, OWNER_ONLY);
                } catch (FileAlreadyExistsException e) {
                    taken = e;
                }
            }
        }
        throw taken;
    }

    /** How many names {@link #openAnonymousTempFile} tries before it gives up (all taken: EEXIST, as mkstemp). */
    static final int TEMP_NAME_ATTEMPTS = 100;
    private static final Set<StandardOpenOption> TEMP_OPTIONS = Set.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.DELETE_ON_CLOSE);
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY = PosixFilePermissions.asFileAttribute(
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));

    /** /dev/urandom, or null where it cannot be opened (then the names come from the clock, as glibc's fallback). */
    private static InputStream randomSource() {
        try {
            return new FileInputStream("/dev/urandom");
        } catch (IOException e) {
            return null;
        }
    }

    private static long nameNumber(InputStream random) {
        if (random != null) {
            try {
                byte[] b = random.readNBytes(Long.BYTES);
                if (b.length == Long.BYTES) {
                    long n = 0;
                    for (byte x : b) {
                        n = n << 8 | (x & 0xff);
                    }
                    return n;
                }
            } catch (IOException e) {
                // fall through to the clock
            }
        }
        long z = System.nanoTime() * 0x9E3779B97F4A7C15L + ProcessHandle.current().pid();
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        return z ^ (z >>> 33);
    }

    /** Appends one record (buffered); writes the batch to the channel when the buffer is full. */
    public void append(TwoWayRecord record) throws IOException {
        if (buffer.position() + TwoWayRecord.LENGTH > buffer.capacity()) {
            flush();
        }
        RecordCodec.encode(record, segment, buffer.position());
        buffer.position(buffer.position() + TwoWayRecord.LENGTH);
        recordsWritten++;
    }

    /** Writes buffered records to the channel. */
    public void flush() throws IOException {
        if (buffer.position() == 0) {
            return;
        }
        buffer.flip();
        int n = buffer.remaining();
        writeFully(buffer, position);
        position += n;
        buffer.clear();
        visibleRecords = recordsWritten;             // release: the records (and their side entries) are written
    }

    /**
     * Whether {@link #finish} forces the file to the disk (fdatasync; the default). An anonymous file that is
     * deleted when the run ends needs no such sync, and on a busy disk it took 1-10 ms of the way from a Ctrl-C to
     * the partial summary (docs/CLI.md, signals). Call before {@link #finish}.
     */
    public SessionDataWriter syncOnFinish(boolean sync) {
        this.syncOnFinish = sync;
        return this;
    }

    /** Flushes and sets the finished word: 1 if {@code normal}, else 0; then the sync of {@link #syncOnFinish}. */
    public void finish(boolean normal) throws IOException {
        flush();
        finishedWord.clear();
        finishedWord.putInt(0, normal ? SessionHeader.FINISHED_NORMAL : SessionHeader.FINISHED_ERROR);
        writeFully(finishedWord, SessionHeader.FINISHED_OFFSET);
        if (syncOnFinish) {
            channel.force(false);
        }
    }

    /** Records appended so far. */
    public long recordsWritten() {
        return recordsWritten;
    }

    /**
     * Records written to the channel so far, readable from any thread (e.g. by a {@link RecordTail}): a
     * volatile read of a count updated after each batch write.
     */
    public long visibleRecords() {
        return visibleRecords;
    }

    /** File offset of the first record. */
    public long dataOffset() {
        return dataOffset;
    }

    /** The underlying channel (for reading the file back). */
    public FileChannel channel() {
        return channel;
    }

    private void writeFully(ByteBuffer src, long at) throws IOException {
        long p = at;
        int guard = 0;
        while (src.hasRemaining()) {
            int n = channel.write(src, p);
            p += n;
            if (n == 0 && ++guard > 1000) {
                throw new IOException("data file write made no progress");
            }
        }
    }

    /** Flushes buffered records; closes the channel if this writer opened it. */
    @Override
    public void close() throws IOException {
        flush();
        if (ownsChannel) {
            channel.close();
        }
    }
}
