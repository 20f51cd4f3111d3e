package io.github.twping.cli;

import io.github.twping.protocol.Mode;
import io.github.twping.session.TwampSessionWarmUp;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The training run of the servers' own AOT cache ({@code core/target/twampd.aot}, {@code lib/twampd.aot}): what an
 * idle {@code twampd} and {@code twampd --stamp} load and compile, and nothing of the client.
 *
 * <p>Every class in an AOT cache is mapped and read at start-up whether the program uses it or not, so a cache
 * trained by a client session costs a server the client's classes in its resident memory (docs/SERVER.md, "Memory").
 * This run starts a TWAMP twampd in open mode on an ephemeral loopback port, runs the per-mode reflector warm-ups
 * to their end (the server's own warm-up runs in the background and may still be going when it reports ready),
 * stops it, then starts and stops a STAMP reflector, whose warm-up runs before it listens. The JVM writes the cache
 * on exit. Exit status 0, or 1 when a server did not start (the launcher then keeps the client's cache for both).
 */
public final class AotServerTraining {
    private static final long START_NS = TimeUnit.SECONDS.toNanos(60);
    private static final long WARM_UP_NS = TimeUnit.SECONDS.toNanos(5);

    private AotServerTraining() {
    }

    public static void main(String[] args) {
        System.exit(run(System.err));   // the JVM writes the AOT cache on this exit
    }

    /** Starts and stops both servers; @return 0, or 1 when one did not start (one line on {@code err}). */
    static int run(PrintStream err) {
        PrintStream discard = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        try {
            if (!twamp(discard)) {
                err.println("twampd: AOT training: the TWAMP server did not start");
                return 1;
            }
            if (!stamp(discard)) {
                err.println("twampd: AOT training: the STAMP reflector did not start");
                return 1;
            }
            return 0;
        } catch (IOException e) {
            err.println("twampd: AOT training: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private static boolean twamp(PrintStream discard) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("twampd-aot-training");
        try {
            // with main's signal handlers: classes the cache does not hold come from the jar, and the first one opens
            // it (its central directory, 11,676 entries: about 10 ms and 1-2 MB of an idle twampd)
            Files.writeString(dir.resolve("twamp-server.conf"), "authmode O\n");
            TwampdMain server = new TwampdMain();
            for (Signals.Name signal : Signals.Name.values()) {
                Signals.handle(signal, server::stop);
            }
            Thread t = Thread.ofPlatform().name("twampd-training").start(() -> server.execute(new String[] {
                "-c", dir.toString(), "-R", dir.toString(), "-Z", "-f", "-S", "127.0.0.1:0"}, discard, discard));
            boolean ready = server.awaitReady(START_NS);
            if (ready) {
                for (Mode m : new Mode[] {Mode.OPEN, Mode.AUTHENTICATED, Mode.ENCRYPTED}) {
                    TwampSessionWarmUp.run(m, 0, 0, true, TwampSessionWarmUp.DEFAULT_PACKETS, WARM_UP_NS, () -> false);
                }
            }
            server.stop();
            t.join(TimeUnit.NANOSECONDS.toMillis(START_NS));
            return ready;
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static boolean stamp(PrintStream discard) throws InterruptedException {
        TwampdMain reflector = new TwampdMain();
        Thread t = Thread.ofPlatform().name("stamp-training").start(() -> reflector.execute(new String[] {
            "--stamp", "127.0.0.1:0"}, discard, discard));
        long deadline = System.nanoTime() + START_NS;
        // until the warm-up has ended, not just until the reflector has an address (it has one before its warm-up):
        // stopped at the address, the warm-up never reached its TLV phase, whose classes then came from the jar
        while (reflector.stampWarmUp() == null && t.isAlive() && System.nanoTime() < deadline) {
            t.join(20);   // bounded
        }
        boolean started = reflector.stampAddress() != null && reflector.stampWarmUp() != null;
        reflector.stop();
        t.join(TimeUnit.NANOSECONDS.toMillis(START_NS));
        return started;
    }
}
