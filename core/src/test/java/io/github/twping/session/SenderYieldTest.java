package io.github.twping.session;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SenderYieldTest {
    @Test
    void shouldYieldAfterASendOnlyAtIntervalsOfATenthOfAMillisecondOrMore() {
        assertTrue(SessionSender.yieldsAfter(true, 2_000_000), "500/s");
        assertTrue(SessionSender.yieldsAfter(true, SessionSender.YIELD_MIN_INTERVAL_NS), "10,000/s exactly");
        assertFalse(SessionSender.yieldsAfter(true, SessionSender.YIELD_MIN_INTERVAL_NS - 1), "faster");
        assertFalse(SessionSender.yieldsAfter(true, 10_000), "100,000/s");
        assertFalse(SessionSender.yieldsAfter(false, 2_000_000), "switched off");
        assertFalse(SessionSender.yieldsAfter(true, -1), "the first send's lead-in from an earlier start");
    }
}
