package io.github.twping.report.owamp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import io.github.twping.testdata.RecordedVectors;

/** Access to the recorded C outputs in {@code vectors/owamp-5.2.3} ("# cmd:", "## stdout", "## stderr"). */
final class VectorFiles {
    private VectorFiles() {
    }

    static Path dir() {
        return RecordedVectors.dir();
    }

    static Path file(String name) {
        Path p = dir().resolve(name);
        if (!Files.exists(p)) {
            throw new AssertionError("vector file missing: " + p);
        }
        return p;
    }

    static String read(String name) {
        try {
            return Files.readString(file(name), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The "## stdout" section. */
    static String stdout(String name) {
        String all = read(name);
        int s = all.indexOf("## stdout\n");
        int e = all.indexOf("## stderr\n");
        if (s < 0 || e < 0) {
            throw new AssertionError("no stdout/stderr sections in " + name);
        }
        return all.substring(s + "## stdout\n".length(), e);
    }

    /** The "## stderr" section. */
    static String stderr(String name) {
        String all = read(name);
        int e = all.indexOf("## stderr\n");
        return all.substring(e + "## stderr\n".length());
    }

    /** stdout without a leading "Approximately ..." line (printed by the client, not the reports). */
    static String results(String name) {
        String out = stdout(name);
        if (out.startsWith("Approximately ")) {
            out = out.substring(out.indexOf('\n') + 1);
        }
        return out;
    }

    /** The value of a {@code KEY\tvalue} line of a -M output. */
    static String machineValue(String text, String key) {
        for (String line : text.split("\n")) {
            if (line.startsWith(key + "\t")) {
                return line.substring(key.length() + 1);
            }
        }
        throw new AssertionError("no " + key + " line");
    }
}
