# Prints the JDK modules that the classes reachable from the project's own classes depend on.
#
# Input: the class-level dependency graph of the runnable jar, as `jdeps -verbose:class` prints it
# ("   A -> B   module", where module is the jar's name for a class inside it, a JDK module name,
# or "JDK internal API (module)"). Multi-release entries ("11/org.x.Y") count as the class itself.
# The roots are the classes whose names start with the variable `prefix` (io.github.twping.); the
# closure follows edges to classes inside the jar, so a library class the project never refers to
# (directly or through other library classes) contributes nothing. Usage:
#   jdeps --multi-release 25 --ignore-missing-deps -verbose:class twping.jar \
#       | awk -v prefix=io.github.twping. -v jar=twping.jar -f reachable-modules.awk
# A summary line (reachable classes, modules) goes to stderr.
$2 == "->" && NF >= 4 {
    from = $1; sub(/^[0-9]+\//, "", from)
    to = $3; sub(/^[0-9]+\//, "", to)
    module = $4
    if (module == "JDK" && match($0, /\(([a-z0-9.]+)\)/)) {
        module = substr($0, RSTART + 1, RLENGTH - 2)
    }
    if (module == jar || module == "not") {
        edges[from] = edges[from] " " to
    } else {
        modules_of[from] = modules_of[from] " " module
    }
    if (index(from, prefix) == 1) {
        roots[from] = 1
    }
}
END {
    n = 0
    for (c in roots) { queue[n++] = c; seen[c] = 1 }
    for (i = 0; i < n; i++) {
        c = queue[i]
        k = split(modules_of[c], found, " ")
        for (j = 1; j <= k; j++) needed[found[j]] = 1
        k = split(edges[c], next_classes, " ")
        for (j = 1; j <= k; j++) {
            if (!(next_classes[j] in seen)) { seen[next_classes[j]] = 1; queue[n++] = next_classes[j] }
        }
    }
    list = ""
    for (m in needed) { print m; list = list " " m }
    printf "reachable-modules: %d classes reachable from %s*, modules:%s\n", n, prefix, list > "/dev/stderr"
}
