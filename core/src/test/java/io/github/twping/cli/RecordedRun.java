package io.github.twping.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.fail;
import io.github.twping.testdata.RecordedVectors;

/** One recorded C twping run from the vectors: {@code # cmd:}, {@code # rc=}, stdout and stderr lines. */
record RecordedRun(String cmd, int rc, List<String> stdout, List<String> stderr) {
    static final String USAGE_MARKER = "<<USAGE>>";
    static final String C_VERSION = "5.2.3-1";

    static Path vectors() {
        return RecordedVectors.dir();
    }

    /** @return twping-help.txt from its {@code usage:} line to the end */
    static String cUsageText() throws IOException {
        String help = Files.readString(vectors().resolve("twping-help.txt"), StandardCharsets.UTF_8);
        int at = help.indexOf("usage: twping");
        if (at < 0) {
            fail("twping-help.txt has no usage line");
        }
        return help.substring(at);
    }

    /** Parses a file of one or more runs. NTP start-up lines are removed from stderr. */
    static List<RecordedRun> load(String fileName) throws IOException {
        List<String> lines = Files.readAllLines(vectors().resolve(fileName), StandardCharsets.UTF_8);
        List<RecordedRun> runs = new ArrayList<>();
        String cmd = null;
        int rc = -1;
        List<String> out = null;
        List<String> err = null;
        List<String> target = null;
        for (String line : lines) {
            if (line.startsWith("# cmd:")) {
                if (cmd != null) {
                    runs.add(new RecordedRun(cmd, rc, trim(out), trim(err)));
                }
                cmd = line.substring("# cmd:".length()).strip();
                rc = -1;
                out = new ArrayList<>();
                err = new ArrayList<>();
                target = null;
            } else if (cmd != null && line.startsWith("# rc=")) {
                rc = Integer.parseInt(line.substring(5).strip());
            } else if (cmd != null && line.equals("## stdout")) {
                target = out;
            } else if (cmd != null && line.equals("## stderr")) {
                target = err;
            } else if (target != null) {
                if (target == err && line.startsWith("twping: NTP: ")) {
                    if (!err.isEmpty()) {
                        // the matrix file ends with a copy of the -h output after the last case
                        target = null;
                    }
                    continue;
                }
                target.add(line);
            }
        }
        if (cmd != null) {
            runs.add(new RecordedRun(cmd, rc, trim(out), trim(err)));
        }
        return runs;
    }

    private static List<String> trim(List<String> l) {
        List<String> copy = new ArrayList<>(l);
        while (!copy.isEmpty() && copy.get(copy.size() - 1).isEmpty()) {
            copy.remove(copy.size() - 1);
        }
        return copy;
    }

    /** @return the recorded stderr as bytes-identical text, {@code <<USAGE>>} expanded */
    String stderrText(int firstLines) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < firstLines; i++) {
            String line = stderr.get(i);
            sb.append(line.equals(USAGE_MARKER) ? cUsageText() : line + "\n");
            if (i == stderr.size() - 1 && line.startsWith("Version: ")) {
                sb.append('\n'); // the usage block ends with an empty line, trimmed by the loader
            }
        }
        return sb.toString();
    }

    /** @return argv (without the program name) split like a POSIX shell (single quotes; {@code <N x 'c'>}) */
    String[] argv() {
        List<String> words = new ArrayList<>();
        String s = cmd;
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == ' ') {
                i++;
                continue;
            }
            if (c == '<') {
                int end = s.indexOf('>', i);
                String[] parts = s.substring(i + 1, end).split(" ");
                int count = Integer.parseInt(parts[0]);
                words.add(parts[2].replace("'", "").repeat(count));
                i = end + 1;
                continue;
            }
            StringBuilder word = new StringBuilder();
            while (i < s.length() && s.charAt(i) != ' ') {
                if (s.charAt(i) == '\'') {
                    int end = s.indexOf('\'', i + 1);
                    word.append(s, i + 1, end);
                    i = end + 1;
                } else {
                    word.append(s.charAt(i++));
                }
            }
            words.add(word.toString());
        }
        if (words.isEmpty() || !words.get(0).equals("twping")) {
            fail("command does not start with twping: " + cmd);
        }
        return words.subList(1, words.size()).toArray(new String[0]);
    }

    @Override
    public String toString() {
        return cmd.length() > 80 ? cmd.substring(0, 80) + "..." : cmd;
    }
}
