package io.github.twping.cli;

/** Placeholder entry point; replaced by the CLI. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.out.println("twping: not built yet");
    }
}
