#!/usr/bin/env bash
# A private PostgreSQL server for the tests: a new cluster in a temporary folder, on a free loopback
# port, trusting local connections. Debian's `postgresql` package (scripts/install-deps.sh --test).
#   scripts/test-postgres.sh start DIR      initdb + start in DIR (created); prints the URL
#   scripts/test-postgres.sh stop DIR       stop the server of DIR and remove DIR
#   scripts/test-postgres.sh halt DIR       stop the server of DIR, keeping its data (a database that goes away)
#   scripts/test-postgres.sh resume DIR     start the halted server of DIR again, on the same port
#   scripts/test-postgres.sh run CMD...     start one, run CMD with CORKBOARD_TEST_POSTGRES_URL set, stop it
#                                           (CMD's exit status is the script's)
# initdb and pg_ctl refuse to run as root: as root they run as the `postgres` user, which owns DIR.
set -euo pipefail

bin=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$candidate/initdb" ]; then bin="$candidate"; break; fi
done
if [ -z "$bin" ]; then
    echo "test-postgres: no PostgreSQL server found under /usr/lib/postgresql; run scripts/install-deps.sh --test" >&2
    exit 1
fi

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
    local dir="$1"
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; fi
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        exit 1
    }
    echo "$port" >"$dir/port"
    launch "$dir"
    echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
}

launch() {
    local dir="$1" port
    port=$(cat "$dir/port")
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=300" \
        >/dev/null || {
        cat "$dir/server.log" >&2
        exit 1
    }
}

stop() {
    local dir="$1"
    if [ -d "$dir/data" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

case "${1:-}" in
    start) start "$2" ;;
    stop) stop "$2" ;;
    halt) as_owner "$bin/pg_ctl" -D "$2/data" -m fast -w -t 30 stop >/dev/null ;;
    resume) launch "$2" ;;
    run)
        shift
        dir=$(mktemp -d /tmp/corkboard-postgres.XXXXXX)
        trap 'stop "$dir"' EXIT
        url=$(start "$dir")
        echo "test-postgres: PostgreSQL for the tests at $url" >&2
        set +e
        CORKBOARD_TEST_POSTGRES_URL="$url" "$@"
        status=$?
        set -e
        exit $status
        ;;
    *) sed -n '2,10p' "$0" >&2; exit 2 ;;
esac
