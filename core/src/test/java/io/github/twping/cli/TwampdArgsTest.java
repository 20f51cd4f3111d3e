package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.server.ConfigException;
import io.github.twping.server.ServerConfig;
import io.github.twping.server.ServerConfigBuilder;
import io.github.twping.server.ServerConfigParser;
import io.github.twping.testdata.RecordedVectors;
import io.github.twping.protocol.Mode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import io.github.twping.ffm.ThreadTuning;

class TwampdArgsTest {

    @Test
    void shouldParseAllFlags() throws Exception {
        TwampdArgs a = TwampdArgs.parse(new String[] {"-a", "AE", "-c", "/etc/t", "-d/data", "-e", "local3", "-fvZ",
            "-G", "grp", "-P", "1000-2000", "-R", "/run", "-S", ":8620", "-U", "usr"});
        assertEquals("AE", a.authModes());
        assertEquals(Path.of("/etc/t"), a.confDir());
        assertEquals(Path.of("/data"), a.dataDir());
        assertEquals("local3", a.facility());
        assertTrue(a.rootFolly());
        assertTrue(a.verbose());
        assertTrue(a.foreground());
        assertEquals("grp", a.group());
        assertEquals("1000-2000", a.testPorts());
        assertEquals(Path.of("/run"), a.varDir());
        assertEquals(":8620", a.srcNode());
        assertEquals("usr", a.user());
        assertFalse(a.help());
    }

    @Test
    void shouldOverrideFileSettings() throws Exception {
        ServerConfigBuilder b = ServerConfig.builder();
        ServerConfigParser.load(RecordedVectors.dir().resolve("server-config").resolve("twamp-server.conf"), b);
        TwampdArgs.parse(new String[] {"-a", "E", "-S", "127.0.0.1:9555", "-P", "0"}).applyTo(b);
        ServerConfig c = b.build();
        assertEquals(Mode.ENCRYPTED.bits(), c.authModes());
        assertEquals(9555, c.listenPort());
        assertEquals(0, c.testPortLow());
        assertEquals("local5", c.facility());
    }

    @Test
    void shouldChooseTheReflectorReceiveStamp() throws Exception {
        assertTrue(ServerConfig.builder().build().reflectorKernelRxStamps(), "kernel RX stamps by default");
        ServerConfigBuilder b = ServerConfig.builder();
        TwampdArgs.parse(new String[] {"--rx-stamp", "user"}).applyTo(b);
        assertFalse(b.build().reflectorKernelRxStamps());
        ConfigException e = assertThrows(ConfigException.class,
                () -> TwampdArgs.parse(new String[] {"--rx-stamp", "hw"}).applyTo(ServerConfig.builder()));
        assertEquals("twampd: --rx-stamp: invalid receive stamp 'hw' (kernel, user)", e.getMessage());
    }

    @Test
    void shouldChooseTheReflectorRealTimePriority() throws Exception {
        assertEquals(0, ServerConfig.builder().build().reflectorRtPriority(), "time-shared by default");
        for (String bad : new String[] {"-1", "100", "x", ""}) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> TwampdArgs.parse(new String[] {"--rt-priority", bad}).applyTo(ServerConfig.builder()));
            assertEquals("twampd: --rt-priority: invalid real-time priority '" + bad + "' (0..99)", e.getMessage());
        }
        ServerConfigBuilder off = ServerConfig.builder();
        TwampdArgs.parse(new String[] {"--rt-priority", "0"}).applyTo(off);
        assertEquals(0, off.build().reflectorRtPriority());
        String refused = ThreadTuning.fifoRefusal(7);
        ServerConfigBuilder b = ServerConfig.builder();
        if (refused == null) {
            TwampdArgs.parse(new String[] {"--rt-priority", "7"}).applyTo(b);
            assertEquals(7, b.build().reflectorRtPriority());
            TwampdArgs.parse(new String[] {"--reflector-wait", "busy-poll"}).applyTo(b);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::build);
            assertEquals("--rt-priority (reflectorrtpriority) cannot be combined with --reflector-wait busy-poll: "
                    + "a real-time thread that never sleeps starves its CPU", e.getMessage());
        } else {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> TwampdArgs.parse(new String[] {"--rt-priority", "7"}).applyTo(b));
            assertEquals("twampd: --rt-priority: " + refused, e.getMessage());
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "-x|twampd: invalid option -- 'x'",
        "-a|twampd: option requires an argument -- 'a'",
        "-Z extra|twampd: unexpected argument \"extra\""})
    void shouldRejectBadCommandLines(String argv, String message) {
        ConfigException e = assertThrows(ConfigException.class, () -> TwampdArgs.parse(argv.split(" ")));
        assertEquals(message, e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "-a X|twampd: -a: Invalid authmode \"X\": use the letters O, A, E and M",
        "-P 9-1|twampd: -P: Invalid port range \"9-1\"",
        "-e bad|twampd: -e: Invalid syslog facility: bad"})
    void shouldRejectBadValues(String argv, String message) throws Exception {
        TwampdArgs a = TwampdArgs.parse(argv.split(" "));
        ConfigException e = assertThrows(ConfigException.class, () -> a.applyTo(ServerConfig.builder()));
        assertEquals(message, e.getMessage());
    }

    @Test
    void shouldStopAtDoubleDash() throws Exception {
        assertTrue(TwampdArgs.parse(new String[] {"-h", "--"}).help());
    }
}
