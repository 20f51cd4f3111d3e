package io.github.twping.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.protocol.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Assertions;

class ServerConfigTest {

    @Test
    void shouldHaveCDefaults() {
        ServerConfig c = ServerConfig.defaults();
        assertEquals(Mode.ALL_BITS, c.authModes());
        assertNull(c.listenHost());
        assertEquals(862, c.listenPort());
        assertEquals(0, c.testPortLow());
        assertEquals(0, c.testPortHigh());
        assertEquals(900_000, c.controlTimeoutMs());
        assertEquals(900_000, c.testTimeoutMs());
        assertEquals(2048, c.pbkdf2Count());
        assertEquals(0, c.maxControlSessions());
        assertEquals(5, c.diebySeconds());
        assertEquals("daemon", c.facility());
        assertFalse(c.verbose());
    }

    @Test
    void shouldLoadRecordedConfigUnchanged() throws Exception {
        ServerConfigBuilder b = ServerConfig.builder();
        assertTrue(ServerConfigParser.load(Vectors.serverConfig("twamp-server.conf"), b));
        ServerConfig c = b.build();
        assertTrue(c.rootFolly());
        assertTrue(c.verbose());
        assertTrue(c.logLocation());
        assertEquals("local5", c.facility());
        assertEquals("127.0.0.1", c.listenHost());
        assertEquals(8620, c.listenPort());
        assertEquals(18760, c.testPortLow());
        assertEquals(19960, c.testPortHigh());
        assertEquals(Path.of("/var/lib/twamp-ref/var"), c.varDir());
        assertEquals(Path.of("/var/lib/twamp-ref/data"), c.dataDir());
        assertEquals(15, c.authModes());
    }

    @ParameterizedTest
    @CsvSource({"twamp-server.conf.enconly-8623, 8623, 4", "twamp-server.conf.openonly-8622, 8622, 1"})
    void shouldLoadRecordedVariants(String file, int port, int modes) throws Exception {
        ServerConfigBuilder b = ServerConfig.builder();
        ServerConfigParser.load(Vectors.serverConfig(file), b);
        ServerConfig c = b.build();
        assertEquals(port, c.listenPort());
        assertEquals(modes, c.authModes());
    }

    @Test
    void shouldParseAllKeysCaseInsensitivelyWithContinuation() throws Exception {
        String text = """
                # comment
                AuthMode \\
                  eA
                CONTROLTIMEOUT 3
                testtimeout 7
                pbkdf2_count 4096
                maxcontrolsessions 20
                maxsessions 64
                MaxPadding 1500
                anysender
                dieby 30
                enddelay 2.5
                srcnode [::1]:9000
                testports 5000
                user nobody
                group nogroup
                loglevel debug

                """;
        ServerConfigBuilder b = ServerConfig.builder();
        ServerConfigParser.parse("x.conf", text, b);
        ServerConfig c = b.build();
        assertEquals(Mode.mask(Mode.AUTHENTICATED, Mode.ENCRYPTED), c.authModes());
        assertEquals(3000, c.controlTimeoutMs());
        assertEquals(7000, c.testTimeoutMs());
        assertEquals(4096, c.pbkdf2Count());
        assertEquals(20, c.maxControlSessions());
        assertEquals(64, c.maxSessions());
        assertEquals(1500, c.maxPadding());
        assertTrue(c.anySender());
        assertEquals(30, c.diebySeconds());
        assertEquals(2.5, c.endDelaySeconds());
        assertEquals("::1", c.listenHost());
        assertEquals(9000, c.listenPort());
        assertEquals(5000, c.testPortLow());
        assertEquals(5000, c.testPortHigh());
        assertEquals("nobody", c.user());
        assertEquals("debug", c.logLevel());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "127.0.0.1:8620|127.0.0.1|8620",
        ":9999||9999",
        "myhost|myhost|862",
        "[fe80::1]|fe80::1|862",
        "::1|::1|862"})
    void shouldParseSrcnode(String spec, String host, int port) {
        ServerConfig c = ServerConfig.builder().srcNode(spec).build();
        assertEquals(host, c.listenHost());
        assertEquals(port, c.listenPort());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "bogus 1|x.conf:2: Unknown key=bogus",
        "authmode OX|x.conf:2: Invalid authmode \"OX\": use the letters O, A, E and M",
        "controltimeout -1|x.conf:2: Invalid value for controltimeout: -1",
        "testports 10-5|x.conf:2: Invalid port range \"10-5\"",
        "pbkdf2_count|x.conf:2: Invalid value for pbkdf2_count: a value is required",
        "facility nowhere|x.conf:2: Invalid syslog facility: nowhere",
        "srcnode host:99999|x.conf:2: Invalid srcnode \"host:99999\": port out of range"})
    void shouldRejectBadLinesWithFileAndLine(String line, String message) {
        ServerConfigException(line, message);
    }

    private static void ServerConfigException(String line, String message) {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerConfigParser.parse("x.conf", "# first\n" + line + "\n", ServerConfig.builder()));
        assertEquals(message, e.getMessage());
    }

    @Test
    void shouldRejectBackslashOutsideContinuation() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerConfigParser.parse("x.conf", "verbose\ndatadir /a\\b\n", ServerConfig.builder()));
        assertTrue(e.getMessage().startsWith("x.conf:2: syntax error"), e.getMessage());
    }

    @Test
    void shouldReportMissingFileAsAbsent(@TempDir Path dir) throws Exception {
        assertFalse(ServerConfigParser.load(dir.resolve("twamp-server.conf"), ServerConfig.builder()));
    }

    @Test
    void shouldNameTheFileInErrors(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("twamp-server.conf");
        Files.writeString(f, "verbose\n\nnotakey\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ServerConfigParser.load(f, ServerConfig.builder()));
        assertEquals(f + ":3: Unknown key=notakey", e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"0|0|0", "0-0|0|0", "9100|9100|9100", "9100-9101xyz|9100|9101", " 10 - 20|10|20"})
    void shouldParsePortRanges(String spec, int low, int high) {
        int[] r = ServerConfigBuilder.parsePortRange(spec);
        assertEquals(low, r[0]);
        assertEquals(high, r[1]);
    }

    @ParameterizedTest
    @CsvSource({"00", "10-5", "abc", "70000", "''"})
    void shouldRejectBadPortRanges(String spec) {
        assertThrows(IllegalArgumentException.class, () -> ServerConfigBuilder.parsePortRange(spec));
    }

    @Test
    void shouldRefuseAMaxpaddingAboveTheProtocolLimit() {
        ConfigException e = Assertions.assertThrows(ConfigException.class,
                () -> ServerConfigParser.parse("x.conf", "maxpadding 65001\n", ServerConfig.builder()));
        assertEquals("x.conf:1: Invalid maxpadding: 65001 (0..65000)", e.getMessage());
    }
}
