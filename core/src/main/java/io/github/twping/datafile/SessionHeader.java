package io.github.twping.datafile;

import io.github.twping.schedule.ScheduleSlot;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The session data file header (docs/STATISTICS.md, data file): the fixed 40-byte file header, the one-way
 * Request-Session "preamble" (112 bytes), the schedule slots and the zero block.
 *
 * <p>Immutable except for {@link #finished()}, which reflects what was read from a file.
 */
public final class SessionHeader {
    /** File magic {@code "OwA\0"}. */
    public static final int MAGIC = 0x4F774100;
    /** Version word of a two-way file: 128 (two-way flag) | version 3. */
    public static final int VERSION_TWO_WAY = 0x83;
    /** Finished word: the worker failed. */
    public static final int FINISHED_ERROR = 0;
    /** Finished word: the test ended normally. */
    public static final int FINISHED_NORMAL = 1;
    /** Finished word: the test is still running (written at creation). */
    public static final int FINISHED_INCOMPLETE = 2;

    static final int FINISHED_OFFSET = 8;
    static final int DATA_OFFSET_OFFSET = 32;
    static final int PREAMBLE_OFFSET = 40;
    static final int PREAMBLE_LENGTH = 112;
    static final int SLOTS_OFFSET = PREAMBLE_OFFSET + PREAMBLE_LENGTH;
    static final int SLOT_LENGTH = 16;
    /** Smallest possible header (no slots): fixed part, preamble, zero block. */
    public static final int MIN_LENGTH = SLOTS_OFFSET + SLOT_LENGTH;

    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final byte[] sid;
    private final int ipVersion;
    private final byte[] senderAddress;
    private final int senderPort;
    private final byte[] receiverAddress;
    private final int receiverPort;
    private final long packetCount;
    private final long paddingBytes;
    private final long startTimeNtp;
    private final long timeoutNtp;
    private final int typeP;
    private final boolean[] slotFixed;
    private final long[] slotValueNtp;
    private final int finished;

    /**
     * Creates a header.
     *
     * @param sid             the 16-byte session identifier (from Accept-Session)
     * @param ipVersion       4 or 6
     * @param senderAddress   4 or 16 address bytes of the local test socket
     * @param senderPort      local test port
     * @param receiverAddress 4 or 16 address bytes of the reflector
     * @param receiverPort    reflector port
     * @param packetCount     N ({@code -c}), unsigned 32-bit
     * @param paddingBytes    packet padding, unsigned 32-bit
     * @param startTimeNtp    the requested start time (Num64)
     * @param timeoutNtp      the loss timeout L (Num64)
     * @param typeP           the Type-P descriptor (DSCP in bits 24..29)
     * @param slotFixed       per slot: true = fixed offset, false = exponential mean
     * @param slotValueNtp    per slot Num64 parameter
     * @param finished        the finished word (0, 1 or 2)
     */
    public SessionHeader(byte[] sid, int ipVersion, byte[] senderAddress, int senderPort, byte[] receiverAddress,
                         int receiverPort, long packetCount, long paddingBytes, long startTimeNtp, long timeoutNtp,
                         int typeP, boolean[] slotFixed, long[] slotValueNtp, int finished) {
        if (sid.length != 16 || slotFixed.length != slotValueNtp.length) {
            throw new IllegalArgumentException("sid must be 16 bytes and slot arrays of equal length");
        }
        this.sid = sid.clone();
        this.ipVersion = ipVersion;
        this.senderAddress = to16(senderAddress);
        this.senderPort = senderPort & 0xFFFF;
        this.receiverAddress = to16(receiverAddress);
        this.receiverPort = receiverPort & 0xFFFF;
        this.packetCount = packetCount & 0xFFFF_FFFFL;
        this.paddingBytes = paddingBytes & 0xFFFF_FFFFL;
        this.startTimeNtp = startTimeNtp;
        this.timeoutNtp = timeoutNtp;
        this.typeP = typeP;
        this.slotFixed = slotFixed.clone();
        this.slotValueNtp = slotValueNtp.clone();
        this.finished = finished;
    }

    private static byte[] to16(byte[] address) {
        if (address.length == 16) {
            return address.clone();
        }
        if (address.length != 4) {
            throw new IllegalArgumentException("address must be 4 or 16 bytes");
        }
        return Arrays.copyOf(address, 16);
    }

    /** Returns a copy of this header with another finished word. */
    public SessionHeader withFinished(int newFinished) {
        return new SessionHeader(sid, ipVersion, senderAddress, senderPort, receiverAddress, receiverPort,
            packetCount, paddingBytes, startTimeNtp, timeoutNtp, typeP, slotFixed, slotValueNtp, newFinished);
    }

    /** Bytes of the encoded header, which is also the offset of the first record. */
    public int dataOffset() {
        return SLOTS_OFFSET + SLOT_LENGTH * (slotFixed.length + 1);
    }

    /** Encodes the header (finished word included) into {@code dst} at offset 0. */
    public void encode(MemorySegment dst) {
        int length = dataOffset();
        dst.asSlice(0, length).fill((byte) 0);
        dst.set(INT_BE, 0, MAGIC);
        dst.set(INT_BE, 4, VERSION_TWO_WAY);
        dst.set(INT_BE, FINISHED_OFFSET, finished);
        dst.set(LONG_BE, DATA_OFFSET_OFFSET, length);
        int p = PREAMBLE_OFFSET;
        dst.set(ValueLayout.JAVA_BYTE, p, (byte) 1);                // command: Request-Session
        dst.set(ValueLayout.JAVA_BYTE, p + 1, (byte) (ipVersion & 0x0F));
        dst.set(ValueLayout.JAVA_BYTE, p + 2, (byte) 1);            // conf-sender
        dst.set(ValueLayout.JAVA_BYTE, p + 3, (byte) 1);            // conf-receiver (verified: 1)
        dst.set(INT_BE, p + 4, slotFixed.length);
        dst.set(INT_BE, p + 8, (int) packetCount);
        dst.set(SHORT_BE, p + 12, (short) senderPort);
        dst.set(SHORT_BE, p + 14, (short) receiverPort);
        MemorySegment.copy(senderAddress, 0, dst, ValueLayout.JAVA_BYTE, p + 16, ipVersion == 6 ? 16 : 4);
        MemorySegment.copy(receiverAddress, 0, dst, ValueLayout.JAVA_BYTE, p + 32, ipVersion == 6 ? 16 : 4);
        MemorySegment.copy(sid, 0, dst, ValueLayout.JAVA_BYTE, p + 48, 16);
        dst.set(INT_BE, p + 64, (int) paddingBytes);
        dst.set(LONG_BE, p + 68, startTimeNtp);
        dst.set(LONG_BE, p + 76, timeoutNtp);
        dst.set(INT_BE, p + 84, typeP);
        for (int i = 0; i < slotFixed.length; i++) {
            long at = SLOTS_OFFSET + (long) SLOT_LENGTH * i;
            dst.set(ValueLayout.JAVA_BYTE, at, (byte) (slotFixed[i] ? 1 : 0));
            dst.set(LONG_BE, at + 8, slotValueNtp[i]);
        }
    }

    /**
     * Decodes a header from the start of {@code src}.
     *
     * @return the header, or {@code null} if {@code src} is not a valid two-way data file header
     */
    public static SessionHeader decode(MemorySegment src) {
        long size = src.byteSize();
        if (size < MIN_LENGTH || src.get(INT_BE, 0) != MAGIC || src.get(INT_BE, 4) != VERSION_TWO_WAY) {
            return null;
        }
        int p = PREAMBLE_OFFSET;
        long nslots = Integer.toUnsignedLong(src.get(INT_BE, p + 4));
        long dataOffset = src.get(LONG_BE, DATA_OFFSET_OFFSET);
        long expected = SLOTS_OFFSET + SLOT_LENGTH * (nslots + 1);
        if (nslots == 0 || nslots > 0xFFFF || dataOffset != expected || dataOffset > size) {
            return null;
        }
        int ipvn = src.get(ValueLayout.JAVA_BYTE, p + 1) & 0x0F;
        byte[] sid = new byte[16];
        byte[] sender = new byte[16];
        byte[] receiver = new byte[16];
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, p + 16, sender, 0, 16);
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, p + 32, receiver, 0, 16);
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, p + 48, sid, 0, 16);
        boolean[] fixed = new boolean[(int) nslots];
        long[] values = new long[(int) nslots];
        for (int i = 0; i < nslots; i++) {
            long at = SLOTS_OFFSET + (long) SLOT_LENGTH * i;
            fixed[i] = src.get(ValueLayout.JAVA_BYTE, at) == 1;
            values[i] = src.get(LONG_BE, at + 8);
        }
        return new SessionHeader(sid, ipvn, sender, Short.toUnsignedInt(src.get(SHORT_BE, p + 12)), receiver,
            Short.toUnsignedInt(src.get(SHORT_BE, p + 14)), Integer.toUnsignedLong(src.get(INT_BE, p + 8)),
            Integer.toUnsignedLong(src.get(INT_BE, p + 64)), src.get(LONG_BE, p + 68), src.get(LONG_BE, p + 76),
            src.get(INT_BE, p + 84), fixed, values, src.get(INT_BE, FINISHED_OFFSET));
    }

    /** The 16-byte SID (a copy). */
    public byte[] sid() {
        return sid.clone();
    }

    /** The SID as 32 lower-case hex digits. */
    public String sidHex() {
        return HexFormat.of().formatHex(sid);
    }

    public int ipVersion() {
        return ipVersion;
    }

    /** Sender address bytes (4 for IPv4, 16 for IPv6; a copy). */
    public byte[] senderAddress() {
        return ipVersion == 6 ? senderAddress.clone() : Arrays.copyOf(senderAddress, 4);
    }

    public int senderPort() {
        return senderPort;
    }

    /** Receiver (reflector) address bytes (4 for IPv4, 16 for IPv6; a copy). */
    public byte[] receiverAddress() {
        return ipVersion == 6 ? receiverAddress.clone() : Arrays.copyOf(receiverAddress, 4);
    }

    public int receiverPort() {
        return receiverPort;
    }

    /** Sender address as an {@link InetAddress} (no lookup), or {@code null} if malformed. */
    public InetAddress senderInetAddress() {
        return toInet(senderAddress());
    }

    /** Receiver address as an {@link InetAddress} (no lookup), or {@code null} if malformed. */
    public InetAddress receiverInetAddress() {
        return toInet(receiverAddress());
    }

    private static InetAddress toInet(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** N, the number of packets of the session (unsigned 32-bit). */
    public long packetCount() {
        return packetCount;
    }

    public long paddingBytes() {
        return paddingBytes;
    }

    public long startTimeNtp() {
        return startTimeNtp;
    }

    /** The loss timeout L as Num64. */
    public long timeoutNtp() {
        return timeoutNtp;
    }

    public int typeP() {
        return typeP;
    }

    public int slotCount() {
        return slotFixed.length;
    }

    /** The schedule slots as {@link ScheduleSlot}s. */
    public ScheduleSlot[] slots() {
        ScheduleSlot[] out = new ScheduleSlot[slotFixed.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = new ScheduleSlot(slotFixed[i], slotValueNtp[i]);
        }
        return out;
    }

    /** Splits slots into the two arrays the main constructor takes: fixed flags. */
    public static boolean[] fixedFlags(ScheduleSlot[] slots) {
        boolean[] f = new boolean[slots.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = slots[i].fixed();
        }
        return f;
    }

    /** Splits slots into the two arrays the main constructor takes: Num64 values. */
    public static long[] values(ScheduleSlot[] slots) {
        long[] v = new long[slots.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = slots[i].valueNtp();
        }
        return v;
    }

    public boolean slotFixed(int i) {
        return slotFixed[i];
    }

    public long slotValueNtp(int i) {
        return slotValueNtp[i];
    }

    /** The finished word: 0 error, 1 normal, 2 incomplete. */
    public int finished() {
        return finished;
    }
}
