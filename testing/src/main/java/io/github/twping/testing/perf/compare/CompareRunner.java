package io.github.twping.testing.perf.compare;

import io.github.twping.testing.perf.PingPongBaseline;
import io.github.twping.testing.perf.compare.SessionMetrics.Metric;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.Collections;
import java.util.function.ToDoubleFunction;

/**
 * The side-by-side comparison: our client and the C client ({@code TWPING_C}) in alternating rounds against
 * the same reflectors (the C twampd from {@code TWAMPD_C}, our twampd in its own process, our embedded one
 * through {@code --loopback}), each session a separate process as a user runs it. Without the C binaries it
 * compares our client with a second run of itself and with a C-free ping-pong floor, and says what it skipped.
 * Markdown tables on stdout, progress on stderr; exit status 0, 1 when a run failed, 2 on bad arguments.
 * Started by {@code testing/compare-c.sh} (docs/PERFORMANCE.md).
 */
public final class CompareRunner {
    private static final long SERVER_START_MS = 60_000;
    private static final int PRIMING_PACKETS = 2000;

    private record Client(String label, List<String> prefix, boolean ours) {
    }

    private record Reflector(String name, InetSocketAddress address, Process process) {
        long pid() {
            return process == null ? -1 : process.pid();
        }

        /** STAMP or TWAMP-Light: no control connection; our client reaches it with --stamp / --light. */
        boolean controlLess() {
            return name.equals("stamp") || name.equals("light");
        }

        /** A reflector the C client can use: a TWAMP server (not --loopback, STAMP or TWAMP-Light). */
        boolean speaksTwamp() {
            return !name.equals("loopback") && !controlLess();
        }
    }

    private record RunKey(String reflector, String client) {
    }

    private record RunRecord(int round, RunKey key, String loadBefore, ClientRun.Result result) {
    }

    private final CompareOptions options;
    private final Path root;
    private final Path work;
    private final PrintStream out;
    private final PrintStream log;
    private final List<String> skipped = new ArrayList<>();
    private final List<String> primed = new ArrayList<>();
    private final List<RunRecord> runs = new ArrayList<>();
    private final List<PingPongBaseline.Result> floors = new ArrayList<>();

    private CompareRunner(CompareOptions options, Path root, Path work, PrintStream out, PrintStream log) {
        this.options = options;
        this.root = root;
        this.work = work;
        this.out = out;
        this.log = log;
    }

    public static void main(String[] args) throws Exception {
        CompareOptions options;
        try {
            options = CompareOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("compare-c: " + e.getMessage());
            System.err.println(CompareOptions.USAGE);
            System.exit(2);
            return;
        }
        Path root = Path.of(System.getProperty("compare.root", ".")).toAbsolutePath().normalize();
        Path work = options.keepDir() != null ? Files.createDirectories(Path.of(options.keepDir()))
                : Files.createTempDirectory("compare-c.");
        int status;
        try {
            status = new CompareRunner(options, root, work, System.out, System.err).run();
        } finally {
            if (options.keepDir() == null) {
                deleteTree(work);
            }
        }
        System.exit(status);
    }

    /** A reflector that was asked for could not be started (not a skip for a missing binary): exit 1. */
    private boolean serverFailed;

    private int run() throws IOException, InterruptedException {
        String cClient = System.getenv("TWPING_C");
        String cServer = System.getenv("TWAMPD_C");
        List<Client> clients = new ArrayList<>();
        List<String> ours = new ArrayList<>(nicePrefix());
        ours.add(root.resolve("twping").toString());
        ours.addAll(options.oursArgs());
        clients.add(new Client("ours", ours, true));
        if (cClient != null && !cClient.isBlank()) {
            List<String> c = new ArrayList<>(nicePrefix());
            c.add(cClient);
            clients.add(new Client("C", c, false));
        } else {
            skipped.add("C twping: skipped, TWPING_C is not set; comparing our client with a second run of itself");
            clients.add(new Client("ours (again)", ours, true));
        }
        for (Map.Entry<String, List<String>> v : options.variants().entrySet()) {
            // leading NAME=VALUE words are the variant's environment (e.g. TWPING_JAVA_OPTS=-D...), run via env(1)
            List<String> words = v.getValue();
            int assignments = 0;
            while (assignments < words.size() && words.get(assignments).matches("[A-Z_][A-Z0-9_]*=.*")) {
                assignments++;
            }
            List<String> prefix = new ArrayList<>(nicePrefix());
            if (assignments > 0) {
                prefix.add("env");
                prefix.addAll(words.subList(0, assignments));
            }
            prefix.addAll(ours.subList(nicePrefix().size(), ours.size()));
            prefix.addAll(words.subList(assignments, words.size()));
            clients.add(new Client(v.getKey(), prefix, true));
        }
        String loadStart = loadAverage();
        Instant started = Instant.now();
        List<Reflector> reflectors = new ArrayList<>();
        try {
            for (String name : options.reflectors()) {
                Reflector r = startReflector(name, cServer);
                if (r != null) {
                    reflectors.add(r);
                }
            }
            for (String note : skipped) {
                log.println("compare-c: " + note);
            }
            for (int round = 1; round <= options.rounds(); round++) {
                for (Reflector reflector : reflectors) {
                    List<Client> order = new ArrayList<>(clients);
                    if (round % 2 == 0) {
                        Collections.reverse(order);
                    }
                    for (Client client : order) {
                        if (!reflector.speaksTwamp() && !client.ours()) {
                            continue;
                        }
                        runOne(round, reflector, client);
                    }
                }
                if (options.floor()) {
                    floors.add(PingPongBaseline.run(options.rate(), options.count(),
                            TimeUnit.SECONDS.toNanos((long) (options.count() / options.rate()) + 30), false));
                }
            }
        } finally {
            for (Reflector r : reflectors) {
                stop(r);
            }
        }
        if (reflectors.stream().anyMatch(r -> r.name().equals("loopback")) && cClient != null && !cClient.isBlank()) {
            skipped.add("C twping against loopback: skipped, --loopback is our client's embedded reflector");
        }
        if (reflectors.stream().anyMatch(Reflector::controlLess) && cClient != null && !cClient.isBlank()) {
            skipped.add("C twping against stamp/light: skipped, the C twping has neither STAMP nor TWAMP-Light");
        }
        report(started, loadStart, loadAverage());
        boolean failed = serverFailed
                || runs.stream().anyMatch(r -> r.result().exitStatus() != 0 || r.result().metrics() == null);
        return failed ? 1 : 0;
    }

    private void runOne(int round, Reflector reflector, Client client) throws IOException, InterruptedException {
        String name = "r" + round + "-" + reflector.name() + "-" + client.label().replaceAll("[^A-Za-z0-9]+", "_");
        Path data = work.resolve(name + ".owp");
        List<String> command = new ArrayList<>(client.prefix());
        command.addAll(List.of("-c", Integer.toString(options.count()), "-i", options.schedule(),
                "-L", Double.toString(options.lossTimeout()), "-R", "-F", data.toString()));
        if (reflector.name().equals("loopback")) {
            command.add("--loopback");
        } else if (reflector.controlLess()) {
            command.add("--" + reflector.name());
            command.add(reflector.address().getAddress().getHostAddress() + ":" + reflector.address().getPort());
        } else {
            command.add(reflector.address().getAddress().getHostAddress() + ":" + reflector.address().getPort());
        }
        String load = loadAverage();
        long sendingMs = (long) (options.count() / options.rate() * 1000);
        ClientRun.Result result = ClientRun.run(command, work, name, data, reflector.pid(),
                2 * sendingMs + 60_000, options.sampleMs());
        runs.add(new RunRecord(round, new RunKey(reflector.name(), client.label()), load, result));
        SessionMetrics m = result.metrics();
        log.printf(Locale.ROOT, "compare-c: round %d %s %s: exit %d, %s, RTT p50 %s us, load %s%n", round,
                reflector.name(), client.label(), result.exitStatus(),
                m == null ? "no records" : m.sent() + " sent " + m.lost() + " lost",
                m == null || m.distribution(Metric.RTT).count() == 0 ? "-"
                        : micros(m.distribution(Metric.RTT).percentile(50)), load);
        if (result.exitStatus() != 0 || m == null) {
            result.stderr().stream().limit(10).forEach(l -> log.println("compare-c:   " + l));
        }
    }

    private Reflector startReflector(String name, String cServer) throws IOException, InterruptedException {
        if (name.equals("loopback")) {
            return new Reflector(name, null, null);
        }
        if (name.equals("stamp") || name.equals("light")) {
            return startControlLess(name);
        }
        List<String> command = new ArrayList<>(nicePrefix());
        if (name.equals("c-twampd")) {
            if (cServer == null || cServer.isBlank()) {
                skipped.add("C twampd: skipped, TWAMPD_C is not set");
                return null;
            }
            command.add(cServer);
        } else {
            command.add(root.resolve("twampd").toString());
            command.addAll(options.twampdArgs());
        }
        int port = freePort();
        Path dir = Files.createDirectories(work.resolve(name + "-conf"));
        // open mode only: both servers refuse to start without a .pfs when the (default) authmode needs one
        Files.writeString(dir.resolve("twamp-server.conf"), "srcnode 127.0.0.1:" + port + "\nauthmode O\n");
        command.addAll(List.of("-Z", "-f", "-c", dir.toString(), "-R", dir.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve(name + ".log").toFile()).start();
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SERVER_START_MS);
        while (System.nanoTime() - deadline < 0 && p.isAlive()) {
            try (Socket s = new Socket()) {
                s.connect(address, 200);
                log.println("compare-c: " + name + " listening on 127.0.0.1:" + port + " (pid " + p.pid() + ")");
                Reflector r = new Reflector(name, address, p);
                prime(r);
                return r;
            } catch (IOException notYet) {
                Thread.sleep(100); // polling a port that is not open yet; bounded by the deadline
            }
        }
        return notReady(name, p, "did not start listening");
    }

    /** A reflector that was not ready in time: stopped, its first log lines reported, the run marked failed. */
    private Reflector notReady(String name, Process p, String what) throws IOException {
        p.destroyForcibly();
        String tail = String.join(" | ", Files.readAllLines(work.resolve(name + ".log")).stream().limit(5).toList());
        skipped.add(name + ": " + what + " within " + SERVER_START_MS / 1000 + " s (" + tail + ")");
        serverFailed = true;
        return null;
    }

    /**
     * {@code twampd --stamp 127.0.0.1:0} or {@code --light}, with the --twampd-args; ready when it has written
     * its port to {@code TWAMPD_READY_FILE} (docs/CLI.md, "twampd as a STAMP or TWAMP-Light reflector").
     */
    private Reflector startControlLess(String name) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(nicePrefix());
        command.add(root.resolve("twampd").toString());
        command.addAll(List.of("--" + name, "127.0.0.1:0"));
        command.addAll(options.twampdArgs());
        Path ready = work.resolve(name + ".port");
        Files.deleteIfExists(ready);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve(name + ".log").toFile());
        builder.environment().put("TWAMPD_READY_FILE", ready.toString());
        Process p = builder.start();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SERVER_START_MS);
        while (System.nanoTime() - deadline < 0 && p.isAlive()) {
            String text = Files.exists(ready) ? Files.readString(ready).trim() : "";
            if (text.matches("[0-9]+")) {
                InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                        Integer.parseInt(text));
                log.println("compare-c: " + name + " reflecting on 127.0.0.1:" + address.getPort() + " (pid " + p.pid() + ")");
                Reflector r = new Reflector(name, address, p);
                prime(r);
                return r;
            }
            Thread.sleep(100); // polling for the ready file; bounded by the deadline
        }
        return notReady(name, p, "did not write its port");
    }

    /**
     * One unrecorded session of our client against a freshly started server: a server measured in its first
     * session after start-up (its JIT still compiling) is not the server a long-running deployment offers.
     */
    private void prime(Reflector r) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(nicePrefix());
        command.add(root.resolve("twping").toString());
        command.addAll(List.of("-c", Integer.toString(PRIMING_PACKETS), "-i", "0.001f", "-L", "1", "-Q"));
        if (r.controlLess()) {
            command.add("--" + r.name());
        }
        command.add(r.address().getAddress().getHostAddress() + ":" + r.address().getPort());
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        primed.add(r.name());
    }

    /** {@code nice -n N} when --nice was given: every client and server runs at the same priority. */
    private List<String> nicePrefix() {
        return options.nice() == 0 ? List.of() : List.of("nice", "-n", Integer.toString(options.nice()));
    }

    private void stop(Reflector r) throws InterruptedException {
        if (r.process() != null) {
            r.process().destroy();
            if (!r.process().waitFor(10, TimeUnit.SECONDS)) {
                r.process().destroyForcibly();
            }
        }
    }

    // ------------------------------------------------------------------ report

    private void report(Instant started, String loadStart, String loadEnd) throws IOException {
        out.println("## Side-by-side comparison");
        out.println();
        out.printf(Locale.ROOT, "%s, %d rounds, `-c %d -i %s -L %s`%s%s, %d CPUs, load average %s at the start, %s at the end.%n",
                started.truncatedTo(ChronoUnit.SECONDS), options.rounds(), options.count(), options.schedule(),
                fmt(options.lossTimeout()), options.nice() == 0 ? "" : ", every process under `nice -n " + options.nice() + "`",
                options.oursArgs().isEmpty() ? "" : ", ours with `" + String.join(" ", options.oursArgs()) + "`",
                Runtime.getRuntime().availableProcessors(), loadStart, loadEnd);
        out.println("Each cell: median over the rounds (min–max), µs, exact values from the `-R` records.");
        out.println(options.sampleMs() == 0 ? "- threads' placement: not sampled (`--sample-ms 0`)"
                : "- threads' placement: every thread of the client and the server sampled every " + options.sampleMs() + " ms");
        for (Map.Entry<String, List<String>> v : options.variants().entrySet()) {
            out.println("- client `" + v.getKey() + "`: ours with `" + String.join(" ", v.getValue()) + "`");
        }
        for (String note : skipped) {
            out.println("- " + note);
        }
        if (!primed.isEmpty()) {
            out.println("- started for this comparison and primed with one unrecorded session of our client ("
                    + PRIMING_PACKETS + " packets at 1000/s): " + String.join(", ", primed));
        }
        out.println();
        Map<RunKey, List<SessionMetrics>> byKey = new LinkedHashMap<>();
        for (RunRecord r : sortedRuns()) {
            if (r.result().metrics() != null) {
                byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.result().metrics());
            }
        }
        for (Metric metric : Metric.values()) {
            out.println("### " + metric.label() + (metric == Metric.LATENESS ? " (send time − schedule)" : ""));
            out.println();
            out.println("| reflector | client | p50 | p90 | p99 | p99.9 | max |");
            out.println("|---|---|---:|---:|---:|---:|---:|");
            String lastReflector = null;
            Map<String, RoundSpread[]> rowsOfReflector = new LinkedHashMap<>();
            for (Map.Entry<RunKey, List<SessionMetrics>> e : byKey.entrySet()) {
                if (lastReflector != null && !lastReflector.equals(e.getKey().reflector())) {
                    ratioRow(lastReflector, rowsOfReflector);
                    rowsOfReflector.clear();
                }
                lastReflector = e.getKey().reflector();
                RoundSpread[] cells = spreads(e.getValue(), metric);
                rowsOfReflector.put(e.getKey().client(), cells);
                out.println("| " + e.getKey().reflector() + " | " + e.getKey().client() + " | "
                        + String.join(" | ", Stream.of(cells).map(CompareRunner::cell).toList()) + " |");
            }
            if (lastReflector != null) {
                ratioRow(lastReflector, rowsOfReflector);
            }
            if (metric == Metric.RTT && !floors.isEmpty()) {
                out.println("| (none) | ping-pong floor | " + String.join(" | ", floorCells()) + " |");
            }
            out.println();
        }
        out.println("### Loss and cost");
        out.println();
        out.println("| reflector | client | scheduled | sent | lost | duplicates | CPU s | CPU µs/packet | max RSS MB | wall s |");
        out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        Map<RunKey, List<RunRecord>> recordsByKey = new LinkedHashMap<>();
        for (RunRecord r : sortedRuns()) {
            recordsByKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
        }
        String lastReflector = null;
        Map<String, RoundSpread[]> costOfReflector = new LinkedHashMap<>();
        for (Map.Entry<RunKey, List<RunRecord>> e : recordsByKey.entrySet()) {
            if (lastReflector != null && !lastReflector.equals(e.getKey().reflector())) {
                costRatioRow(lastReflector, costOfReflector);
                costOfReflector.clear();
            }
            lastReflector = e.getKey().reflector();
            List<ClientRun.Result> rs = e.getValue().stream().map(RunRecord::result).toList();
            RoundSpread cpu = spread(rs, ClientRun.Result::cpuSeconds);
            RoundSpread cpuPerPacket = spread(rs, r -> r.metrics() == null || r.metrics().sent() == 0 ? Double.NaN
                    : r.cpuSeconds() * 1e6 / r.metrics().sent());
            RoundSpread rss = spread(rs, r -> r.maxRssKb() < 0 ? Double.NaN : r.maxRssKb() / 1024.0);
            RoundSpread wall = spread(rs, ClientRun.Result::wallSeconds);
            costOfReflector.put(e.getKey().client(), new RoundSpread[] {cpu, cpuPerPacket, rss, wall});
            out.println("| " + e.getKey().reflector() + " | " + e.getKey().client() + " | "
                    + cell(spread(rs, r -> r.metrics() == null ? Double.NaN : r.metrics().scheduled()), 0) + " | "
                    + cell(spread(rs, r -> r.metrics() == null ? Double.NaN : r.metrics().sent()), 0) + " | "
                    + cell(spread(rs, r -> r.metrics() == null ? Double.NaN : r.metrics().lost()), 0) + " | "
                    + cell(spread(rs, r -> r.metrics() == null ? Double.NaN : r.metrics().duplicates()), 0) + " | "
                    + cell(cpu, 2) + " | " + cell(cpuPerPacket, 1) + " | " + cell(rss, 1) + " | " + cell(wall, 2) + " |");
        }
        if (lastReflector != null) {
            costRatioRow(lastReflector, costOfReflector);
        }
        out.println();
        out.println("### Runs: load average before each run, where the threads ran (share of samples on each CPU, CPU time)");
        out.println();
        for (RunRecord r : runs) {
            ClientRun.Result res = r.result();
            out.printf(Locale.ROOT, "- round %d, %s, %s: exit %d, load %s; client: %s%s%n", r.round(), r.key().reflector(),
                    r.key().client(), res.exitStatus(), r.loadBefore(), placement(res.client()),
                    res.server().groups().isEmpty() ? "" : "; server: " + placement(res.server()));
            res.stderr().stream().filter(l -> l.contains("kernel") && l.contains("drop"))
                    .forEach(l -> out.println("  - " + l));
        }
        out.println();
        out.println("Raw outputs in " + (options.keepDir() != null ? work : "a temporary directory (deleted; keep with --keep DIR)") + ".");
    }

    /** The runs by reflector (in option order), then client (ours first), then round. */
    private List<RunRecord> sortedRuns() {
        List<String> clientOrder = new ArrayList<>(List.of("ours", "C", "ours (again)"));
        clientOrder.addAll(options.variants().keySet());
        return runs.stream().sorted(Comparator
                .comparingInt((RunRecord r) -> options.reflectors().indexOf(r.key().reflector()))
                .thenComparingInt(r -> clientOrder.indexOf(r.key().client()))
                .thenComparingInt(RunRecord::round)).toList();
    }

    private void ratioRow(String reflector, Map<String, RoundSpread[]> rows) {
        ratioRow(reflector, rows, "", false);
    }

    /** The cost table's ratio row of one reflector: CPU, CPU per packet, max RSS and wall, ours / C (or ours again). */
    private void costRatioRow(String reflector, Map<String, RoundSpread[]> rows) {
        ratioRow(reflector, rows, " | | | |", true);
    }

    /** "| reflector | *ratio ours / C* |" then {@code gap} (empty cells) and one ratio of medians per column. */
    private void ratioRow(String reflector, Map<String, RoundSpread[]> rows, String gap, boolean wholeAboveTen) {
        RoundSpread[] ours = rows.get("ours");
        String otherLabel = rows.containsKey("C") ? "C" : "ours (again)";
        RoundSpread[] other = rows.get(otherLabel);
        if (ours == null || other == null) {
            return;
        }
        List<String> cells = new ArrayList<>();
        for (int i = 0; i < ours.length; i++) {
            double ratio = RoundSpread.ratio(ours[i], other[i]);
            cells.add(Double.isNaN(ratio) ? "–"
                    : String.format(Locale.ROOT, wholeAboveTen && ratio >= 10 ? "%.0f" : "%.2f", ratio));
        }
        out.println("| " + reflector + " | *ratio ours / " + otherLabel + "* |" + gap + " " + String.join(" | ", cells)
                + " |");
    }

    private List<String> floorCells() {
        List<String> cells = new ArrayList<>();
        for (double p : ExactPercentiles.REPORTED) {
            double[] v = floors.stream().mapToDouble(f -> p == 100 ? f.rtt().maxNs()
                    : f.rtt().histogramNs().getValueAtPercentile(p)).toArray();
            cells.add(cell(RoundSpread.of(v)));
        }
        return cells;
    }

    private static RoundSpread[] spreads(List<SessionMetrics> rounds, Metric metric) {
        RoundSpread[] out = new RoundSpread[ExactPercentiles.REPORTED.length];
        for (int i = 0; i < out.length; i++) {
            int k = i;
            out[i] = RoundSpread.of(rounds.stream().mapToDouble(m -> {
                ExactPercentiles d = m.distribution(metric);
                return d.count() == 0 ? Double.NaN : d.percentile(ExactPercentiles.REPORTED[k]);
            }).toArray());
        }
        return out;
    }

    private static RoundSpread spread(List<ClientRun.Result> rs, ToDoubleFunction<ClientRun.Result> f) {
        return RoundSpread.of(rs.stream().mapToDouble(f).toArray());
    }

    /** A latency cell in µs: "12.3 (10.1–15.0)". */
    static String cell(RoundSpread s) {
        if (s.rounds() == 0) {
            return "–";
        }
        return String.format(Locale.ROOT, "%.1f (%.1f–%.1f)", s.median() / 1000, s.min() / 1000, s.max() / 1000);
    }

    /** A plain cell with {@code decimals}: "3 (2–5)". */
    static String cell(RoundSpread s, int decimals) {
        if (s.rounds() == 0) {
            return "–";
        }
        String f = "%." + decimals + "f";
        return String.format(Locale.ROOT, f + " (" + f + "–" + f + ")", s.median(), s.min(), s.max());
    }

    private static String placement(ThreadPlacement p) {
        List<String> parts = new ArrayList<>();
        p.groups().entrySet().stream()
                .filter(e -> e.getValue().cpuTicks() > 0 || e.getKey().startsWith("twping") || e.getKey().startsWith("reflector"))
                .sorted(Comparator.comparingLong((Map.Entry<String, ThreadPlacement.Group> e) -> -e.getValue().cpuTicks()))
                .limit(6)
                .forEach(e -> parts.add("`" + e.getKey() + "` " + e.getValue().describe() + ", "
                        + e.getValue().cpuTicks() * 10 + " ms"));
        return parts.isEmpty() ? "no samples" : String.join("; ", parts);
    }

    private static String micros(long ns) {
        return String.format(Locale.ROOT, "%.1f", ns / 1000.0);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
