package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code twampd --stamp/--light} in-process against {@code twping --stamp/--light} through their library entry
 * points, with the same outputs as a TWAMP run; and the one-line errors of both command lines.
 */
class StampCliTest {
    private static final String KEY_LINE = "alice 73656372657421\n";

    @TempDir
    Path dir;


    private StampCliExchange.Result exchange(List<String> reflectorArgs, List<String> twpingArgs, String flag) throws Exception {
        return StampCliExchange.run(dir, reflectorArgs, twpingArgs, flag);
    }


    @Test
    void stampSummaryLikeTwamp() throws Exception {
        StampCliExchange.Result r = exchange(List.of("--stamp", "127.0.0.1:0", "-v"), List.of("-c", "20", "-i", "0.005f"),
                "--stamp");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("20 sent, 0 lost (0.000%), 0 send duplicates, 0 reflect duplicates"), r.out());
        assertTrue(r.out().contains("round-trip time min/median/max = "), r.out());
        assertTrue(r.reflectorErr().contains("twampd: STAMP reflector on [127.0.0.1]:"), r.reflectorErr());
        assertTrue(r.reflectorErr().contains("twampd: reflected 20,"), r.reflectorErr());
        assertTrue(r.reflectorErr().contains(", kernel drops 0\n"), r.reflectorErr());
        assertFalse(r.reflectorErr().contains("the kernel dropped"), r.reflectorErr());
    }

    @Test
    void authenticatedStatefulPtpMachineReadable() throws Exception {
        Path keys = dir.resolve("keys.pfs");
        Files.writeString(keys, KEY_LINE);
        StampCliExchange.Result r = exchange(List.of("--stamp", "127.0.0.1:0", "--stateful", "--ptp", "-a", "A", "-u", "alice",
                        "-k", keys.toString()),
                List.of("-c", "10", "-i", "0.005f", "-M", "-A", "A", "-u", "alice", "-k", keys.toString(), "--ptp",
                        "--ssid", "7", "-s", "50"), "--stamp");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("\nSENT\t10\n"), r.out());
        assertTrue(r.out().contains("\nLOST\t0\n"), r.out());
        assertTrue(r.reflectorErr().contains("(authenticated) (stateful)"), r.reflectorErr());
    }

    @Test
    void wrongKeyLosesEveryPacket() throws Exception {
        Path keys = dir.resolve("keys.pfs");
        Files.writeString(keys, KEY_LINE + "bob 6f74686572\n");
        StampCliExchange.Result r = exchange(List.of("--stamp", "127.0.0.1:0", "-a", "A", "-u", "alice", "-k", keys.toString(), "-v"),
                List.of("-c", "5", "-i", "0.005f", "-L", "0.5", "-M", "-A", "A", "-u", "bob", "-k", keys.toString()),
                "--stamp");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("\nLOST\t5\n"), r.out());
        assertTrue(r.reflectorErr().contains("bad HMAC 5,"), r.reflectorErr());
    }

    @Test
    void tlvReportSaysWhichTimestampsWereKernelStamps() throws Exception {
        Path keys = dir.resolve("keys.pfs");
        Files.writeString(keys, KEY_LINE);
        StampCliExchange.Result r = exchange(List.of("--stamp", "127.0.0.1:0", "-a", "A", "-u", "alice", "-k", keys.toString(), "-v"),
                List.of("-c", "10", "-i", "0.005f", "-D", "10", "-A", "A", "-u", "alice", "-k", keys.toString(),
                        "--tlv", "all,cos=34,ar=2:1", "--tlv-packets"), "--stamp");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("10 sent, 0 lost (0.000%)"), r.out());
        assertTrue(r.out().contains("\n--- STAMP TLVs (RFC 8972) ---\n"), r.out());
        String[] packets = r.out().lines().filter(l -> l.startsWith("seq ")).toArray(String[]::new);
        assertEquals(10, packets.length, r.out());
        for (int i = 0; i < 10; i++) {
            assertTrue(packets[i].startsWith("seq " + i + " t1 "), packets[i]);
            assertTrue(packets[i].contains(" t2 kernel_software "), packets[i]);
            assertTrue(packets[i].contains(i < 9 ? " t3 kernel_software " : " t3 user "), packets[i]);
            assertTrue(packets[i].contains(" dscp_received 10 ecn_received 0 rp 0 rpe 3 reply_dscp 34 "), packets[i]);
            assertTrue(packets[i].contains(" s_txc " + (i + 1) + " r_rxc " + (i + 1) + " r_txc " + (i + 1)),
                    packets[i]);
            assertTrue(packets[i].endsWith(" flags ---"), packets[i]);
        }
        assertTrue(r.out().contains("follow-up telemetry: 9 kernel t3 (0 unmatched); rtt with kernel t3"), r.out());
        assertTrue(r.out().contains("class of service: requested reply DSCP 34, 10 replies arrived with it, "
                + "0 not applied by the reflector; reflector received our DSCP 10 in 10"), r.out());
        assertTrue(r.out().contains("direct measurement: at seq 9 sender sent 10, reflector received 10, sent 10"),
                r.out());
        assertTrue(r.out().contains("TLV flags: U 0, M 0, I 0"), r.out());
        assertTrue(r.out().contains("\nsender clock: sync "), r.out());
        assertTrue(r.out().contains("\nreflector clock: sync in "), r.out());
        assertTrue(r.reflectorErr().contains("follow-ups 9,"), r.reflectorErr());
        assertTrue(r.reflectorErr().contains("access reports 10"), r.reflectorErr());
    }

    @Test
    void authenticatedTwampLightWithA48OctetKey() throws Exception {
        Path keys = dir.resolve("light.pfs");
        String hex = "00112233445566778899aabbccddeeff".repeat(3);
        Files.writeString(keys, "carol " + hex + "\nalice 73656372657421\n");
        Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));  // no permission warning
        StampCliExchange.Result r = exchange(List.of("--light", "127.0.0.1:0", "-a", "A", "-u", "carol", "-k", keys.toString(), "-v"),
                List.of("-c", "10", "-i", "0.005f", "-M", "-A", "A", "-u", "carol", "-k", keys.toString()), "--light");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("\nSENT\t10\n"), r.out());
        assertTrue(r.out().contains("\nLOST\t0\n"), r.out());
        assertTrue(r.out().contains("\nPACKET_PADDING\t64\n"), "authenticated default padding " + r.out());
        assertTrue(r.reflectorErr().contains("TWAMP-Light reflector on [127.0.0.1]:"), r.reflectorErr());
        assertTrue(r.reflectorErr().contains("(authenticated)"), r.reflectorErr());
        assertTrue(r.reflectorErr().contains("twampd: reflected 10,"), r.reflectorErr());
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int status = Twping.create(List.of("--light", "127.0.0.1:9", "-A", "A", "-u", "alice", "-k",
                        keys.toString()), "twping", new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(e, true, StandardCharsets.UTF_8), System.in, Map.of()).run();
        assertEquals(1, status);
        assertTrue(e.toString(StandardCharsets.UTF_8).contains("the key must be 48 octets"), e.toString());
        ByteArrayOutputStream d = new ByteArrayOutputStream();
        assertEquals(1, new StampReflectorMain().execute(new String[] {"--light", "127.0.0.1:0", "-a", "A", "-u",
                "alice", "-k", keys.toString()}, System.out, new PrintStream(d, true, StandardCharsets.UTF_8), null));
        assertTrue(d.toString(StandardCharsets.UTF_8).startsWith("twampd: --light -a A: the key must be 48 octets"),
                d.toString());
    }

    @Test
    void twampLightRawRecords() throws Exception {
        StampCliExchange.Result r = exchange(List.of("--light", "127.0.0.1:0"), List.of("-c", "5", "-i", "0.005f", "-R"), "--light");
        assertEquals(0, r.status(), r.err());
        String[] lines = r.out().strip().split("\n");
        assertEquals(5, lines.length, r.out());
        for (int i = 0; i < 5; i++) {
            assertTrue(lines[i].startsWith(i + " "), lines[i]);
        }
    }

    @Test
    void reflectorCommandLineErrorsAreOneLinePlusUsage() {
        for (String[] args : new String[][] {
                {"--stamp", "127.0.0.1:0", "-a", "X"},
                {"--stamp", "127.0.0.1:0", "-a", "A"},
                {"--light", "127.0.0.1:0", "-a", "A", "-u", "a", "-k", "/nonexistent"},
                {"--stamp", "127.0.0.1:0", "--rate", "fast"},
                {"--stamp", "127.0.0.1:0", "--allow", "example.net/8"},
                {"--stamp", "127.0.0.1:0", "--stamp", "127.0.0.1:1"},
                {"--stamp", "127.0.0.1:0", "stray"},
                {"--stamp", "127.0.0.1:0", "--asymmetric"},
                {"--light", "127.0.0.1:0", "--reflect-octets", "x"},
                {"--light", "127.0.0.1:0", "--reflect-octets", "70000"}}) {
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            int status = new StampReflectorMain().execute(args, System.out,
                    new PrintStream(e, true, StandardCharsets.UTF_8), null);
            String text = e.toString(StandardCharsets.UTF_8);
            assertEquals(1, status, String.join(" ", args));
            assertTrue(text.startsWith("twampd: ") && text.indexOf('\n') < text.indexOf("Usage: twampd --stamp"),
                    String.join(" ", args) + " -> " + text);
            assertTrue(!text.contains("Exception"), text);
        }
    }

    @Test
    void senderCommandLineErrors() {
        for (List<String> args : List.of(
                List.of("--stamp", "127.0.0.1", "--ssid", "70000"),
                List.of("--ptp", "127.0.0.1"),
                List.of("--stamp", "127.0.0.1", "--light", "127.0.0.1"),
                List.of("--stamp", "127.0.0.1", "-A", "A"),
                List.of("--stamp", "127.0.0.1", "extra"),
                List.of("--stamp", "127.0.0.1", "--report", "saved.owp"),
                List.of("--stamp", "127.0.0.1", "--tlv", "bogus"),
                List.of("--stamp", "127.0.0.1", "--tlv", "cos=64"),
                List.of("--stamp", "127.0.0.1", "--tlv", "hmac"),
                List.of("--light", "127.0.0.1", "--tlv", "ts"),
                List.of("--tlv-packets", "127.0.0.1"))) {
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            int status = Twping.create(args, "twping", new PrintStream(new ByteArrayOutputStream()),
                    new PrintStream(e, true, StandardCharsets.UTF_8), System.in, Map.of()).run();
            assertEquals(1, status, args.toString());
            assertTrue(!e.toString(StandardCharsets.UTF_8).contains("Exception"), e.toString());
        }
    }
}
