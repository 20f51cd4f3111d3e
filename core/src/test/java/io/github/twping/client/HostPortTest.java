package io.github.twping.client;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HostPortTest {

    @ParameterizedTest(name = "\"{0}\" -> node \"{1}\" port \"{2}\"")
    @CsvSource(delimiter = '|', quoteCharacter = '"', nullValues = "NULL", value = {
            "[::1]:8700|::1|8700",
            "[::1]|[::1]|NULL",
            "[::1]:|::1|NULL",
            "::1|::1|NULL",
            "fe80::1%eth0|fe80::1%eth0|NULL",
            "127.0.0.1:8700|127.0.0.1|8700",
            "127.0.0.1|127.0.0.1|NULL",
            "host:abc|host|NULL",
            "host:|host|NULL",
            "host:862x|host|862x",
            "host:65535|host|65535",
            "host:65536|host|NULL",
            "host:-1|host|NULL",
            "\"host: 80\"|host|\" 80\"",
            "[[::1]]:80|[[::1]]:80|NULL",
            "[::1]]:80|[::1]]:80|NULL",
            "[::1]x80|[::1]x80|NULL",
            "[::1|[::1|NULL",
            "x[::1]:80|::1|80",
            "twamp.example.net|twamp.example.net|NULL",
    })
    void shouldSplitLikeTheCClient(String arg, String node, String port) {
        HostPort hp = HostPort.parse(arg);
        assertEquals(arg, hp.typed());
        assertEquals(node, hp.node());
        assertEquals(port, hp.port());
        assertEquals(port == null ? "862" : port, hp.serviceOr(HostPort.DEFAULT_CONTROL_PORT));
    }
}
