package io.github.twping.server;

import io.github.twping.config.PassphraseStore;
import java.util.Map;
import java.util.HashMap;

/**
 * Where twampd looks up pass-phrases by exact identity: the {@code twamp-server.pfs} file, or a map given
 * in code (embedded server). Implementations return a fresh copy the caller may wipe.
 */
@FunctionalInterface
public interface ServerPassphrases {
    /** @return the pass-phrase bytes of {@code identity}, or null if unknown (or the file is unusable). */
    byte[] lookup(String identity);

    /** No identities: only Open and... nothing authenticated succeeds. */
    static ServerPassphrases none() {
        return id -> null;
    }

    /** Exact lookups in a pfs store (a syntax error anywhere in the file makes every identity unknown, as C). */
    static ServerPassphrases of(PassphraseStore store) {
        return id -> store.lookupExact(id) instanceof PassphraseStore.Found f ? f.passphrase().clone() : null;
    }

    /** A fixed identity -> pass-phrase map (the bytes are copied). */
    static ServerPassphrases of(Map<String, byte[]> entries) {
        Map<String, byte[]> copy = new HashMap<>();
        entries.forEach((k, v) -> copy.put(k, v.clone()));
        return id -> {
            byte[] p = copy.get(id);
            return p == null ? null : p.clone();
        };
    }
}
