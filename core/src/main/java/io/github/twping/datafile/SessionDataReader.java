package io.github.twping.datafile;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Reader of a session data file (docs/STATISTICS.md, data file) from a path, a channel or bytes.
 *
 * <p>The header is validated on open (magic and two-way version); records are then read by index
 * into a caller-owned, reused {@link TwoWayRecord}. The number of records is
 * {@code (size - dataOffset) / 50}: a truncated trailing record is ignored, as in C.
 */
public final class SessionDataReader implements AutoCloseable {
    /** C diagnostic for an empty, short or foreign file. */
    public static final String INVALID_OWP_FILE = "_OWPReadDataHeaderInitial: Invalid owp file";
    /** C diagnostic that follows {@link #INVALID_OWP_FILE}. */
    public static final String INVALID_FILE = "OWPReadDataHeader: Invalid file?";

    private final Arena arena;
    private final MemorySegment data;
    private final SessionHeader header;
    private final long dataOffset;
    private final long recordCount;

    private SessionDataReader(Arena arena, MemorySegment data) throws InvalidDataFileException {
        this.arena = arena;
        this.data = data;
        SessionHeader h = SessionHeader.decode(data);
        if (h == null) {
            if (arena != null) {
                arena.close();
            }
            throw new InvalidDataFileException(List.of(INVALID_OWP_FILE, INVALID_FILE));
        }
        this.header = h;
        this.dataOffset = h.dataOffset();
        this.recordCount = (data.byteSize() - dataOffset) / TwoWayRecord.LENGTH;
    }

    /** Opens and maps {@code file}; throws {@link InvalidDataFileException} with the C texts if invalid. */
    public static SessionDataReader open(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return open(ch);
        }
    }

    /** Maps the current content of {@code channel} (which may be closed afterwards). */
    public static SessionDataReader open(FileChannel channel) throws IOException {
        long size = channel.size();
        if (size < SessionHeader.MIN_LENGTH) {
            throw new InvalidDataFileException(List.of(INVALID_OWP_FILE, INVALID_FILE));
        }
        Arena arena = Arena.ofShared();
        MemorySegment mapped;
        try {
            mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
        return new SessionDataReader(arena, mapped);
    }

    /** Reads a data file held in memory. */
    public static SessionDataReader of(byte[] bytes) throws InvalidDataFileException {
        return new SessionDataReader(null, MemorySegment.ofArray(bytes));
    }

    /** The decoded header. */
    public SessionHeader header() {
        return header;
    }

    /** Number of complete 50-byte records. */
    public long recordCount() {
        return recordCount;
    }

    /** File offset of the first record. */
    public long dataOffset() {
        return dataOffset;
    }

    /**
     * Decodes record {@code index} (0-based, file order) into {@code into}.
     *
     * @return {@code into}
     */
    public TwoWayRecord read(long index, TwoWayRecord into) {
        RecordCodec.decode(data, dataOffset + index * TwoWayRecord.LENGTH, into);
        return into;
    }

    /** Releases the mapping (no-op for in-memory data). */
    @Override
    public void close() {
        if (arena != null) {
            arena.close();
        }
    }
}
