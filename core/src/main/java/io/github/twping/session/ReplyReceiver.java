package io.github.twping.session;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.TimestampSource;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.TxTimestampHandler;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.RecordStamps;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.ErrorEstimate;
import io.github.twping.time.NtpTime;
import io.github.twping.time.StopTrace;
import io.github.twping.time.WallClock;

/**
 * The client's reply receiver: stamps each reflected packet when it arrives (kernel RX timestamp where the
 * kernel gives one), validates it (docs/PROTOCOL-TEST.md), writes the two-way record, and flushes packets older than
 * the loss timeout as lost records (docs/CLIENT.md). Runs on its own platform thread and owns the data file
 * writer; allocates nothing per packet.
 */
final class ReplyReceiver implements Runnable {
    /**
     * The gathering window's limit, and the longest wait the end of a session takes as a precise sleep; a receive
     * wait of at least this is a power-of-two multiple of it ({@link #quantisedWaitNs}).
     */
    private static final long TICK_NS = 20_000_000L;
    /**
     * The longest receive wait (8 ticks): how late the receiver notices a stop that does not wake its socket (a
     * sender's failure, the agent's cancel; twping's stops and a warm-up's wake it:
     * {@link ClientTestSession#cancelAndWake}), and how long records stay buffered after the last reply. With nothing due it blocked for one tick at a time: 105 wake-ups, 28-36 ms of
     * CPU, in a {@code twping -c 1} (docs/CLIENT.md, "Receive timeout").
     */
    static final long MAX_WAIT_NS = TICK_NS << 3;
    private static final long CLOCK_REFRESH_NS = 1_000_000_000L;
    private static final int TTL_UNKNOWN = 255;
    /** Buffered records reach the data file at least this often, for readers of the file during the test. */
    private static final long VISIBILITY_NS = 200_000_000L;

    private final UdpSocket socket;
    /** Where the TX timestamps queue: the socket itself, or a separate sending socket on the same port. */
    private final UdpSocket sendSocket;
    private final TestPacketCipher cipher;
    private final MemorySegment buffer;
    private final ReflectorPacket reply;
    private final int replyHeaderLength;
    /** Replies taken per receive call at most: a receiver that fell behind catches up in few system calls. */
    private static final int BATCH = 16;
    private final DatagramBatch batch;
    /** The metadata of the reply being processed (a slot of {@link #batch}). */
    private ReceivedPacket meta;
    private final TwoWayRecord record = new TwoWayRecord();
    private final SessionDataWriter writer;
    private final RecordSources sources;
    private final SendLog log;
    private final SessionControl control;
    private final WallClock clock;
    private final ClockErrorEstimate errorEstimate;
    private final long packetCount;
    private final long lossTimeoutNtp;
    private final boolean useKernelTxTimestamps;
    private final TxTimestampHandler txHandler;

    private long firstPending;
    /** No packet in [firstPending, firstUnanswered) waits for a reply: each is answered or skipped. */
    private long firstUnanswered;
    private long received;
    private long duplicates;
    private long badHmac;
    private long tooShort;
    private long late;
    private long foreign;
    private long kernelRxStamps;
    private long kernelTxStamps;
    private long nextClockRefreshNs; // receiveOnce's schedule of the clock-state refresh and the file flush
    private long nextVisibilityNs;
    private long cappedSendStamps;
    private int rxSource;
    /**
     * How long to let replies gather after a receive that delivered some, before the next receive (0: never); see
     * {@link #gatherNs(long, long)}.
     */
    private long gatherNs;
    /** The session's mean send interval, ns: the gathering wake-up falls halfway between two sends. */
    private long gatherIntervalNs;
    /** A reply was stamped in user space (no kernel RX stamp): its reading is its stamp, so no wait may delay it. */
    private boolean userRxStamps;
    /** Replies the last receive call delivered, all with a kernel RX stamp, and fewer than a batch. */
    private boolean gatherNext;
    /** The client's extra stamps per record for the delay breakdown, or null (not kept); set before the thread starts. */
    private RecordStamps stamps;
    /** When the receive call that delivered the current batch returned (NTP), if {@link #stamps} are kept. */
    private long receiptNtp;

    ReplyReceiver(UdpSocket socket, UdpSocket sendSocket, TestPacketCipher cipher, int bufferBytes,
                  SessionDataWriter writer, RecordSources sources, SendLog log, SessionControl control, WallClock clock,
                  ClockErrorEstimate errorEstimate, long packetCount, long lossTimeoutNtp,
                  boolean useKernelTxTimestamps) {
        this.socket = socket;
        this.sendSocket = sendSocket;
        this.cipher = cipher;
        this.buffer = MemorySegment.ofArray(new byte[bufferBytes]);
        this.batch = new DatagramBatch(BATCH, Math.min(bufferBytes, DatagramBatch.MAX_BUFFER_BYTES));
        this.reply = new ReflectorPacket(cipher.reflectorLayout()).wrap(buffer);
        this.replyHeaderLength = cipher.reflectorLayout().length();
        this.writer = writer;
        this.sources = sources;
        this.log = log;
        this.control = control;
        this.clock = clock;
        this.errorEstimate = errorEstimate;
        this.packetCount = packetCount;
        this.lossTimeoutNtp = lossTimeoutNtp;
        this.useKernelTxTimestamps = useKernelTxTimestamps;
        this.txHandler = (packetId, epochNs, hardware) -> log.txTimestamp(packetId, epochNs, hardware);
    }

    /** Keeps the client's extra stamps of each reply record in {@code table}; before the receiver thread starts. */
    void keepStamps(RecordStamps table) {
        this.stamps = table;
    }

    /**
     * Lets replies gather for {@code ns} after each receive that delivered fewer than a batch, all stamped by the
     * kernel, before receiving again (docs/CLIENT.md, "Gathering replies"): the thread then wakes once per window
     * instead of once per reply. Each reply keeps the kernel's RX stamp, so no delay changes; a lost record or the
     * session's end is never later, since the pause ends no later than the receive timeout would. Not with the
     * client's extra stamps ({@link #keepStamps}): those measure this thread's wake-up. Before the thread starts.
     */
    void gatherNs(long ns, long meanIntervalNs) {
        this.gatherNs = Math.max(0, Math.min(ns, TICK_NS));
        this.gatherIntervalNs = Math.max(1, meanIntervalNs);
    }

    /**
     * How long to gather from now: until halfway between two sends about a window after the last one, so that this
     * thread's wake-up and its work on the gathered replies stay clear of a send and of a reflector on this host woken
     * by it (a fixed window drifted through the send times, and a wake-up on a send's moment delayed that packet's
     * forward leg). With an exponential schedule the sends' moments are not known ahead, and the wait is the window.
     */
    private long gatherWaitNs() {
        long published = log.published();
        if (published == 0) {
            return gatherNs;
        }
        long intervals = Math.max(1, gatherNs / gatherIntervalNs);
        long sinceLastSendNs = NtpTime.signedDurationToNanos(clock.nowNtp() - log.sendNtp(published - 1));
        long waitNs = intervals * gatherIntervalNs + gatherIntervalNs / 2 - sinceLastSendNs;
        return Math.max(0, Math.min(waitNs, TICK_NS));
    }

    /** @return the shortest reply this receiver takes: the reflector packet of the session's mode */
    int minimumReplyLength() {
        return replyHeaderLength;
    }

    ReceiverCounters counters() {
        return new ReceiverCounters(received, duplicates, badHmac, tooShort, late, kernelRxStamps, kernelTxStamps,
                foreign, cipher.malformedReplies(), cipher.ptpReplies());
    }

    @Override
    public void run() {
        try {
            receiveAll();
            StopTrace.mark("receiver-stopped");
            // Final flush with the current time: only nodes older than L get a record (docs/CLIENT.md).
            flush(clock.nowNtp());
            StopTrace.mark("records-flushed");
            writer.finish(true);
        } catch (SocketException e) {
            control.fail(SessionOutcome.RECEIVE_FAILED, "recvfromttl(): " + e.getMessage());
            finishQuietly();
        } catch (IOException e) {
            control.fail(SessionOutcome.DATA_FILE_FAILED, "OWPWriteTWDataRecord(): " + e.getMessage());
            finishQuietly();
        } finally {
            batch.close();
            control.finished();
        }
    }

    private void finishQuietly() {
        try {
            flush(clock.nowNtp());
            writer.finish(true);
        } catch (IOException ignored) {
            // the data file is already reported as failed
        }
    }

    private void receiveAll() throws IOException {
        nextClockRefreshNs = System.nanoTime() + CLOCK_REFRESH_NS;
        nextVisibilityNs = System.nanoTime() + VISIBILITY_NS;
        while (control.running() && firstPending < packetCount) {
            if (!receiveOnce()) {
                return;
            }
        }
    }

    /**
     * One receive (a batch of replies, a timeout or the TX stamps) and what follows it; false when the socket
     * closed. A method of its own so that it is compiled by its calls (as {@code SessionSender.sendOne}): as
     * the body of a loop entered once per session it would run in the interpreter.
     */
    private boolean receiveOnce() throws IOException {
        long timeoutNs = receiveTimeoutNs();
        if (gatherNext) {
            LockSupport.parkNanos(Math.min(gatherWaitNs(), timeoutNs));
            timeoutNs = receiveTimeoutNs();
        }
        if (timeoutNs < TICK_NS && kernelRxStamps > 0 && !userRxStamps && log.published() >= packetCount) {
            // Everything is sent and the wait is aimed at a loss timeout (the session's end, or a last lost record):
            // a precise sleep, then a receive that does not block. A socket timeout is counted in jiffies (4 ms at
            // HZ 250) and a 1 µs one after an early wake-up is a whole jiffy: the end came 5-8 ms after the last
            // packet's loss timeout where C's comes within 1 ms. A reply that comes meanwhile keeps its kernel stamp
            // (only once replies have shown that the kernel stamps them; with none yet, the socket timeout as before).
            LockSupport.parkNanos(timeoutNs);
            timeoutNs = 0;
        }
        int n = socket.receiveBatch(batch, timeoutNs);
        gatherNext = gatherNs > 0 && n > 0 && n < BATCH && stamps == null;
        if (useKernelTxTimestamps) {
            // up to 32 error-queue entries per system call: at 100,000/s one read per stamp was 100,000 calls/s
            kernelTxStamps += sendSocket.pollTxTimestampsBatched(txHandler);
        }
        if (n == UdpSocket.CLOSED) {
            return false;
        }
        if (n > 0 && stamps != null) {
            receiptNtp = clock.nowNtp();             // the moment this thread saw the batch (receiver wake-up)
        }
        if (n < 0) {
            flush(clock.nowNtp());
        }
        for (int i = 0; i < n; i++) {
            // each reply is copied into the one buffer the flyweight and the cipher work on
            int length = batch.length(i);
            MemorySegment.copy(batch.buffer(i), 0, buffer, 0, length);
            meta = batch.meta(i);
            long rxEpochNs = meta.rxTimestampEpochNs();
            if (meta.kernelTimestamp()) {
                kernelRxStamps++;
            } else {
                gatherNext = false;              // a user-space stamp: the reply's time is when it is read
                userRxStamps = true;
            }
            long nowNtp = rxEpochNs > 0 ? NtpTime.fromEpochNanos(rxEpochNs + clock.offsetNs()) : clock.nowNtp();
            rxSource = rxEpochNs > 0 ? sourceCode(meta.timestampSource()) : RecordSources.USER;
            flush(nowNtp);
            process(length, nowNtp);
            if (!control.running() || firstPending >= packetCount) {
                break;                           // as the loop's own condition: the rest stays unread
            }
        }
        long monoNs = System.nanoTime();
        if (monoNs - nextClockRefreshNs >= 0) {
            errorEstimate.refresh();
            nextClockRefreshNs = monoNs + CLOCK_REFRESH_NS;
        }
        if (monoNs - nextVisibilityNs >= 0) {
            writer.flush();                      // one batch write at most every 200 ms, not per packet
            nextVisibilityNs = monoNs + VISIBILITY_NS;
        }
        return true;
    }

    /**
     * Until the next moment a receive timeout has work to do, at most {@link #MAX_WAIT_NS} so that a stop is noticed:
     * the loss timeout of the first sent packet not answered yet (its lost record), or, once every packet is sent
     * and answered, of the last one (the session's end). The flush frontier {@link #firstPending} stays a loss
     * timeout behind the replies (a duplicate within L is still recorded), so its own expiry comes one send
     * interval after the last and a timeout aimed at it changed on every call, each change costing a
     * non-blocking probe and a setsockopt (docs/CLIENT.md, "Receive timeout"). Answered packets need
     * no wake-up: each reply's flush, at its own receive time, moves the frontier over the expired ones. A wait of a
     * tick or more is rounded down to a power-of-two multiple of the tick ({@link #quantisedWaitNs}), so in steady
     * state it stays the same, and on the way to a moment it changes a few times, not on every call.
     */
    private long receiveTimeoutNs() {
        long published = log.published();
        if (firstPending >= published) {
            return MAX_WAIT_NS;                      // nothing sent is pending: a packet sent later expires L after it
        }
        long targetNtp;
        if (published - firstPending > log.capacity() / 2) {
            // the ring fills up: the sender may soon wait for the frontier, so move it on time, packet by packet
            targetNtp = expiryNtp(firstPending);
        } else {
            long seq = Math.max(firstUnanswered, firstPending);
            while (seq < published && log.hit(seq)) {  // answered or skipped (bounded by the packets published)
                seq++;
            }
            firstUnanswered = seq;
            if (seq < published) {
                targetNtp = expiryNtp(seq);
            } else if (published >= packetCount) {
                targetNtp = expiryNtp(published - 1);
            } else {
                return MAX_WAIT_NS;                  // a packet sent later expires at least L from now
            }
            long nowNtp = clock.nowNtp();
            if (Long.compareUnsigned(targetNtp, nowNtp) < 0) {
                // past, yet the frontier is still behind it: an earlier packet expires later (send times out of
                // order after a clock step); follow the frontier itself, as the flush does
                targetNtp = expiryNtp(firstPending);
            }
            return waitUntil(targetNtp, nowNtp);
        }
        return waitUntil(targetNtp, clock.nowNtp());
    }

    private long expiryNtp(long seq) {
        return log.sendNtp(seq) + lossTimeoutNtp;
    }

    private static long waitUntil(long targetNtp, long nowNtp) {
        return quantisedWaitNs(NtpTime.signedDurationToNanos(targetNtp - nowNtp) + 1_000);
    }

    /**
     * A receive wait for {@code waitNs}: under a tick as it is (at least 1 µs); from a tick on, the largest
     * power-of-two multiple of the tick that does not pass it, at most {@link #MAX_WAIT_NS}. Each change of the
     * wait costs the socket a probe and a {@code setsockopt}; rounded this way it changes about four times on the way
     * to a moment 160 ms ahead, where the exact wait would change on every call.
     */
    static long quantisedWaitNs(long waitNs) {
        if (waitNs < TICK_NS) {
            return Math.max(1_000, waitNs);
        }
        long ticks = Math.min(waitNs / TICK_NS, MAX_WAIT_NS / TICK_NS);
        return TICK_NS * Long.highestOneBit(ticks);
    }

    private static int sourceCode(TimestampSource source) {
        return switch (source) {
            case KERNEL_HARDWARE -> RecordSources.KERNEL_HARDWARE;
            case KERNEL_SOFTWARE -> RecordSources.KERNEL_SOFTWARE;
            case USER -> RecordSources.USER;
        };
    }

    private void process(int length, long rxNtp) throws IOException {
        if (length < replyHeaderLength) {
            tooShort++;                              // treated like "nothing received" (docs/PROTOCOL-TEST.md)
            return;
        }
        if (!cipher.openReflector(buffer, length)) {
            if (cipher.lastRejection() == TestPacketCipher.REJECTED_FOREIGN) {
                foreign++;
                return;
            }
            badHmac++;
            control.diagnostic("run_tw_test: Invalid HMAC on received packet: ignoring");
            return;
        }
        long senderSeq = reply.senderSequenceNumber();
        if (senderSeq >= log.published()) {
            control.fail(SessionOutcome.ENDED_BY_REPLY, "Invalid reflected sender sequence number!");
            return;
        }
        if (senderSeq < firstPending) {
            late++;                                  // already flushed as lost
            return;
        }
        int senderError = reply.senderErrorEstimate();
        int reflectorError = reply.errorEstimate();
        if (!ErrorEstimate.isValid(senderError)) {
            control.fail(SessionOutcome.ENDED_BY_REPLY, "Invalid sent send timestamp!");
            return;
        }
        if (!ErrorEstimate.isValid(reflectorError)) {
            control.fail(SessionOutcome.ENDED_BY_REPLY, "Invalid sent recv timestamp!");
            return;
        }
        long sendNtp = reply.senderTimestampNtp();
        long userSendNtp = sendNtp;
        long kernelTxNtp = 0;
        int sendSource = RecordSources.USER;
        // The owamp statistics flush every packet scheduled more than L before a record's send time, the
        // record's own packet included: a send time more than L after the packet's scheduled time makes the
        // data file unreadable ("seq number request (out of range)"). The sender skips packets that late, but a
        // kernel TX stamp (taken after the check, maybe after a preemption) or a retried send can pass the
        // bound; such a packet keeps its checked user-space stamp, capped at the bound.
        long latestNtp = log.scheduledNtp(senderSeq) + lossTimeoutNtp;
        if (useKernelTxTimestamps) {
            long txEpochNs = log.txTimestampEpochNs(senderSeq);
            long txNtp = txEpochNs > 0 ? NtpTime.fromEpochNanos(txEpochNs + clock.offsetNs()) : 0;
            kernelTxNtp = txNtp;
            if (txEpochNs > 0 && Long.compareUnsigned(txNtp, latestNtp) <= 0) {
                sendNtp = txNtp;
                sendSource = log.txTimestampHardware(senderSeq) ? RecordSources.KERNEL_HARDWARE
                        : RecordSources.KERNEL_SOFTWARE;
            }
        }
        if (Long.compareUnsigned(sendNtp, latestNtp) > 0) {
            sendNtp = latestNtp;
            cappedSendStamps++;
        }
        // Keep the file readable by the owamp statistics (docs/STATISTICS.md step 1): a received record flushes every
        // packet scheduled more than L before its send time, so those must be resolved before it is written.
        // This only bites after a sender stall (a packet sent late, its reply still outstanding).
        flushScheduledBefore(sendNtp - lossTimeoutNtp, senderSeq);
        TwoWayRecord r = record;
        r.sentSeq = senderSeq;
        r.sentSendNtp = sendNtp;
        r.sentSendErr = senderError;
        r.sentRecvNtp = reply.receiveTimestampNtp();
        r.sentRecvErr = reflectorError;
        r.sentTtl = reply.senderTtl();
        r.reflSeq = reply.sequenceNumber();
        r.reflSendNtp = reply.timestampNtp();
        r.reflSendErr = reflectorError;
        r.reflRecvNtp = rxNtp;
        r.reflRecvErr = errorEstimate.field();
        int ttl = meta.ttl();
        r.reflTtl = ttl < 0 ? TTL_UNKNOWN : ttl;
        sources.set(writer.recordsWritten(), RecordSources.pack(sendSource, rxSource, meta.tos()));
        if (stamps != null) {
            stamps.set(writer.recordsWritten(), log.scheduledNtp(senderSeq), userSendNtp, kernelTxNtp,
                    kernelTxNtp != 0 && log.txTimestampHardware(senderSeq), receiptNtp);
        }
        writer.append(r);                           // duplicates are recorded too (docs/CLIENT.md)
        if (log.hit(senderSeq)) {
            duplicates++;
        } else {
            log.markHit(senderSeq);
            received++;
        }
    }

    /**
     * Resolves, in sequence order and below {@code beforeSeq}, the packets scheduled before
     * {@code limitNtp}: unanswered ones get their lost record now.
     */
    private void flushScheduledBefore(long limitNtp, long beforeSeq) throws IOException {
        long published = log.published();
        while (firstPending < beforeSeq && firstPending < published
                && Long.compareUnsigned(log.scheduledNtp(firstPending), limitNtp) < 0) {
            long seq = firstPending;
            if (log.state(seq) == SendLog.STATE_SENT && !log.hit(seq)) {
                writer.append(record.setLost(seq, log.scheduledNtp(seq), errorEstimate.field()));
            }
            firstPending++;
        }
        log.publishFlushed(firstPending);
    }

    /** Writes lost records for sent packets older than the loss timeout (docs/CLIENT.md). */
    private void flush(long nowNtp) throws IOException {
        long published = log.published();
        while (firstPending < packetCount && firstPending < published) {
            long seq = firstPending;
            if (log.state(seq) == SendLog.STATE_SENT) {
                long expiryNtp = log.sendNtp(seq) + lossTimeoutNtp;
                if (Long.compareUnsigned(expiryNtp, nowNtp) >= 0) {
                    break;
                }
                if (!log.hit(seq)) {
                    writer.append(record.setLost(seq, log.scheduledNtp(seq), errorEstimate.field()));
                }
            }
            firstPending++;
        }
        log.publishFlushed(firstPending);
    }
}
