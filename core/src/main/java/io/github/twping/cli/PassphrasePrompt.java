package io.github.twping.cli;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.io.Console;
import java.io.IOError;
import java.util.Arrays;

/**
 * Where the interactive pass-phrase comes from (docs/CLI.md {@code -k}/{@code -u}): the controlling
 * terminal with echo off, else stdin with the prompt on stderr. Injectable so tests can supply input.
 */
@FunctionalInterface
public interface PassphrasePrompt {
    /** Longest line read, to bound memory on endless input. */
    int MAX_PASSPHRASE_BYTES = 64 * 1024;

    /**
     * Writes {@code prompt}, reads the pass-phrase up to the first {@code \n}, {@code \r} or end of file
     * (not included), then writes {@code \n} to where the prompt went.
     *
     * @return the pass-phrase bytes (empty at immediate end of file)
     * @throws IOException on a read error (twping then prints {@code I2ReadPassPhraseAlloc(): <reason>})
     */
    byte[] read(String prompt) throws IOException;

    /**
     * The C behaviour: on a terminal, prompt and read there with echo off ({@link Console} when
     * {@link Console#isTerminal()}, else {@code /dev/tty} with {@code stty -echo}); with no
     * controlling terminal, prompt on {@code err} and read {@code stdin}.
     */
    static PassphrasePrompt system(InputStream stdin, PrintStream err) {
        return prompt -> {
            Console console = System.console();
            if (console != null && console.isTerminal()) {
                char[] typed;
                try {
                    typed = console.readPassword("%s", prompt); // echo off; prints the newline itself
                } catch (IOError e) {
                    throw new IOException(e.getCause() != null ? e.getCause().getMessage() : e.getMessage(), e);
                }
                if (typed == null) {
                    return new byte[0];
                }
                String text = new String(typed);
                Arrays.fill(typed, '\0');
                int stop = text.indexOf('\r');
                return (stop >= 0 ? text.substring(0, stop) : text).getBytes(console.charset());
            }
            File tty = new File("/dev/tty");
            FileInputStream in;
            try {
                in = new FileInputStream(tty);
            } catch (FileNotFoundException | SecurityException noTty) {
                return fromStreams(stdin, err).read(prompt);
            }
            try (in; FileOutputStream out = new FileOutputStream(tty)) {
                out.write(prompt.getBytes(StandardCharsets.UTF_8));
                out.flush();
                boolean echoOff = stty(tty, "-echo");
                Thread restore = new Thread(() -> stty(tty, "echo"));
                if (echoOff) {
                    Runtime.getRuntime().addShutdownHook(restore);
                }
                try {
                    return readLine(in);
                } finally {
                    if (echoOff) {
                        stty(tty, "echo");
                        try {
                            Runtime.getRuntime().removeShutdownHook(restore);
                        } catch (IllegalStateException shuttingDown) {
                            // the hook restores the echo
                        }
                    }
                    out.write('\n');
                    out.flush();
                }
            }
        };
    }

    /** Prompt on {@code promptOut}, read from {@code in} (the no-terminal path; used by tests). */
    static PassphrasePrompt fromStreams(InputStream in, PrintStream promptOut) {
        return prompt -> {
            promptOut.print(prompt);
            promptOut.flush();
            try {
                return readLine(in);
            } finally {
                promptOut.print('\n');
                promptOut.flush();
            }
        };
    }

    /** Reads bytes up to the first {@code \n}, {@code \r} or end of file, one byte at a time. */
    static byte[] readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (line.size() < MAX_PASSPHRASE_BYTES) {
            int b = in.read();
            if (b < 0 || b == '\n' || b == '\r') {
                break;
            }
            line.write(b);
        }
        return line.toByteArray();
    }

    private static boolean stty(File tty, String setting) {
        try {
            Process p = new ProcessBuilder("stty", setting)
                    .redirectInput(tty)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
