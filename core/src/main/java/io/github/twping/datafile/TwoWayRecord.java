package io.github.twping.datafile;


/**
 * Mutable holder for one two-way data record (docs/STATISTICS.md, appendix B): the {@code sent} half then
 * the {@code reflected} half. One instance is reused per session; nothing is allocated per record.
 *
 * <p>Sequence numbers are unsigned 32-bit values in a {@code long}; timestamps are raw Num64 values
 * (unsigned) in a {@code long}; error estimates are the 16-bit wire field in an {@code int};
 * TTLs are 0..255.
 */
public final class TwoWayRecord {
    /** Size of a record in the data file. */
    public static final int LENGTH = 50;

    public long sentSeq;
    public long sentSendNtp;
    public int sentSendErr;
    public long sentRecvNtp;
    public int sentRecvErr;
    public int sentTtl;
    public long reflSeq;
    public long reflSendNtp;
    public int reflSendErr;
    public long reflRecvNtp;
    public int reflRecvErr;
    public int reflTtl;

    /** A record is lost iff the reflector receive time ({@code sent.recv}) is zero (docs/STATISTICS.md). */
    public boolean isLost() {
        return sentRecvNtp == 0;
    }

    /** True if any of the four error-estimate fields has multiplier 0 (the C decoder rejects it). */
    public boolean hasInvalidErrorEstimate() {
        return (sentSendErr & 0xFF) == 0 || (sentRecvErr & 0xFF) == 0
            || (reflSendErr & 0xFF) == 0 || (reflRecvErr & 0xFF) == 0;
    }

    /** Copies every field of {@code other} into this holder. */
    public TwoWayRecord copyFrom(TwoWayRecord other) {
        sentSeq = other.sentSeq;
        sentSendNtp = other.sentSendNtp;
        sentSendErr = other.sentSendErr;
        sentRecvNtp = other.sentRecvNtp;
        sentRecvErr = other.sentRecvErr;
        sentTtl = other.sentTtl;
        reflSeq = other.reflSeq;
        reflSendNtp = other.reflSendNtp;
        reflSendErr = other.reflSendErr;
        reflRecvNtp = other.reflRecvNtp;
        reflRecvErr = other.reflRecvErr;
        reflTtl = other.reflTtl;
        return this;
    }

    /**
     * Fills this holder as a lost record (docs/CLIENT.md): scheduled send time with error field 0x0001,
     * zero times with {@code nowErr}, TTLs 255, reflected seq 0.
     */
    public TwoWayRecord setLost(long seq, long scheduledSendNtp, int nowErr) {
        sentSeq = seq;
        sentSendNtp = scheduledSendNtp;
        sentSendErr = 0x0001;
        sentRecvNtp = 0;
        sentRecvErr = nowErr;
        sentTtl = 255;
        reflSeq = 0;
        reflSendNtp = 0;
        reflSendErr = nowErr;
        reflRecvNtp = 0;
        reflRecvErr = nowErr;
        reflTtl = 255;
        return this;
    }
}
