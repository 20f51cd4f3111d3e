package io.github.twping.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.twping.ffm.SocketException;
import org.junit.jupiter.api.Test;

/** twampd's one line when the kernel refuses a stamped reply (StampReflectorStampRefusedTest: the fallback). */
class StampRefusalLineTest {
    @Test
    void theLineQuotesTheRefusedCall() {
        String error = SocketException.of("sendmsg(SO_TIMESTAMPING)", 22).getMessage();
        assertEquals("twampd: the kernel refused a TX timestamp per reply (sendmsg(SO_TIMESTAMPING): Invalid argument;"
                + " kernels before 4.7 do): replies are sent without, Follow-Up Telemetry reports no timestamp",
                StampReflectorDaemon.stampRefusalLine(error));
    }
}
