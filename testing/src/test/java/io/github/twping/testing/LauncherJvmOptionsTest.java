package io.github.twping.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.twping.server.EmbeddedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code ./twping} launcher's JVM options (docs/CLIENT.md, "The launchers"), read from the JVM itself
 * ({@code -XX:+PrintCommandLineFlags}, {@code -XX:+PrintFlagsFinal}): no JIT for {@code -h}, C1 alone for a short
 * slow session, tiered compilation for
 * a fast session, {@code TWPING_JIT} overriding the choice, and the AOT cache mapped when the launcher has one.
 * Skipped, saying so, when the jar is not built (the launcher would build it, which takes minutes). The sessions'
 * server is a closed loopback port, refused at once, except in the check of the cache's human summary (a
 * two-packet session against the embedded reflector), the count of downcall shapes (one packet, the same) and the
 * check of what a one-packet session initialises before its start time (against a server in this JVM).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LauncherJvmOptionsTest {
    private static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
    private static final String NO_REPLAY = "-XX:-AOTReplayTraining";
    private static final String EARLY_C1 = "CompileThresholdScaling,io.github.twping.*::*,0.1";

    private record Run(int status, String output) {
    }

    private static Run run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return run(List.of(), env, args);
    }

    /** As above, the launcher started by {@code prefix} (e.g. {@code nohup}). */
    private static Run run(List<String> prefix, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        Path root = NetnsStandSystemTest.repositoryRoot();
        assumeTrue(Files.isRegularFile(root.resolve("core/target/twping.jar")),
                "core/target/twping.jar is not built (./mvnw package); the launcher would build it first");
        List<String> command = new ArrayList<>(prefix);
        command.add(root.resolve("twping").toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true);
        pb.environment().remove("TWPING_JIT");
        pb.environment().put("TWPING_JAVA_OPTS", "-XX:+PrintCommandLineFlags " + env.getOrDefault("opts", ""));
        env.forEach((k, v) -> {
            if (!k.equals("opts")) {
                pb.environment().put(k, v);
            }
        });
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();   // ends when the process closes its output
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher ended");
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    @Test
    void helpRunsInTheInterpreterAlone() throws Exception {
        Run help = run(Map.of("opts", "-XX:+PrintFlagsFinal"), "-h");
        assertTrue(help.output().matches("(?s).*\\bUseCompiler\\s+= false\\b.*"), "no JIT for -h: " + help.output());
        // C2 always inlines the JDK's asSlice, so that no errno capture allocates per packet (docs/LIBRARY.md)
        assertTrue(help.output().contains("inline,jdk.internal.foreign.AbstractMemorySegmentImpl::asSlice"),
                help.output());
        // the class-file API's largest method stays interpreted: its C1 compilation took a 6.7 MB arena
        assertTrue(help.output().contains("exclude,jdk.internal.classfile.impl.StackMapGenerator::processBlock"),
                help.output());
        Run version = run(Map.of("opts", "-XX:+PrintFlagsFinal"), "--version");
        assertTrue(version.output().matches("(?s).*\\bUseCompiler\\s+= false\\b.*"), version.output());
    }

    @Test
    void aShortSlowSessionRunsOnC1Alone() throws Exception {
        Run ping = run(Map.of(), "-c", "1", "127.0.0.1:1");
        assertEquals(1, ping.status(), "nothing listens on port 1: " + ping.output());
        assertTrue(ping.output().contains(C1_ONLY), ping.output());
        assertTrue(ping.output().contains(NO_REPLAY), "no replay of the training's compilations: " + ping.output());
        assertFalse(ping.output().contains(EARLY_C1), "no warm-up, so nothing to compile early: " + ping.output());
        Run slow = run(Map.of(), "-c2000", "-i0.002f", "127.0.0.1:1");
        assertTrue(slow.output().contains(C1_ONLY), slow.output());
        assertTrue(slow.output().contains(NO_REPLAY), slow.output());
        // the warm-up compiles the per-packet paths before the start time, so no compiler thread runs in the session
        assertTrue(slow.output().contains(EARLY_C1), slow.output());
    }

    @Test
    void aFastOrLongSessionAndAnUnreadClusterKeepC2() throws Exception {
        Run fast = run(Map.of(), "-c", "500000", "-i", "0.00002f", "127.0.0.1:1");
        assertEquals(1, fast.status(), fast.output());
        assertFalse(fast.output().contains("TieredStopAtLevel"), fast.output());
        // with the AOT cache C2's runs replay the training; without one (a cache older than the jar, or none yet)
        // the JVM itself switches the replay off, so the flag then says nothing about the launcher
        assertFalse(fast.output().contains("-XX:AOTCache=") && fast.output().contains(NO_REPLAY),
                "C2's runs replay the training: " + fast.output());
        Run longRun = run(Map.of(), "-c", "20000", "-i", "0.1", "127.0.0.1:1");
        assertFalse(longRun.output().contains("TieredStopAtLevel"), longRun.output());
        Run cluster = run(Map.of(), "-Qc10", "127.0.0.1:1");
        assertFalse(cluster.output().contains("TieredStopAtLevel"), cluster.output());
    }

    @Test
    void twpingJitOverridesTheChoice() throws Exception {
        Run tiered = run(Map.of("TWPING_JIT", "tiered", "opts", "-XX:+PrintFlagsFinal"), "-h");
        assertFalse(tiered.output().contains(C1_ONLY), tiered.output());
        assertTrue(tiered.output().matches("(?s).*\\bUseCompiler\\s+= true\\b.*"), tiered.output());
        Run c1 = run(Map.of("TWPING_JIT", "c1"), "-c", "500000", "-i", "0.00002f", "127.0.0.1:1");
        assertTrue(c1.output().contains(C1_ONLY), c1.output());
    }

    @Test
    void theAgentAndTwampdGetTheirSmallHeaps() throws Exception {
        Run agent = run(Map.of(), "--agent", "/nonexistent/agent.yaml");
        assertEquals(1, agent.status(), "a missing file is one line and status 1: " + agent.output());
        assertTrue(agent.output().contains(C1_ONLY), agent.output());
        assertTrue(agent.output().contains("-XX:MaxNewSize=8388608"), "an 8 MB young generation: " + agent.output());
        assertTrue(agent.output().contains("-XX:MaxHeapFreeRatio=30"), agent.output());
        assertTrue(agent.output().contains("-XX:MarkSweepDeadRatio=0"), "full collections compact all: " + agent.output());
        // half the stack shadow zone on x86_64 (elsewhere the JVM accepts no less than its default)
        boolean x86 = "amd64".equals(System.getProperty("os.arch"));
        assertEquals(x86, agent.output().contains("-XX:StackShadowPages=10"), agent.output());
        Run twampd = run(Map.of("TWPING_MAIN", "io.github.twping.cli.TwampdMain"), "-h");
        assertTrue(twampd.output().contains("-XX:MaxNewSize=8388608"), "an 8 MB young generation: " + twampd.output());
        assertFalse(twampd.output().contains("MaxHeapFreeRatio"), twampd.output());
        assertFalse(twampd.output().contains("MarkSweepDeadRatio"), twampd.output());
        assertEquals(x86, twampd.output().contains("-XX:StackShadowPages=10"), twampd.output());
        Run client = run(Map.of(), "-c", "1", "127.0.0.1:1");
        assertTrue(client.output().contains("-XX:MaxNewSize=100663296"), "the client keeps its 96 MB: " + client.output());
        assertFalse(client.output().contains("StackShadowPages"), "the client keeps the default zone: " + client.output());
    }

    @Test
    void theAotCacheIsMappedWhenTheLauncherHasOne() throws Exception {
        Path aot = assumeFreshCache("twping.aot");
        Run help = run(Map.of("opts", "-Xlog:aot=info:stdout"), "-h");
        assertTrue(help.output().contains("-XX:AOTCache=" + aot), help.output());
        assertTrue(help.output().contains("Mapped static  region"), "the cache was mapped: " + help.output());
        Run off = run(Map.of("TWPING_AOT", "0", "TWPING_CDS", "0"), "-h");
        assertFalse(off.output().contains("AOTCache"), off.output());
    }

    /**
     * The training run (cli.AotTraining) also prints a human summary, so that a {@code twping -c 1} takes the summary's
     * classes from the cache instead of loading and verifying them from the jar. One two-packet session against the
     * embedded reflector (loopback).
     */
    @Test
    void theAotCacheHoldsTheHumanSummary() throws Exception {
        Path aot = assumeFreshCache("twping.aot");
        Run session = run(Map.of("opts", "-Xlog:class+load=info:stdout"), "--loopback", "-c", "2", "-i", "0.01", "-L", "1");
        assertEquals(0, session.status(), session.output());
        String line = session.output().lines().filter(l -> l.contains(" io.github.twping.report.owamp.HumanSummaryWriter "))
                .findFirst().orElse("");
        assertTrue(line.contains("source: shared objects file"), "the summary writer came from the AOT cache: " + line);
        // none of ours from the jar (the training runs its summary with the process's stderr, so the terminal check
        // is cached too): the first class loaded from the jar opens it, 11,676 entries of central directory
        List<String> fromJar = oursFromTheJar(session.output().lines().toList());
        assertTrue(fromJar.isEmpty(), "classes loaded from the jar: " + fromJar);
        // -R's and -v's writers too (the training runs them over its data file)
        for (String output : List.of("-R", "-v")) {
            Run other = run(Map.of("opts", "-Xlog:class+load=info:stdout"), "--loopback", "-c", "2", "-i", "0.01",
                    "-L", "1", output);
            assertEquals(0, other.status(), other.output());
            assertEquals(List.of(), oursFromTheJar(other.output().lines().toList()), output);
        }
    }

    /**
     * The STAMP reflector's warm-up (both its phases, the TLV one included) runs in twampd's training to its end, so
     * that an idle {@code twampd --stamp} loads none of our classes from the jar (the training stopped the reflector
     * once it had an address, before the TLV phase). Stopped by SIGTERM once the reflector reports its port.
     */
    @Test
    void aStampTwampdTakesItsWarmUpsClassesFromItsCache() throws Exception {
        assumeFreshCache("twampd.aot");
        Path root = NetnsStandSystemTest.repositoryRoot();
        ProcessBuilder pb = new ProcessBuilder(root.resolve("twampd").toString(), "--stamp", "127.0.0.1:0")
                .directory(root.toFile()).redirectErrorStream(true);
        pb.environment().put("TWPING_JAVA_OPTS", "-Xlog:class+load=info:stdout");
        Process p = pb.start();
        p.getOutputStream().close();
        List<String> lines = new ArrayList<>();
        try (var out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {          // ends at the reflector's line, or when it exits
                lines.add(line);
                if (line.contains("STAMP reflector on")) {
                    p.toHandle().destroy();                        // SIGTERM (the streams stay open): twampd exits
                }
            }
        } finally {
            p.destroyForcibly();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "twampd ended");
        }
        assertTrue(lines.stream().anyMatch(l -> l.contains("STAMP reflector on")), String.join("\n", lines));
        List<String> fromJar = oursFromTheJar(lines);
        assertTrue(fromJar.isEmpty(), "classes loaded from the jar: " + fromJar);
    }

    /** twampd's training installs the signal handlers as twampd's main does, so that they come from its cache. */
    @Test
    void twampdTakesItsSignalHandlersFromItsCache() throws Exception {
        assumeFreshCache("twampd.aot");
        Run twampd = run(Map.of("TWPING_MAIN", "io.github.twping.cli.TwampdMain", "opts", "-Xlog:class+load=info:stdout"),
                "-h");
        String line = twampd.output().lines().filter(l -> l.contains(" io.github.twping.cli.Signals "))
                .findFirst().orElse("");
        assertTrue(line.contains("source: shared objects file"), "Signals came from the AOT cache: " + line);
    }

    /**
     * A one-packet session links at most three FFM downcall shapes on x86-64 (ffm's Libc: every system call through
     * glibc's syscall(2), clock_gettime of its own): the linker defines one hidden {@code DowncallStub} class per
     * shape, which {@code -Xlog:class+load} names. The session is a {@code -c 1} against the embedded reflector, so
     * the server's calls count too. Skipped on other architectures, whose calls keep a libc handle each.
     */
    @Test
    void aOnePacketSessionLinksAtMostThreeDowncallShapes() throws Exception {
        String arch = System.getProperty("os.arch", "");
        assumeTrue(arch.equals("amd64") || arch.equals("x86_64"), "the syscall path is x86-64's, not " + arch);
        Path log = Files.createTempFile("shapes", ".log");
        try {
            Run session = run(Map.of("opts", "-Xlog:class+load=info:file=" + log), "--loopback", "-c", "1", "-L", "1");
            assertEquals(0, session.status(), session.output());
            List<String> stubs = Files.readAllLines(log).stream()
                    .filter(l -> l.contains(" jdk.internal.foreign.abi.DowncallStub/")).toList();
            assertFalse(stubs.isEmpty(), "the session used FFM sockets: " + session.output());
            assertTrue(stubs.size() <= 3, stubs.size() + " downcall shapes: " + stubs);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /**
     * Under {@code nohup} (SIGHUP ignored) the client sets SIGHUP back to its default before installing its handler
     * (ffm's ProcessSignals). On x86-64 it does so through the sockets' one shape (rt_sigaction by syscall(2)):
     * linking signal(3) and sigaction(3) for it cost a nohup'd {@code twping -h} 0.08 s of CPU, two shapes.
     */
    @Test
    void aNohupHelpLinksOneDowncallShape() throws Exception {
        String arch = System.getProperty("os.arch", "");
        assumeTrue(arch.equals("amd64") || arch.equals("x86_64"), "the syscall path is x86-64's, not " + arch);
        Path nohup = Path.of("/usr/bin/nohup");
        assumeTrue(Files.isExecutable(nohup), "no /usr/bin/nohup here");
        Path log = Files.createTempFile("shapes", ".log");
        try {
            Run help = run(List.of(nohup.toString()), Map.of("opts", "-Xlog:class+load=info:file=" + log), "-h");
            assertEquals(0, help.status(), help.output());
            List<String> stubs = Files.readAllLines(log).stream()
                    .filter(l -> l.contains(" jdk.internal.foreign.abi.DowncallStub/")).toList();
            assertEquals(1, stubs.size(), stubs.size() + " downcall shapes: " + stubs);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /**
     * An open-mode {@code -c 1} loads neither the JDK's security providers nor the time-zone rules (docs/CLIENT.md,
     * "Start-up"): the open mode draws no random bytes, the anonymous data file is named from /dev/urandom and the
     * test port's first try needs no SecureRandom, whose first use initialises the {@code Sun} provider; the summary's
     * {@code first:}/{@code last:} take the zone's offset from {@code java.util.TimeZone}, whereas
     * {@code ZoneId.systemDefault()} initialised the zone-rules providers (a scan of the class path). The server (open
     * mode only) runs in this JVM so that the client's log is its own; {@code -Xlog:class+init} names each class as it
     * is initialised.
     */
    @Test
    void anOpenModeSessionInitialisesNoSecurityProviderNorTheZoneRules() throws Exception {
        Path log = Files.createTempFile("init", ".log");
        try (EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.options().authModes("O")
                .listen("127.0.0.1", 0))) {
            Run session = run(Map.of("opts", "-Xlog:class+init=info:file=" + log), "-c", "1", "-L", "1",
                    "127.0.0.1:" + server.port());
            assertEquals(0, session.status(), session.output());
            assertTrue(session.output().contains("\nfirst:\t"), "the summary was printed: " + session.output());
            List<String> lines = Files.readAllLines(log);
            assertTrue(indexOf(lines, " 'io/github/twping/control/ControlStream'") >= 0, "the log is the client's");
            assertEquals(List.of(), lines.stream().filter(l -> l.contains(" 'sun/security/provider/Sun'")).toList(),
                    "no SecureRandom: " + session.output());
            assertEquals(-1, indexOf(lines, " 'java/time/zone/ZoneRulesProvider'"), "the zone rules were loaded");
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The {@code -Xlog:class+load} lines of our classes loaded from the jar instead of the AOT cache. */
    private static List<String> oursFromTheJar(List<String> classLoadLog) {
        return classLoadLog.stream().filter(l -> l.contains(" io.github.twping.") && l.contains("source: file:")).toList();
    }

    private static int indexOf(List<String> lines, String text) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i;
            }
        }
        return -1;
    }

    /** core/target/NAME, or the test is skipped when it is missing or older than the jar. */
    private static Path assumeFreshCache(String name) throws IOException {
        Path root = NetnsStandSystemTest.repositoryRoot();
        Path aot = root.resolve("core/target/" + name);
        Path jar = root.resolve("core/target/twping.jar");
        assumeTrue(Files.isRegularFile(aot) && Files.isRegularFile(jar)
                        && Files.getLastModifiedTime(aot).compareTo(Files.getLastModifiedTime(jar)) > 0,
                "no " + name + " newer than the jar (./twping --train-aot makes one)");
        return aot;
    }

    @Test
    void twampdMapsItsOwnCacheWhenThereIsOne() throws Exception {
        Path serverAot = assumeFreshCache("twampd.aot");
        Path root = NetnsStandSystemTest.repositoryRoot();
        Path jar = root.resolve("core/target/twping.jar");
        Path clientAot = root.resolve("core/target/twping.aot");
        Run twampd = run(Map.of("TWPING_MAIN", "io.github.twping.cli.TwampdMain", "opts", "-Xlog:aot=info:stdout"), "-h");
        assertTrue(twampd.output().contains("-XX:AOTCache=" + serverAot), twampd.output());
        assertTrue(twampd.output().contains("Mapped static  region"), "the cache was mapped: " + twampd.output());
        Run client = run(Map.of(), "-h");
        assertFalse(client.output().contains(serverAot.toString()), "the client keeps its own: " + client.output());
        if (Files.isRegularFile(clientAot)
                && Files.getLastModifiedTime(clientAot).compareTo(Files.getLastModifiedTime(jar)) > 0) {
            assertTrue(client.output().contains("-XX:AOTCache=" + clientAot), client.output());
        }
    }
}
