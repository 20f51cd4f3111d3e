package io.github.twping.datafile;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Reads the records of a session data file while it is being written, from another thread: positional
 * reads of whole records below a record count the caller knows to be on disk (e.g.
 * {@link SessionDataWriter#visibleRecords()}). One reused buffer; nothing allocated per record.
 */
public final class RecordTail {
    /** Receives each record read; the holder is reused. */
    @FunctionalInterface
    public interface Consumer {
        void accept(long index, TwoWayRecord record) throws IOException;
    }

    private static final int BATCH = 256;

    private final FileChannel channel;
    private final long dataOffset;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(BATCH * TwoWayRecord.LENGTH);
    private final MemorySegment segment = MemorySegment.ofBuffer(buffer);
    private final TwoWayRecord record = new TwoWayRecord();
    private long next;

    /**
     * @param channel    the data file (read positionally; its position is not changed)
     * @param dataOffset file offset of record 0 (the header's {@code dataOffset()})
     */
    public RecordTail(FileChannel channel, long dataOffset) {
        this.channel = channel;
        this.dataOffset = dataOffset;
    }

    /** @return the index of the next record to read */
    public long position() {
        return next;
    }

    /**
     * Reads the records from {@link #position()} up to {@code availableRecords} (exclusive).
     *
     * @return how many records were read
     */
    public long poll(long availableRecords, Consumer consumer) throws IOException {
        long read = 0;
        while (next < availableRecords) {
            int n = (int) Math.min(BATCH, availableRecords - next);
            buffer.clear().limit(n * TwoWayRecord.LENGTH);
            long at = dataOffset + next * TwoWayRecord.LENGTH;
            while (buffer.hasRemaining()) {
                int got = channel.read(buffer, at + buffer.position());
                if (got < 0) {
                    return read;                      // shorter than announced: try again on the next poll
                }
            }
            for (int i = 0; i < n; i++) {
                RecordCodec.decode(segment, (long) i * TwoWayRecord.LENGTH, record);
                consumer.accept(next, record);
                next++;
                read++;
            }
        }
        return read;
    }
}
