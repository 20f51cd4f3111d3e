package io.github.twping.stamp;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.session.SplitTestSocket;
import io.github.twping.session.TwampSessionWarmUp;
import java.lang.foreign.Arena;
import java.time.Duration;

/**
 * Compiles the STAMP and TWAMP-Light reflector of {@code twampd --stamp/--light} before it announces itself ready
 * (docs/STAMP.md, "Warm-up"): an in-process {@link StampReflector} of the configured spec (stateless or stateful,
 * open or authenticated, the reply size options) answers requests sealed by the sender codecs and sent in bursts of
 * 1 to 8 ({@link #drive}); for STAMP one phase with every RFC 8972 TLV the reflector answers (Follow-Up Telemetry
 * included, so the TX-stamp drain of the error queue runs; the HMAC TLV when authenticated) and one phase without
 * TLVs, so that neither kind of request is left to the first real session. The client's counterpart is
 * {@link StampSenderWarmUp}.
 *
 * <p>Loopback only (127.0.0.1, or ::1 for an IPv6 bind address); bounded by a packet count and a time; any failure
 * ends it quietly: it is an optimisation, never a reason for a run to fail. The in-process reflector answers every
 * source (the configured allow-list and rate limit would refuse loopback or throttle the warm-up) and has no
 * metrics hook.
 */
public final class StampReflectorWarmUp {
    /** Longest reflector warm-up at {@code twampd} start-up (it delays the ready line by about this much at most). */
    public static final long MAX_NS = TimeUnit.SECONDS.toNanos(3);
    /**
     * The reflector warm-up sends from a new source port every this many bursts, about 40 times per phase: with one
     * source the peer table's miss was seen twice, before the profiles C2 compiles with, C2 left it out, and the
     * first packet of the first real session (a new source) deoptimised the reflector's per-datagram method
     * ({@code -Xlog:deoptimization}: an unstable_if trap in {@code PeerTable.find}), which then ran in C1 code
     * until C2 had compiled it again, during that session.
     */
    private static final int NEW_SOURCE_EVERY = 64;
    /** The in-process reflector's peer table: room for every source it sees. */
    private static final int DRIVE_PEERS = 1024;
    /** Largest burst, and how long it waits for a burst's replies. */
    private static final int MAX_BURST = 8;
    private static final long BURST_WAIT_NS = TimeUnit.MILLISECONDS.toNanos(200);
    /**
     * Packets of the reflector warm-up: with 8,000 (at 66.7 µs) the reflector's per-datagram method reached only the
     * C1 tiers, and C2 compiled it during the first real session; the C2 thresholds grow with the compile queue,
     * which is long at start-up.
     */
    public static final long PACKETS = 3 * StampSenderWarmUp.DEFAULT_PACKETS;
    private static final long JOIN_MS = 300;
    /** SSID of the TLV phase: a stateful reflector keeps it apart from the other phase's session. */
    private static final int WARM_UP_SSID = 0x5757;

    private StampReflectorWarmUp() {
    }

    /**
     * Warms the reflector of {@code spec} on the calling thread: up to {@code packets} packets for at most
     * {@code maxNs} or until {@code stop} returns true (checked every 10 ms), from loopback senders of the address
     * family of {@code family} (null: IPv4).
     */
    public static StampWarmUpResult reflector(StampReflectorSpec spec, InetAddress family, long packets, long maxNs,
                                   BooleanSupplier stop) {
        StampReflectorSpec local = new StampReflectorSpec(spec.light(), spec.authenticated(), spec.key(),
                spec.stateful(), spec.format(), List.of(), 0, DRIVE_PEERS, spec.asymmetric(), spec.reflectOctets());
        StampSenderWarmUp.Sender[] phases;
        if (spec.light()) {
            phases = new StampSenderWarmUp.Sender[] {StampSenderWarmUp.Sender.light(0, spec.authenticated() ? spec.key() : null)};
        } else {
            StampTlvRequest all = new StampTlvRequest(true, 0, true, 1, 0, true, spec.authenticated(), true);
            // without TLVs first: a fresh reflector's first replies (no reply TOS set yet) are then in the profiles
            // C2 compiles with; after a Class of Service TLV they take another branch (an unstable_if trap in
            // applyReplyTos deoptimised the first real session's reflector when the TLV phase came first)
            phases = new StampSenderWarmUp.Sender[] {
                StampSenderWarmUp.Sender.stamp(new StampSenderSpec(spec.authenticated(), spec.key(), spec.format(), 0, 0), false),
                StampSenderWarmUp.Sender.stamp(new StampSenderSpec(spec.authenticated(), spec.key(), spec.format(), WARM_UP_SSID, 16,
                        all), true)};
        }
        return drive(local, phases, StampSenderWarmUp.loopback(family), packets, maxNs, stop);
    }

    /**
     * The reflector warm-up: {@code phases} one after the other against one in-process reflector of
     * {@code reflectorSpec}, the packets and {@code maxNs} shared between them equally (a slow host cuts each phase
     * short instead of leaving the last one out), each phase's requests sealed by its sender's codec
     * (sequence number, timestamp, TLV headers, HMAC) and sent from one loopback socket on the calling thread in
     * bursts of 1 to 8 (so that the reflector's receive batches have every size up to 8), each burst's replies
     * awaited for at most 200 ms. Cheaper per packet than a paced session, which left the reflector's per-datagram
     * method to C2 during the first real session ({@code -XX:+PrintCompilation}, docs/STAMP.md, "Warm-up").
     * Package-private for the tests.
     */
    static StampWarmUpResult drive(StampReflectorSpec reflectorSpec, StampSenderWarmUp.Sender[] phases, InetAddress loopback, long packets,
                        long maxNs, BooleanSupplier stop) {
        long startNs = System.nanoTime();
        if (loopback == null) {
            return StampWarmUpResult.NONE;
        }
        packets = Math.min(packets, StampSenderWarmUp.MAX_PACKETS);
        long sent = 0;
        long reflected = 0;
        long followUps = 0;
        boolean completed = true;
        UdpSocketOptions options = UdpSocketOptions.builder().bindAddress(loopback).unicastTtl(255)
                .receiveBufferBytes(1 << 20).sendBufferBytes(1 << 20).build();
        try (StampReflector reflector = new StampReflector(reflectorSpec,
                StampReflector.openSocket(new InetSocketAddress(loopback, 0), 0), null);
             SourceSocket client = new SourceSocket(options);
             Arena arena = Arena.ofConfined()) {
            reflector.start();
            InetSocketAddress target = reflector.localAddress();
            MemorySegment reply = arena.allocate(StampReflector.MAX_DATAGRAM + 1, 16);
            ReceivedPacket meta = new ReceivedPacket();
            WallClock clock = WallClock.system();
            long perPhase = Math.max(1, packets / phases.length);
            int burst = 1;
            long bursts = 0;
            int phase = 0;
            outer:
            for (StampSenderWarmUp.Sender sender : phases) {
                // each phase its share of the time: under load a phase cut short leaves the next one its turn
                long phaseEndNs = startNs + maxNs / phases.length * ++phase;
                TestPacketCipher cipher = sender.stamp() != null
                        ? new StampSenderCodec(sender.stamp())
                        : TestPacketCipher.forMode(sender.lightKey() != null
                        ? Mode.AUTHENTICATED : Mode.OPEN,
                        sender.lightKey() != null ? StampReflectorSpec.lightKeys(sender.lightKey()) : null);
                int padding = sender.stamp() != null ? sender.stamp().tlvBytes() : sender.lightPadding();
                int length = cipher.senderLayout().packetLength(padding);
                MemorySegment packet = arena.allocate(Math.max(length, 128), 16);
                SenderPacket fields = new SenderPacket(
                        cipher.senderLayout()).wrap(packet);
                for (long seq = 0; seq < perPhase; ) {
                    if (stop.getAsBoolean()) {
                        completed = false;
                        break outer;
                    }
                    if (System.nanoTime() - phaseEndNs >= 0) {
                        completed = false;
                        break;                           // this phase's share is over: the next phase
                    }
                    int n = (int) Math.min(burst, perPhase - seq);
                    for (int i = 0; i < n; i++, seq++) {
                        fields.clearMbz().sequenceNumber(seq);
                        cipher.sealSenderHead(packet);
                        fields.timestampNtp(clock.nowNtp()).errorEstimate(1);
                        cipher.sealSenderTail(packet);
                        client.send(packet, length, target);
                        sent++;
                    }
                    long deadline = System.nanoTime() + BURST_WAIT_NS;
                    for (int got = 0; got < n; ) {
                        long leftNs = deadline - System.nanoTime();
                        if (leftNs <= 0 || client.receive(reply, meta, leftNs) < 0) {
                            break;                       // lost or late: the next burst goes on
                        }
                        got++;
                    }
                    burst = burst % MAX_BURST + 1;
                    if (++bursts % NEW_SOURCE_EVERY == 0) {
                        client.renew();                  // a new source port: the peer table misses and inserts
                    }
                }
            }
            reflector.stop();
            reflector.awaitEnd(TimeUnit.MILLISECONDS.toNanos(JOIN_MS));
            reflected = reflector.reflected();
            followUps = reflector.followUpsReported();
        } catch (IOException | RuntimeException e) {
            // an optimisation only: the reflector that follows reports its own socket errors
            completed = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            completed = false;
        }
        return new StampWarmUpResult(sent, reflected, followUps, System.nanoTime() - startNs, completed, 0);
    }

    /** The reflector warm-up's client socket, replaced by one on a new port by {@link #renew}. */
    private static final class SourceSocket implements AutoCloseable {
        private final UdpSocketOptions options;
        private UdpSocket socket;

        SourceSocket(UdpSocketOptions options) throws SocketException {
            this.options = options;
            this.socket = UdpSocket.open(options);
        }

        void renew() throws SocketException {
            UdpSocket next = UdpSocket.open(options);
            socket.close();
            socket = next;
        }

        int send(MemorySegment packet, int length, InetSocketAddress target) throws IOException {
            return socket.send(packet, length, target);
        }

        int receive(MemorySegment buffer, ReceivedPacket meta, long timeoutNs)
                throws IOException {
            return socket.receive(buffer, meta, timeoutNs);
        }

        @Override
        public void close() {
            socket.close();
        }
    }
}
