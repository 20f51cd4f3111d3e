# Sourced by the hand-run timing scripts (startup.sh, signal-latency.sh): a work directory removed at exit and
# our twampd in the foreground on 127.0.0.1:PORT (open mode; rootfolly because CI runs as root), stopped at exit.
#
#   . "$root/testing/lib/local-twampd.sh"
#   local_twampd NAME PORT [--stamp]  # sets $work and $server_pid; exits 1 (naming NAME) when twampd does not start;
#                                     # with --stamp a STAMP reflector (UDP) on the port instead

work=""
server_pid=""
local_twampd_cleanup() {
    [ -n "$server_pid" ] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    [ -n "$work" ] && rm -rf "$work"
}
trap local_twampd_cleanup EXIT

local_twampd() { # name port [--stamp]
    local name=$1 port=$2 stamp=${3:-}
    work=$(mktemp -d "${TMPDIR:-/tmp}/twping-$name.XXXXXX")
    "$root/twping" -h >/dev/null 2>&1 || { echo "$name.sh: ./twping -h failed (build?)" >&2; exit 1; }
    if [ "$stamp" = --stamp ]; then
        "$root/twampd" --stamp "127.0.0.1:$port" >"$work/twampd.log" 2>&1 &
        server_pid=$!
        # up when its start line is out; bounded: 100 x 0.1 s
        for _ in $(seq 100); do
            grep -q 'STAMP reflector on' "$work/twampd.log" 2>/dev/null && return 0
            kill -0 "$server_pid" 2>/dev/null || { echo "$name.sh: twampd --stamp did not start:" >&2; cat "$work/twampd.log" >&2; exit 1; }
            sleep 0.1
        done
        echo "$name.sh: twampd --stamp did not start on 127.0.0.1:$port within 10 s" >&2
        exit 1
    fi
    printf 'authmode O\nrootfolly\n' >"$work/twamp-server.conf"
    "$root/twampd" -Z -c "$work" -S "127.0.0.1:$port" >"$work/twampd.log" 2>&1 &
    server_pid=$!
    # the server is up when the control port accepts; bounded: 100 x 0.1 s
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        kill -0 "$server_pid" 2>/dev/null || { echo "$name.sh: twampd did not start:" >&2; cat "$work/twampd.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "$name.sh: twampd did not listen on 127.0.0.1:$port within 10 s" >&2
    exit 1
}
