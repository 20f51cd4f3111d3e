package io.github.twping.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The AOT cache's training run (the launchers' {@code --train-aot}, the release build): the short runs a
 * user starts most often, {@code twping -h}, first with its output discarded, then {@link Main} with the
 * arguments given (a session against the embedded reflector), so that the cache holds the classes and
 * linked call sites of both and {@code -h} starts without loading anything from the jar.
 */
public final class AotTraining {
    private AotTraining() {
    }

    public static void main(String[] args) {
        PrintStream discard = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        Twping.run(List.of("-h"), discard, discard);
        int status = Main.run(args);
        System.out.flush();
        System.exit(status);   // the JVM writes the AOT cache on this exit
    }
}
