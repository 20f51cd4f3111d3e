package io.github.twping.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The STAMP command-line tests' one exchange: {@code twampd --stamp/--light} ({@link StampReflectorMain}) in this
 * JVM with its ready file, then {@code twping} with the given arguments plus FLAG 127.0.0.1:PORT, then the
 * reflector stopped; its exit status must be 0.
 */
final class StampCliExchange {
    /** What the two programs printed; {@code port} is the reflector's. */
    record Result(int status, String out, String err, String reflectorErr, int port) {
    }

    private StampCliExchange() {
    }

    static Result run(Path dir, List<String> reflectorArgs, List<String> twpingArgs, String flag) throws Exception {
        StampReflectorMain main = new StampReflectorMain();
        Path ready = Files.createTempFile(dir, "ready", "");
        Files.delete(ready);
        ByteArrayOutputStream dErr = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(dErr, true, StandardCharsets.UTF_8);
        CompletableFuture<Integer> reflector = CompletableFuture.supplyAsync(() -> main.execute(
                reflectorArgs.toArray(String[]::new), new PrintStream(new ByteArrayOutputStream()), err,
                ready.toString()));
        // the reflector warms up (up to 3 s) before it writes its port: poll the file, do not spin on a CPU
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!(Files.exists(ready) && Files.size(ready) > 0) && !reflector.isDone()
                && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        assertTrue(Files.exists(ready), "reflector not ready: " + dErr.toString(StandardCharsets.UTF_8));
        int port = Integer.parseInt(Files.readString(ready).strip());
        ByteArrayOutputStream tOut = new ByteArrayOutputStream();
        ByteArrayOutputStream tErr = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(twpingArgs);
        args.add(flag);
        args.add("127.0.0.1:" + port);
        int status = Twping.create(args, "twping", new PrintStream(tOut, true, StandardCharsets.UTF_8),
                new PrintStream(tErr, true, StandardCharsets.UTF_8), System.in, Map.of("TMPDIR", dir.toString()))
                .run();
        main.stop();
        assertEquals(0, reflector.get(30, TimeUnit.SECONDS));
        return new Result(status, tOut.toString(StandardCharsets.UTF_8), tErr.toString(StandardCharsets.UTF_8),
                dErr.toString(StandardCharsets.UTF_8), port);
    }
}
