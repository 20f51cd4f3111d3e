package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.twping.stamp.StampReflectorWarmUp;
import io.github.twping.stamp.StampWarmUpResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code twampd --stamp/--light} warms its reflector before it announces itself: when the ready file exists, the
 * warm-up has run (replies counted by its in-process reflector), within its bounds.
 */
class StampReflectorWarmUpTest {
    @TempDir
    Path dir;

    private StampWarmUpResult warmUpBeforeReady(String... argv) throws Exception {
        StampReflectorMain main = new StampReflectorMain();
        Path ready = dir.resolve("ready-" + argv[0].substring(2));
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
        CompletableFuture<Integer> reflector = CompletableFuture.supplyAsync(
                () -> main.execute(argv, err, err, ready.toString()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(Files.exists(ready) && Files.size(ready) > 0) && !reflector.isDone()
                && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
        try {
            assertTrue(Files.exists(ready), "not ready: " + errBytes.toString(StandardCharsets.UTF_8));
            StampWarmUpResult warm = main.warmUp();
            assertNotNull(warm, "the warm-up ran before the ready file was written");
            return warm;
        } finally {
            main.stop();
            assertEquals(0, reflector.get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void stampReflectorIsWarmedBeforeItIsReady() throws Exception {
        StampWarmUpResult warm = warmUpBeforeReady("--stamp", "127.0.0.1:0", "--stateful", "--allow", "192.0.2.0/24");
        assertTrue(warm.reflected() > 0, "replies: " + warm);
        assertTrue(warm.followUps() > 0, "Follow-Up Telemetry answered from the error queue: " + warm);
        assertTrue(warm.packets() <= StampReflectorWarmUp.PACKETS, "bounded in packets: " + warm);
        // its own limit plus the thread joins and the receiver's loss timeout after a stop
        assertTrue(warm.elapsedNs() < StampReflectorWarmUp.MAX_NS + TimeUnit.SECONDS.toNanos(5),
                "bounded in time: " + warm);
    }

    @Test
    void lightReflectorIsWarmedBeforeItIsReady() throws Exception {
        StampWarmUpResult warm = warmUpBeforeReady("--light", "127.0.0.1:0", "--rate", "5");
        assertTrue(warm.reflected() > 0, "replies despite --rate 5 on the real reflector: " + warm);
        assertEquals(0, warm.followUps());
    }
}
