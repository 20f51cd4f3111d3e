package io.github.twping.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.twping.report.owamp.Language;
import org.junit.jupiter.api.Test;

class RunTextsTest {
    @Test
    void shouldKeepTheCWordingInEnglish() {
        RunTexts en = RunTexts.of(Language.EN);
        assertEquals("Session Failed!", en.line("Session Failed!"));
        assertEquals("Unable to open control connection to 192.0.2.7.",
                en.line("Unable to open control connection to 192.0.2.7."));
        assertEquals("Approximately 13.0 seconds until results available\n", en.approximately(12.96));
        // C's printf rounds the double's exact value half-even: 2.25 is a tie (2.2), 0.15 is 0.1499... (0.1);
        // String.format said 2.3 and 0.2
        assertEquals("Approximately 2.2 seconds until results available\n", en.approximately(2.25));
        assertEquals("Approximately 0.1 seconds until results available\n", en.approximately(0.15));
    }

    @Test
    void shouldTranslateExactLinesAndPrefixesInRussian() {
        RunTexts ru = RunTexts.of(Language.RU);
        assertEquals("Сессия не удалась!", ru.line("Session Failed!"));
        assertEquals("Не удалось открыть управляющее соединение с 192.0.2.7.",
                ru.line("Unable to open control connection to 192.0.2.7."));
        assertEquals("Сервер отказал в доступе: 127.0.0.1", ru.line("Server denied access: 127.0.0.1"));
        assertEquals("Примерно 3.1 с до получения результатов\n", ru.approximately(3.14));
    }

    @Test
    void shouldLeaveUntranslatedLibraryLinesInEnglish() {
        assertEquals("getaddrinfo(): Name or service not known",
                RunTexts.of(Language.RU).line("getaddrinfo(): Name or service not known"));
    }
}
