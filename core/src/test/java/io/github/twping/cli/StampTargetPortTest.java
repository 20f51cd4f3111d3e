package io.github.twping.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A {@code --stamp}/{@code --light} address whose port is out of range or not a number is refused with one
 * line and exit 1 by twping and by twampd, as {@code twampd -S} refuses it (issue 26, item 4), instead of
 * falling back to port 862.
 */
class StampTargetPortTest {

    @Test
    void twpingRefusesABadPortInOneLine() {
        for (String target : List.of("127.0.0.1:99999", "127.0.0.1:abc", "[::1]:65536", "127.0.0.1:0", "127.0.0.1:")) {
            for (String option : List.of("--stamp", "--light")) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                ByteArrayOutputStream e = new ByteArrayOutputStream();
                int status = Twping.create(List.of(option, target, "-c", "2"), "twping",
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(e, true, StandardCharsets.UTF_8), System.in, Map.of()).run();
                // the clock's NTP warnings, printed at start as the C twping prints them, are not about the address
                String text = e.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.startsWith("twping: NTP: "))
                        .map(l -> l + "\n").reduce("", String::concat);
                assertEquals(1, status, option + " " + target + " -> " + text);
                assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing measured");
                assertEquals(1, text.lines().count(), text);
                assertEquals(true, text.startsWith("twping: " + option + ": Invalid address \"" + target + "\": "),
                        text);
            }
        }
    }

    @Test
    void twampdRefusesABadPortInOneLine() {
        for (String target : List.of("127.0.0.1:99999", "127.0.0.1:abc", "[::1]:65536", "127.0.0.1:")) {
            for (String option : List.of("--stamp", "--light")) {
                ByteArrayOutputStream e = new ByteArrayOutputStream();
                int status = new StampReflectorMain().execute(new String[] {option, target}, System.out,
                        new PrintStream(e, true, StandardCharsets.UTF_8), null);
                String text = e.toString(StandardCharsets.UTF_8);
                assertEquals(1, status, option + " " + target + " -> " + text);
                assertEquals(1, text.lines().count(), text);
                assertEquals(true, text.startsWith("twampd: " + option + ": Invalid address \"" + target + "\": "),
                        text);
            }
        }
    }
}
