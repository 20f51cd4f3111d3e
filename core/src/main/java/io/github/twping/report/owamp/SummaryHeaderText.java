package io.github.twping.report.owamp;

import io.github.twping.datafile.SessionHeader;

/** The summary/{@code -v} header block {@code \n--- twping statistics from [h]:p to [h]:p ---\nSID:\t...\n}. */
final class SummaryHeaderText {
    private SummaryHeaderText() {
    }

    static StringBuilder append(StringBuilder sb, SummaryLabels labels, HostInfo hosts, SessionHeader header) {
        sb.append(labels.headerStart()).append(hosts.fromHost()).append("]:").append(hosts.fromServ())
            .append(labels.headerTo()).append(hosts.toHost()).append("]:").append(hosts.toServ()).append(" ---\n");
        sb.append("SID:\t").append(header.sidHex()).append('\n');
        return sb;
    }
}
