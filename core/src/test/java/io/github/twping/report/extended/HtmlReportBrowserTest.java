package io.github.twping.report.extended;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.imageio.ImageIO;

import io.github.twping.server.EmbeddedServer;
import io.github.twping.session.ReflectorFaultInjection;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code --html} report of a real loopback measurement (with a reflector that drops every tenth reply),
 * loaded in Debian's headless Chromium: no console message at all, every chart drew (the page's own DOM
 * check, read back with {@code --dump-dom}), and the screenshot has the plotted colours. Skipped, saying so,
 * when there is no {@code chromium} (.ci/run installs it).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class HtmlReportBrowserTest {
    private static final Pattern CONSOLE = Pattern.compile(":CONSOLE[:(]");

    @TempDir
    static Path dir;
    private static Path html;

    @BeforeAll
    static void measure() throws IOException {
        Assumptions.assumeTrue(chromium() != null, "chromium not installed: skipping the browser check of --html");
        html = dir.resolve("report.html");
        try (EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.options().authModes("O")
                .faults(new ReflectorFaultInjection(10, 0, 0, 0)))) {
            ResultRuns.Run r = ResultRuns.run("-c", "150", "-i", "0.002f", "-L", "3", "-Q", "--html", html.toString(),
                    "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
        }
    }

    private static String chromium() {
        for (String p : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser")) {
            if (Files.isExecutable(Path.of(p))) {
                return p;
            }
        }
        return null;
    }

    private record Browser(String stdout, String stderr) {
    }

    private static Browser browse(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-extensions", "--enable-logging=stderr", "--v=0",
                "--user-data-dir=" + Files.createTempDirectory(dir, "profile")));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "chromium", ".out");
        Path err = Files.createTempFile(dir, "chromium", ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish within 120 s");
        }
        return new Browser(Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private static List<String> consoleLines(String stderr) {
        return stderr.lines().filter(l -> CONSOLE.matcher(l).find()).toList();
    }

    @Test
    void consoleCheckSeesAPageError() throws Exception {
        // the check below can fail: a page with an error is reported on chromium's stderr
        Path bad = dir.resolve("bad.html");
        Files.writeString(bad, "<html><body><script>undefinedFunction();</script></body></html>");
        Browser b = browse("--dump-dom", bad.toUri().toString());
        assertTrue(consoleLines(b.stderr()).stream().anyMatch(l -> l.contains("undefinedFunction")), b.stderr());
    }

    @Test
    void everyChartDrawsWithoutConsoleMessages() throws Exception {
        Browser b = browse("--dump-dom", html.toUri().toString());
        assertEquals(List.of(), consoleLines(b.stderr()), "console messages of the report");
        Matcher charts = Pattern.compile("data-charts=\"(\\d+)\"").matcher(b.stdout());
        Matcher drawn = Pattern.compile("data-charts-drawn=\"(\\d+)\"").matcher(b.stdout());
        assertTrue(charts.find() && drawn.find(), "the page's check ran: " + b.stdout().length() + " bytes of DOM");
        assertEquals(5, Integer.parseInt(charts.group(1)));
        assertEquals(charts.group(1), drawn.group(1), "every chart has a rendered plot");
        // lost packets are marked on the RTT chart: 15 of 150 replies dropped
        int lostMarks = b.stdout().split("class=\"mark lost\"", -1).length - 1;
        assertEquals(15, lostMarks);
    }

    @Test
    void screenshotShowsThePlottedSeries() throws Exception {
        Path png = dir.resolve("report.png");
        browse("--hide-scrollbars", "--window-size=900,2000", "--screenshot=" + png, html.toUri().toString());
        BufferedImage image = ImageIO.read(new File(png.toString()));
        assertTrue(image != null && image.getWidth() == 900, "a 900 px wide screenshot");
        int blue = 0;
        int orange = 0;
        int red = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y) & 0xFFFFFF;
                blue += near(rgb, 0x1f77b4) ? 1 : 0;
                orange += near(rgb, 0xff7f0e) ? 1 : 0;
                red += near(rgb, 0xee0000) ? 1 : 0;
            }
        }
        assertTrue(blue > 500, "RTT line and histogram bars: " + blue + " blue pixels");
        assertTrue(orange > 100, "CCDF line: " + orange + " orange pixels");
        assertTrue(red > 30, "lost-packet ticks: " + red + " red pixels");
    }

    private static boolean near(int rgb, int target) {
        int dr = Math.abs(((rgb >> 16) & 0xFF) - ((target >> 16) & 0xFF));
        int dg = Math.abs(((rgb >> 8) & 0xFF) - ((target >> 8) & 0xFF));
        int db = Math.abs((rgb & 0xFF) - (target & 0xFF));
        return dr + dg + db < 60;
    }
}
