"""`corkboard serve` end to end with an independent client: HTTP, WebSocket, loopback binding, shutdown."""

import asyncio
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import websockets

from conftest import ROOT, ServerProcess, executable, role_keys, self_signed_certificate

READY = r"url=https?://[^ ]+:(?P<port>\d+)/"


@pytest.fixture
def server(tmp_path):
    proc = ServerProcess(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web", "--data", tmp_path / "data"],
        READY,
    )
    yield proc
    proc.stop()


def get(port: int, path: str):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
        return response.status, response.headers.get("Content-Type", ""), response.read()


def test_healthz_reports_status_version_uptime_connections(server):
    status, content_type, body = get(server.port, "/healthz")
    assert status == 200
    assert content_type.startswith("application/json")
    health = json.loads(body)
    assert health["status"] == "ok"
    assert isinstance(health["version"], str) and health["version"]
    assert health["uptimeSeconds"] >= 0
    assert health["connections"] == 0


def test_root_serves_web_index(server):
    status, content_type, body = get(server.port, "/")
    assert status == 200
    assert content_type.startswith("text/html")
    assert body == (ROOT / "web" / "index.html").read_bytes()


def test_missing_file_is_404(server):
    with pytest.raises(urllib.error.HTTPError) as error:
        get(server.port, "/no-such-file.js")
    assert error.value.code == 404


def test_listens_on_loopback_only(server):
    listening = subprocess.run(["ss", "-Hltn", f"sport = :{server.port}"], capture_output=True, text=True, check=True)
    addresses = [line.split()[3] for line in listening.stdout.splitlines() if line.strip()]
    assert addresses, f"nothing listening on port {server.port}"
    for address in addresses:
        assert address.startswith("127.0.0.1:") or address.startswith("[::1]:"), f"bound beyond loopback: {address}"


def test_sigterm_closes_websockets_with_1001_and_exits_quickly(server):
    async def scenario():
        async with websockets.connect(f"ws://127.0.0.1:{server.port}/ws", subprotocols=["corkboard.v1"]) as ws:
            assert ws.subprotocol == "corkboard.v1"
            started = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), timeout=5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
            return started

    started = asyncio.run(scenario())
    server.process.wait(timeout=5)
    assert time.monotonic() - started < 5.0
    assert server.process.returncode == 0


def test_bad_data_folder_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = subprocess.run(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web", "--data", blocker / "sub"],
        capture_output=True, text=True, timeout=20,
    )
    assert result.returncode != 0
    assert "data folder" in result.stderr


def test_healthz_reports_the_tick_in_effect(server):
    """An idle server's tick is the configured one (it stretches only while the server is busy)."""
    _, _, body = get(server.port, "/healthz")
    assert json.loads(body)["tickMilliseconds"] == 33


@pytest.mark.parametrize("args, sentence", [
    (["--tick-max-ms", "20"], "--tick-max-ms must be between --tick-ms (33) and 5000, got 20."),
    (["--tick-ms", "50", "--tick-max-ms", "40"], "--tick-max-ms must be between --tick-ms (50) and 5000, got 40."),
    (["--tick-max-ms", "6000"], "--tick-max-ms must be between --tick-ms (33) and 5000, got 6000."),
    (["--journal-fold-rows", "0"], "--journal-fold-rows must be between 1 and 1000000, got 0."),
    (["--max-pending", "1001"], "--max-pending must be 0 (no limit) or at most 1000"),
])
def test_a_setting_outside_its_range_is_refused(tmp_path, args, sentence):
    result = subprocess.run(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--data", tmp_path / "data", *args],
        capture_output=True, text=True, timeout=20,
    )
    assert result.returncode != 0
    assert sentence in result.stderr


def test_help_lists_options():
    result = subprocess.run([executable("CORKBOARD_BIN", "corkboard"), "serve", "--help"], capture_output=True, text=True, timeout=20)
    assert result.returncode == 0
    for option in ["--host", "--port", "--web", "--data", "--tls-cert", "--tls-key", "--allow-origin", "CORKBOARD_PORT",
                   "--tick-ms", "--tick-max-ms", "--allow-unguarded-reads", "CORKBOARD_ALLOW_UNGUARDED_READS"]:
        assert option in result.stdout


def test_malformed_hello_gets_an_error_naming_the_field_and_connection_stays_open(server):
    async def scenario():
        async with websockets.connect(f"ws://127.0.0.1:{server.port}/ws", subprotocols=["corkboard.v1"]) as ws:
            for _ in range(2):
                await ws.send('{"type":"hello","ref":"h1"}')
                reply = json.loads(await asyncio.wait_for(ws.recv(), timeout=5))
                assert reply["type"] == "error"
                assert reply["code"] == "missing-field"
                assert reply["field"] == "protocol"
                assert reply["ref"] == "h1"
            await ws.send('{"type":"hello","protocol":1,"board":"demo","name":"Ada","ref":"h2"}')
            welcome = json.loads(await asyncio.wait_for(ws.recv(), timeout=5))
            assert welcome["type"] == "error" and welcome["code"] == "bad-key", welcome

    asyncio.run(scenario())


def test_tls_flags_serve_https_and_wss(tmp_path):
    import ssl

    key, cert = self_signed_certificate(tmp_path)
    proc = ServerProcess(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web",
         "--data", tmp_path / "data", "--tls-cert", cert, "--tls-key", key],
        READY,
    )
    try:
        assert any("url=https://" in line for line in proc.lines)
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        with urllib.request.urlopen(f"https://127.0.0.1:{proc.port}/healthz", timeout=5, context=context) as response:
            assert json.loads(response.read())["status"] == "ok"

        async def scenario():
            async with websockets.connect(
                f"wss://127.0.0.1:{proc.port}/ws", subprotocols=["corkboard.v1"], ssl=context
            ) as ws:
                await ws.send('{"type":"hello"}')
                assert json.loads(await asyncio.wait_for(ws.recv(), timeout=5))["type"] == "error"

        asyncio.run(scenario())
    finally:
        proc.stop()


def test_tls_cert_without_key_is_refused(tmp_path):
    result = subprocess.run(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--tls-cert", tmp_path / "c.pem"],
        capture_output=True, text=True, timeout=20,
    )
    assert result.returncode != 0
    assert "--tls-cert and --tls-key go together" in result.stderr


def test_json_logs_parse_line_by_line_and_never_show_keys_or_tokens(tmp_path):
    """`--log-format json`: every line on stderr is one JSON object with time, level, label and
    message; share keys, resume tokens, invite tokens and device keys appear nowhere in the log,
    whatever happened (joins with each role's key, admin, edit, comment and view (R17), and a wrong
    key, a resume with its token, a personal invite claimed with a device key and the device coming
    back, a wrong invite (issue 45), uploads with the edit key and with the comment key, which is
    refused)."""
    data = tmp_path / "data"
    created = subprocess.run([executable("CORKBOARD_BIN", "corkboard"), "boards", "create", "trip", "--data", str(data)],
                             capture_output=True, text=True, timeout=60)
    assert created.returncode == 0, created.stderr
    keys = role_keys(created.stdout)
    assert sorted(keys) == ["admin", "comment", "edit", "view"], created.stdout
    edit, view = keys["edit"], keys["view"]
    invited = subprocess.run([executable("CORKBOARD_BIN", "corkboard"), "boards", "invite", "trip", "--name", "Bea",
                              "--role", "editor", "--data", str(data)], capture_output=True, text=True, timeout=60)
    assert invited.returncode == 0, invited.stderr
    invite = invited.stdout.split("invite=")[1].split()[0]
    device, wrong_invite = "d-" + "5a" * 16, "t-" + "0123456789abcdef" * 2
    proc = subprocess.Popen(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", str(ROOT / "web"), "--data", str(data), "--demo",
         "--log-format", "json", "--log-level", "debug"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    lines = []
    port = None
    deadline = time.monotonic() + 20
    while port is None and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        entry = json.loads(line)
        if entry.get("message") == "serving":
            port = int(entry["url"].rsplit(":", 1)[1].strip("/"))
    assert port, "".join(lines)
    secrets = list(keys.values()) + [invite, device, wrong_invite]

    async def scenario():
        url = f"ws://127.0.0.1:{port}/ws"
        for key in [keys["admin"], edit, keys["comment"], view, "e-" + "0" * 32]:
            async with websockets.connect(url, subprotocols=["corkboard.v1"]) as ws:
                await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "trip", "key": key, "name": "Ada",
                                          "clientId": "c-logs"}))
                welcome = json.loads(await asyncio.wait_for(ws.recv(), 5))
                if welcome["type"] == "welcome":
                    secrets.append(welcome["resumeToken"])
        async with websockets.connect(url, subprotocols=["corkboard.v1"]) as ws:
            await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "trip", "key": edit, "name": "Ada",
                                      "clientId": "c-logs", "resumeToken": secrets[-1]}))
            await asyncio.wait_for(ws.recv(), 5)
        for fields in [{"invite": invite, "device": device}, {"device": device}, {"invite": wrong_invite,
                                                                                  "device": device}]:
            async with websockets.connect(url, subprotocols=["corkboard.v1"]) as ws:
                await ws.send(json.dumps({"type": "hello", "protocol": 1, "board": "trip", "name": "Beatrice",
                                          **fields}))
                answer = json.loads(await asyncio.wait_for(ws.recv(), 5))
                assert answer["type"] == ("error" if fields.get("invite") == wrong_invite else "welcome"), answer
                if answer["type"] == "welcome":
                    secrets.append(answer["resumeToken"])

    asyncio.run(scenario())
    for key in [edit, keys["comment"]]:
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/boards/trip/files?key={key}", data=b"not an image",
                                         headers={"Content-Type": "image/png"}, method="POST")
        try:
            urllib.request.urlopen(request, timeout=5)
        except urllib.error.HTTPError:
            pass
    proc.send_signal(signal.SIGTERM)
    # The same buffered reader as above, to the end (it may already hold lines read ahead).
    rest = proc.stderr.read()
    assert proc.wait(timeout=15) == 0
    log = "".join(lines) + rest
    for line in log.splitlines():
        entry = json.loads(line)
        assert {"time", "level", "label", "message"} <= entry.keys(), line
        assert entry["level"] in {"trace", "debug", "info", "notice", "warning", "error", "critical"}
    entries = [json.loads(line) for line in log.splitlines()]
    assert any(entry["message"] == "boards" for entry in entries)
    # Metadata are fields of their own: a join names its board, connection and member.
    assert any(entry["message"] == "member joined" and entry.get("board") == "trip"
               and entry.get("connection") and entry.get("member") for entry in entries)
    for secret in secrets:
        assert secret not in log, f"a secret ({secret[:4]}…) appears in the log"



def test_boards_prints_links_for_the_address_the_server_listened_on(tmp_path):
    """Issue 16: `corkboard boards` links reach the server as it was started (here a free port)."""
    data = tmp_path / "data"
    proc = ServerProcess(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web", "--data", data],
        READY)
    try:
        port = proc.port
    finally:
        proc.stop()
    corkboard = str(executable("CORKBOARD_BIN", "corkboard"))
    environment = {k: v for k, v in os.environ.items() if not k.startswith("CORKBOARD_")}

    def links(*extra, env=environment):
        result = subprocess.run([corkboard, "boards", "--data", str(data), "--json", *extra],
                                capture_output=True, text=True, timeout=60, env=env)
        assert result.returncode == 0, result.stderr
        demo = next(row for row in json.loads(result.stdout) if row["id"] == "demo")
        return demo["edit"], demo["view"]

    edit, view = links()
    assert edit.startswith(f"http://127.0.0.1:{port}/?board=demo") and view.startswith(f"http://127.0.0.1:{port}/")
    # --base-url and CORKBOARD_BASE_URL still override what the server recorded.
    assert links("--base-url", "https://board.example")[0].startswith("https://board.example/?board=demo")
    override = dict(environment, CORKBOARD_BASE_URL="https://env.example/")
    assert links(env=override)[0].startswith("https://env.example/?board=demo")
    # Without a recorded address: what `corkboard serve` would use from the environment.
    (data / "served-address").unlink()
    assert links(env=dict(environment, CORKBOARD_PORT="9123"))[0].startswith("http://127.0.0.1:9123/?board=demo")
    assert links()[0].startswith("http://127.0.0.1:8080/?board=demo")


def test_default_threads_follow_the_cpu_affinity(tmp_path):
    """`--threads` defaults to the cores the server may run on: one under `taskset -c 0`, however
    many cores the machine has."""
    proc = ServerProcess(
        ["taskset", "-c", "0", executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web",
         ROOT / "web", "--data", tmp_path / "data"],
        READY,
    )
    try:
        listening = [line for line in proc.lines if "listening" in line]
        assert listening and " threads=1 " in listening[0], "".join(proc.lines)
    finally:
        proc.stop()


def thread_policies(pid: int) -> dict:
    """Each live thread of the process and its Linux scheduling policy (os.SCHED_*)."""
    policies = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            policies[int(tid)] = os.sched_getscheduler(int(tid))
        except ProcessLookupError:
            pass  # the thread ended meanwhile
    return policies


@pytest.mark.parametrize("launcher, args, environment, named, expected", [
    ([], [], {}, "batch", os.SCHED_BATCH),
    (["chrt", "--batch", "0"], ["--scheduling", "normal"], {}, "normal", os.SCHED_OTHER),
    (["chrt", "--batch", "0"], [], {"CORKBOARD_SCHEDULING": "keep"}, "keep", os.SCHED_BATCH),
    ([], [], {"CORKBOARD_SCHEDULING": "keep"}, "keep", os.SCHED_OTHER),
], ids=["default-batch", "normal-under-chrt-batch", "keep-under-chrt-batch", "keep-under-normal"])
def test_scheduling_puts_every_thread_under_its_policy(tmp_path, monkeypatch, launcher, args, environment, named,
                                                       expected):
    """`--scheduling` (CORKBOARD_SCHEDULING) sets every thread's policy, the ones started after it was
    applied included (the service threads, the store's writer, the cooperative pool under load);
    `keep` leaves the threads as the process was started."""
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    proc = ServerProcess(
        [*launcher, executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web",
         "--data", tmp_path / "data", "--demo", "--threads", "2", *args],
        READY,
    )
    try:
        serving = [line for line in proc.lines if "serving" in line]
        assert serving and f"scheduling={named}" in serving[0], "".join(proc.lines)

        async def busy():
            # Joins wake the rooms and the pool's threads; the demo board's welcome reads the store.
            for _ in range(3):
                async with websockets.connect(f"ws://127.0.0.1:{proc.port}/ws", subprotocols=["corkboard.v1"]) as ws:
                    await ws.send('{"type":"hello","protocol":1,"board":"demo","name":"Ada","ref":"h"}')
                    welcome = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                    assert welcome["type"] == "welcome", welcome
            for _ in range(20):
                get(proc.port, "/healthz")

        asyncio.run(busy())
        policies = thread_policies(proc.process.pid)
        assert len(policies) >= 4, policies
        wrong = {tid: policy for tid, policy in policies.items() if policy != expected}
        assert not wrong, f"threads not under policy {expected}: {wrong} of {policies}"
    finally:
        proc.stop()


def test_an_unknown_scheduling_is_refused(tmp_path):
    result = subprocess.run(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--data", tmp_path / "data",
         "--scheduling", "fast"],
        capture_output=True, text=True, timeout=20,
    )
    assert result.returncode != 0
    assert "--scheduling must be one of batch, normal, keep, got 'fast'." in result.stderr


# Started under SCHED_IDLE without CAP_SYS_NICE and with RLIMIT_NICE 0, a process may not leave
# SCHED_IDLE: the kernel refuses the server's switch with EPERM.
CANNOT_LEAVE_IDLE = ["setpriv", "--bounding-set", "-sys_nice", "--inh-caps", "-sys_nice", "prlimit", "--nice=0",
                     "chrt", "--idle", "0"]


def test_a_refused_default_scheduling_warns_and_keeps_the_threads_as_started(tmp_path):
    proc = ServerProcess(
        [*CANNOT_LEAVE_IDLE, executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web",
         "--data", tmp_path / "data"],
        READY,
    )
    try:
        output = "".join(proc.lines)
        assert "warning" in output and "keep the scheduling policy they were started with" in output, output
        assert "wanted=batch" in output and "Operation not permitted" in output, output
        serving = [line for line in proc.lines if "serving" in line]
        assert serving and "scheduling=keep" in serving[0], output
        policies = thread_policies(proc.process.pid)
        assert set(policies.values()) == {os.SCHED_IDLE}, policies
    finally:
        proc.stop()


def test_a_refused_scheduling_that_was_asked_for_stops_the_server_naming_the_way_out(tmp_path):
    result = subprocess.run(
        [*CANNOT_LEAVE_IDLE, executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web",
         "--data", tmp_path / "data", "--scheduling", "batch"],
        capture_output=True, text=True, timeout=20,
    )
    assert result.returncode != 0
    assert ("Could not put the server's threads under --scheduling batch: Operation not permitted. "
            "Pass --scheduling keep to leave them as they were started.") in result.stderr, result.stderr
