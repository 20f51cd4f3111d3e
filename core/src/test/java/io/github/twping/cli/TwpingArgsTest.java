package io.github.twping.cli;

import io.github.twping.client.TwpingOptions;
import io.github.twping.config.PortRange;
import io.github.twping.getopt.GetOpt;
import io.github.twping.protocol.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.github.twping.ffm.ThreadTuning;
import io.github.twping.pacing.ParkThenSpinPacer;

class TwpingArgsTest {
    private static final String VERSION = "9.9.9";
    private static final byte[] SECRET = "s3cret-lab-key".getBytes(StandardCharsets.US_ASCII);

    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private byte[] stdin = new byte[0];
    private boolean posixly;

    @TempDir
    Path dir;

    private TwpingArgs.Result parse(String argv0, String... argv) {
        PassphrasePrompt prompt = PassphrasePrompt.fromStreams(new ByteArrayInputStream(stdin), err);
        return new TwpingArgs(VERSION, prompt, out, err, posixly).parse(argv0, argv);
    }

    private TwpingOptions ok(String... argv) {
        TwpingArgs.Result r = parse("twping", argv);
        return assertInstanceOf(TwpingArgs.Parsed.class, r, () -> "stderr: " + stderr()).options();
    }

    private int exit(String... argv) {
        return assertInstanceOf(TwpingArgs.Exit.class, parse("twping", argv)).status();
    }

    private String stderr() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    private static String usage() {
        return Usage.text(VERSION);
    }

    private static String seeHelp() {
        return "Try 'twping --help' for the long options and their values.\n";
    }

    @Test
    void shouldApplyCDefaults() {
        TwpingOptions o = ok("127.0.0.1");
        assertEquals(100, o.test().packetCount());
        assertEquals(0x199999A0L, o.test().scheduleSlots()[0].valueNtp());
        assertEquals(0.0, o.test().lossTimeoutSeconds());
        assertEquals(27, o.test().paddingBytes());
        assertFalse(o.test().paddingGiven());
        assertEquals(PortRange.DEFAULT, o.test().portRange());
        assertEquals(1.0, o.test().endDelaySeconds());
        assertEquals(Mode.OPEN.bits(), o.connection().modeMask());
        assertNull(o.connection().identity());
        assertNull(o.connection().passphrase());
        assertEquals(TwpingOptions.AddressFamily.ANY, o.connection().family());
        assertEquals('m', o.output().units());
        assertEquals(0.0001f, o.output().bucketWidthSeconds());
        assertEquals(0, o.output().percentiles().length);
        assertEquals(TwpingOptions.Extras.DEFAULT_SPIN_MICROS, o.extras().spinMicros());
        assertEquals(-1, o.extras().esterrorMicros());
        assertEquals("en", o.extras().language());
        assertTrue(Double.isNaN(o.extras().maxLossPercent()));
        assertSame(o.testAddress(), o.serverAddress());
        assertEquals("862", o.controlService());
        assertEquals("", stderr());
    }

    @Test
    void shouldParseEveryCOption() {
        TwpingOptions o = ok("-c", "5", "-D", "AF11", "-E", "2", "-F", "x.owp", "-i", "0.01f,0.02", "-L", "3",
                "-P", "9000-9010", "-s", "100", "-z", "1.5", "-a", "50,99", "-b", "0.001", "-d", "/tmp", "-p",
                "-n", "U", "-N", "10", "-U", "-Z", "-4", "-S", "10.0.0.1", "-B", "eth0", "-A", "oa",
                "127.0.0.1:8700", "[::1]:8701");
        assertEquals(5, o.test().packetCount());
        assertEquals(10, o.test().dscp());
        assertEquals(2.0, o.test().endDelaySeconds());
        assertEquals("x.owp", o.test().saveFile());
        assertEquals(2, o.test().scheduleSlots().length);
        assertTrue(o.test().scheduleSlots()[0].fixed());
        assertEquals(3.0, o.test().lossTimeoutSeconds());
        assertEquals(new PortRange(9000, 9010), o.test().portRange());
        assertEquals(100, o.test().paddingBytes());
        assertTrue(o.test().paddingGiven());
        assertEquals(1.5, o.test().startDelaySeconds());
        assertArrayEquals(new float[] {50f, 99f}, o.output().percentiles());
        assertEquals(0.001f, o.output().bucketWidthSeconds());
        assertEquals("/tmp", o.output().summaryDirectory());
        assertTrue(o.output().summaryFiles());
        assertEquals('u', o.output().units());
        assertEquals(10, o.output().subsessionPackets());
        assertTrue(o.output().unixTimestamps());
        assertTrue(o.connection().zeroAddresses());
        assertEquals(TwpingOptions.AddressFamily.IPV4_ONLY, o.connection().family());
        assertEquals("10.0.0.1", o.connection().sourceAddress());
        assertEquals("eth0", o.connection().bindInterface());
        assertEquals(Mode.OPEN.bits() | Mode.AUTHENTICATED.bits(), o.connection().modeMask());
        assertEquals("127.0.0.1", o.testAddress().node());
        assertEquals("::1", o.serverAddress().node());
        assertEquals("8701", o.controlService());
    }

    @Test
    void shouldPermuteOptionsAfterOperandsUnlessPosixlyCorrect() {
        assertEquals(3, ok("127.0.0.1", "-c", "3").test().packetCount());
        posixly = true;
        assertEquals(Messages.EXIT_FAILURE, exit("127.0.0.1", "-c", "3"));
        assertEquals(usage(), stderr());
    }

    @Test
    void shouldLetTheLastValueWin() {
        TwpingOptions o = ok("-c", "5", "-c", "7", "-a", "50", "-a", "99", "h");
        assertEquals(7, o.test().packetCount());
        assertArrayEquals(new float[] {99f}, o.output().percentiles());
    }

    @Test
    void shouldAllowASecondDscpAfterZero() {
        assertEquals(46, ok("-D", "0", "-D", "EF", "h").test().dscp());
    }

    @Test
    void shouldCheckTheSecondDscpBeforeItsValue() {
        assertEquals(Messages.EXIT_FAILURE, exit("-D", "EF", "-D", "XX", "h"));
        assertEquals("twping: Invalid option '-D'. Can only set one '-D'\n" + usage(), stderr());
    }

    @Test
    void shouldKeepTheVerboseLimitWhenVerboseIsCancelled() {
        TwpingOptions o = ok("-M", "-v5", "h");
        assertFalse(o.output().verbose());
        assertEquals(5, o.output().recordLimit());
        assertEquals("twping: Ignoring '-v', '-M' set\n", stderr());
        TwpingOptions v = ok("-v10", "h");
        assertTrue(v.output().verbose());
        assertEquals(10, v.output().recordLimit());
    }

    @Test
    void shouldPrintAllIgnoringMessagesInOrder() {
        TwpingOptions o = ok("-R", "-M", "-v", "h");
        assertTrue(o.output().quiet());
        assertEquals("twping: Ignoring '-v', '-Q' set\ntwping: Ignoring '-M', '-Q' set\n", stderr());
    }

    @Test
    void shouldComputeDefaultPaddingFromTheRequestedMask() {
        assertEquals(27, ok("-A", "O", "h").test().paddingBytes());
        assertEquals(27, ok("-A", "M", "h").test().paddingBytes());
        assertEquals(64, ok("-A", "a", "h").test().paddingBytes());
        assertEquals(64, ok("-A", "EEE", "h").test().paddingBytes());
        assertEquals(0, ok("-A", "AE", "h").test().paddingBytes());
        assertEquals(0, ok("-A", "", "h").test().paddingBytes());
        assertEquals(0, ok("-A", "OAEM", "-s", "4294967295", "h").test().paddingBytes());
        assertEquals(0, ok("-s", "0", "h").test().paddingBytes());
        assertTrue(ok("-s", "0", "h").test().paddingGiven());
    }

    @Test
    void shouldReadThePassphraseFromTheStoreAndRequestAllModes() throws IOException {
        Path pfs = dir.resolve("alice.pfs");
        Files.writeString(pfs, "alice 7333637265742d6c61622d6b6579\n");
        TwpingOptions o = ok("-u", "ali", "-k", pfs.toString(), "h");
        assertEquals("ali", o.connection().identity());
        assertArrayEquals(SECRET, o.connection().passphrase());
        assertEquals(15, o.connection().modeMask());
        assertEquals(0, o.test().paddingBytes());
        assertEquals("", stderr());
    }

    @Test
    void shouldIgnoreTheStoreWithoutIdentity() {
        TwpingOptions o = ok("-k", "/nonexistent/x.pfs", "h");
        assertNull(o.connection().identity());
        assertEquals("", stderr());
    }

    @Test
    void shouldPrintStoreSyntaxErrorsThenDropTheIdentity() throws IOException {
        Path pfs = dir.resolve("bad.pfs");
        Files.writeString(pfs, "alice 7g\n");
        TwpingOptions o = ok("-u", "alice", "-k", pfs.toString(), "h");
        assertNull(o.connection().identity());
        assertEquals(1, o.connection().modeMask());
        assertEquals("twping: Invalid key: not hex?\ntwping: Unable to find pass-phrase for id=\"alice\" from pffile=\""
                + pfs + "\"\n", stderr());
    }

    @Test
    void shouldReadThePassphraseFromStdinUpToNewlineOrReturn() {
        stdin = "secret\nmore".getBytes(StandardCharsets.UTF_8);
        TwpingOptions o = ok("-u", "alice", "h");
        assertArrayEquals("secret".getBytes(StandardCharsets.UTF_8), o.connection().passphrase());
        assertEquals("Enter passphrase for identity 'alice': \n", stderr());
        errBytes.reset();
        stdin = "pw\rx".getBytes(StandardCharsets.UTF_8);
        assertArrayEquals("pw".getBytes(StandardCharsets.UTF_8), ok("-u", "alice", "h").connection().passphrase());
    }

    @Test
    void shouldDropTheIdentityOnReadErrors() {
        PassphrasePrompt failing = prompt -> {
            throw new IOException("Input/output error");
        };
        TwpingArgs.Result r = new TwpingArgs(VERSION, failing, out, err, false).parse("twping", new String[] {"-u", "a", "h"});
        TwpingOptions o = assertInstanceOf(TwpingArgs.Parsed.class, r).options();
        assertNull(o.connection().identity());
        assertEquals("twping: I2ReadPassPhraseAlloc(): Input/output error\n", stderr());
    }

    @Test
    void shouldRejectPromptsLongerThan255Bytes() {
        String id = "x".repeat(222); // prompt = 34 + 222 = 256 bytes
        TwpingOptions o = ok("-u", id, "h");
        assertNull(o.connection().identity());
        assertEquals("twping: ip_set_auth: Invalid identity\n", stderr());
        errBytes.reset();
        assertEquals("x".repeat(221), ok("-u", "x".repeat(221), "h").connection().identity());
    }

    @Test
    void shouldCheckOperandsBeforeAuthModeAndAuthModeAfterThePrompt() {
        assertEquals(Messages.EXIT_FAILURE, exit("-A", "Z"));
        assertEquals(usage(), stderr());
        errBytes.reset();
        assertEquals(Messages.EXIT_FAILURE, exit("-A", "Z", "-u", "alice", "h"));
        assertEquals("Enter passphrase for identity 'alice': \ntwping: Invalid -authmode Z\n" + usage(), stderr());
    }

    @Test
    void shouldUseTheBasenameForMessagesAndArgv0ForGetopt() {
        TwpingArgs.Result r = parse("/some/dir/twping", "-x", "h");
        assertEquals(Messages.EXIT_OK, assertInstanceOf(TwpingArgs.Exit.class, r).status());
        assertEquals("/some/dir/twping: invalid option -- 'x'\ntwping: \n" + usage(), stderr());
    }

    @Test
    void shouldRejectALongSummaryDirectory() {
        String ok = "a".repeat(4096 - 49);
        assertEquals(ok, ok("-d", ok, "h").output().summaryDirectory());
        assertEquals(Messages.EXIT_FAILURE, exit("-d", ok + "a", "h"));
        assertEquals("twping: -d: pathname too long.\n" + usage(), stderr());
    }

    @Test
    void shouldRejectTheSecondInterfaceAndTruncateTo16() {
        assertEquals("0123456789abcdef", ok("-B", "0123456789abcdefXYZ", "h").connection().bindInterface());
        assertEquals(Messages.EXIT_FAILURE, exit("-B", "lo", "-B", "lo", "h"));
    }

    @Test
    void shouldAcceptNanWhereCOnlyChecksTheSign() {
        assertTrue(Double.isNaN(ok("-L", "nan", "h").test().lossTimeoutSeconds()));
        assertEquals(Messages.EXIT_FAILURE, exit("-b", "nan", "h"));
    }

    @Test
    void shouldPrintHelpWithLongOptionsOnStdout() {
        assertEquals(Messages.EXIT_OK, exit("--help"));
        String help = outBytes.toString(StandardCharsets.UTF_8);
        assertTrue(help.startsWith(usage()));
        assertTrue(help.contains("--max-loss PERCENT"));
        assertEquals("", stderr());
    }

    @Test
    void shouldPrintTheVersion() {
        assertEquals(Messages.EXIT_OK, exit("--version"));
        assertEquals("twping 9.9.9\n", outBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldParseTheExtraLongOptions() {
        TwpingOptions o = ok("--spin", "0", "--esterror=15", "--lang=ru", "--max-loss", "1.5",
                "--max-median-rtt", "20", "--timeout", "5", "h");
        assertEquals(0, o.extras().spinMicros());
        assertEquals(15, o.extras().esterrorMicros());
        assertTrue(o.extras().assumeSynchronised());
        assertEquals("ru", o.extras().language());
        assertEquals(1.5, o.extras().maxLossPercent());
        assertEquals(20.0, o.extras().maxMedianRttMillis());
        assertEquals(5.0, o.extras().controlTimeoutSeconds());
        assertTrue(ok("--sync", "h").extras().assumeSynchronised());
    }

    @Test
    void shouldChooseTheSendStampSource() {
        assertTrue(ok("h").extras().kernelSendStamps(), "kernel TX stamps by default");
        assertTrue(ok("--send-stamp", "kernel", "h").extras().kernelSendStamps());
        assertFalse(ok("--send-stamp", "user", "h").extras().kernelSendStamps());
        assertEquals(Messages.EXIT_FAILURE, exit("--send-stamp", "hardware", "h"));
        assertEquals("twping: Invalid '--send-stamp' value. kernel or user expected\n" + seeHelp(), stderr());
    }

    @Test
    void shouldAcceptALearntSpinWindow() {
        TwpingOptions.Extras auto = ok("--spin", "auto", "h").extras();
        assertEquals(TwpingOptions.Extras.AUTO_SPIN, auto.spinMicros());
        assertEquals(ParkThenSpinPacer.ADAPTIVE, auto.spinNs());
        assertEquals(250_000, ok("--spin", "250", "h").extras().spinNs());
        errBytes.reset();
        assertEquals(Messages.EXIT_FAILURE, exit("--spin", "Auto", "h"));
        assertEquals("twping: Invalid '--spin' value. Positive integer expected\n" + seeHelp(), stderr());
    }

    @Test
    void shouldChooseTheRealTimePriorityOfTheSessionThreads() {
        assertEquals(0, ok("h").extras().rtPriority(), "time-shared by default");
        for (String bad : new String[] {"0", "100", "-1", "x", "007"}) {
            errBytes.reset();
            assertEquals(Messages.EXIT_FAILURE, exit("--rt-priority", bad, "h"), bad);
            assertEquals("twping: Invalid '--rt-priority' value. Priority 1..99 expected\n" + seeHelp(), stderr(), bad);
        }
        String refused = ThreadTuning.fifoRefusal(9);
        if (refused == null) {
            assertEquals(9, ok("--rt-priority", "9", "h").extras().rtPriority());
        } else {
            errBytes.reset();
            assertEquals(Messages.EXIT_FAILURE, exit("--rt-priority", "9", "h"));
            assertEquals("twping: Invalid '--rt-priority' value. " + refused + "\n" + seeHelp(), stderr());
        }
    }

    @Test
    void shouldRejectBadLongOptionValues() {
        assertEquals(Messages.EXIT_FAILURE, exit("--spin", "abc", "h"));
        assertEquals("twping: Invalid '--spin' value. Positive integer expected\n" + seeHelp(), stderr());
        assertEquals(Messages.EXIT_FAILURE, exit("--lang", "de", "h"));
        assertEquals(Messages.EXIT_FAILURE, exit("--max-loss", "101", "h"));
        assertEquals(Messages.EXIT_FAILURE, exit("--max-median-rtt", "0", "h"));
        assertEquals(Messages.EXIT_FAILURE, exit("--timeout", "-1", "h"));
        assertEquals(Messages.EXIT_FAILURE, exit("--esterror", "", "h"));
    }

    @Test
    void shouldPointToHelpAfterAnErrorInALongOption() {
        assertEquals(Messages.EXIT_FAILURE, exit("--bogus", "h"));
        assertEquals("twping: unrecognized option '--bogus'\n" + seeHelp(), stderr());
        errBytes.reset();
        assertEquals(Messages.EXIT_FAILURE, exit("--json"));
        assertEquals("twping: option '--json' requires an argument\n" + seeHelp(), stderr());
        errBytes.reset();
        assertEquals(Messages.EXIT_FAILURE, exit("--loopback", "h"));
        assertEquals(seeHelp(), stderr());
    }

    @Test
    void shouldPrintTheCUsageThenTheLongOptionsGroupedForDashH() {
        assertEquals(Messages.EXIT_OK, exit("-h"));
        String text = stderr();
        assertTrue(text.startsWith("twping: \n" + usage()), text);
        String added = text.substring(("twping: \n" + usage()).length());
        assertEquals(Usage.LONG_OPTIONS_TEXT, added);
        for (GetOpt.LongOption o : TwpingArgs.LONG_OPTIONS) {
            assertTrue(added.contains("--" + o.name()), "-h lists --" + o.name());
        }
        assertTrue(added.contains("[CI gates"), added);
        assertTrue(added.contains("default: from the locale"), added);
        assertTrue(added.lines().allMatch(l -> l.length() <= 100), added);
    }

    @Test
    void shouldAllowProbeWithAtMostOneAddressAndLoopbackWithNone() {
        assertNull(ok("--probe-timestamping").testAddress());
        assertEquals("::1", ok("--probe-timestamping", "::1").testAddress().node());
        assertEquals(Messages.EXIT_FAILURE, exit("--probe-timestamping", "a", "b"));
        assertTrue(ok("--loopback").extras().loopback());
        assertEquals(Messages.EXIT_FAILURE, exit("--loopback", "h"));
    }

    @Test
    void shouldRejectFourAndSixWithoutUsage() {
        assertEquals(Messages.EXIT_FAILURE, exit("-6", "-4", "h"));
        assertEquals("twping: -4 and -6 flags cannot be set together\n", stderr());
        assertEquals(TwpingOptions.AddressFamily.IPV6_ONLY, ok("-6", "h").connection().family());
    }

    @Test
    void shouldStopAtTheFirstBadOption() {
        assertEquals(Messages.EXIT_FAILURE, exit("-c", "x", "-D", "XX", "h"));
        assertEquals("twping: Invalid value. Positive integer expected\n" + usage(), stderr());
    }

    @Test
    void shouldCutTheKeyIdTo80Bytes() {
        stdin = "pw\n".getBytes(StandardCharsets.UTF_8);
        TwpingOptions o = ok("-u", "k".repeat(100), "h");
        assertEquals(100, o.connection().identity().length());
        assertArrayEquals("k".repeat(80).getBytes(StandardCharsets.UTF_8), o.connection().keyIdBytes());
        assertNull(ok("h").connection().keyIdBytes());
    }

    @Test
    void shouldProtectArraysFromCallers() {
        TwpingOptions o = ok("-a", "50", "h");
        o.output().percentiles()[0] = 1f;
        assertEquals(50f, o.output().percentiles()[0]);
    }
}
