package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.twping.protocol.Mode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** The throw-away loopback session that compiles the engine before a measurement. */
class EngineWarmUpTest {
    private static final long GENEROUS_NS = TimeUnit.SECONDS.toNanos(60);

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = {"OPEN", "AUTHENTICATED", "ENCRYPTED"})
    void runsEveryPacketThroughTheRealEngine(Mode mode) {
        EngineWarmUp.Result r = EngineWarmUp.runOnce(mode, 27, 0, 600, GENEROUS_NS, () -> false);
        assertTrue(r.completed(), "completed: " + r);
        assertEquals(600, r.packets());
    }

    @Test
    void stopsWhenAskedAndWhenTheTimeIsUp() {
        AtomicBoolean stop = new AtomicBoolean(true);
        EngineWarmUp.Result stopped = EngineWarmUp.runOnce(Mode.OPEN, 0, 0, 1_000_000, GENEROUS_NS, stop::get);
        assertFalse(stopped.completed());
        assertTrue(stopped.packets() < 1_000_000);
        EngineWarmUp.Result timedOut = EngineWarmUp.runOnce(Mode.OPEN, 0, 0, 1_000_000,
                TimeUnit.MILLISECONDS.toNanos(200), () -> false);
        assertFalse(timedOut.completed());
        assertTrue(timedOut.packets() < 1_000_000);
    }

    @Test
    void aCompletedModeIsNotWarmedAgainInTheSameJvm() {
        EngineWarmUp.Result first = EngineWarmUp.run(Mode.MIXED, 0, 0, 300, GENEROUS_NS, () -> false);
        assertTrue(first.completed(), "completed: " + first);  // ran, or a warm-up of MIXED ran before in this JVM
        EngineWarmUp.Result second = EngineWarmUp.run(Mode.MIXED, 0, 0, 300, GENEROUS_NS, () -> false);
        assertTrue(second.completed());
        assertEquals(0, second.packets(), "skipped");
    }
}
