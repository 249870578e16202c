"""Signaling over TLS (wss://): agoraish-server with a certificate, a
`websockets` client, and engines that trust (or do not trust) the certificate."""
import asyncio
import json
import ssl
import subprocess
import threading

import pytest
import websockets

import agoraish
from media_client import APP, start_server
from support import SERVER_CLI


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for localhost and 127.0.0.1."""
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return str(cert), str(key)


@pytest.fixture
def tls_server(certificate):
    cert, key = certificate
    proc, url, _ = start_server(SERVER_CLI, "--port", "0", "--http-port", "off", "--accept-unknown-apps",
                                "--tls-cert", cert, "--tls-key", key)
    assert url.startswith("wss://"), f"the server did not report a wss:// URL: {url}"
    yield url
    proc.kill()
    proc.wait()


def test_a_websocket_client_joins_over_tls(tls_server, certificate):
    context = ssl.create_default_context(cafile=certificate[0])

    async def scenario():
        async with websockets.connect(tls_server + "/v1/signal", ssl=context) as ws:
            await ws.send(json.dumps({"v": 1, "type": "join", "id": 1, "app_id": APP, "channel": "tls", "uid": 7}))
            joined = json.loads(await ws.recv())
            assert joined["type"] == "joined" and joined["uid"] == 7
        # Plain WebSocket to the TLS port does not get a joined answer.
        with pytest.raises(Exception):
            async with websockets.connect(tls_server.replace("wss://", "ws://") + "/v1/signal", open_timeout=2) as ws:
                await ws.send("{}")
                await asyncio.wait_for(ws.recv(), 2)

    asyncio.run(scenario())


class Handler(agoraish.EventHandler):
    def __init__(self):
        self.joined = threading.Event()

    def on_join_channel_success(self, channel, uid, elapsed):
        self.joined.set()


def test_an_engine_joins_a_wss_server_it_trusts_and_not_one_it_does_not(tls_server, certificate, tmp_path):
    trusting, doubting = Handler(), Handler()
    a = agoraish.RtcEngine(APP, trusting, server_url=tls_server, log_file=str(tmp_path / "a.log"))
    b = agoraish.RtcEngine(APP, doubting, server_url=tls_server, log_file=str(tmp_path / "b.log"))
    try:
        a.set_parameters({"rtc.tls_ca_file": certificate[0]})
        assert a.get_parameter("rtc.tls_ca_file") == certificate[0]
        a.join_channel("", "secure", uid=1)
        b.join_channel("", "secure", uid=2)  # the system store does not know the self-signed certificate
        assert trusting.joined.wait(10)
        assert not doubting.joined.wait(1.5)
        assert b.get_connection_state() == agoraish.ConnectionState.CONNECTING
    finally:
        a.release()
        b.release()
