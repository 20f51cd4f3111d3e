package io.github.twping.client;

import java.io.PrintStream;

import io.github.twping.report.extended.ResultOutputs;
import io.github.twping.time.WallClock;

/**
 * What every step of a {@link TwampRun} shares: the options, the output streams, the clock, the language of
 * the diagnostics and the cancellation flag.
 */
final class RunContext {
    final TwpingOptions options;
    /** The C outputs: standard output, or standard error when a JSON output goes to standard output. */
    final PrintStream out;
    /** Standard output, where {@code --json -} and {@code --json-stream -} write. */
    final PrintStream stdout;
    final PrintStream err;
    final String program;
    final WallClock clock;
    private final RunTexts texts;
    private volatile boolean cancelled;
    /** The result outputs whose progress line is erased before each diagnostic, or null. */
    private volatile ResultOutputs progressLine;

    RunContext(TwpingOptions options, PrintStream out, PrintStream err, String program, WallClock clock) {
        this.options = options;
        this.stdout = out;
        this.out = options.extras().results().jsonToStdout() ? err : out;
        this.err = err;
        this.program = program;
        this.clock = clock;
        this.texts = RunTexts.of(Outputs.language(options));
    }

    TwpingOptions.Test test() {
        return options.test();
    }

    RunTexts texts() {
        return texts;
    }

    /** Prints one diagnostic line on stderr, prefixed with the program name, in the run's language. */
    void diag(String line) {
        errLine(program + ": " + texts.line(line));
    }

    /** Prints one line on stderr, after erasing the progress line (docs/CLI.md: nothing is printed after it). */
    void errLine(String text) {
        synchronized (err) {
            ResultOutputs p = progressLine;
            if (p != null) {
                p.clearProgress();
            }
            err.println(text);
        }
    }

    /** From now on the diagnostics erase the progress line of these outputs (may be null) first. */
    void progressLine(ResultOutputs outputs) {
        this.progressLine = outputs;
    }

    /** Prints the lines as diagnostics; @return {@link TwampRun#EXIT_FAILURE} */
    int fail(String... lines) {
        for (String line : lines) {
            diag(line);
        }
        return TwampRun.EXIT_FAILURE;
    }

    void cancel() {
        cancelled = true;
    }

    boolean cancelled() {
        return cancelled;
    }
}
