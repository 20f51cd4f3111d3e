package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.twping.client.TwpingOptions;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;
import java.io.ByteArrayInputStream;

class TwpingArgsLanguageTest {
    @Test
    void shouldFollowTheFirstSetLocaleVariable() {
        assertEquals("ru", TwpingArgs.languageOfLocale(Map.of("LANG", "ru_RU.UTF-8")));
        assertEquals("en", TwpingArgs.languageOfLocale(Map.of("LC_ALL", "C.UTF-8", "LANG", "ru_RU.UTF-8")));
        assertEquals("ru", TwpingArgs.languageOfLocale(Map.of("LC_MESSAGES", "ru_RU", "LANG", "en_US")));
        assertEquals("en", TwpingArgs.languageOfLocale(Map.of("LC_ALL", "", "LANG", "de_DE")));
        assertEquals("en", TwpingArgs.languageOfLocale(Map.of()));
    }

    @Test
    void shouldLetLangOverrideTheLocaleDefault() {
        assertEquals("ru", parse("ru", "127.0.0.1").extras().language());
        assertEquals("en", parse("ru", "--lang", "en", "127.0.0.1").extras().language());
        assertEquals("ru", parse("en", "--lang=ru", "127.0.0.1").extras().language());
    }

    private static TwpingOptions parse(String defaultLanguage, String... argv) {
        PrintStream err = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        TwpingArgs.Result r = new TwpingArgs("test", PassphrasePrompt.fromStreams(
                new ByteArrayInputStream(new byte[0]), err), err, err, false)
                .defaultLanguage(defaultLanguage).parse("twping", argv);
        return ((TwpingArgs.Parsed) r).options();
    }
}
