package io.github.twping.report.extended;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Properties;

/**
 * The scripts and styles inlined into the {@code --html} page, read from the class path once: uPlot's
 * minified script, style sheet and licence from its WebJar ({@code org.webjars.npm:uplot}, docs/DEPENDENCIES.md),
 * and this package's own {@code html-report.js} and {@code html-report.css}.
 *
 * @param uplotVersion the WebJar's version
 * @param uplotJs      uPlot's script
 * @param uplotCss     uPlot's style sheet
 * @param uplotLicense uPlot's MIT licence text
 * @param reportJs     the script that draws the charts from the page's data
 * @param reportCss    the page's own style sheet
 */
record HtmlAssets(String uplotVersion, String uplotJs, String uplotCss, String uplotLicense, String reportJs,
                  String reportCss) {
    private static final String WEBJAR = "META-INF/resources/webjars/uplot/";
    private static final String POM = "META-INF/maven/org.webjars.npm/uplot/pom.properties";

    private static final class Holder {
        static final HtmlAssets ASSETS = load();
    }

    /** @return the assets (read on first use) */
    static HtmlAssets get() {
        return Holder.ASSETS;
    }

    private static HtmlAssets load() {
        Properties pom = new Properties();
        try (InputStream in = open(POM)) {
            pom.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String version = pom.getProperty("version");
        String base = WEBJAR + version + "/";
        return new HtmlAssets(version, scriptSafe(text(base + "dist/uPlot.iife.min.js")), text(base + "dist/uPlot.min.css"),
                text(base + "LICENSE"), scriptSafe(text("io/github/twping/report/extended/html-report.js")),
                text("io/github/twping/report/extended/html-report.css"));
    }

    private static InputStream open(String name) {
        InputStream in = HtmlAssets.class.getClassLoader().getResourceAsStream(name);
        if (in == null) {
            throw new IllegalStateException("missing class-path resource " + name);
        }
        return in;
    }

    private static String text(String name) {
        try (InputStream in = open(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A script that cannot end its {@code <script>} element early. */
    private static String scriptSafe(String js) {
        if (js.toLowerCase(Locale.ROOT).contains("</script")) {
            throw new IllegalStateException("a script to inline contains </script");
        }
        return js;
    }
}
