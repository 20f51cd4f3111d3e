package io.github.twping.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.net.InetSocketAddress;
import java.util.Objects;

import static io.github.twping.ffm.Structs.MSG_CONTROL;
import static io.github.twping.ffm.Structs.MSG_CONTROLLEN;
import static io.github.twping.ffm.Structs.MSG_FLAGS;
import static io.github.twping.ffm.Structs.MSG_IOV;
import static io.github.twping.ffm.Structs.MSG_IOVLEN;
import static io.github.twping.ffm.Structs.MSG_NAME;
import static io.github.twping.ffm.Structs.MSG_NAMELEN;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A reusable set of datagram slots for one batched system call: {@link UdpSocket#receiveBatch} fills up to
 * {@link #capacity()} slots with one {@code recvmmsg(2)}, {@link UdpSocket#sendBatch} sends the first N
 * slots with one {@code sendmmsg(2)}. Each slot has a native buffer of {@link #bufferBytes()}, its length,
 * its metadata (receive) or destination (send). All native memory (buffers, the {@code mmsghdr} array, iovecs,
 * addresses, control buffers) is allocated here, once; batch calls allocate nothing.
 *
 * <p>Not thread-safe: one batch per thread and direction. Close it after the socket no longer uses it.
 */
public final class DatagramBatch implements AutoCloseable {
    /** struct mmsghdr { struct msghdr msg_hdr; unsigned int msg_len; } (64 bytes on LP64). */
    static final StructLayout MMSGHDR = MemoryLayout.structLayout(
            Structs.MSGHDR.withName("msg_hdr"), JAVA_INT.withName("msg_len"), MemoryLayout.paddingLayout(4));
    static final long MMSG_LEN = MMSGHDR.byteOffset(groupElement("msg_len"));
    static final long MMSG_BYTES = MMSGHDR.byteSize();
    static final int NAME_BYTES = Structs.SOCKADDR_STORAGE_BYTES;
    static final int CONTROL_BYTES = NativeUdpSocket.CONTROL_BYTES;
    /** Upper bound of {@link #bufferBytes()}: one whole UDP datagram. */
    public static final int MAX_BUFFER_BYTES = NativeUdpSocket.STAGING_BYTES;
    /** Upper bound of {@link #capacity()} (the kernel's UIO_MAXIOV). */
    public static final int MAX_CAPACITY = 1024;

    private final Arena arena;
    private final int capacity;
    private final int bufferBytes;
    final MemorySegment headers;
    final MemorySegment iovecs;
    final MemorySegment names;
    final MemorySegment controls;
    private final MemorySegment[] buffers;
    final MemorySegment[] nameSlots;
    final MemorySegment[] controlSlots;
    private final ReceivedPacket[] metas;
    private final int[] lengths;
    private final InetSocketAddress[] destinations;
    // send-side cache of the encoded destination per slot (by identity), for the socket's family
    final InetSocketAddress[] encodedDestinations;
    final int[] encodedLengths;
    int encodedFamily;
    private int count;

    /**
     * @param capacity    slots, 1..{@link #MAX_CAPACITY}
     * @param bufferBytes bytes per slot buffer (a longer datagram is truncated, {@link ReceivedPacket#truncated()})
     */
    public DatagramBatch(int capacity, int bufferBytes) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be 1.." + MAX_CAPACITY + ": " + capacity);
        }
        if (bufferBytes < 1 || bufferBytes > NativeUdpSocket.STAGING_BYTES) {
            throw new IllegalArgumentException("buffer bytes must be 1.." + NativeUdpSocket.STAGING_BYTES + ": " + bufferBytes);
        }
        this.capacity = capacity;
        this.dirty = capacity;
        this.bufferBytes = bufferBytes;
        this.arena = Arena.ofShared();
        this.headers = arena.allocate(MMSG_BYTES * capacity, 8);
        this.iovecs = arena.allocate(Structs.IOVEC.byteSize() * capacity, 8);
        this.names = arena.allocate((long) NAME_BYTES * capacity, 8);
        this.controls = arena.allocate((long) CONTROL_BYTES * capacity, 8);
        MemorySegment data = arena.allocate((long) bufferBytes * capacity, 16);
        this.buffers = new MemorySegment[capacity];
        this.nameSlots = new MemorySegment[capacity];
        this.controlSlots = new MemorySegment[capacity];
        this.metas = new ReceivedPacket[capacity];
        this.lengths = new int[capacity];
        this.destinations = new InetSocketAddress[capacity];
        this.encodedDestinations = new InetSocketAddress[capacity];
        this.encodedLengths = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            buffers[i] = data.asSlice((long) bufferBytes * i, bufferBytes);
            metas[i] = new ReceivedPacket();
            long iov = Structs.IOVEC.byteSize() * i;
            iovecs.set(ADDRESS, iov, buffers[i]);
            iovecs.set(JAVA_LONG, iov + 8, bufferBytes);
            long h = MMSG_BYTES * i;
            nameSlots[i] = names.asSlice((long) NAME_BYTES * i, NAME_BYTES);
            controlSlots[i] = controls.asSlice((long) CONTROL_BYTES * i, CONTROL_BYTES);
            headers.set(ADDRESS, h + MSG_NAME, nameSlots[i]);
            headers.set(ADDRESS, h + MSG_IOV, iovecs.asSlice(iov, Structs.IOVEC.byteSize()));
            headers.set(JAVA_LONG, h + MSG_IOVLEN, 1);
            headers.set(ADDRESS, h + MSG_CONTROL, controlSlots[i]);
        }
    }

    public int capacity() {
        return capacity;
    }

    public int bufferBytes() {
        return bufferBytes;
    }

    /** The native buffer of slot {@code i} ({@link #bufferBytes()} long). */
    public MemorySegment buffer(int i) {
        return buffers[i];
    }

    /** After a receive: the metadata of slot {@code i}. */
    public ReceivedPacket meta(int i) {
        return metas[i];
    }

    /** After a receive: the payload length of slot {@code i}; before a send: what was set. */
    public int length(int i) {
        return lengths[i];
    }

    /** Datagrams in the batch: set by a receive, or by the caller for a send. */
    public int count() {
        return count;
    }

    /** Sets slot {@code i} up for a send: {@code length} bytes of its buffer to {@code destination}. */
    public void prepareSend(int i, int length, InetSocketAddress destination) {
        Objects.checkIndex(i, capacity);
        Objects.checkFromIndexSize(0, length, bufferBytes);
        lengths[i] = length;
        destinations[i] = Objects.requireNonNull(destination, "destination");
    }

    /** Sets how many slots (from 0) a send takes. */
    public void count(int count) {
        Objects.checkFromIndexSize(0, count, capacity);
        this.count = count;
    }

    InetSocketAddress destination(int i) {
        return destinations[i];
    }

    /**
     * Resets what a previous call changed in the headers (the kernel writes back name and control lengths and
     * flags; a send sets its own lengths) so that every slot can receive a whole datagram. Kept out of the
     * receive call so that the downcall is inlined into a small method (a large caller left the errno capture
     * segment's slice unscalarised: 40 bytes per call).
     */
    void prepareReceive() {
        for (int i = 0; i < dirty; i++) {
            long h = MMSG_BYTES * i;
            headers.set(JAVA_INT, h + MSG_NAMELEN, NAME_BYTES);
            headers.set(JAVA_LONG, h + MSG_CONTROLLEN, CONTROL_BYTES);
            headers.set(JAVA_INT, h + MSG_FLAGS, 0);
            headers.set(JAVA_LONG, h + MSG_IOVLEN, 1);
            iovecs.set(JAVA_LONG, Structs.IOVEC.byteSize() * i + 8, bufferBytes);
        }
        dirty = 0;
    }

    /** The first {@code slots} headers were written (by the kernel's receive or by a send's set-up). */
    void touched(int slots) {
        if (slots > dirty) {
            dirty = slots;
        }
    }

    /**
     * Headers {@link #prepareReceive} must reset: all of them at first (their lengths are unset), then the ones
     * the last calls wrote, so that a receive of one datagram resets one header, not {@link #capacity()}.
     */
    private int dirty;

    void received(int count) {
        this.count = count;
    }

    void length(int i, int length) {
        lengths[i] = length;
    }

    /** Releases the native memory; the batch must no longer be in use by a socket. */
    @Override
    public void close() {
        arena.close();
    }
}
