package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.session.WarmUpPlan;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;

/**
 * {@link StampReflectorWarmUp} and {@link StampSenderWarmUp}: the reflector warm-up runs the real reflector in every mode (replies counted by the
 * in-process reflector, Follow-Up Telemetry answered from the error queue), is bounded in packets and time, ends
 * quietly when it cannot bind, stays on loopback; the sender warm-up never delays the session's first packet and runs nothing when the session is too short for one.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StampWarmUpTest {
    private static final long PACKETS = 1_200;
    private static final long GENEROUS_NS = TimeUnit.SECONDS.toNanos(60);
    private static final byte[] KEY = key(32);
    private static final byte[] LIGHT_KEY = key(StampReflectorSpec.LIGHT_KEY_LENGTH);

    private static byte[] key(int length) {
        byte[] k = new byte[length];
        for (int i = 0; i < length; i++) {
            k[i] = (byte) (i * 7 + 1);
        }
        return k;
    }

    private static StampReflectorSpec spec(boolean light, boolean authenticated, boolean stateful,
                                           TimestampFormat format, boolean asymmetric) {
        return new StampReflectorSpec(light, authenticated, authenticated ? (light ? LIGHT_KEY : KEY) : null,
                stateful, format, List.of(SourceNetwork.parse("192.0.2.0/24")), 10, 64, asymmetric,
                asymmetric ? 8 : 0);
    }

    @Test
    void reflectorWarmUpAnswersInEveryMode() {
        StampReflectorSpec[] specs = {
            spec(false, false, false, TimestampFormat.NTP, false),
            spec(false, true, true, TimestampFormat.PTP, false),
            spec(true, false, false, TimestampFormat.NTP, false),
            spec(true, true, true, TimestampFormat.NTP, true),
        };
        for (StampReflectorSpec s : specs) {
            String what = (s.light() ? "light" : "stamp") + (s.authenticated() ? " authenticated" : " open")
                    + (s.stateful() ? " stateful" : " stateless");
            // the allow-list (192.0.2.0/24) and the rate limit (10/s) of the spec do not apply to the warm-up
            StampWarmUpResult r = StampReflectorWarmUp.reflector(s, null, PACKETS, GENEROUS_NS, () -> false);
            assertEquals(PACKETS, r.packets(), what + ": every sequence number handled");
            assertTrue(r.completed(), what + ": completed");
            assertTrue(r.reflected() > 0 && r.reflected() <= PACKETS,
                    what + ": the in-process reflector answered: " + r.reflected());
            if (s.light()) {
                assertEquals(0, r.followUps(), what + ": no TLVs in TWAMP-Light");
            } else {
                assertTrue(r.followUps() > 0, what + ": Follow-Up Telemetry answered with error-queue stamps: "
                        + r.followUps());
                assertTrue(r.followUps() < r.reflected(), what + ": the phase without TLVs answered too");
            }
        }
    }

    @Test
    void ipv6PeersWarmUpOnIpv6Loopback() throws Exception {
        InetAddress v6 = InetAddress.getByName("2001:db8::1");
        assertTrue(StampSenderWarmUp.loopback(v6).isLoopbackAddress());
        assertEquals(16, StampSenderWarmUp.loopback(v6).getAddress().length);
        InetAddress v4 = InetAddress.getByName("192.0.2.1");
        assertEquals(InetAddress.getByName("127.0.0.1"), StampSenderWarmUp.loopback(v4));
        assertEquals(InetAddress.getByName("127.0.0.1"), StampSenderWarmUp.loopback(null));
        StampWarmUpResult r = StampReflectorWarmUp.reflector(spec(false, false, true, TimestampFormat.NTP, false), v6,
                400, GENEROUS_NS, () -> false);
        // a host without ::1 ends quietly with nothing done; with it, the warm-up ran
        assertTrue(r.completed() ? r.reflected() > 0 : r.packets() == 0, "ipv6: " + r);
    }

    @Test
    void boundedInTimeAndCount() {
        long maxNs = TimeUnit.MILLISECONDS.toNanos(300);
        long t0 = System.nanoTime();
        StampWarmUpResult r = StampReflectorWarmUp.reflector(spec(false, false, false, TimestampFormat.NTP, false), null,
                1_000_000_000L, maxNs, () -> false);
        long elapsed = System.nanoTime() - t0;
        assertFalse(r.completed(), "a billion packets do not fit in 300 ms");
        assertTrue(r.packets() > 0 && r.packets() <= StampSenderWarmUp.MAX_PACKETS, "stopped by time: " + r.packets());
        // the time limit, the receiver's 50 ms loss timeout and the thread joins (300 ms each) at most
        assertTrue(elapsed < TimeUnit.SECONDS.toNanos(10), "bounded: " + elapsed / 1_000_000 + " ms");

        long t1 = System.nanoTime();
        StampWarmUpResult stopped = StampReflectorWarmUp.reflector(spec(false, false, false, TimestampFormat.NTP, false),
                null, 1_000_000_000L, GENEROUS_NS, () -> true);
        assertEquals(0, stopped.packets(), "asked to stop before it began");
        assertFalse(stopped.completed());
        assertTrue(System.nanoTime() - t1 < TimeUnit.SECONDS.toNanos(10));
    }

    @Test
    void failsQuietlyWhenItCannotBind() throws Exception {
        // no interface of this host has a documentation address: the bind fails, nothing is sent anywhere
        InetAddress notLocal = InetAddress.getByName("192.0.2.77");
        StampWarmUpResult r = StampSenderWarmUp.run(spec(false, false, false, TimestampFormat.NTP, false),
                new StampSenderWarmUp.Sender[] {StampSenderWarmUp.Sender.stamp(new StampSenderSpec(false, null,
                        TimestampFormat.NTP, 0, 0), false)}, notLocal, 0, true, 100, GENEROUS_NS, () -> false);
        assertFalse(r.completed());
        assertEquals(0, r.packets());
        assertEquals(0, r.reflected());
        StampWarmUpResult driven = StampReflectorWarmUp.drive(spec(false, false, false, TimestampFormat.NTP, false),
                new StampSenderWarmUp.Sender[] {StampSenderWarmUp.Sender.stamp(new StampSenderSpec(false, null,
                        TimestampFormat.NTP, 0, 0), false)}, notLocal, 100, GENEROUS_NS, () -> false);
        assertFalse(driven.completed(), "the reflector warm-up cannot bind either");
        assertEquals(0, driven.packets());

        // a light sender whose key is unusable for the reflector's (it is rejected): no exception, nothing done
        StampWarmUpResult bad = StampSenderWarmUp.run(spec(true, false, false, TimestampFormat.NTP, false),
                new StampSenderWarmUp.Sender[] {StampSenderWarmUp.Sender.light(0, new byte[3])},
                StampSenderWarmUp.loopback(null), 0, true, 100, GENEROUS_NS, () -> false);
        assertFalse(bad.completed());
        assertEquals(0, bad.reflected());
    }

    @Test
    void senderWarmUpWithTheSessionsTlvsIsAnswered() {
        StampTlvRequest tlvs = new StampTlvRequest(true, 10, true, -1, 0, true, false, false);
        StampSenderWarmUp.Sender sender = StampSenderWarmUp.Sender.stamp(new StampSenderSpec(false, null, TimestampFormat.PTP,
                7, 32, tlvs), true);
        StampWarmUpResult r = StampSenderWarmUp.run(sender.reflectorSpec(), new StampSenderWarmUp.Sender[] {sender},
                StampSenderWarmUp.loopback(null), 0, true, PACKETS, GENEROUS_NS, () -> false);
        assertTrue(r.completed(), r.toString());
        assertTrue(r.reflected() > 0 && r.followUps() > 0, r.toString());

        StampSenderWarmUp.Sender light = StampSenderWarmUp.Sender.light(24, LIGHT_KEY);
        StampWarmUpResult l = StampSenderWarmUp.run(light.reflectorSpec(), new StampSenderWarmUp.Sender[] {light},
                StampSenderWarmUp.loopback(null), 0, true, PACKETS, GENEROUS_NS, () -> false);
        assertTrue(l.completed() && l.reflected() > 0, "authenticated light: " + l);
    }

    /** The sender's warm-up runs the socket arrangement of the session that follows (docs/CLIENT.md, "Two sockets"). */
    @Test
    void senderWarmUpRunsTheSessionsSockets() throws Exception {
        boolean canSplit;
        try (UdpSocket probe = UdpSocket.open(
                UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                        .timestamping(Timestamping.RX_TX_SOFTWARE).build())) {
            canSplit = probe.isNative() && probe.capabilities().txTimestamps();
        }
        StampSenderWarmUp.Sender sender = StampSenderWarmUp.Sender.stamp(new StampSenderSpec(false, null, TimestampFormat.NTP,
                0, 0), false);
        StampWarmUpResult kernel = StampSenderWarmUp.run(sender.reflectorSpec(), new StampSenderWarmUp.Sender[] {sender},
                StampSenderWarmUp.loopback(null), 0, true, 200, GENEROUS_NS, () -> false);
        assertTrue(kernel.completed() && kernel.reflected() > 0, kernel.toString());
        assertEquals(canSplit ? 2 : 1, kernel.sockets(), "kernel TX stamps: a sending socket beside the receiving one");
        StampWarmUpResult user = StampSenderWarmUp.run(sender.reflectorSpec(), new StampSenderWarmUp.Sender[] {sender},
                StampSenderWarmUp.loopback(null), 0, false, 200, GENEROUS_NS, () -> false);
        assertTrue(user.completed() && user.reflected() > 0, user.toString());
        assertEquals(1, user.sockets(), "--send-stamp user: one socket");
    }

    @Test
    void awaitStartReturnsBeforeTheStartTimeEvenIfTheWarmUpHangs() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        Thread stuck = Thread.ofPlatform().daemon(true).start(() -> {
            try {
                never.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(400);
            new StampSenderWarmUp.Running(stuck, start, () -> false).awaitStart();
            long returned = System.nanoTime();
            assertTrue(returned - (start - StampSenderWarmUp.START_LATEST_NS) >= 0, "waited for the warm-up to the latest");
            assertTrue(returned - start < TimeUnit.SECONDS.toNanos(5), "did not wait for the warm-up's end");
            assertTrue(stuck.isAlive());

            long cancelled = System.nanoTime();
            new StampSenderWarmUp.Running(stuck, cancelled + TimeUnit.SECONDS.toNanos(30), () -> true).awaitStart();
            assertTrue(System.nanoTime() - cancelled < TimeUnit.SECONDS.toNanos(5), "a stop returns at once");
        } finally {
            never.countDown();
            stuck.join(5_000);
        }
        // the start time too close for a warm-up: none is started, the session starts at once
        StampSenderWarmUp.Running none = StampSenderWarmUp.beforeSession(StampSenderWarmUp.Sender.light(0, null), null, 0, true,
                WarmUpPlan.FULL_PACKETS, System.nanoTime() + WarmUpPlan.STOP_BEFORE_START_NS / 2, () -> false);
        assertFalse(none.started());
        assertTrue(none.ended());
        // a session too short for a warm-up (WarmUpPlan: none under 100 packets): none is started either
        StampSenderWarmUp.Running skipped = StampSenderWarmUp.beforeSession(StampSenderWarmUp.Sender.light(0, null),
                null, 0, true, 0, System.nanoTime() + TimeUnit.SECONDS.toNanos(1), () -> false);
        assertFalse(skipped.started());
        assertTrue(skipped.ended());
    }

    @Test
    void sessionAfterTheWarmUpSendsItsFirstPacketOnSchedule() throws Exception {
        StampSenderSpec spec = new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0);
        int packets = 20;
        try (StampReflector reflector = new StampReflector(StampReflectorSpec.stamp(), StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null);
             UdpSocket client = UdpSocket.open(
                     UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                             .timestamping(Timestamping.RX_TX_SOFTWARE).build());
             FileChannel channel = SessionDataWriter.openAnonymousTempFile(null)) {
            reflector.start();
            WallClock clock = WallClock.system();
            ScheduleSlot[] slots = {ScheduleSlot.fixedOffset(NtpTime.fromSeconds(0.005))};
            byte[] sid = new byte[16];
            new SecureRandom().nextBytes(sid);
            long lossNtp = NtpTime.fromSeconds(2);
            long startNtp = clock.nowNtp() + NtpTime.fromSeconds(1);
            long startNanos = System.nanoTime() + NtpTime.signedDurationToNanos(startNtp - clock.nowNtp());
            SessionHeader header = new SessionHeader(sid, 4, InetAddress.getLoopbackAddress().getAddress(),
                    client.localAddress().getPort(), InetAddress.getLoopbackAddress().getAddress(),
                    reflector.localAddress().getPort(), packets, 0, startNtp, lossNtp, 0,
                    SessionHeader.fixedFlags(slots), SessionHeader.values(slots), SessionHeader.FINISHED_INCOMPLETE);
            try (SessionDataWriter writer = SessionDataWriter.onChannel(channel, header, 64)) {
                ClientTestSession s = StampSenderSession.create(client, reflector.localAddress(), spec,
                        new SendSchedule(sid, slots, packets), packets, startNtp, lossNtp, 0, writer, clock,
                        ClockErrorEstimate.of(false, 0), line -> { });
                StampSenderWarmUp.Running warm = StampSenderWarmUp.beforeSession(StampSenderWarmUp.Sender.stamp(spec, false),
                        InetAddress.getLoopbackAddress(), 0, true, WarmUpPlan.C1_PACKETS, startNanos, () -> false);
                assertTrue(warm.started(), "1 s before the start: a warm-up runs");
                warm.awaitStart();
                s.start();
                assertTrue(s.await(TimeUnit.SECONDS.toNanos(60)), "session ended");
                s.join(5_000);
                assertEquals(packets, s.sentCount(), "nothing skipped");
                assertEquals(0, s.skippedCount());
                // each send's lateness against its slot: the first included; a start delayed by the warm-up
                // (up to its 1.5 s) would show here
                long maxLateMs = s.latenessNs().getMaxValue() / 1_000_000;
                assertTrue(maxLateMs < 1_000, "sends on schedule, latest " + maxLateMs + " ms late");
            }
        }
    }
}
