"""Behind a reverse proxy (issue 39): Debian's nginx in front of `corkboard serve`, started by the
tests on loopback with a config of their own (no daemon, its pid and logs in a temporary folder),
WebSocket upgrades proxied. With `--trusted-proxy`, the server reads each client's address from
`X-Forwarded-For`, so two clients behind the one proxy (127.0.0.2 and 127.0.0.3) have throttles of
their own; without it, or from a peer it does not trust, the header is ignored.
"""

import http.client
import shutil
import socket
import subprocess
import time

import pytest

from conftest import ROOT, DrainedServe, executable, stop_process
from test_abuse import read_head, send_hello, status_of, upgrade_request
from test_board_abuse import close_frame

NGINX_CONFIG = """
daemon off;
master_process off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {folder}/access.log;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        }}
        location /ws {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection "upgrade";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_read_timeout 120s;
        }}
    }}
}}
"""


def nginx_binary():
    path = shutil.which("nginx") or ("/usr/sbin/nginx" if shutil.os.path.exists("/usr/sbin/nginx") else None)
    if path is None:
        pytest.fail("nginx is not installed: run scripts/install-deps.sh --test (Debian's nginx package)")
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    """A private nginx on a free loopback port, proxying to `upstream`."""

    def __init__(self, folder, upstream):
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        config = folder / "nginx.conf"
        config.write_text(NGINX_CONFIG.format(folder=folder, port=self.port, upstream=upstream))
        self.folder = folder
        self.process = subprocess.Popen(
            [nginx_binary(), "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(config)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"nginx exited: {self.process.stderr.read()} {self.log()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        pytest.fail(f"nginx did not listen on {self.port} within 10 s: {self.log()}")

    def log(self):
        path = self.folder / "error.log"
        return path.read_text() if path.exists() else ""

    def stop(self):
        stop_process(self.process)


def serve(tmp_path, *extra):
    """A server whose debug log (each connection's remote address) is read as it comes."""
    return DrainedServe(
        [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web",
         "--data", tmp_path / "data", "--store", "memory", "--demo", "--log-level", "debug", *extra])


def hello(port, board, key=None, source="127.0.0.1", forwarded_for=None):
    """Joins `board` over a raw WebSocket to `port` from `source`; returns (socket, first answer)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(10)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    extra = f"X-Forwarded-For: {forwarded_for}\r\n" if forwarded_for else ""
    s.sendall(upgrade_request(port, extra=extra))
    head = read_head(s)
    assert status_of(head) == 101, head
    return s, send_hello(s, board, key)


def fail_joins(port, count, source, forwarded_for=None):
    """`count` joins of an unknown board (a failed join, like a wrong key) from `source`."""
    for _ in range(count):
        s, answer = hello(port, "no-such-board", "e-wrong", source, forwarded_for)
        assert answer["code"] == "bad-key", answer
        assert close_frame(s)[0] == 4003
        s.close()


def refused_for_now(port, source, forwarded_for=None):
    """Whether a join of the unknown board from `source` is refused for now (not answered bad-key)."""
    s, answer = hello(port, "no-such-board", "e-wrong", source, forwarded_for)
    code, reason = close_frame(s)
    s.close()
    if answer["code"] == "rate-limited":
        assert code == 1008 and "too many failed joins to this board from your address" in reason, reason
        return True
    assert (answer["code"], code) == ("bad-key", 4003), (answer, code)
    return False


def page_status(port, path, source, accept="text/html"):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    connection.request("GET", path, headers={"Accept": accept})
    response = connection.getresponse()
    body = response.read().decode("utf-8", "replace")
    connection.close()
    return response.status, body


def test_behind_nginx_each_client_has_its_own_throttle(tmp_path):
    """Two clients behind one nginx: the one with a stale link is throttled for that board, its
    WebSocket and page; the other, behind the same proxy, is not. Logs name the client's address."""
    server = serve(tmp_path, "--trusted-proxy", "127.0.0.1/32", "--trusted-proxy", "::1")
    proxy = Nginx(tmp_path / "nginx", server.port)
    try:
        # A proxied join works (the upgrade passes through nginx).
        s, answer = hello(proxy.port, "demo", source="127.0.0.3")
        assert answer["type"] == "welcome", answer
        open_member = s
        fail_joins(proxy.port, 10, "127.0.0.2")
        assert refused_for_now(proxy.port, "127.0.0.2"), "the offender is throttled for that board"
        assert not refused_for_now(proxy.port, "127.0.0.3"), "the other client behind the proxy is not"
        # Through the proxy, pages too: the offender's page for that board is refused (HTML).
        status, body = page_status(proxy.port, "/?board=no-such-board", "127.0.0.2")
        assert status == 429 and "Please wait" in body, (status, body[:200])
        assert page_status(proxy.port, "/?board=no-such-board", "127.0.0.3")[0] == 200
        assert page_status(proxy.port, "/", "127.0.0.2")[0] == 200
        # The offender still joins another board.
        s, answer = hello(proxy.port, "demo", source="127.0.0.2")
        assert answer["type"] == "welcome", answer
        s.close()
        open_member.close()
    finally:
        proxy.stop()
        server.stop()
    log = "".join(server.lines)
    assert "127.0.0.2" in log and "127.0.0.3" in log, "logs name the clients, not the proxy"


def test_without_trust_the_forwarded_header_is_ignored(tmp_path):
    """Without --trusted-proxy a forged X-Forwarded-For sent directly changes nothing: failures count
    against the peer, whatever the header says; behind nginx every client is then the proxy. A peer
    outside the trusted ranges is not believed either."""
    server = serve(tmp_path)
    proxy = Nginx(tmp_path / "nginx", server.port)
    try:
        fail_joins(server.port, 10, "127.0.0.2", forwarded_for="198.51.100.7")
        assert refused_for_now(server.port, "127.0.0.2"), "counted against the peer"
        assert refused_for_now(server.port, "127.0.0.2", forwarded_for="198.51.100.8"), "a new forged hop buys nothing"
        assert not refused_for_now(server.port, "127.0.0.4")
        # Behind nginx, untrusted: both clients are 127.0.0.1, so one's failures throttle the other.
        fail_joins(proxy.port, 10, "127.0.0.5")
        assert refused_for_now(proxy.port, "127.0.0.6"), "without trust every client behind the proxy is one"
    finally:
        proxy.stop()
        server.stop()
    trusted = serve(tmp_path, "--trusted-proxy", "127.0.0.1")
    try:
        # 127.0.0.7 is not a trusted proxy: its header is ignored.
        fail_joins(trusted.port, 10, "127.0.0.7", forwarded_for="198.51.100.9")
        assert refused_for_now(trusted.port, "127.0.0.7")
        assert not refused_for_now(trusted.port, "127.0.0.8")
    finally:
        trusted.stop()


@pytest.mark.parametrize("value, says", [
    ("10.0.0.0/33", "prefix length that is not a number from 0 to 32"),
    ("not-an-address", "is not an IPv4 or IPv6 address or CIDR range"),
    ("fd00::/129", "prefix length that is not a number from 0 to 128"),
])
def test_a_bad_trusted_proxy_is_a_clear_start_up_error(tmp_path, value, says):
    for args, env in ((["--trusted-proxy", value], {}), ([], {"CORKBOARD_TRUSTED_PROXIES": f"127.0.0.1,{value}"})):
        result = subprocess.run(
            [executable("CORKBOARD_BIN", "corkboard"), "serve", "--port", "0", "--web", ROOT / "web",
             "--data", tmp_path / "data", "--store", "memory", *args],
            capture_output=True, text=True, timeout=20, env={**shutil.os.environ, **env})
        assert result.returncode != 0
        assert "--trusted-proxy" in result.stderr and value in result.stderr and says in result.stderr, result.stderr
