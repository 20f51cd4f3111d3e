package io.github.twping.report.owamp;

import io.github.twping.datafile.SessionDataReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Golden tests: the real C outputs recorded for the vector data files, reproduced byte for byte. */
class ReportsTest {
    private static final Pattern HEADER =
        Pattern.compile("--- twping statistics from \\[(.*?)]:(\\d*) to \\[(.*?)]:(\\d*) ---");

    /** stderr lines printed by the client during the test, not by the statistics. */
    private static final Pattern CLIENT_MESSAGES = Pattern.compile(
        ": NTP: |Ignoring '|OWAMP_DEBUG_TIMEOFFSET|Invalid reflected sender|Invalid sent (send|recv) timestamp");

    /** Output of one run of the façade. */
    record Run(String out, String err, boolean ok) {
    }

    /** Builds options from the recorded command line, as the CLI would. */
    static OutputOptions optionsFromCommand(String vectorName) {
        String cmdLine = VectorFiles.read(vectorName).lines().findFirst().orElseThrow();
        String[] t = cmdLine.substring("# cmd: ".length()).trim().split("\\s+");
        OutputOptions o = OutputOptions.defaults().withZone(ZoneOffset.UTC).withProgramName(t[0]);
        boolean machine = false;
        for (int i = 1; i < t.length; i++) {
            String a = t[i];
            switch (a) {
                case "-M" -> machine = true;
                case "-R" -> o = o.withRaw(true);
                case "-Q" -> o = o.withQuiet(true);
                case "-U" -> o = o.withUnix(true);
                case "-N" -> o = o.withSubsession(Long.parseLong(t[++i]));
                case "-n" -> o = o.withUnits(t[++i].charAt(0));
                case "-b" -> o = o.withBucketWidth(Float.parseFloat(t[++i]));
                case "-a" -> {
                    String[] parts = t[++i].split(",");
                    float[] p = new float[parts.length];
                    for (int k = 0; k < p.length; k++) {
                        p[k] = Float.parseFloat(parts[k]);
                    }
                    o = o.withPercentiles(p);
                }
                case "-A", "-F", "-c", "-i", "-L", "-s", "-D" -> i++;
                default -> {
                    if (a.startsWith("-v")) {
                        o = o.withVerbose(true, a.length() > 2 ? Long.parseLong(a.substring(2)) : 0);
                    }
                }
            }
        }
        if (o.raw()) {
            machine = false;
        }
        o = o.withMachine(machine);
        if (machine && o.perPacket()) {
            o = o.withVerbose(false, o.recordLimit()); // "Ignoring '-v', '-M' set": the limit stays
        }
        return o;
    }

    /** Host strings as printed in the recorded output. */
    static HostInfo hostsFromOutput(String text) {
        if (text.contains("FROM_HOST\t")) {
            return new HostInfo(VectorFiles.machineValue(text, "FROM_HOST"), VectorFiles.machineValue(text, "FROM_PORT"),
                VectorFiles.machineValue(text, "FROM_ADDR"), VectorFiles.machineValue(text, "TO_HOST"),
                VectorFiles.machineValue(text, "TO_PORT"), VectorFiles.machineValue(text, "TO_ADDR"));
        }
        Matcher m = HEADER.matcher(text);
        if (!m.find()) {
            return new HostInfo("x", "1", "x", "y", "2", "y");
        }
        return new HostInfo(m.group(1), m.group(2), m.group(1), m.group(3), m.group(4), m.group(3));
    }

    static Run run(String owpName, OutputOptions opts, HostInfo hosts) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        boolean ok;
        try (PrintStream o = new PrintStream(out, false, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, false, StandardCharsets.UTF_8);
             SessionDataReader reader = SessionDataReader.open(VectorFiles.file(owpName))) {
            ok = Reports.write(opts, reader, hosts, o, e);
        }
        return new Run(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), ok);
    }

    /** stderr lines of the recording that come from the statistics (not NTP or option warnings). */
    static String statsStderr(String vectorName) {
        List<String> keep = new ArrayList<>();
        for (String line : VectorFiles.stderr(vectorName).split("\n")) {
            if (!line.isEmpty() && !CLIENT_MESSAGES.matcher(line).find()) {
                keep.add(line + "\n");
            }
        }
        return String.join("", keep);
    }

    private static void assertGolden(String owpName, String vectorName) throws IOException {
        String expected = VectorFiles.results(vectorName);
        Run r = run(owpName, optionsFromCommand(vectorName), hostsFromOutput(expected));
        assertEquals(expected, r.out(), vectorName);
        assertEquals(statsStderr(vectorName), r.err(), vectorName + " (stderr)");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "datafile-open-twping-R.txt", "datafile-open-owstats-M.txt", "datafile-open-owstats-summary.txt",
        "datafile-open-owstats-v.txt"})
    void shouldReproduceOpenSessionOutputs(String vector) throws IOException {
        assertGolden("datafile-open.owp", vector);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "datafile-loss-twping-R.txt", "datafile-loss-owstats-M.txt", "datafile-loss-owstats-v.txt",
        "datafile-loss-owstats-N10.txt"})
    void shouldReproduceLateReplyLossOutputs(String vector) throws IOException {
        assertGolden("datafile-loss.owp", vector);
    }

    @ParameterizedTest
    @ValueSource(strings = {"datafile-fwdloss-twping-N10.txt", "datafile-fwdloss-owstats-M.txt"})
    void shouldReproduceForwardLossOutputsIncludingSubsessionFailure(String vector) throws IOException {
        assertGolden("datafile-fwdloss.owp", vector);
    }

    @Test
    void shouldReproduceNonAscendingBucketOrderOfClockOffsetRun() throws IOException {
        assertGolden("datafile-offset.owp", "datafile-offset-twping-M.txt");
    }

    @Test
    void shouldReproduceExponentialScheduleStartAndEndTimes() throws IOException {
        assertGolden("datafile-exp.owp", "datafile-exp-twping-M.txt");
    }

    @ParameterizedTest
    @ValueSource(strings = {"dupfwd", "dupbck", "badseq", "mult0", "short"})
    void shouldReproduceFakeReflectorSessions(String mode) throws IOException {
        assertGolden("fakerefl-" + mode + ".owp", "fakerefl-" + mode + "-M.txt");
    }

    @Test
    void shouldReportFailureOfFwdlossSubsessionsAsNotOk() throws IOException {
        String vector = "datafile-fwdloss-twping-N10.txt";
        Run r = run("datafile-fwdloss.owp", optionsFromCommand(vector), hostsFromOutput(VectorFiles.stdout(vector)));
        assertTrue(!r.ok());
    }
}
