package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The servers' AOT training run starts, warms and stops a TWAMP twampd and a STAMP reflector, quietly. */
class AotServerTrainingTest {
    @Test
    void startsAndStopsBothServers() {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int status = AotServerTraining.run(new PrintStream(log, true, StandardCharsets.UTF_8));
        assertEquals(0, status, log.toString(StandardCharsets.UTF_8));
        assertEquals("", log.toString(StandardCharsets.UTF_8), "nothing to say when both started");
    }
}
