package io.github.twping.client;

import io.github.twping.report.owamp.Language;
import io.github.twping.report.owamp.OutputOptions;

/** Maps the CLI's output options onto the report writers' options. */
final class Outputs {
    private Outputs() {
    }

    /**
     * The language of the diagnostics and the summary (English unless {@code --lang ru}), without the rest of
     * {@link #of}, for the diagnostics before the control connection.
     */
    static Language language(TwpingOptions options) {
        Language language = Language.parse(options.extras().language());
        return language == null ? Language.EN : language;
    }

    static OutputOptions of(TwpingOptions options, String program) {
        TwpingOptions.Output o = options.output();
        // -R implies quiet for everything but the raw records (docs/CLI.md); the writers read quiet as "print nothing".
        return new OutputOptions(o.raw(), o.machine(), o.quiet() && !o.raw(), o.verbose(), o.recordLimit(), o.unixTimestamps(),
                o.units(), o.percentiles(), o.bucketWidthSeconds(), o.subsessionPackets(), o.summaryFiles(),
                o.summaryDirectory(), Language.parse(options.extras().language()), null, program);
    }
}
