package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.twping.fuzz.Fuzz;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz: twping's command line. Token-level mutations (drop, duplicate, swap, split, join, replace with an
 * option of the program) and byte mutations inside tokens, seeded with real command lines. Every argv ends
 * in a {@link TwpingArgs.Result} (options, or an exit status with its message); nothing is thrown, stderr
 * never holds a stack trace.
 */
public class CliFuzzTest {
    private static final String[] WORDS = {"-c", "-i", "-s", "-L", "-P", "-D", "-H", "-F", "-A", "-u", "-k", "-S",
        "-B", "-4", "-6", "-Z", "-R", "-M", "-Q", "-v", "-v10", "-N", "-n", "-p", "-d", "-a", "-b", "-e", "-E", "-z",
        "-t", "-T", "-h", "--spin", "--esterror", "--sync", "--lang", "--timeout", "--loopback", "--", "0", "-1",
        "4294967296", "1e40", "nan", "inf", "0.01f", "1e", "[::1]", "[::1]:862", "127.0.0.1:862x", ":", "", "%",
        "9000-8000", "ru", "/dev/null", "x".repeat(5000)};
    private static final List<String[]> SEEDS = List.of(
            new String[] {"-c", "100", "-i", "0.01f", "127.0.0.1"},
            new String[] {"-A", "E", "-u", "alice", "-k", "/nonexistent.pfs", "-R", "192.0.2.7"},
            new String[] {"-M", "-c", "1000", "-i", "0.001e", "-s", "64", "-L", "2", "[::1]:8620"},
            new String[] {"-P", "9000-9100", "-D", "ef", "-H", "-v5", "-a", "50,95,99", "-n", "us", "localhost"},
            new String[] {"-F", "/tmp/x.owp", "-N", "10", "-b", "0.000001", "-p", "-d", "/tmp", "h1", "h2"},
            new String[] {"--spin", "50", "--esterror", "100", "--lang", "ru", "--timeout", "5", "-6", "::1"});

    /** A mutated copy of {@code seed} (also used for twampd's command line). */
    public static String[] mutateArgv(String[] seed, SplittableRandom r) {
        List<String> a = new ArrayList<>(List.of(seed));
        int rounds = 1 + r.nextInt(4);
        for (int k = 0; k < rounds; k++) {
            int n = a.size();
            switch (r.nextInt(7)) {
                case 0 -> {
                    if (n > 0) {
                        a.remove(r.nextInt(n));
                    }
                }
                case 1 -> {
                    if (n > 0) {
                        a.add(r.nextInt(n + 1), a.get(r.nextInt(n)));
                    }
                }
                case 2 -> {
                    if (n > 1) {
                        java.util.Collections.swap(a, r.nextInt(n), r.nextInt(n));
                    }
                }
                case 3 -> a.add(n == 0 ? 0 : r.nextInt(n + 1), WORDS[r.nextInt(WORDS.length)]);
                case 4 -> {
                    if (n > 0) {
                        a.set(r.nextInt(n), WORDS[r.nextInt(WORDS.length)]);
                    }
                }
                case 5 -> {
                    if (n > 1) {
                        int i = r.nextInt(n - 1);
                        a.set(i, a.get(i) + a.remove(i + 1));
                    }
                }
                default -> {
                    if (n > 0) {
                        int i = r.nextInt(n);
                        a.set(i, Fuzz.mutate(a.get(i), null, r));
                    }
                }
            }
        }
        return a.toArray(String[]::new);
    }

    @Test
    @Timeout(300)
    void shouldEndEveryMutatedCommandLineWithOptionsOrAnExitStatus() {
        SplittableRandom r = Fuzz.random("twping-cli");
        int inputs = Fuzz.inputs(5000);
        long start = System.nanoTime();
        long deadline = Fuzz.deadlineNs();
        int done = 0;
        for (; done < inputs && System.nanoTime() < deadline; done++) {
            String[] argv = mutateArgv(Fuzz.pick(SEEDS, r), r);
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
            PrintStream o = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
            try {
                PassphrasePrompt prompt = PassphrasePrompt.fromStreams(new ByteArrayInputStream(new byte[0]), e);
                TwpingArgs.Result result = new TwpingArgs("9.9.9", prompt, o, e, false).parse("twping", argv);
                if (result == null) {
                    fail("null result for " + String.join("|", argv));
                }
            } catch (RuntimeException | Error t) {
                fail("argv " + done + " (seed " + Fuzz.seed() + "): " + t + "\n" + String.join("|", argv), t);
            }
            String text = err.toString(StandardCharsets.UTF_8);
            if (text.contains("Exception") || text.contains("\tat ")) {
                fail("stack trace for argv " + String.join("|", argv) + ":\n" + text);
            }
        }
        Fuzz.report("twping-cli", done, 0, start);
        assertEquals(true, done > 0);
    }

    @Test
    @Timeout(300)
    void shouldParseOrRefuseEveryMutatedTwampdCommandLine() {
        List<String[]> seeds = List.of(new String[] {"-Z", "-c", "/etc/twamp", "-S", "[::1]:8620", "-P", "9000-9100"},
                new String[] {"-a", "OAEM", "-v", "-R", "/tmp", "-d", "/tmp", "-e", "daemon", "-f"},
                new String[] {"-U", "twamp", "-G", "twamp", "-S", ":862", "-h"});
        SplittableRandom r = Fuzz.random("twampd-cli");
        int inputs = Fuzz.inputs(5000);
        long start = System.nanoTime();
        long deadline = Fuzz.deadlineNs();
        int done = 0;
        for (; done < inputs && System.nanoTime() < deadline; done++) {
            String[] argv = mutateArgv(Fuzz.pick(seeds, r), r);
            try {
                TwampdArgs.parse(argv);
            } catch (io.github.twping.server.ConfigException expected) {
                if (expected.getMessage() == null || expected.getMessage().isEmpty()) {
                    fail("a refusal without a message: " + String.join("|", argv));
                }
            } catch (RuntimeException | Error e) {
                fail("argv " + done + " (seed " + Fuzz.seed() + "): " + e + "\n" + String.join("|", argv), e);
            }
        }
        Fuzz.report("twampd-cli", done, 0, start);
        assertEquals(inputs > 0, done > 0);
    }


    /** Found by the fuzzer: a NUL in a path argument was an uncaught InvalidPathException. */
    @Test
    void shouldRefuseANulInATwampdPathArgument() {
        for (String option : new String[] {"-c", "-d", "-R"}) {
            io.github.twping.server.ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(
                    io.github.twping.server.ConfigException.class, () -> TwampdArgs.parse(new String[] {option, "a\0b"}));
            assertEquals("twampd: invalid path for " + option + ": Nul character not allowed", e.getMessage());
        }
    }
}
