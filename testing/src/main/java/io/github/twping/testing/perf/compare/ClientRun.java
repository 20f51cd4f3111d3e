package io.github.twping.testing.perf.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.nio.file.StandardOpenOption;

/**
 * One client session as a user runs it: a separate process under {@code /usr/bin/time} (CPU and maximum RSS
 * of the client), its {@code -R} output and {@code -F} data file kept in a directory, the placement of its
 * threads (and of a server process's) sampled every {@code sampleMs} while it runs (or never).
 */
public final class ClientRun {
    static final Path TIME = Path.of("/usr/bin/time");

    /**
     * The outcome of a run.
     *
     * @param exitStatus   the client's exit status (-1 when it was killed at the deadline)
     * @param metrics      the figures from its records (null when the output could not be read)
     * @param cpuSeconds   user + system CPU of the client process, or NaN without /usr/bin/time
     * @param maxRssKb     its maximum resident set, KiB, or -1
     * @param wallSeconds  wall time of the process
     * @param client       where the client's threads ran
     * @param server       where the separate server's threads ran during the run (empty without one)
     * @param stderr       the client's standard error
     */
    public record Result(int exitStatus, SessionMetrics metrics, double cpuSeconds, long maxRssKb, double wallSeconds,
                         ThreadPlacement client, ThreadPlacement server, List<String> stderr) {
    }

    private ClientRun() {
    }

    /**
     * Runs {@code command} (its last arguments must include {@code -R -F dataFile}) with stdout in
     * {@code dir/NAME.out}, stderr in {@code dir/NAME.err}.
     */
    public static Result run(List<String> command, Path dir, String name, Path dataFile, long serverPid,
                             long deadlineMs, int sampleMs) throws IOException, InterruptedException {
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        Path times = dir.resolve(name + ".time");
        List<String> full = new ArrayList<>();
        boolean timed = Files.isExecutable(TIME);
        if (timed) {
            full.addAll(List.of(TIME.toString(), "-q", "-f", "%U %S %M", "-o", times.toString()));
        }
        full.addAll(command);
        ThreadPlacement client = new ThreadPlacement();
        ThreadPlacement server = new ThreadPlacement();
        long startNs = System.nanoTime();
        Process p = new ProcessBuilder(full).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        long deadlineNs = startNs + TimeUnit.MILLISECONDS.toNanos(deadlineMs);
        long clientPid = -1;
        while (sampleMs == 0 && p.isAlive() && System.nanoTime() - deadlineNs < 0) {
            // no sampling: the harness sleeps until the client ends or the deadline passes
            p.waitFor(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        while (sampleMs > 0 && p.isAlive() && System.nanoTime() - deadlineNs < 0) {
            if (clientPid < 0) {
                clientPid = timed ? p.children().findFirst().map(ProcessHandle::pid).orElse(-1L) : p.pid();
            }
            if (clientPid > 0) {
                client.sample(clientPid);
            }
            if (serverPid > 0) {
                server.sample(serverPid);
            }
            p.waitFor(sampleMs, TimeUnit.MILLISECONDS);
        }
        int status;
        if (p.isAlive()) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            status = -1;
        } else {
            status = p.exitValue();
        }
        double wall = (System.nanoTime() - startNs) / 1e9;
        double cpu = Double.NaN;
        long rss = -1;
        if (timed && Files.exists(times)) {
            Optional<String> line = Files.readAllLines(times, StandardCharsets.UTF_8).stream()
                    .filter(l -> l.matches("[0-9.]+ [0-9.]+ [0-9]+")).findFirst();
            if (line.isPresent()) {
                String[] f = line.get().split(" ");
                cpu = Double.parseDouble(f[0]) + Double.parseDouble(f[1]);
                rss = Long.parseLong(f[2]);
            }
        }
        SessionMetrics metrics = null;
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        if (!lines.isEmpty()) {
            try {
                long[] schedule = Files.size(dataFile) > 0 ? SessionSchedule.read(dataFile) : null;
                metrics = SessionMetrics.of(SessionMetrics.parseRaw(lines), schedule);
            } catch (IOException | RuntimeException e) {
                Files.writeString(err, "compare: cannot read the output: " + e + "\n", StandardCharsets.UTF_8,
                        StandardOpenOption.APPEND);
            }
        }
        return new Result(status, metrics, cpu, rss, wall, client, server,
                Files.readAllLines(err, StandardCharsets.UTF_8));
    }
}
