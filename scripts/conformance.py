#!/usr/bin/env python3
"""Autobahn|Testsuite's fuzzingclient against `corkboard serve --echo-path /echo`, over ws and wss.

Runs cases 1-10 (framing, pings, reserved bits, opcodes, fragmentation, UTF-8, close handling,
limits and performance; no compression) and fails on any FAILED case other than 2.10 and 2.11:
RFC 6455 section 5.5.3 lets a server answer only the last of several pings sent back to back,
which is what libwebsockets does. wstest always exits 0, so the verdicts come from the report's
index.json. `scripts/install-wstest.sh` installs wstest first (make conformance does both).

Usage: scripts/conformance.py [--corkboard PATH] [--schemes ws,wss] [--cases 1.*,2.*]
"""

import argparse
import collections
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WSTEST = ROOT / ".build-conformance" / "bin" / "wstest"
ALLOWED_FAILURES = {"2.10", "2.11"}


def certificate(folder: Path):
    """A self-signed P-256 certificate for 127.0.0.1 (OpenSSL 3 refuses small keys)."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True)
    return cert, key


def serve(corkboard: Path, data: Path, tls):
    args = [str(corkboard), "serve", "--port", "0", "--store", "memory", "--data", str(data), "--web",
            str(ROOT / "web"), "--echo-path", "/echo", "--max-message-bytes", str(16 << 20), "--log-level", "info"]
    if tls:
        args += ["--tls-cert", str(tls[0]), "--tls-key", str(tls[1])]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line and process.poll() is not None:
            break
        match = re.search(r"url=https?://[^ ]+:(\d+)/", line)
        if match:
            return process, int(match.group(1))
    process.kill()
    raise SystemExit(f"conformance: corkboard serve did not start: {process.stderr.read()}")


def run(corkboard: Path, scheme: str, cases, work: Path):
    data = work / f"data-{scheme}"
    tls = certificate(work) if scheme == "wss" else None
    process, port = serve(corkboard, data, tls)
    try:
        outdir = work / f"report-{scheme}"
        spec = {
            "outdir": str(outdir),
            "servers": [{"agent": "corkboard", "url": f"{scheme}://127.0.0.1:{port}/echo"}],
            "cases": cases,
            "exclude-cases": [],
            "exclude-agent-cases": {},
        }
        spec_path = work / f"fuzzingclient-{scheme}.json"
        spec_path.write_text(json.dumps(spec))
        started = time.monotonic()
        subprocess.run([str(WSTEST), "--mode", "fuzzingclient", "--spec", str(spec_path)], cwd=work,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1800)
        elapsed = time.monotonic() - started
        index = outdir / "index.json"
        if not index.exists():
            raise SystemExit(f"conformance: wstest wrote no report for {scheme} ({index} is missing)")
        results = json.loads(index.read_text())["corkboard"]
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    return results, elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corkboard", default=os.environ.get("CORKBOARD_BIN", ROOT / ".build/debug/corkboard"))
    parser.add_argument("--schemes", default="ws,wss")
    parser.add_argument("--cases", default=",".join(f"{n}.*" for n in range(1, 11)))
    parser.add_argument("--keep", action="store_true", help="keep the reports (printed folder)")
    options = parser.parse_args()
    if not WSTEST.exists():
        raise SystemExit("conformance: wstest is not installed; run scripts/install-wstest.sh (make conformance does)")
    work = Path(tempfile.mkdtemp(prefix="corkboard-conformance-", dir=ROOT / ".build-conformance"))
    failed = []
    for scheme in options.schemes.split(","):
        results, elapsed = run(Path(options.corkboard), scheme, options.cases.split(","), work)
        behaviors = collections.Counter(r["behavior"] for r in results.values())
        bad = sorted((case for case, r in results.items()
                      if "FAILED" in (r["behavior"], r["behaviorClose"]) and case not in ALLOWED_FAILURES),
                     key=lambda c: [int(p) for p in c.split(".")])
        allowed = sorted(case for case, r in results.items() if r["behavior"] == "FAILED" and case in ALLOWED_FAILURES)
        print(f"conformance {scheme}: {len(results)} cases in {elapsed:.0f} s: "
              + ", ".join(f"{k} {v}" for k, v in sorted(behaviors.items()))
              + (f"; allowed failures {', '.join(allowed)}" if allowed else ""))
        for case in bad:
            print(f"  FAILED {case}: {results[case]['behavior']}/{results[case]['behaviorClose']} "
                  f"(report {work}/report-{scheme}/{results[case]['reportfile']})")
        failed += [f"{scheme} {case}" for case in bad]
    if not options.keep and not failed:
        subprocess.run(["rm", "-rf", str(work)], check=False)
    if failed:
        raise SystemExit(f"conformance: {len(failed)} case(s) failed: {', '.join(failed)}")
    print("conformance: every case passed but those RFC 6455 allows (2.10, 2.11)")


if __name__ == "__main__":
    main()
