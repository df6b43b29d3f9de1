#!/usr/bin/env bash
# Builds Corkboard's executables. Used by `make`, by CI and by the Dockerfile, so all build the same way.
#   scripts/build.sh [release|debug] [extra swift build args...]
set -euo pipefail
mode="${1:-release}"
shift || true
case "$mode" in
    release|debug) ;;
    *) echo "build.sh: mode must be 'release' or 'debug', got '$mode'" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
exec swift build -c "$mode" "$@"
