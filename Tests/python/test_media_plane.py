"""The server's media plane: STUN binding, SRTP per participant, SSRC remapping,
forwarding to exactly the other participants of the channel, and drops that
are counted. Independent SRTP (pylibsrtp) and hand-built STUN on the client side."""
import asyncio
import json
import socket
import struct

import pytest
import websockets

from media_client import APP, bind_socket, consent_answer, read_metrics, rtp, srtp_session, start_server
from support import SERVER_CLI


def start(*extra):
    """agoraish-server with HTTP on a free port, any app id, and `extra`: (process, {"url": ..., "http": port})."""
    proc, url, http = start_server(SERVER_CLI, "--port", "0", "--http-port", "0", "--accept-unknown-apps", *extra)
    if http is None:
        proc.kill()
        proc.wait()
    assert http, "the server reported no HTTP port"
    return proc, {"url": url, "http": http}


@pytest.fixture
def server():
    proc, info = start("--media-workers", "2")
    yield info
    proc.kill()
    proc.wait()


def metrics(srv) -> dict:
    return read_metrics(srv["http"], timeout=5)


class Member:
    """A signaling connection plus a UDP socket with SRTP in both directions."""

    def __init__(self, ws, joined):
        self.ws = ws
        self.joined = joined
        media = joined["media"]
        self.tx = srtp_session(media["srtp_profile"], media["uplink_key"], outbound=True)
        self.rx = srtp_session(media["srtp_profile"], media["downlink_key"], outbound=False)
        self.server = (media["host"], media["port"])
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(2)
        self.media = media

    def bind(self):
        assert bind_socket(self.sock, self.media) == self.sock.getsockname()[1]

    def recv_rtp(self, timeout=2.0):
        self.sock.settimeout(timeout)
        while True:
            try:
                data, _ = self.sock.recvfrom(2048)
            except socket.timeout:
                return None
            answer = consent_answer(data, self.media["ice_pwd"])
            if answer is None:
                return self.rx.unprotect(data)
            self.sock.sendto(answer, self.server)  # a consent check (docs/media-plane.md)


async def join(url, uid, channel="media", profile=0, role=1):
    ws = await websockets.connect(url + "/v1/signal")
    await ws.send(json.dumps({"v": 1, "type": "join", "id": 1, "app_id": APP, "channel": channel, "uid": uid,
                              "profile": profile, "role": role}))
    while True:
        m = json.loads(await ws.recv())
        if m.get("id") == 1:
            assert m["type"] == "joined", m
            return Member(ws, m)


async def next_of_type(ws, kind, timeout=3):
    while True:
        m = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if m["type"] == kind:
            return m


def test_packets_reach_each_subscriber_srtp_protected_and_nobody_else(server):
    async def scenario():
        a = await join(server["url"], 1)
        b = await join(server["url"], 2)
        c = await join(server["url"], 3)
        outsider = await join(server["url"], 4, channel="elsewhere")
        for m in (a, b, c, outsider):
            m.bind()
        payload = b"opus-frame-\x00\x01\x02" * 4
        wire = a.tx.protect(rtp(1, 0xA1A1A1A1, payload))
        assert payload not in wire  # encrypted on the way in
        a.sock.sendto(wire, a.server)
        got = {}
        for name, m in (("b", b), ("c", c)):
            m.sock.settimeout(2)
            raw, _ = m.sock.recvfrom(2048)
            assert payload not in raw  # encrypted on the way out, with the subscriber's key
            got[name] = m.rx.unprotect(raw)
        assert got["b"][12:] == payload and got["c"][12:] == payload
        remapped = struct.unpack("!I", got["b"][8:12])[0]
        assert remapped != 0xA1A1A1A1 and remapped == struct.unpack("!I", got["c"][8:12])[0]
        added = await next_of_type(b.ws, "stream_added")
        assert added["uid"] == 1 and added["ssrc"] == remapped and added["payload_type"] == 111
        assert outsider.recv_rtp(timeout=0.5) is None
        assert a.recv_rtp(timeout=0.3) is None  # not echoed to the sender
        # A late joiner learns the existing stream in its joined reply.
        d = await join(server["url"], 5)
        # Audio streams name the server's RTX SSRC too (retransmissions to subscribers).
        listed = [x for x in d.joined["streams"] if x["ssrc"] == remapped]
        assert len(listed) == 1 and listed[0]["uid"] == 1 and listed[0]["payload_type"] == 111
        assert listed[0]["rtx_ssrc"] not in (0, remapped) and listed[0]["rtx_ssrc"] == added["rtx_ssrc"]

        before = metrics(server)
        a.sock.sendto(wire, a.server)  # replay
        forged = bytearray(a.tx.protect(rtp(2, 0xA1A1A1A1, payload)))
        forged[-1] ^= 0xFF
        a.sock.sendto(bytes(forged), a.server)  # bad tag
        stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        stranger.sendto(rtp(3, 7, payload), a.server)  # from an address nobody bound
        stranger.sendto(b"\x40garbage", a.server)
        assert b.recv_rtp(timeout=0.5) is None
        await asyncio.sleep(0.2)
        after = metrics(server)
        drops = lambda r: after[f'agoraish_media_drops_total{{reason="{r}"}}'] - before[f'agoraish_media_drops_total{{reason="{r}"}}']
        assert drops("replay") == 1
        assert drops("authentication") == 1
        assert drops("unknown_source") == 1
        assert drops("malformed") == 1
        assert after["agoraish_media_stun_bindings_total"] >= 4
        for m in (a, b, c, d, outsider):
            await m.ws.close()

    asyncio.run(scenario())


def test_audience_cannot_publish_but_receives(server):
    async def scenario():
        host = await join(server["url"], 10, channel="show", profile=1, role=1)
        viewer = await join(server["url"], 11, channel="show", profile=1, role=2)
        host.bind()
        viewer.bind()
        before = metrics(server)
        viewer.sock.sendto(viewer.tx.protect(rtp(1, 0xBBBB, b"nope")), viewer.server)
        assert host.recv_rtp(timeout=0.5) is None
        host.sock.sendto(host.tx.protect(rtp(1, 0xCCCC, b"show")), host.server)
        assert viewer.recv_rtp()[12:] == b"show"
        after = metrics(server)
        assert after['agoraish_media_drops_total{reason="not_publisher"}'] - \
            before['agoraish_media_drops_total{reason="not_publisher"}'] == 1
        # Becoming a broadcaster allows publishing.
        await viewer.ws.send(json.dumps({"v": 1, "type": "set_role", "id": 2, "role": 1}))
        await next_of_type(viewer.ws, "role_changed")
        # The media plane learns the new role from the signaling thread just after the
        # reply goes out: a packet sent at once may still be dropped, the next ones pass.
        got = None
        for seq in range(2, 22):
            viewer.sock.sendto(viewer.tx.protect(rtp(seq, 0xBBBB, b"now")), viewer.server)
            got = host.recv_rtp(timeout=0.1)
            if got is not None:
                break
        assert got is not None and got[12:] == b"now"
        await host.ws.close()
        await viewer.ws.close()

    asyncio.run(scenario())


def test_feedback_goes_back_to_the_publisher_with_its_own_ssrc(server):
    async def scenario():
        pub = await join(server["url"], 20, channel="fb")
        sub = await join(server["url"], 21, channel="fb")
        pub.bind()
        sub.bind()
        pub.sock.sendto(pub.tx.protect(rtp(1, 0xDEADBEEF, b"frame")), pub.server)
        remapped = struct.unpack("!I", sub.recv_rtp()[8:12])[0]
        # PLI (RFC 4585 §6.3.1): PT 206, FMT 1, sender SSRC, media SSRC.
        pli = struct.pack("!BBHII", 0x81, 206, 2, 0x5555, remapped)
        sub.sock.sendto(sub.tx.protect_rtcp(pli), sub.server)
        pub.sock.settimeout(2)
        raw, _ = pub.sock.recvfrom(2048)
        plain = pub.rx.unprotect_rtcp(raw)
        assert plain[1] == 206 and struct.unpack("!I", plain[8:12])[0] == 0xDEADBEEF
        await pub.ws.close()
        await sub.ws.close()

    asyncio.run(scenario())


def test_the_cm_hmac_profile_and_a_single_worker_forward_too():
    proc, srv = start("--srtp-profile", "AES_CM_128_HMAC_SHA1_80", "--media-workers", "1")
    try:
        async def scenario():
            a = await join(srv["url"], 1, channel="cm")
            b = await join(srv["url"], 2, channel="cm")
            assert a.media["srtp_profile"] == "AES_CM_128_HMAC_SHA1_80"
            a.bind()
            b.bind()
            a.sock.sendto(a.tx.protect(rtp(1, 0x77, b"cm-profile")), a.server)
            assert b.recv_rtp()[12:] == b"cm-profile"
            await a.ws.close()
            await b.ws.close()

        asyncio.run(scenario())
    finally:
        proc.kill()
        proc.wait()
