package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.twping.fuzz.FuzzDetectors;
import io.github.twping.fuzz.FuzzSeeds;
import io.github.twping.server.ConfigException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz (Jazzer, coverage-guided): the command lines of twping ({@link TwpingArgs}) and twampd
 * ({@link TwampdArgs}). The first input byte selects the program; the rest is its argv, arguments separated
 * by the byte 0x1F (ASCII unit separator), each decoded as ISO-8859-1 so that every byte, NUL included, can
 * reach the parser. Seeded with real command lines and a dictionary of the programs' options. twping's
 * parser ends every argv in a {@link TwpingArgs.Result} (options, or an exit status with its message) and
 * never writes a stack trace; twampd's parses or refuses with a {@link ConfigException} carrying a message.
 */
@Tag("fuzz-cli")
class CliFuzzTest {
    private static final int TWPING = 0;
    private static final int TWAMPD = 1;
    private static final byte SEPARATOR = 0x1f;

    static Stream<Arguments> commandLines() {
        return Stream.of(
                argv(TWPING, "-c", "100", "-i", "0.01f", "127.0.0.1"),
                argv(TWPING, "-A", "E", "-u", "alice", "-k", "/nonexistent.pfs", "-R", "192.0.2.7"),
                argv(TWPING, "-M", "-c", "1000", "-i", "0.001e", "-s", "64", "-L", "2", "[::1]:8620"),
                argv(TWPING, "-P", "9000-9100", "-D", "ef", "-H", "-v5", "-a", "50,95,99", "-n", "us", "localhost"),
                argv(TWPING, "-F", "/tmp/x.owp", "-N", "10", "-b", "0.000001", "-p", "-d", "/tmp", "h1", "h2"),
                argv(TWPING, "--spin", "50", "--esterror", "100", "--lang", "ru", "--timeout", "5", "-6", "::1"),
                argv(TWAMPD, "-Z", "-c", "/etc/twamp", "-S", "[::1]:8620", "-P", "9000-9100"),
                argv(TWAMPD, "-a", "OAEM", "-v", "-R", "/tmp", "-d", "/tmp", "-e", "daemon", "-f"),
                argv(TWAMPD, "-U", "twamp", "-G", "twamp", "-S", ":862", "-h"));
    }

    private static Arguments argv(int program, String... args) {
        return FuzzSeeds.seed(String.join(" ", args), program,
                String.join(String.valueOf((char) SEPARATOR), args).getBytes(StandardCharsets.ISO_8859_1));
    }

    /** The argv encoded in a payload (an empty payload is the empty command line). */
    static String[] decode(byte[] payload) {
        if (payload.length == 0) {
            return new String[0];
        }
        return new String(payload, StandardCharsets.ISO_8859_1).split(String.valueOf((char) SEPARATOR), -1);
    }

    @MethodSource("commandLines")
    @DictionaryEntries({"-c", "-i", "-s", "-L", "-P", "-D", "-H", "-F", "-A", "-u", "-k", "-S", "-B", "-4", "-6",
        "-Z", "-R", "-M", "-Q", "-v", "-v10", "-N", "-n", "-p", "-d", "-a", "-b", "-e", "-E", "-z", "-t", "-T", "-h",
        "-U", "-G", "-f", "--spin", "--esterror", "--sync", "--lang", "--timeout", "--loopback", "--", "4294967296",
        "1e40", "nan", "inf", "0.01f", "[::1]", "[::1]:862", "127.0.0.1:862x", "9000-8000", "/dev/null"})
    @FuzzTest
    void parseOrRefuse(byte[] input) {
        FuzzDetectors.noPathTraversalTarget();
        String[] argv = decode(FuzzSeeds.payload(input));
        if (FuzzSeeds.selector(input, 2) == TWPING) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
            PrintStream o = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
            PassphrasePrompt prompt = PassphrasePrompt.fromStreams(new ByteArrayInputStream(new byte[0]), e);
            TwpingArgs.Result result = new TwpingArgs("9.9.9", prompt, o, e, false).parse("twping", argv);
            if (result == null) {
                throw new AssertionError("null result for " + String.join("|", argv));
            }
            String text = err.toString(StandardCharsets.UTF_8);
            if (!echoesStackTraceText(argv) && (text.contains("Exception") || text.contains("\tat "))) {
                throw new AssertionError("stack trace for argv " + String.join("|", argv) + ":\n" + text);
            }
        } else {
            try {
                TwampdArgs.parse(argv);
            } catch (ConfigException expected) {
                if (expected.getMessage() == null || expected.getMessage().isEmpty()) {
                    throw new AssertionError("a refusal without a message: " + String.join("|", argv), expected);
                }
            }
        }
    }

    /**
     * Error messages quote the offending argument, so an argument holding stack trace text would make its own
     * message look like one; such inputs are checked for everything but that.
     */
    private static boolean echoesStackTraceText(String[] argv) {
        for (String a : argv) {
            if (a.contains("Exception") || a.contains("\tat ")) {
                return true;
            }
        }
        return false;
    }

    /** Found by fuzzing: a NUL in a path argument was an uncaught InvalidPathException. */
    @Test
    void shouldRefuseANulInATwampdPathArgument() {
        for (String option : new String[] {"-c", "-d", "-R"}) {
            ConfigException e = assertThrows(ConfigException.class, () -> TwampdArgs.parse(new String[] {option, "a\0b"}));
            assertEquals("twampd: invalid path for " + option + ": Nul character not allowed", e.getMessage());
        }
    }
}
