"""The agoraish-server command line (docs/server.md, Command line): usage errors
found while the options are read, and the startup banner."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request
from pathlib import Path
from typing import List

import pytest

from media_client import start_server
from support import SERVER_CLI, TIMEOUT

pytestmark = pytest.mark.skipif(not SERVER_CLI.exists(), reason="needs `swift build --product agoraish-server`")

#: The usage-error exit status (a configuration error; the usage text follows the message).
USAGE_ERROR = 2


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> List[str]:
    """A self-signed certificate and its key for 127.0.0.1, as [cert.pem, key.pem]."""
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return [str(cert), str(key)]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """Runs the server with `args` after free ports and no HTTP; it must exit by itself."""
    try:
        return subprocess.run([str(SERVER_CLI), "--port", "0", "--http-port", "off", *args],
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:  # run() has killed it
        pytest.fail(f"agoraish-server {' '.join(args)} started instead of refusing its options")


@pytest.mark.parametrize("given, missing", [("--tls-cert", "--tls-key (tls.key)"),
                                            ("--tls-key", "--tls-cert (tls.certificate)")])
def test_one_tls_flag_without_the_other_is_a_usage_error(certificate, given, missing):
    out = run_cli(given, certificate[0] if given == "--tls-cert" else certificate[1])
    assert out.returncode == USAGE_ERROR, out
    assert f"{missing} is missing" in out.stderr and "usage: agoraish-server" in out.stderr, out.stderr


@pytest.mark.parametrize("key, missing", [("certificate", "tls.key"), ("key", "tls.certificate")])
def test_a_config_file_with_one_tls_file_is_a_usage_error(certificate, tmp_path: Path, key, missing):
    config = tmp_path / "server.json"
    config.write_text(json.dumps({"tls": {key: certificate[0] if key == "certificate" else certificate[1]}}))
    out = run_cli("--config", str(config))
    assert out.returncode == USAGE_ERROR, out
    assert f"({missing}) is missing" in out.stderr and "usage: agoraish-server" in out.stderr, out.stderr


def test_a_flag_completes_the_tls_pair_a_config_file_began(certificate, tmp_path: Path):
    config = tmp_path / "server.json"
    config.write_text(json.dumps({"tls": {"certificate": certificate[0]}}))
    proc, url, _ = start_server(SERVER_CLI, "--config", config, "--tls-key", certificate[1],
                                "--port", "0", "--http-port", "off")
    try:
        assert url.startswith("wss://127.0.0.1:"), url
    finally:
        proc.kill()
        proc.wait()


def _read_banner(proc: subprocess.Popen) -> str:
    """The startup banner of a running server (it may follow the `server_started` line)."""
    line = ""
    for _ in range(5):
        line = proc.stdout.readline().strip()
        if " listening on " in line:
            return line
    pytest.fail(f"no startup banner, last line {line!r}")


def _banner(*args) -> str:
    """The startup banner of the server with `args` (it is stopped after)."""
    proc = subprocess.Popen([str(SERVER_CLI), *(str(a) for a in args)], stdout=subprocess.PIPE, text=True)
    try:
        return _read_banner(proc)
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("how", ["flag", "config"])
def test_the_banner_shows_the_host_the_http_listener_binds(tmp_path: Path, how):
    http_host = "127.0.0.2"  # on Linux all of 127.0.0.0/8 is loopback
    if how == "flag":
        args = ["--http-host", http_host]
    else:
        config = tmp_path / "server.json"
        config.write_text(json.dumps({"listen": {"http_host": http_host}}))
        args = ["--config", str(config)]
    proc = subprocess.Popen([str(SERVER_CLI), "--host", "127.0.0.1", "--port", "0", "--http-port", "0", *args],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = _read_banner(proc)
        assert re.search(r"listening on ws://127\.0\.0\.1:\d+ ", line), line
        m = re.search(r"HTTP (http://[^/ ]+)/metrics$", line)
        assert m and m.group(1).startswith(f"http://{http_host}:"), line
        # The URL in the banner is the one that answers.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(m.group(1) + "/metrics", timeout=TIMEOUT) as reply:
            assert reply.status == 200
    finally:
        proc.kill()
        proc.wait()


def test_the_banner_shows_the_listen_host_without_an_http_host():
    line = _banner("--host", "127.0.0.1", "--port", "0", "--http-port", "0")
    assert re.search(r"listening on ws://127\.0\.0\.1:\d+ \(signaling /v1/signal\), "
                     r"HTTP http://127\.0\.0\.1:\d+/metrics$", line), line
    assert _banner("--port", "0", "--http-port", "off").endswith("HTTP off")
