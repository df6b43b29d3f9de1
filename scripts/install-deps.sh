#!/usr/bin/env bash
# Installs the Debian packages Corkboard needs to build and run, skipping those already present.
#   scripts/install-deps.sh           build + run dependencies
#   scripts/install-deps.sh --test    also what the test suites need (openssl CLI, headless Chromium and
#                                     chromedriver, Node.js for the web client's tests, Python websockets,
#                                     pytest, selenium, and Debian's PostgreSQL server for the cluster tests)
# Needs root (or sudo) only when something is missing.
set -euo pipefail

want_test=0
for arg in "$@"; do
    case "$arg" in
        --test) want_test=1 ;;
        -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
        *) echo "install-deps: unknown option '$arg' (try --help)" >&2; exit 2 ;;
    esac
done

packages=(pkg-config libwebsockets-dev libwebsockets-evlib-uv libuv1-dev libssl-dev libsqlite3-dev ca-certificates)
if [ "$want_test" = 1 ]; then
    # chromium + chromium-driver: the browser suite (Tests/python/test_browser.py) drives real headless Chromium.
    # gcc, libc6-dev: wstest's Python 2 packages compile a few C extensions (make conformance).
    # postgresql: the PostgreSQL store and cluster tests start a private server (scripts/test-postgres.sh).
    # nginx: the reverse-proxy tests (Tests/python/test_proxy.py) start a private one in front of the server.
    packages+=(openssl procps iproute2 chromium chromium-driver gcc libc6-dev postgresql nginx)
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js runs the web client's tests (node --test Tests/js): only when no node is on PATH at all.
if [ "$want_test" = 1 ] && ! command -v node >/dev/null 2>&1; then
    missing+=(nodejs)
fi
# Python for the interop suite: only when no python3 is on PATH at all.
if [ "$want_test" = 1 ] && ! command -v python3 >/dev/null 2>&1; then
    missing+=(python3 python3-pip python3-venv)
fi

if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root to install ${missing[*]}" >&2; exit 1; }
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$want_test" = 1 ]; then
    # Python test tooling: websockets is the independent client, pytest the runner, selenium drives Chromium,
    # axe-selenium-python brings axe-core for the accessibility audits.
    python_packages=(websockets pytest selenium axe-selenium-python)
    if ! python3 -c 'import websockets, pytest, selenium, axe_selenium_python' >/dev/null 2>&1; then
        echo "install-deps: installing Python packages ${python_packages[*]}"
        python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore "${python_packages[@]}" 2>/dev/null \
            || python3 -m pip install -q --disable-pip-version-check --break-system-packages "${python_packages[@]}"
    fi
fi

command -v swift >/dev/null 2>&1 || {
    echo "install-deps: no 'swift' on PATH. Install Swift 6.x (https://www.swift.org/install/linux/) and retry." >&2
    exit 1
}
