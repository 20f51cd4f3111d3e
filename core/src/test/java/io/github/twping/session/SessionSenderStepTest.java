package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.pacing.ParkThenSpinPacer;
import io.github.twping.pacing.SystemPacingClock;
import io.github.twping.protocol.Mode;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionSender}'s step API, as a {@link SharedSender} drives it, on its own: the send log's back-pressure
 * (a slot still pending at the receiver is retried, not waited for), the skip rule, the end of the packets and a stop.
 */
class SessionSenderStepTest {
    private static final byte[] SID = new byte[16];
    private final WallClock clock = WallClock.system();
    private UdpSocket socket;
    private UdpSocket sink;

    @AfterEach
    void close() throws IOException {
        if (socket != null) {
            socket.close();
        }
        if (sink != null) {
            sink.close();
        }
    }

    private SessionSender sender(long packets, long startNtp, long lossNtp, SendLog log, SessionControl control)
            throws IOException {
        socket = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress()).build());
        sink = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress()).build());
        TestPacketCipher cipher = TestPacketCipher.forMode(Mode.OPEN, null);
        long intervalNtp = NtpTime.fromSeconds(0.000_001);
        return new SessionSender(socket, cipher, cipher.senderLayout().packetLength(0),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), sink.localAddress().getPort()),
                new SendSchedule(SID, new ScheduleSlot[] {new ScheduleSlot(true, intervalNtp)}, packets), packets,
                startNtp, lossNtp, ParkThenSpinPacer.parkOnly(SystemPacingClock.INSTANCE), 20_000, clock,
                ClockErrorEstimate.fromKernel(), log, control);
    }

    @Test
    void shouldRetryAPendingSlotThenSendToTheLastPacket() throws Exception {
        SendLog log = new SendLog(40, 16);   // a ring of 16 for 40 packets: the receiver must flush to go on
        SessionControl control = new SessionControl(line -> { });
        SessionSender s = sender(40, clock.nowNtp(), NtpTime.fromSeconds(10), log, control);
        assertTrue(s.beginSteps());
        for (int i = 0; i < 16; i++) {
            assertEquals(SessionSender.STEP_NEXT, s.step(System.nanoTime()), "packet " + i);
        }
        assertEquals(16, log.published());
        assertEquals(SessionSender.STEP_SLOT_BUSY, s.step(System.nanoTime()), "slot of 16 still held by 0");
        assertEquals(16, log.published(), "nothing sent while the slot is pending");
        log.publishFlushed(24);
        int last = SessionSender.STEP_NEXT;
        for (int i = 16; i < 40; i++) {
            last = s.step(System.nanoTime());
            assertEquals(i < 39 ? SessionSender.STEP_NEXT : SessionSender.STEP_ENDED, last, "packet " + i);
        }
        assertEquals(40, log.published());
        assertEquals(40, s.sentCount());
        assertEquals(0, s.skippedCount());
        for (long seq = 24; seq < 40; seq++) {
            assertEquals(SendLog.STATE_SENT, log.state(seq));
        }
        assertFalse(s.stepsEnded());
        s.endSteps();
        assertTrue(s.stepsEnded());
        assertTrue(log.isSenderFinished());
        assertTrue(s.awaitSteps(0));
    }

    @Test
    void shouldSkipAPacketMoreThanTheLossTimeoutLateAndEndWhenStopped() throws Exception {
        SendLog log = new SendLog(10, 16);
        SessionControl control = new SessionControl(line -> { });
        // the schedule began 1 s ago with a loss timeout of 1 ms: every due packet is more than L late
        SessionSender s = sender(10, clock.nowNtp() - NtpTime.fromSeconds(1), NtpTime.fromSeconds(0.001), log, control);
        assertTrue(s.beginSteps());
        assertTrue(s.dueDeadlineNs() - System.nanoTime() < 0, "the first deadline has passed");
        assertEquals(SessionSender.STEP_NEXT, s.step(System.nanoTime()));
        assertEquals(SessionSender.STEP_NEXT, s.step(System.nanoTime()));
        assertEquals(2, s.skippedCount());
        assertEquals(0, s.sentCount());
        assertEquals(SendLog.STATE_SKIPPED, log.state(0));
        assertFalse(s.stopped());
        control.cancel();
        assertTrue(s.stopped());
        assertEquals(SessionSender.STEP_ENDED, s.step(System.nanoTime()), "stopped: nothing more sent");
        assertEquals(2, log.published());
    }

    @Test
    void shouldNotBeginAStoppedSessionOrOneWithoutPackets() throws Exception {
        SessionControl stopped = new SessionControl(line -> { });
        stopped.cancel();
        assertFalse(sender(10, clock.nowNtp(), NtpTime.fromSeconds(1), new SendLog(10, 16), stopped).beginSteps());
        close();
        assertFalse(sender(0, clock.nowNtp(), NtpTime.fromSeconds(1), new SendLog(0, 16),
                new SessionControl(line -> { })).beginSteps());
    }

    /** The spin window: the session's own, capped at a quarter of its interval; a learnt one counts as 100 µs. */
    @Test
    void shouldCapTheSpinWindowAtAQuarterOfTheInterval() throws Exception {
        SessionSender s = sender(10, clock.nowNtp() + NtpTime.fromSeconds(1), NtpTime.fromSeconds(1),
                new SendLog(10, 16), new SessionControl(line -> { }));
        assertTrue(s.beginSteps());
        // the first deadline is 1 s after the pairing: a quarter of that is far above the 20 µs window
        assertEquals(20_000, s.spinWindowNs());
        assertEquals(SessionSender.STEP_NEXT, s.step(System.nanoTime()));
        // then 1 µs between deadlines: a quarter of it
        assertTrue(s.spinWindowNs() <= 250, "window " + s.spinWindowNs());
    }
}
