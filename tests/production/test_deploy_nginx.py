"""The VPS nginx site (deploy/nginx) run for real on loopback, in front of two fake web
processes: login GETs are never rate limited and POSTs get a page, not a bare 429;
/healthz answers over plain HTTP and is not retried on the other process; /static/
sends one Cache-Control header."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
pytestmark = pytest.mark.skipif(not NGINX, reason="nginx is not installed (make nginx)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Backend(BaseHTTPRequestHandler):
    hits: list[str]

    def _answer(self):
        self.hits.append(f"{self.command} {self.path}")
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        status = 503 if self.path == "/healthz" else 200
        body = b'{"status": "fail"}' if status == 503 else b"ok"
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args):
        pass


@pytest.fixture
def site(tmp_path):
    hits: list[str] = []
    handler = type("Backend", (_Backend,), {"hits": hits})
    servers = [ThreadingHTTPServer(("127.0.0.1", 0), handler) for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    http, https = _free_port(), _free_port()
    prefix = tmp_path / "nginx"
    (prefix / "snippets").mkdir(parents=True)
    (prefix / "static").mkdir()
    (prefix / "static" / "site.abc123.css").write_text("body{}")
    snippets = (("common.conf", "manillen-common.conf"), ("proxy.conf", "manillen-proxy.conf"))
    for name, target in snippets:
        text = (ROOT / "deploy" / "nginx" / name).read_text()
        text = text.replace("include snippets/", f"include {prefix}/snippets/")
        (prefix / "snippets" / target).write_text(text)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-keyout", str(prefix / "privkey.pem"),
         "-out", str(prefix / "fullchain.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    conf = (ROOT / "deploy" / "nginx" / "manillen.conf").read_text()
    conf = re.sub(r"server 127\.0\.0\.1:8001", f"server 127.0.0.1:{servers[0].server_port}", conf)
    conf = re.sub(r"server 127\.0\.0\.1:8002", f"server 127.0.0.1:{servers[1].server_port}", conf)
    conf = re.sub(r"listen \[::\]:\d+[^;]*;", "", conf)
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{http};")
    conf = conf.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{https} ssl;")
    conf = conf.replace("/etc/letsencrypt/live/manillen.example.org", str(prefix))
    conf = conf.replace("/srv/manillen/app/staticfiles/", f"{prefix}/static/")
    conf = conf.replace("include snippets/", f"include {prefix}/snippets/")
    (prefix / "site.conf").write_text(conf)
    (prefix / "nginx.conf").write_text(
        # As root, nginx's workers would run as nobody, who cannot read pytest's tmp dirs.
        ("user root;\n" if os.geteuid() == 0 else "")
        + f"pid {prefix}/nginx.pid;\nerror_log {prefix}/error.log;\ndaemon off;\n"
        "events {}\nhttp {\n  access_log off;\n"
        f"  client_body_temp_path {prefix}/body;\n  proxy_temp_path {prefix}/proxy;\n"
        f"  include {prefix}/site.conf;\n}}\n"
    )
    proc = subprocess.Popen(
        [NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", http), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None:
                raise AssertionError(proc.stdout.read().decode()) from None
            time.sleep(0.05)
    yield {"http": http, "https": https, "hits": hits}
    proc.terminate()
    proc.wait(timeout=10)
    for server in servers:
        server.shutdown()


def _request(url, method="GET", host="manillen.example.org"):
    import ssl

    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    data = b"username=a&password=b" if method == "POST" else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Host": host})
    opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context), _NoRedirect)
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_login_gets_are_free_and_a_post_flood_gets_a_page(site):
    url = f"https://127.0.0.1:{site['https']}/accounts/login/"
    assert {_request(url)[0] for _ in range(60)} == {200}  # a club evening behind one NAT
    statuses = [_request(url, "POST") for _ in range(45)]
    refused = [s for s in statuses if s[0] == 429]
    assert refused and len(statuses) - len(refused) >= 30
    status, headers, body = refused[0]
    assert "Te veel aanmeldpogingen" in body and headers["Content-Type"].startswith("text/html")


def test_healthz_over_plain_http_is_answered_and_not_retried(site):
    status, _, body = _request(f"http://127.0.0.1:{site['http']}/healthz")
    assert status == 503 and "fail" in body  # the check's own answer, not a 301 or a 502
    assert site["hits"].count("GET /healthz") == 1
    # Other plain-HTTP pages still go to https.
    assert _request(f"http://127.0.0.1:{site['http']}/")[0] == 301


def test_static_files_have_one_cache_control(site):
    status, headers, _ = _request(f"https://127.0.0.1:{site['https']}/static/site.abc123.css")
    assert status == 200
    assert headers.get_all("Cache-Control") == ["public, max-age=31536000, immutable"]
