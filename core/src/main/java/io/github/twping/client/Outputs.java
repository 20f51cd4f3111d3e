package io.github.twping.client;

import java.time.ZoneId;

import io.github.twping.report.owamp.Language;
import io.github.twping.report.owamp.OutputOptions;

/** Maps the CLI's output options onto the report writers' options. */
final class Outputs {
    private Outputs() {
    }

    static OutputOptions of(TwpingOptions options, String program) {
        TwpingOptions.Output o = options.output();
        // -R implies quiet for everything but the raw records (docs/CLI.md); the writers read quiet as "print nothing".
        return new OutputOptions(o.raw(), o.machine(), o.quiet() && !o.raw(), o.verbose(), o.recordLimit(), o.unixTimestamps(),
                o.units(), o.percentiles(), o.bucketWidthSeconds(), o.subsessionPackets(), o.summaryFiles(),
                o.summaryDirectory(), Language.parse(options.extras().language()), ZoneId.systemDefault(), program);
    }
}
