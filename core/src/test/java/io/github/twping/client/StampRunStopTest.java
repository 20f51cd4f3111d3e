package io.github.twping.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.twping.cli.TwpingArgs;
import io.github.twping.session.ClientTestSession;
import io.github.twping.stamp.StampReflector;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.testsupport.Wait;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Ctrl-C in a long STAMP session (docs/CLI.md, signals): as the TWAMP run, the STAMP run prepares the report
 * during the wait for the start time ({@link ReportPreparation}), so that the partial summary's statistics jump over
 * the unsent tail of the schedule instead of walking it. Before, {@code -c 100000} walked all 100,000 deltas of the
 * schedule (an AES block per four random words) after the signal, one by one.
 */
class StampRunStopTest {
    @TempDir
    Path dir;

    @Test
    void aStoppedStampSessionsSummaryJumpsOverTheUnsentSchedule() throws Exception {
        StampReflector reflector = new StampReflector(StampReflectorSpec.stamp(),
                StampReflector.openSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null);
        try (reflector) {
            reflector.start();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
            TwpingArgs.Result parsed = TwpingArgs.parse(new String[] {"-c", "100000", "-i", "0.01", "--stamp",
                "127.0.0.1:" + reflector.localAddress().getPort()}, "twping", new ByteArrayInputStream(new byte[0]),
                    errStream);
            TwpingOptions options = ((TwpingArgs.Parsed) parsed).options();
            StampRun run = new StampRun(options, new PrintStream(out, true, StandardCharsets.UTF_8), errStream,
                    "twping", WallClock.system(), null, dir);
            AtomicInteger status = new AtomicInteger(-1);
            Thread t = Thread.ofPlatform().name("stamp-run").start(() -> status.set(run.execute()));
            try {
                Wait.until(() -> {
                    ClientTestSession s = run.session();
                    return s != null && s.counters().received() >= 10 || !t.isAlive();
                }, "ten replies");
                assertTrue(t.isAlive(), () -> err.toString(StandardCharsets.UTF_8));
            } finally {
                run.cancel();
                t.join(60_000);
            }
            assertEquals(0, status.get(), () -> err.toString(StandardCharsets.UTF_8));
            String text = out.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("--- twping statistics"), text);
            assertTrue(run.summaryPrinted());
            long sent = run.session().sentCount();
            long walked = run.reportDeltasWalked();
            // the statistics take the deltas of the packets sent node by node (the flush's passes), then jump: far
            // fewer than the 100,000 of the whole schedule (100000 before)
            assertTrue(walked >= 0 && walked <= 4 * (sent + 10), "walked " + walked + " deltas, sent " + sent);
        }
    }
}
