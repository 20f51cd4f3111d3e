package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The warm-up runs the round trips asked for, and stops at its time bound. */
class SocketWarmUpTest {
    @Test
    void shouldRunTheRoundTripsAskedFor() {
        SocketWarmUp.Result r = SocketWarmUp.run(200, TimeUnit.SECONDS.toNanos(60));
        assertEquals(200, r.roundTrips());
    }

    @Test
    void shouldStopAtItsTimeBound() {
        // unbounded count, 50 ms: it must come back (opening the sockets alone may take longer on a loaded machine)
        SocketWarmUp.Result r = SocketWarmUp.run(Integer.MAX_VALUE, TimeUnit.MILLISECONDS.toNanos(50));
        assertTrue(r.roundTrips() < Integer.MAX_VALUE, r.toString());
        assertTrue(r.elapsedNs() >= TimeUnit.MILLISECONDS.toNanos(50), r.toString());
        assertEquals(0, SocketWarmUp.run(0, TimeUnit.SECONDS.toNanos(1)).roundTrips());
        assertEquals(0, SocketWarmUp.run(1000, TimeUnit.SECONDS.toNanos(60), () -> true).roundTrips());
    }
}
