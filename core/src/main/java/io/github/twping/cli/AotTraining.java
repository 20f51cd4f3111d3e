package io.github.twping.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.github.twping.report.owamp.OutputOptions;
import io.github.twping.report.owamp.Reports;

/**
 * The AOT cache's training run (the launchers' {@code --train-aot}, the release build): the short runs a
 * user starts most often, {@code twping -h}, first with its output discarded, then {@link Main} with the
 * arguments given (a session against the embedded reflector), then a two-packet session with the default (human)
 * summary, so that the cache holds the classes and linked call sites of all three: {@code -h} starts without loading
 * anything from the jar, and neither does {@code twping -c 1}.
 */
public final class AotTraining {
    private AotTraining() {
    }

    public static void main(String[] args) {
        PrintStream discard = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        Twping.run(List.of("-h"), discard, discard);
        int status = Main.run(args);
        System.out.flush();
        if (status == 0) {
            // The training session's arguments ask for -M, so without this the human summary's classes (the default
            // output of `twping -c 1`, and those of java.time and BigDecimal it uses) stayed out of the cache: that run
            // loaded and verified them from the jar (docs/notes/2026-12-05-ffm-link.md).
            // Its stderr is the process's (the launcher discards it), so that the check for a terminal there
            // (report.extended.Terminal) is in the cache too: a class loaded from the jar opens the jar, whose
            // central directory a run with the cache never reads otherwise.
            Path file = null;
            try {
                file = Files.createTempFile("twping-aot-training", ".owp");
                status = Twping.run(List.of("--loopback", "-c", "2", "-i", "0.01", "-L", "1", "-F", file.toString()),
                        discard, System.err);
                // -R's and -v's writers over the same file (compare-c.sh and footprint.sh run with -R): without them
                // in the cache they came from the jar, and the first class from the jar opens it (its 11,676 entries)
                if (status == 0) {
                    OutputOptions opts = OutputOptions.defaults();
                    Reports.writeFile(opts.withRaw(true), file, null, discard, discard);   // null: numeric hosts
                    Reports.writeFile(opts.withVerbose(true, 0), file, null, discard, discard);
                }
            } catch (IOException e) {
                status = 1;
            } finally {
                if (file != null) {
                    try {
                        Files.deleteIfExists(file);
                    } catch (IOException ignored) {
                        // a temporary file of a training run
                    }
                }
            }
        }
        System.exit(status);   // the JVM writes the AOT cache on this exit
    }
}
