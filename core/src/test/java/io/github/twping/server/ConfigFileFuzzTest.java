package io.github.twping.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.twping.config.PassphraseStore;
import io.github.twping.fuzz.Fuzz;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz: twampd's configuration files ({@code .conf}, {@code .limits}, {@code .pfs}), the client's key file and
 * twampd's command line, seeded with the recorded 5.2.3 server configuration. A mutated input is accepted or
 * refused with a {@link ConfigException} (one line); nothing else may escape.
 */
class ConfigFileFuzzTest {
    private static String text(String name) {
        return new String(Fuzz.bytes("server-config/" + name), StandardCharsets.ISO_8859_1);
    }

    @Test
    @Timeout(300)
    void shouldAcceptOrRefuseEveryMutatedConfigurationFile() {
        List<String> confs = List.of(text("twamp-server.conf"), text("twamp-server.conf.enconly-8623"),
                text("twamp-server.conf.openonly-8622"));
        List<String> limits = List.of(text("twamp-server.limits"));
        List<String> pfs = List.of(text("twamp-server.pfs"), text("alice.pfs"), text("bob.pfs"),
                text("alice-wrong.pfs"));
        SplittableRandom r = Fuzz.random("config");
        int inputs = Fuzz.inputs(6000);
        long start = System.nanoTime();
        long deadline = Fuzz.deadlineNs();
        int done = 0;
        for (; done < inputs && System.nanoTime() < deadline; done++) {
            String input;
            switch (done % 3) {
                case 0 -> {
                    input = Fuzz.mutate(Fuzz.pick(confs, r), Fuzz.pick(confs, r), r);
                    try {
                        ServerConfigBuilder b = ServerConfig.builder();
                        ServerConfigParser.parse("fuzz.conf", input, b);
                        b.build();
                    } catch (ConfigException expected) {
                        check(expected.getMessage(), input, done);
                    } catch (RuntimeException | Error e) {
                        fail("conf input " + done + " (seed " + Fuzz.seed() + "): " + e + "\n" + input, e);
                    }
                }
                case 1 -> {
                    input = Fuzz.mutate(Fuzz.pick(limits, r), Fuzz.pick(confs, r), r);
                    try {
                        LimitsConfig l = LimitsConfig.parse("fuzz.limits", input);
                        l.offeredModes(io.github.twping.protocol.Mode.ALL_BITS, java.net.InetAddress.getLoopbackAddress());
                    } catch (ConfigException expected) {
                        check(expected.getMessage(), input, done);
                    } catch (RuntimeException | Error e) {
                        fail("limits input " + done + " (seed " + Fuzz.seed() + "): " + e + "\n" + input, e);
                    }
                }
                default -> {
                    byte[] bytes = Fuzz.mutate(Fuzz.pick(pfs, r).getBytes(StandardCharsets.ISO_8859_1), null, r);
                    try {
                        PassphraseStore store = PassphraseStore.of("fuzz.pfs", bytes);
                        store.lookupPrefix("alice");
                        store.lookupPrefix("a");
                        store.parseAll(new ArrayList<>());
                        ServerPassphrases.of(store).lookup("alice");
                    } catch (RuntimeException | Error e) {
                        fail("pfs input " + done + " (seed " + Fuzz.seed() + "): " + e + "\n" + Fuzz.show(bytes), e);
                    }
                }
            }
        }
        Fuzz.report("config+pfs", done, 0, start);
    }

    private static void check(String message, String input, int index) {
        if (message == null || message.isEmpty()) {
            fail("input " + index + ": a refusal without a message\n" + input);
        }
    }
}
