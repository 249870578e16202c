"""Data streams, encryption, media metadata and the packet observer (ABI 0.8)
end to end, from Python, through the embedded server.

- A reliable ordered stream delivers each message once, in order, with the
  sender's uid, the stream id and the sender's wall clock; audio metadata
  arrives beside it.
- The first messages a sender sends in a call keep their order too (they
  reach the receiver before the server has named the sender's stream).
- With AES_128_GCM2 and the same key and salt on both sides, messages
  arrive; a user with another key reports DATASTREAM_DECRYPTION_FAILURE and
  receives none.
- The header's limits reach Python as AgoraishError codes: -114 above 1024
  bytes, -115 past 30 messages or 6144 bytes in a second, -116 for a sixth
  stream, -113 outside a call, -2 for an unknown stream.
- Audio encrypted with AES_128_GCM2 is decrypted and decoded.
- A packet observer sees every audio payload and may replace it: one that
  scrambles what it sends and one that unscrambles what it receives hand on
  the payloads as they were; video metadata travels with its pictures.
- After the call, sending is -113.

Every wait is on a condition variable; the peers start sending once each
has seen the other join (on_user_joined).
"""

from __future__ import annotations

import array
import math
import threading
import time
from typing import Any, Callable, List, Tuple

import pytest

import agoraish
from agoraish import AgoraishError, EncryptionErrorType, EncryptionMode, ErrorCode
from support import TIMEOUT

APP_ID = "0123456789abcdef0123456789abcdef"
KEY = "0123456789abcdef0123456789abcdef"
SALT = bytes(range(1, 33))


class Peer(agoraish.EventHandler):
    """Records one engine's channel and data events, in order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.events: List[Tuple[str, tuple]] = []
        self.cond = threading.Condition()

    def _add(self, name: str, *args: Any) -> None:
        with self.cond:
            self.events.append((name, args))
            self.cond.notify_all()

    def on_join_channel_success(self, channel, uid, elapsed):
        self._add("joined", uid)

    def on_leave_channel(self, stats):
        self._add("left")

    def on_user_joined(self, uid, elapsed):
        self._add("user_joined", uid)

    def on_stream_message(self, uid, stream_id, data, sent_ts):
        self._add("message", uid, stream_id, data, sent_ts)

    def on_stream_message_error(self, uid, stream_id, code, missed, cached):
        self._add("message_error", uid, stream_id, code, missed, cached)

    def on_encryption_error(self, error_type):
        self._add("encryption_error", error_type)

    def on_audio_metadata_received(self, uid, metadata):
        self._add("audio_metadata", uid, metadata)

    def on_first_remote_audio_decoded(self, uid, elapsed):
        self._add("audio_decoded", uid)

    def named(self, name: str) -> List[tuple]:
        with self.cond:
            return [args for n, args in self.events if n == name]

    def wait_until(self, what: str, done: Callable[[], bool], timeout: float = TIMEOUT) -> None:
        with self.cond:
            ok = self.cond.wait_for(done, timeout)
            events = list(self.events)
        assert ok, f"{self.name}: no {what} in {timeout} s; events: {events}"

    def wait_for_message(self, data: bytes, timeout: float = TIMEOUT) -> None:
        self.wait_until(f"message {data!r}", lambda: any(a[2] == data for n, a in self.events if n == "message"),
                        timeout)

    def messages(self) -> List[bytes]:
        return [args[2] for args in self.named("message")]


def join_all(engines: List[agoraish.RtcEngine], peers: List[Peer], channel: str) -> None:
    """Joins every engine (uids 1, 2, ...) and waits until each has seen all the others."""
    for uid, engine in enumerate(engines, start=1):
        engine.join_channel(None, channel, uid=uid)
    count = len(engines) - 1
    for peer in peers:
        peer.wait_until(f"{count} users joined", lambda p=peer: len(p.named("user_joined")) >= count)


def expect_error(code: int, call: Callable[..., Any], *args: Any) -> None:
    with pytest.raises(AgoraishError) as error:
        call(*args)
    assert error.value.code == code, error.value


@pytest.fixture
def two(channel_server, make_engine) -> Tuple[List[agoraish.RtcEngine], List[Peer]]:
    """Two engines on the server, not yet joined."""
    peers = [Peer("a"), Peer("b")]
    engines = [make_engine(p, app_id=APP_ID, server_url=channel_server.url) for p in peers]
    return engines, peers


def test_a_reliable_ordered_stream_delivers_each_message_once_in_order(two):
    (a, b), (pa, pb) = two
    join_all([a, b], [pa, pb], "ordered")
    stream = a.create_data_stream(reliable=True, ordered=True)
    assert 1 <= stream <= 255
    # The first message of the call names a's stream at b; the rest follow it
    # (test_the_first_messages_of_a_call_keep_their_order sends without it).
    a.send_stream_message(stream, b"hello")
    pb.wait_for_message(b"hello")

    before = time.time() * 1000
    sent = [b"message %02d " % i + bytes(range(i)) for i in range(20)]
    for message in sent:
        a.send_stream_message(stream, message)
    a.send_audio_metadata(b"\x00metadata\xff")
    a.send_stream_message(stream, bytearray(b"end"))  # any bytes-like object
    pb.wait_for_message(b"end")
    after = time.time() * 1000

    got = pb.named("message")
    assert [m[2] for m in got] == [b"hello", *sent, b"end"], "each message once, in order"
    assert all(m[0] == 1 and m[1] == stream for m in got), "the sender's uid and its stream id"
    assert all(before - 1000 <= m[3] <= after + 1000 for m in got[1:]), "sent_ts is the sender's wall clock (ms)"
    pb.wait_until("audio metadata", lambda: pb.named("audio_metadata"))
    assert pb.named("audio_metadata") == [(1, b"\x00metadata\xff")]
    assert not pb.named("message_error") and not pb.named("encryption_error")
    assert not pa.named("message") and not pa.named("audio_metadata"), "nothing comes back to the sender"


def test_the_first_messages_of_a_call_keep_their_order(channel_server, make_engine):
    # A sender's first packets reach the receiver before the server's
    # stream_added names their owner. Messages a few ms apart straddle that
    # moment; three calls make sure one of them does.
    for attempt in range(3):
        peers = [Peer("a"), Peer("b")]
        a, b = (make_engine(p, app_id=APP_ID, server_url=channel_server.url) for p in peers)
        join_all([a, b], peers, f"first-messages-{attempt}")
        stream = a.create_data_stream(reliable=True, ordered=True)
        sent = [b"m%02d" % i for i in range(20)]
        for message in sent:
            a.send_stream_message(stream, message)
            time.sleep(0.003)
        a.send_stream_message(stream, b"end")
        peers[1].wait_until("the last message", lambda: b"end" in peers[1].messages(), 10.0)
        assert peers[1].messages() == [*sent, b"end"], f"attempt {attempt}"
        a.release()
        b.release()


def test_gcm2_encryption_with_one_key_delivers_and_another_key_reports_errors(channel_server, make_engine):
    peers = [Peer("a"), Peer("b"), Peer("c")]
    a, b, c = (make_engine(p, app_id=APP_ID, server_url=channel_server.url) for p in peers)
    pa, pb, pc = peers
    a.enable_encryption(True, EncryptionMode.AES_128_GCM2, KEY, SALT)
    b.enable_encryption(True, EncryptionMode.AES_128_GCM2, KEY.encode(), bytearray(SALT))
    c.enable_encryption(True, EncryptionMode.AES_128_GCM2, "another key", SALT)
    join_all([a, b, c], peers, "encrypted")

    stream = a.create_data_stream(True, True)
    a.send_stream_message(stream, b"first")
    pb.wait_for_message(b"first")
    sent = [b"secret %d" % i for i in range(10)]
    for message in sent:
        a.send_stream_message(stream, message)
    pb.wait_for_message(sent[-1])
    assert pb.messages() == [b"first", *sent]
    assert not pb.named("encryption_error") and not pa.named("encryption_error")

    pc.wait_until("an encryption error", lambda: pc.named("encryption_error"))
    assert pc.named("encryption_error")[0] == (EncryptionErrorType.DATASTREAM_DECRYPTION_FAILURE,)
    assert isinstance(pc.named("encryption_error")[0][0], EncryptionErrorType)
    # What b has, c had too (one server forwards both copies): it dropped them.
    assert pc.messages() == []


def test_limits_reach_python_as_error_codes(two, make_engine, channel_server):
    (a, b), (pa, pb) = two
    # Outside a call: streams can be created (five), nothing can be sent.
    outside = make_engine(Peer("outside"), app_id=APP_ID, server_url=channel_server.url)
    ids = [outside.create_data_stream(i % 2 == 0, i < 3) for i in range(4)]
    ids.append(outside.create_data_stream_with_config(sync_with_audio=True, ordered=False))
    assert len(set(ids)) == 5 and all(1 <= i <= 255 for i in ids)
    expect_error(-116, outside.create_data_stream, True, True)
    expect_error(-116, outside.create_data_stream_with_config, False, True)
    expect_error(-113, outside.send_stream_message, ids[0], b"x")
    expect_error(-113, outside.send_audio_metadata, b"x")
    expect_error(-114, outside.send_stream_message, ids[0], bytes(1025))  # the size is checked first
    expect_error(-2, outside.send_stream_message, ids[0], b"")
    expect_error(-2, outside.send_audio_metadata, bytes(1025))
    with pytest.raises(TypeError):
        outside.send_stream_message(ids[0], "text")
    with pytest.raises(AgoraishError) as error:
        outside.create_data_stream(True, True)
    assert error.value.error_code == ErrorCode.TOO_MANY_DATA_STREAMS

    join_all([a, b], [pa, pb], "limits")
    stream = a.create_data_stream(True, True)
    expect_error(-2, a.send_stream_message, 255 if stream != 255 else 254, b"x")  # an unknown stream
    expect_error(-2, a.send_stream_message, stream, b"")
    with pytest.raises(AgoraishError) as error:
        a.send_stream_message(stream, bytes(1025))
    assert error.value.code == -114 and error.value.error_code == ErrorCode.SIZE_TOO_LARGE
    # 6144 bytes in a second: six messages of 1024, then nothing more.
    for i in range(6):
        a.send_stream_message(stream, bytes([i]) * 1024)
    with pytest.raises(AgoraishError) as error:
        a.send_stream_message(stream, b"x")
    assert error.value.code == -115 and error.value.error_code == ErrorCode.BITRATE_LIMIT
    pb.wait_until("six messages", lambda: len(pb.messages()) >= 6)
    # Each once (their order: test_the_first_messages_of_a_call_keep_their_order).
    assert sorted(pb.messages()) == [bytes([i]) * 1024 for i in range(6)]

    # 30 messages in a second, then nothing more (b's own count).
    other = b.create_data_stream(False, False)
    for i in range(30):
        b.send_stream_message(other, b"%d" % i)
    expect_error(-115, b.send_stream_message, other, b"30")

    # Five streams in a call, the sixth refused; leaving ends them.
    for _ in range(4):
        a.create_data_stream(False, True)
    expect_error(-116, a.create_data_stream, True, True)
    a.leave_channel()
    pa.wait_until("the leave", lambda: pa.named("left"))
    expect_error(-113, a.send_stream_message, stream, b"after the call")  # no call, and the stream ended with it
    assert 1 <= a.create_data_stream(True, True) <= 255


def test_sending_after_the_call_is_refused(two):
    (a, b), (pa, pb) = two
    join_all([a, b], [pa, pb], "after")
    a.leave_channel()
    pa.wait_until("the leave", lambda: pa.named("left"))
    stream = a.create_data_stream(True, True)
    expect_error(-113, a.send_audio_metadata, b"after the call")
    expect_error(-113, a.send_stream_message, stream, b"after the call")


def test_gcm2_encrypted_audio_is_decoded(two):
    (a, b), (pa, pb) = two
    for engine in (a, b):
        engine.enable_encryption(True, EncryptionMode.AES_128_GCM2, KEY, SALT)
    a.set_external_audio_source(True, 16000, 1)
    join_all([a, b], [pa, pb], "encrypted-audio")
    push_audio(a, tone(16000, 0.6))
    pb.wait_until("decoded audio", lambda: pb.named("audio_decoded"), 3.0)
    assert not pb.named("encryption_error")


def push_audio(engine: agoraish.RtcEngine, samples: array.array, rate: int = 16000) -> None:
    """Pushes `samples` in 20 ms frames, in real time as a capture device would."""
    frame = rate // 50
    start = time.monotonic()
    for k in range(len(samples) // frame):
        engine.push_external_audio_frame(samples[k * frame:(k + 1) * frame])
        delay = start + (k + 1) * 0.02 - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def tone(rate: int, seconds: float) -> array.array:
    return array.array("h", (int(8000 * math.sin(2 * math.pi * 440 * i / rate)) for i in range(int(rate * seconds))))


def test_a_packet_observer_sees_and_replaces_payloads_and_metadata_travels_with_video(two):
    (a, b), (pa, pb) = two
    lock = threading.Lock()
    sent: List[bytes] = []
    arrived: List[bytes] = []
    restored: List[bytes] = []

    def scramble(payload: bytes) -> bytes:
        with lock:
            sent.append(payload)
        return bytes(x ^ 0x5A for x in payload) + b"tag"  # 3 bytes longer (64 are allowed)

    def unscramble(payload: bytes) -> bytes:
        plain = bytes(x ^ 0x5A for x in payload[:-3])
        with lock:
            arrived.append(payload)
            restored.append(plain)
        return plain

    a.register_packet_observer(agoraish.PacketObserver(on_send_audio=scramble))
    b.register_packet_observer(agoraish.PacketObserver(on_receive_video=lambda payload: payload))
    b.register_packet_observer(agoraish.PacketObserver(on_receive_audio=unscramble))  # replaces the first

    stamps: List[int] = []
    received: List[Tuple[int, bytes, int]] = []
    metadata_arrived = threading.Event()

    def on_metadata(uid: int, data: bytes, timestamp_ms: int) -> None:
        received.append((uid, data, timestamp_ms))
        metadata_arrived.set()

    a.register_media_metadata_observer(agoraish.MetadataObserver(
        max_size=32, on_ready_to_send=lambda ts: stamps.append(ts) or b"picture %d" % ts))
    b.register_media_metadata_observer(agoraish.MetadataObserver(on_received=on_metadata))

    a.set_external_audio_source(True, 16000, 1)
    a.enable_video()
    a.set_external_video_source(True)
    join_all([a, b], [pa, pb], "observed")

    samples = tone(16000, 1.0)
    y, uv = bytes(range(64)) * 48, bytes(32 * 24)
    for k in range(10):  # 1 s of audio in 20 ms frames, a picture every 100 ms
        a.push_external_video_frame(64, 48, y, uv, uv, timestamp=10_000 + k * 100)
        push_audio(a, samples[k * 1600:(k + 1) * 1600])
    pb.wait_until("decoded audio", lambda: pb.named("audio_decoded"))
    assert metadata_arrived.wait(TIMEOUT), "no metadata arrived"

    with lock:
        assert len(sent) >= 10 and len(restored) >= 10, (len(sent), len(restored))
        assert all(p.endswith(b"tag") for p in arrived), "the scrambled payloads went on the wire"
        assert set(restored) <= set(sent), "b handed on what a sent"
    assert stamps == sorted(stamps) and len(stamps) == 10, stamps
    assert all(uid == 1 and data == b"picture %d" % ts and ts in stamps for uid, data, ts in received), received

    a.register_packet_observer(None)
    b.register_media_metadata_observer(None)
