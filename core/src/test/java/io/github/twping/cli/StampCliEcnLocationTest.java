package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code twping --stamp --ecn N --tlv cos=D,loc} against {@code twampd --stamp} in-process: the TLV report shows the
 * ECN the reflector received and the reply's ECN (RFC 8972 §4.4), and the addresses and ports the reflector saw
 * (Location TLV, §4.2); the one-line errors of {@code --ecn}.
 */
class StampCliEcnLocationTest {
    @TempDir
    Path dir;


    private StampCliExchange.Result exchange(List<String> reflectorArgs, List<String> twpingArgs, String flag) throws Exception {
        return StampCliExchange.run(dir, reflectorArgs, twpingArgs, flag);
    }


    @Test
    void ecnAndLocationInTheTlvReport() throws Exception {
        StampCliExchange.Result r = exchange(List.of("--stamp", "127.0.0.1:0", "-v"), List.of("-c", "8", "-i", "0.005f", "-D", "10",
                "--ecn", "1", "--tlv", "cos=34,loc", "--tlv-packets"), "--stamp");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("8 sent, 0 lost (0.000%)"), r.out());
        String[] packets = r.out().lines().filter(l -> l.startsWith("seq ")).toArray(String[]::new);
        assertEquals(8, packets.length, r.out());
        for (String p : packets) {
            assertTrue(p.contains(" dscp_received 10 ecn_received 1 rp 0 rpe 3 reply_dscp 34 reply_ecn 1 "), p);
        }
        assertTrue(r.out().contains("class of service: requested reply DSCP 34, 8 replies arrived with it, "
                + "0 not applied by the reflector; reflector received our DSCP 10 in 8; "
                + "ECN 1: reflector received it in 8, replies arrived with it in 8; "
                + "reply ECN (EC1/RPE) set by the reflector in 8, not set in 0, not reported in 0"), r.out());
        Matcher m = Pattern.compile(
                "location: reflector saw source 127\\.0\\.0\\.1 port (\\d+), destination 127\\.0\\.0\\.1 port (\\d+) "
                        + "\\(8 replies\\)").matcher(r.out());
        assertTrue(m.find(), r.out());
        assertEquals(r.port(), Integer.parseInt(m.group(2)), "destination port: the reflector's");
        assertTrue(Integer.parseInt(m.group(1)) > 0 && Integer.parseInt(m.group(1)) != r.port(), m.group());
        assertTrue(r.out().contains("TLV flags: U 0, M 0, I 0"), r.out());
    }

    @Test
    void ecnCommandLineErrors() {
        for (List<String> args : List.of(
                List.of("--stamp", "127.0.0.1", "--ecn", "4"),
                List.of("--stamp", "127.0.0.1", "--ecn", "x"),
                List.of("--ecn", "1", "127.0.0.1"))) {
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            int status = Twping.create(args, "twping", new PrintStream(new ByteArrayOutputStream()),
                    new PrintStream(e, true, StandardCharsets.UTF_8), System.in, Map.of()).run();
            String text = e.toString(StandardCharsets.UTF_8);
            assertEquals(1, status, args.toString());
            assertTrue(text.startsWith("twping: ") && text.contains("--ecn"), args + " -> " + text);
            assertTrue(!text.contains("Exception"), text);
        }
    }
}
