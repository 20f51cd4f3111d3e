package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import java.net.InetAddress;

import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.protocol.Mode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The throw-away loopback session that compiles the engine before a measurement. */
class EngineWarmUpTest {
    private static final long GENEROUS_NS = TimeUnit.SECONDS.toNanos(60);

    @ParameterizedTest
    @CsvSource({"OPEN,true", "OPEN,false", "AUTHENTICATED,true", "ENCRYPTED,false", "ENCRYPTED,true"})
    void runsEveryPacketThroughTheRealEngine(Mode mode, boolean kernel) {
        TwampSessionWarmUp.Result r = TwampSessionWarmUp.runOnce(mode, 27, 0, kernel, 600, GENEROUS_NS, () -> false);
        assertTrue(r.completed(), "completed: " + r);
        assertEquals(600, r.packets());
    }

    /** The warm-up runs the socket arrangement of the session that follows (docs/CLIENT.md, "Two sockets"). */
    @Test
    void kernelSendStampsWarmUpTheSplitSenderAndUserStampsOneSocket() throws Exception {
        boolean canSplit;
        try (UdpSocket probe = UdpSocket.open(UdpSocketOptions.builder()
                .bindAddress(InetAddress.getLoopbackAddress()).timestamping(Timestamping.RX_TX_SOFTWARE).build())) {
            canSplit = probe.isNative() && probe.capabilities().txTimestamps();
        }
        TwampSessionWarmUp.Result kernel = TwampSessionWarmUp.runOnce(Mode.OPEN, 0, 0, true, 200, GENEROUS_NS, () -> false);
        assertTrue(kernel.completed(), "completed: " + kernel);
        assertEquals(canSplit ? 2 : 1, kernel.sockets());
        TwampSessionWarmUp.Result user = TwampSessionWarmUp.runOnce(Mode.OPEN, 0, 0, false, 200, GENEROUS_NS, () -> false);
        assertTrue(user.completed(), "completed: " + user);
        assertEquals(1, user.sockets());
    }

    @Test
    void aWarmUpOfOneSendStampDoesNotStandForTheOther() {
        boolean userBefore = TwampSessionWarmUp.isWarm(Mode.ENCRYPTED, false);
        TwampSessionWarmUp.Result kernel = TwampSessionWarmUp.run(Mode.ENCRYPTED, 0, 0, true, 300, GENEROUS_NS, () -> false);
        assertTrue(kernel.completed(), "completed: " + kernel);
        assertTrue(TwampSessionWarmUp.isWarm(Mode.ENCRYPTED, true));
        assertEquals(0, TwampSessionWarmUp.run(Mode.ENCRYPTED, 0, 0, true, 300, GENEROUS_NS, () -> false).packets());
        assertEquals(userBefore, TwampSessionWarmUp.isWarm(Mode.ENCRYPTED, false), "the kernel kind marked the user kind");
        TwampSessionWarmUp.Result user = TwampSessionWarmUp.run(Mode.ENCRYPTED, 0, 0, false, 300, GENEROUS_NS, () -> false);
        assertTrue(user.completed(), "completed: " + user);
        if (!userBefore) {
            assertEquals(300, user.packets(), "the user-stamp kind ran although the kernel kind was warm");
        }
        assertTrue(TwampSessionWarmUp.isWarm(Mode.ENCRYPTED, false));
    }

    @Test
    void stopsWhenAskedAndWhenTheTimeIsUp() {
        AtomicBoolean stop = new AtomicBoolean(true);
        TwampSessionWarmUp.Result stopped = TwampSessionWarmUp.runOnce(Mode.OPEN, 0, 0, true, 1_000_000, GENEROUS_NS, stop::get);
        assertFalse(stopped.completed());
        assertTrue(stopped.packets() < 1_000_000);
        TwampSessionWarmUp.Result timedOut = TwampSessionWarmUp.runOnce(Mode.OPEN, 0, 0, true, 1_000_000,
                TimeUnit.MILLISECONDS.toNanos(200), () -> false);
        assertFalse(timedOut.completed());
        assertTrue(timedOut.packets() < 1_000_000);
    }

    @Test
    void aCompletedModeIsNotWarmedAgainInTheSameJvm() {
        TwampSessionWarmUp.Result first = TwampSessionWarmUp.run(Mode.MIXED, 0, 0, true, 300, GENEROUS_NS, () -> false);
        assertTrue(first.completed(), "completed: " + first);  // ran, or a warm-up of MIXED ran before in this JVM
        TwampSessionWarmUp.Result second = TwampSessionWarmUp.run(Mode.MIXED, 0, 0, true, 300, GENEROUS_NS, () -> false);
        assertTrue(second.completed());
        assertEquals(0, second.packets(), "skipped");
    }
}
