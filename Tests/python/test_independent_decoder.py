"""What the engine sends, checked with a decoder that is not the engine's own.

A publisher engine (Python binding, embedded channel server, any app id
without a token) pushes 320x240 pictures through an external source, each
with its number drawn as 8 bars (test_video.py's pictures), encoded as VP8
or VP9. A raw subscriber written here (no engine: WebSocket signaling, a
STUN-bound UDP socket and pylibsrtp, as in test_media_plane.py) receives the
forwarded video RTP, reads the payload descriptors of RFC 7741 (VP8) and
RFC 9628 (VP9) with its own parser, puts the packets in sequence order,
assembles the frames and writes them to an IVF file. FFmpeg's native
decoders (``-c:v vp8`` / ``-c:v vp9``, not libvpx, which is what the engine
encodes with) must decode every frame without a message, and the numbers
read back from the decoded pictures must be the pushed ones, in order.

The checks of the stream itself (picture IDs, marker and B/E bits, keyframe
flags against the bitstream, the VP9 scalability structure, frame sizes)
are collected as a list of violations that must stay empty.

The last tests run the C demo (build/examples/demo_call, built by
``make hosts``) in a temporary directory and check the received.y4m and
received.wav it writes with ffprobe and ffmpeg.

Every wait is on a condition with a generous timeout; the only sleeps pace
the pusher (real time, 15 pictures per second).
"""

from __future__ import annotations

import base64
import contextlib
import inspect
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

import agoraish

from support import ROOT, library_path
from test_video import Events, Pusher, luma_psnr, number_of, picture

pylibsrtp = pytest.importorskip("pylibsrtp")
websockets_sync = pytest.importorskip("websockets.sync.client")

from media_client import bind_socket, consent_answer, stun_binding_request  # noqa: E402  (needs websockets)

APP = "0123456789abcdef0123456789abcdef"
PUBLISHER, SUBSCRIBER = 1, 2
WIDTH, HEIGHT = 320, 240
FPS = 15
BITRATE = 600
#: Pictures pushed once video flows; at least 80 % of them must decode.
MEASURED = 45
#: How long any wait may take, in seconds.
TIMEOUT = 20.0
#: The RTP clock of video.
CLOCK = 90000
#: The least luma PSNR of a decoded picture against the pushed one, in dB (test_video.py
#: asks the same of the engine's own decoder).
MIN_PSNR = 30.0
#: Bytes of one decoded I420 picture.
PICTURE_BYTES = WIDTH * HEIGHT * 3 // 2

FFMPEG = shutil.which("ffmpeg")
FFPROBE = shutil.which("ffprobe")
needs_ffmpeg = pytest.mark.skipif(not FFMPEG or not FFPROBE,
                                  reason="ffmpeg and ffprobe are not installed (scripts/setup.sh installs them)")


@dataclass(frozen=True)
class Codec:
    name: str          # the FFmpeg decoder forced with -c:v
    codec_type: int    # agoraish_video_codec_type
    payload_type: int  # RTP payload type the engine sends
    fourcc: bytes      # IVF


VP8 = Codec("vp8", 1, 96, b"VP80")
VP9 = Codec("vp9", 5, 98, b"VP90")


# --------------------------------------------------------------------------
# RTP
# --------------------------------------------------------------------------


@dataclass
class RtpPacket:
    seq: int
    timestamp: int
    marker: bool
    payload_type: int
    ssrc: int
    payload: bytes
    ext_seq: int = 0  # the sequence number unwrapped to 64 bits


def parse_rtp(data: bytes) -> RtpPacket:
    """An RTP packet (RFC 3550 §5.1): CSRCs, header extension and padding skipped."""
    if len(data) < 12:
        raise ValueError(f"RTP packet of {len(data)} bytes")
    b0, b1, seq, timestamp, ssrc = struct.unpack_from("!BBHII", data)
    if b0 >> 6 != 2:
        raise ValueError(f"RTP version {b0 >> 6}")
    offset = 12 + 4 * (b0 & 0x0F)
    if b0 & 0x10:  # X: one header extension
        if len(data) < offset + 4:
            raise ValueError("truncated RTP header extension")
        words = struct.unpack_from("!H", data, offset + 2)[0]
        offset += 4 + 4 * words
    end = len(data)
    if b0 & 0x20:  # P: padding, its count in the last byte
        end -= data[-1]
    if offset > end:
        raise ValueError("RTP header longer than the packet")
    return RtpPacket(seq, timestamp, bool(b1 & 0x80), b1 & 0x7F, ssrc, bytes(data[offset:end]))


# --------------------------------------------------------------------------
# Payload descriptors: RFC 7741 (VP8) and RFC 9628 (VP9)
# --------------------------------------------------------------------------


@dataclass
class Descriptor:
    length: int                        # bytes before the codec payload
    start: bool                        # VP8: S=1 and PID=0; VP9: B
    end: Optional[bool] = None         # VP9: E (VP8 has none: the marker bit ends a frame)
    picture_id: Optional[int] = None
    long_picture_id: bool = False      # 15 bits (M=1) rather than 7
    predicted: Optional[bool] = None   # VP9: P
    scalability: Optional[Dict[str, Any]] = None  # VP9: the SS when V=1
    notes: List[str] = field(default_factory=list)  # what a sender must not do, seen in this descriptor


class Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def u8(self) -> int:
        if self.at >= len(self.data):
            raise ValueError("payload descriptor truncated")
        self.at += 1
        return self.data[self.at - 1]

    def u16(self) -> int:
        return self.u8() << 8 | self.u8()


def _picture_id(r: Reader, d: Descriptor) -> None:
    first = r.u8()
    if first & 0x80:  # M: 15 bits
        d.picture_id = (first & 0x7F) << 8 | r.u8()
        d.long_picture_id = True
    else:
        d.picture_id = first


def parse_vp8_descriptor(payload: bytes) -> Descriptor:
    """RFC 7741 §4.2: X R N S R PID, then (X) I L T K RSV, PictureID (7/15 bits), TL0PICIDX, TID|Y|KEYIDX."""
    r = Reader(payload)
    b0 = r.u8()
    d = Descriptor(length=0, start=bool(b0 & 0x10) and b0 & 0x07 == 0)
    if b0 & 0x48:
        d.notes.append(f"reserved bits of the first octet set ({b0:#04x})")
    if b0 & 0x80:  # X
        x = r.u8()
        if x & 0x0F:
            d.notes.append(f"RSV bits of the extension octet set ({x:#04x})")
        if x & 0x80:  # I
            _picture_id(r, d)
        if x & 0x40:  # L: TL0PICIDX
            r.u8()
        if x & 0x30:  # T or K: TID|Y|KEYIDX
            r.u8()
    d.length = r.at
    if d.length >= len(payload):
        raise ValueError("VP8 payload descriptor with no payload after it")
    return d


def parse_vp9_descriptor(payload: bytes) -> Descriptor:
    """RFC 9628 §4.2: I P L F B E V Z, PictureID, layer indices (+TL0PICIDX when F=0),
    up to three P_DIFF when F=1 and P=1, then the scalability structure when V=1."""
    r = Reader(payload)
    b0 = r.u8()
    flexible = bool(b0 & 0x10)
    d = Descriptor(length=0, start=bool(b0 & 0x08), end=bool(b0 & 0x04), predicted=bool(b0 & 0x40))
    if b0 & 0x80:  # I
        _picture_id(r, d)
    if b0 & 0x20:  # L: TID U SID D, and TL0PICIDX in non-flexible mode
        r.u8()
        if not flexible:
            r.u8()
    if flexible and d.predicted:  # P_DIFF|N, at most three
        for count in range(1, 4):
            if not r.u8() & 0x01:
                break
        else:
            raise ValueError("more than three VP9 reference indices")
    if b0 & 0x02:  # V: scalability structure (RFC 9628 §4.2.1)
        s = r.u8()
        layers = (s >> 5) + 1
        ss: Dict[str, Any] = {"layers": layers, "sizes": [], "group": None}
        if s & 0x10:  # Y: a size per spatial layer
            ss["sizes"] = [(r.u16(), r.u16()) for _ in range(layers)]
        if s & 0x08:  # G: the picture group
            group = []
            for _ in range(r.u8()):
                entry = r.u8()
                group.append((entry >> 5, [r.u8() for _ in range(entry >> 2 & 0x03)]))
            ss["group"] = group
        d.scalability = ss
    d.length = r.at
    if d.length >= len(payload):
        raise ValueError("VP9 payload descriptor with no payload after it")
    return d


def parse_descriptor(codec: Codec, payload: bytes) -> Descriptor:
    return parse_vp8_descriptor(payload) if codec is VP8 else parse_vp9_descriptor(payload)


# --------------------------------------------------------------------------
# The bitstreams, as far as the checks need them
# --------------------------------------------------------------------------


class Bits:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def bit(self) -> int:
        if self.at >= 8 * len(self.data):
            raise ValueError("VP9 frame header truncated")
        value = self.data[self.at >> 3] >> (7 - (self.at & 7)) & 1
        self.at += 1
        return value

    def bits(self, n: int) -> int:
        value = 0
        for _ in range(n):
            value = value << 1 | self.bit()
        return value


def vp8_frame_info(frame: bytes) -> Dict[str, Any]:
    """RFC 6386 §9.1: the frame tag (P bit 0 = keyframe, show_frame) and, on
    keyframes, the start code and the size."""
    if len(frame) < 3:
        raise ValueError(f"VP8 frame of {len(frame)} bytes")
    tag = frame[0] | frame[1] << 8 | frame[2] << 16
    info: Dict[str, Any] = {"key": tag & 1 == 0, "shown": bool(tag >> 4 & 1), "size": None}
    if info["key"]:
        if len(frame) < 10 or frame[3:6] != b"\x9d\x01\x2a":
            raise ValueError(f"VP8 keyframe without its start code: {frame[:10].hex()}")
        width, height = struct.unpack_from("<HH", frame, 6)
        info["size"] = (width & 0x3FFF, height & 0x3FFF)
    return info


def vp9_frames_of(chunk: bytes) -> List[bytes]:
    """The frames of a VP9 chunk: those its superframe index lists, else the chunk itself."""
    last = chunk[-1]
    if last & 0xE0 == 0xC0:
        count, size_bytes = (last & 0x07) + 1, (last >> 3 & 0x03) + 1
        index = 2 + size_bytes * count
        if len(chunk) >= index and chunk[-index] == last:
            frames, at = [], 0
            for i in range(count):
                start = len(chunk) - index + 1 + i * size_bytes
                size = int.from_bytes(chunk[start:start + size_bytes], "little")
                frames.append(chunk[at:at + size])
                at += size
            return frames
    return [chunk]


def vp9_frame_info(frame: bytes) -> Dict[str, Any]:
    """The start of the uncompressed header (VP9 bitstream §6.2): keyframe,
    shown, and the size of keyframes."""
    b = Bits(frame)
    if b.bits(2) != 2:
        raise ValueError(f"no VP9 frame marker: {frame[:4].hex()}")
    profile = b.bit() | b.bit() << 1
    if profile == 3:
        b.bit()
    if b.bit():  # show_existing_frame
        return {"key": False, "shown": True, "size": None}
    key = b.bit() == 0
    info: Dict[str, Any] = {"key": key, "shown": bool(b.bit()), "size": None}
    b.bit()  # error_resilient_mode
    if key:
        if b.bits(24) != 0x498342:
            raise ValueError("VP9 keyframe without its sync code")
        if profile >= 2:
            b.bit()  # ten_or_twelve_bit
        if b.bits(3) != 7:  # color_space other than sRGB
            b.bit()  # color_range
            if profile in (1, 3):
                b.bits(3)
        elif profile in (1, 3):
            b.bit()
        info["size"] = (b.bits(16) + 1, b.bits(16) + 1)
    return info


# --------------------------------------------------------------------------
# The raw subscriber
# --------------------------------------------------------------------------


class RawSubscriber:
    """A channel member without an engine: signaling over WebSocket (join, pings),
    a STUN-bound UDP socket, SRTP both ways with pylibsrtp. Keeps every RTP
    packet of the video payload type; asks for a keyframe (PLI) when it sees a
    sequence gap or starts in the middle of the stream."""

    def __init__(self, url: str, channel: str, uid: int, codec: Codec) -> None:
        self.codec = codec
        self._stack = contextlib.ExitStack()
        options: Dict[str, Any] = {"max_size": None, "open_timeout": TIMEOUT}
        if "proxy" in inspect.signature(websockets_sync.connect).parameters:
            options["proxy"] = None  # loopback, whatever the environment says
        self.ws = self._stack.enter_context(websockets_sync.connect(url + "/v1/signal", **options))
        self.ws.send(json.dumps({"v": 1, "type": "join", "id": 1, "app_id": APP, "channel": channel, "uid": uid,
                                 "profile": 0, "role": 1}))
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("id") == 1:
                assert message["type"] == "joined", message
                self.joined = message
                break
        media = self.joined["media"]
        self.media = media
        profile = {"AEAD_AES_128_GCM": pylibsrtp.Policy.SRTP_PROFILE_AEAD_AES_128_GCM,
                   "AES_CM_128_HMAC_SHA1_80": pylibsrtp.Policy.SRTP_PROFILE_AES128_CM_SHA1_80}[media["srtp_profile"]]
        self.tx = pylibsrtp.Session(pylibsrtp.Policy(key=base64.b64decode(media["uplink_key"]),
                                                     ssrc_type=pylibsrtp.Policy.SSRC_ANY_OUTBOUND,
                                                     srtp_profile=profile))
        self.rx = pylibsrtp.Session(pylibsrtp.Policy(key=base64.b64decode(media["downlink_key"]),
                                                     ssrc_type=pylibsrtp.Policy.SSRC_ANY_INBOUND,
                                                     srtp_profile=profile))
        self.server = (media["host"], media["port"])
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind(("127.0.0.1", 0))
        assert bind_socket(self.sock, media, timeout=4.0) == self.sock.getsockname()[1]

        self.cond = threading.Condition()
        self.packets: List[RtpPacket] = []   # the video packets, in arrival order
        self.other_payload_types: Dict[int, int] = {}
        self.streams: List[Dict[str, Any]] = list(self.joined.get("streams", []))
        self.counts = {"rtcp": 0, "stun": 0, "unprotect_failed": 0, "malformed": 0, "gaps": 0, "plis": 0}
        self.errors: List[BaseException] = []
        self.last_packet_at = 0.0
        self._highest: Optional[int] = None
        self._video_ssrc: Optional[int] = None
        self._last_pli = 0.0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._media_loop, name="raw-subscriber-media", daemon=True),
                         threading.Thread(target=self._signaling_loop, name="raw-subscriber-signaling", daemon=True)]
        for t in self._threads:
            t.start()

    # -- signaling: pings every keepalive_ms, stream_added recorded

    def _signaling_loop(self) -> None:
        interval = self.joined.get("keepalive_ms", 2000) / 1000
        next_ping = time.monotonic() + interval
        ping_id = 100
        try:
            while not self._stop.is_set():
                if time.monotonic() >= next_ping:
                    ping_id += 1
                    self.ws.send(json.dumps({"v": 1, "type": "ping", "id": ping_id}))
                    next_ping = time.monotonic() + interval
                try:
                    message = json.loads(self.ws.recv(timeout=0.2))
                except TimeoutError:
                    continue
                if message.get("type") == "stream_added":
                    with self.cond:
                        self.streams.append(message)
                        self.cond.notify_all()
        except BaseException as error:  # noqa: BLE001  (reported by the test)
            if not self._stop.is_set():
                with self.cond:
                    self.errors.append(error)
                    self.cond.notify_all()

    # -- media: SRTP unprotect, video packets kept, PLI on loss

    def _media_loop(self) -> None:
        self.sock.settimeout(0.2)
        next_binding = time.monotonic() + 2.0
        try:
            while not self._stop.is_set():
                if time.monotonic() >= next_binding:  # the keepalive of the binding
                    self.sock.sendto(stun_binding_request(self.media["ice_ufrag"], self.media["ice_pwd"]), self.server)
                    next_binding = time.monotonic() + 2.0
                try:
                    data, _ = self.sock.recvfrom(4096)
                except socket.timeout:
                    continue
                self._datagram(data)
        except BaseException as error:  # noqa: BLE001
            with self.cond:
                self.errors.append(error)
                self.cond.notify_all()

    def _datagram(self, data: bytes) -> None:
        if not data:
            return
        if data[0] < 4:
            self.counts["stun"] += 1
            answer = consent_answer(data, self.media["ice_pwd"])
            if answer is not None:
                self.sock.sendto(answer, self.server)
            return
        if len(data) > 1 and 192 <= data[1] <= 223:
            self.counts["rtcp"] += 1
            return
        try:
            plain = self.rx.unprotect(data)
        except Exception:  # noqa: BLE001  (pylibsrtp raises its own error types)
            self.counts["unprotect_failed"] += 1
            return
        try:
            packet = parse_rtp(plain)
        except ValueError:
            self.counts["malformed"] += 1
            return
        if packet.payload_type != self.codec.payload_type:
            self.other_payload_types[packet.payload_type] = self.other_payload_types.get(packet.payload_type, 0) + 1
            return
        want_keyframe = False
        if self._highest is None:
            packet.ext_seq = packet.seq
            self._video_ssrc = packet.ssrc
            want_keyframe = not self._starts_keyframe(packet)
        else:
            delta = (packet.seq - self._highest) & 0xFFFF
            packet.ext_seq = self._highest + delta if delta < 0x8000 else self._highest + delta - 0x10000
            if packet.ext_seq > self._highest + 1:
                self.counts["gaps"] += 1
                want_keyframe = True
        if self._highest is None or packet.ext_seq > self._highest:
            self._highest = packet.ext_seq
        if want_keyframe:
            self._request_keyframe()
        with self.cond:
            self.packets.append(packet)
            self.last_packet_at = time.monotonic()
            self.cond.notify_all()

    def _starts_keyframe(self, packet: RtpPacket) -> bool:
        try:
            d = parse_descriptor(self.codec, packet.payload)
        except ValueError:
            return False
        if not d.start:
            return False
        if self.codec is VP8:
            return packet.payload[d.length] & 0x01 == 0
        return d.predicted is False

    def _request_keyframe(self) -> None:
        """A PLI (RFC 4585 §6.3.1) for the video stream, at most one per 250 ms."""
        now = time.monotonic()
        if self._video_ssrc is None or now - self._last_pli < 0.25:
            return
        self._last_pli = now
        pli = struct.pack("!BBHII", 0x81, 206, 2, 0x5EB5C21B, self._video_ssrc)
        self.sock.sendto(self.tx.protect_rtcp(pli), self.server)
        self.counts["plis"] += 1

    # -- for the test

    def wait_for_packets(self, count: int, timeout: float = TIMEOUT) -> None:
        with self.cond:
            ok = self.cond.wait_for(lambda: len(self.packets) >= count or self.errors, timeout)
            assert not self.errors, f"the raw subscriber failed: {self.errors[0]!r}"
            assert ok, f"{len(self.packets)} video packets within {timeout} s, wanted {count}; " \
                       f"other payload types {self.other_payload_types}, counts {self.counts}"

    def wait_for_quiet(self, quiet: float = 0.8, timeout: float = 8.0) -> None:
        """Until no video packet has come for `quiet` seconds (or `timeout` passes)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while time.monotonic() < deadline:
                left = self.last_packet_at + quiet - time.monotonic()
                if left <= 0:
                    return
                self.cond.wait(left)

    def wait_for_stream(self, uid: int, timeout: float = TIMEOUT) -> Dict[str, Any]:
        with self.cond:
            def matching() -> List[Dict[str, Any]]:
                return [s for s in self.streams
                        if s.get("uid") == uid and s.get("payload_type") == self.codec.payload_type]

            self.cond.wait_for(lambda: matching() or self.errors, timeout)
            found = matching()
        assert found, f"no stream of uid {uid} with payload type {self.codec.payload_type}: {self.streams}"
        return found[0]

    def video_packets(self) -> List[RtpPacket]:
        with self.cond:
            return list(self.packets)

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(5)
        try:
            self.ws.send(json.dumps({"v": 1, "type": "leave", "id": 2}))
        except Exception:  # noqa: BLE001
            pass
        self._stack.close()
        self.sock.close()


# --------------------------------------------------------------------------
# Frames: from packets in sequence order to decodable frames
# --------------------------------------------------------------------------


@dataclass
class Frame:
    timestamp: int           # RTP timestamp, unwrapped
    data: bytes
    key: bool
    picture_id: Optional[int]
    long_picture_id: bool
    first_seq: int
    last_seq: int


def assemble(codec: Codec, packets: List[RtpPacket]) -> Tuple[List[Frame], List[str], Dict[str, int]]:
    """The complete frames in sequence order, the violations of the payload
    format seen on the way, and counts (duplicates, incomplete frames, frames
    skipped while waiting for a keyframe)."""
    violations: List[str] = []
    stats = {"duplicates": 0, "incomplete": 0, "skipped_until_keyframe": 0}

    def violation(text: str) -> None:
        if len(violations) < 40:
            violations.append(text)

    by_seq: Dict[int, RtpPacket] = {}
    for p in packets:
        if p.ext_seq in by_seq:
            stats["duplicates"] += 1
        by_seq[p.ext_seq] = p
    ordered = [by_seq[s] for s in sorted(by_seq)]

    frames: List[Frame] = []
    current: List[Tuple[RtpPacket, Descriptor]] = []

    def finish(parts: List[Tuple[RtpPacket, Descriptor]]) -> None:
        first, d0 = parts[0]
        seqs = [p.ext_seq for p, _ in parts]
        if seqs != list(range(seqs[0], seqs[0] + len(seqs))):
            stats["incomplete"] += 1
            return
        if len({p.timestamp for p, _ in parts}) != 1:
            violation(f"seq {seqs[0]}..{seqs[-1]}: one frame with several RTP timestamps")
        if len({d.picture_id for _, d in parts}) != 1:
            violation(f"seq {seqs[0]}..{seqs[-1]}: one frame with several picture IDs")
        if any(p.marker for p, _ in parts[:-1]):
            violation(f"seq {seqs[0]}..{seqs[-1]}: the marker bit before the end of the frame")
        if any(d.start for _, d in parts[1:]):
            violation(f"seq {seqs[0]}..{seqs[-1]}: a start bit inside the frame")
        if d0.picture_id is None:
            violation(f"seq {seqs[0]}: no picture ID")
        data = b"".join(p.payload[d.length:] for p, d in parts)
        if codec is VP9:
            if any(d.end for _, d in parts[:-1]):
                violation(f"seq {seqs[0]}..{seqs[-1]}: E set before the last packet")
            if len({d.predicted for _, d in parts}) != 1:
                violation(f"seq {seqs[0]}..{seqs[-1]}: P differs between the packets of a frame")
            if any(d.scalability for _, d in parts[1:]):
                violation(f"seq {seqs[0]}..{seqs[-1]}: a scalability structure after the first packet")
        try:
            infos = [vp8_frame_info(data)] if codec is VP8 else [vp9_frame_info(f) for f in vp9_frames_of(data)]
        except ValueError as error:
            violation(f"seq {seqs[0]}: {error}")
            return
        key = infos[0]["key"]
        for info in infos:
            if info["size"] is not None and info["size"] != (WIDTH, HEIGHT):
                violation(f"seq {seqs[0]}: a keyframe of {info['size']}, pushed {WIDTH}x{HEIGHT}")
        if codec is VP9:
            if d0.predicted == key:
                violation(f"seq {seqs[0]}: P={int(bool(d0.predicted))} on a {'key' if key else 'inter'} frame")
            ss = d0.scalability
            if key and ss is None:
                violation(f"seq {seqs[0]}: a keyframe without a scalability structure")
            if ss is not None and (ss["layers"] != 1 or ss["sizes"] not in ([], [(WIDTH, HEIGHT)])):
                violation(f"seq {seqs[0]}: scalability structure {ss}")
        frames.append(Frame(first.timestamp, data, key, d0.picture_id, d0.long_picture_id, seqs[0], seqs[-1]))

    for p in ordered:
        try:
            d = parse_descriptor(codec, p.payload)
        except ValueError as error:
            violation(f"seq {p.ext_seq}: {error}")
            current = []
            continue
        for note in d.notes:
            violation(f"seq {p.ext_seq}: {note}")
        if d.start:
            if current:
                stats["incomplete"] += 1  # no end seen
            current = [(p, d)]
        elif current:
            current.append((p, d))
        else:
            continue  # the middle of a frame whose start is missing
        ends = p.marker if codec is VP8 else bool(d.end)
        if codec is VP9 and bool(d.end) != p.marker:
            violation(f"seq {p.ext_seq}: E={int(bool(d.end))} with marker={int(p.marker)} (one spatial layer)")
        if ends:
            finish(current)
            current = []
    if current:
        stats["incomplete"] += 1

    # Unwrap the RTP timestamps (32 bits) along the frames.
    for a, b in zip(frames, frames[1:]):
        delta = (b.timestamp - a.timestamp) & 0xFFFFFFFF
        b.timestamp = a.timestamp + (delta if delta < 0x80000000 else delta - 0x100000000)

    # Decodable: from the first keyframe on, and after any gap again from a keyframe.
    decodable: List[Frame] = []
    for f in frames:
        joined_on = decodable and f.first_seq == decodable[-1].last_seq + 1
        if f.key or joined_on:
            if joined_on:
                prev = decodable[-1]
                if f.timestamp <= prev.timestamp:
                    violation(f"seq {f.first_seq}: RTP timestamp {f.timestamp} after {prev.timestamp}")
                if f.picture_id is not None and prev.picture_id is not None:
                    modulus = 1 << 15 if f.long_picture_id else 1 << 7
                    if f.long_picture_id != prev.long_picture_id or (f.picture_id - prev.picture_id) % modulus != 1:
                        violation(f"seq {f.first_seq}: picture ID {f.picture_id} after {prev.picture_id}")
            decodable.append(f)
        else:
            stats["skipped_until_keyframe"] += 1
    return decodable, violations, stats


def write_ivf(path: Path, codec: Codec, frames: List[Frame]) -> None:
    """An IVF file: the 32-byte DKIF header (time base 1/90000), then per frame
    a 12-byte header (size, 64-bit timestamp) and the frame."""
    base = frames[0].timestamp if frames else 0
    with open(path, "wb") as out:
        out.write(b"DKIF" + struct.pack("<HH4sHHIIII", 0, 32, codec.fourcc, WIDTH, HEIGHT, CLOCK, 1, len(frames), 0))
        for f in frames:
            out.write(struct.pack("<IQ", len(f.data), max(0, f.timestamp - base)))
            out.write(f.data)


def shown_frames(codec: Codec, frames: List[Frame]) -> int:
    """How many pictures the frames show (a VP9 chunk may carry hidden frames)."""
    if codec is VP8:
        return sum(1 for f in frames if vp8_frame_info(f.data)["shown"])
    return sum(1 for f in frames for part in vp9_frames_of(f.data) if vp9_frame_info(part)["shown"])


def decode(codec: Codec, ivf: Path) -> Tuple[subprocess.CompletedProcess, List[bytes]]:
    """FFmpeg's native decoder of `codec` over the IVF file: (the run, the luma plane of each picture)."""
    run = subprocess.run([FFMPEG, "-nostdin", "-v", "error", "-c:v", codec.name, "-i", str(ivf),
                          "-vsync", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"],
                         capture_output=True, timeout=120)
    out = run.stdout
    lumas = [out[i:i + WIDTH * HEIGHT] for i in range(0, len(out) - PICTURE_BYTES + 1, PICTURE_BYTES)]
    return run, lumas


# --------------------------------------------------------------------------
# The parsers themselves, on descriptors the engine does not send
# --------------------------------------------------------------------------


def test_the_descriptor_parsers_read_every_field():
    # VP8: X S PID=0, then I L T K, a 15-bit PictureID, TL0PICIDX, TID|Y|KEYIDX.
    d = parse_vp8_descriptor(bytes([0x90, 0xF0, 0x81, 0x23, 0x05, 0x40]) + b"\x10")
    assert (d.length, d.start, d.picture_id, d.long_picture_id, d.notes) == (6, True, 0x123, True, [])
    d = parse_vp8_descriptor(bytes([0x90, 0x80, 0x05]) + b"\x10")  # a 7-bit PictureID
    assert (d.length, d.picture_id, d.long_picture_id) == (3, 5, False)
    assert parse_vp8_descriptor(b"\x10\x00").length == 1  # no extension
    assert not parse_vp8_descriptor(b"\x11\x00").start  # S on partition 1 does not start the frame
    assert parse_vp8_descriptor(bytes([0xD8, 0x0F]) + b"\x00").notes == [
        "reserved bits of the first octet set (0xd8)", "RSV bits of the extension octet set (0x0f)"]
    # VP9, flexible mode: I P L F B, PictureID, TID/SID, three P_DIFF (N on the first two).
    d = parse_vp9_descriptor(bytes([0xF8, 0x80, 0x10, 0x22, 0x03, 0x05, 0x06]) + b"\x82")
    assert (d.length, d.start, d.end, d.predicted, d.picture_id) == (7, True, False, True, 16)
    # VP9, non-flexible: I L B V, 7-bit PictureID, layer indices and TL0PICIDX, then an SS
    # of two layers with their sizes and a picture group of two entries (one and two P_DIFF).
    ss = bytes([0x38, 0, 160, 0, 120, 1, 64, 0, 240, 2, 0x04, 0x01, 0x38, 0x01, 0x02])
    d = parse_vp9_descriptor(bytes([0xAE, 0x11, 0x00, 0x07]) + ss + b"\x82")
    assert (d.length, d.start, d.end, d.picture_id) == (4 + len(ss), True, True, 0x11)
    assert d.scalability == {"layers": 2, "sizes": [(160, 120), (320, 240)], "group": [(0, [1]), (1, [1, 2])]}
    d = parse_vp9_descriptor(bytes([0x8A, 0x80, 0x01, 0x10, 1, 64, 0, 240]) + b"\x82")  # the engine's keyframe start
    assert d.scalability == {"layers": 1, "sizes": [(320, 240)], "group": None} and d.length == 8
    for bad in (bytes([0x58, 0x03, 0x03, 0x03, 0x03, 0x00]),  # four P_DIFF
                bytes([0x8A, 0x80, 0x01, 0x10, 1, 64]),       # SS cut short
                bytes([0x08])):                               # nothing after the descriptor
        with pytest.raises(ValueError):
            parse_vp9_descriptor(bad)
    with pytest.raises(ValueError):
        parse_vp8_descriptor(bytes([0x90, 0x80]))
    # A VP9 superframe: two frames and their index (2-byte sizes).
    a, b = b"\x86" + bytes(4), b"\x87" + bytes(2)
    marker = 0xC0 | 1 << 3 | 1
    chunk = a + b + bytes([marker]) + struct.pack("<HH", len(a), len(b)) + bytes([marker])
    assert vp9_frames_of(chunk) == [a, b]
    assert vp9_frames_of(a) == [a]


# --------------------------------------------------------------------------
# The tests of the RTP stream
# --------------------------------------------------------------------------


def set_codec(engine: agoraish.RtcEngine, codec: Codec) -> None:
    """The encoder configuration with `codec`: through the binding (it passes any
    codec_type on), or else straight through the C function."""
    try:
        engine.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS, bitrate=BITRATE,
                                               codec_type=codec.codec_type)
        return
    except TypeError:
        pass
    from agoraish import _ffi
    import ctypes

    config = _ffi.VideoEncoderConfiguration()
    config.struct_size = ctypes.sizeof(_ffi.VideoEncoderConfiguration)
    config.width, config.height, config.frame_rate = WIDTH, HEIGHT, FPS
    config.bitrate, config.min_bitrate, config.codec_type = BITRATE, -1, codec.codec_type
    rc = _ffi.agoraish_engine_set_video_encoder_configuration(engine.handle, ctypes.byref(config))
    assert rc == 0, f"agoraish_engine_set_video_encoder_configuration with codec_type {codec.codec_type}: {rc}"


@needs_ffmpeg
@pytest.mark.parametrize("codec", [VP8, VP9], ids=["vp8", "vp9"])
def test_ffmpeg_decodes_what_the_engine_sends(codec, tmp_path):
    started = time.monotonic()
    server = agoraish.ChannelServer()
    server.start()
    subscriber: Optional[RawSubscriber] = None
    engine: Optional[agoraish.RtcEngine] = None
    pusher: Optional[Pusher] = None
    channel = f"decoder-{codec.name}"
    try:
        # The subscriber is bound before the publisher joins: it gets the first keyframe.
        subscriber = RawSubscriber(server.url, channel, SUBSCRIBER, codec)
        events = Events()
        engine = agoraish.RtcEngine(APP, events, server_url=server.url, log_file=str(tmp_path / "publisher.log"))
        set_codec(engine, codec)
        engine.enable_video()
        engine.set_external_video_source(True)
        engine.join_channel(None, channel, uid=PUBLISHER)
        events.wait_for("join", timeout=TIMEOUT)

        pusher = Pusher(engine)
        pusher.start()
        subscriber.wait_for_packets(1)
        first_measured = pusher.count()  # pictures from here on are measured
        assert first_measured + MEASURED < 256, f"{first_measured} pictures pushed before video flowed"
        pusher.wait_pushed(first_measured + MEASURED)
        pusher.stop()
        pushed = pusher.count()
        subscriber.wait_for_quiet()
        stream = subscriber.wait_for_stream(PUBLISHER)
        packets = subscriber.video_packets()
    finally:
        if pusher is not None:
            pusher.stop()
        if subscriber is not None:
            subscriber.close()
        if engine is not None:
            engine.release()
        server.release()
    received_at = time.monotonic()

    ssrcs = {p.ssrc for p in packets}
    assert ssrcs == {stream["ssrc"]}, f"video SSRCs {ssrcs}, stream_added said {stream}"
    frames, violations, stats = assemble(codec, packets)
    ivf = tmp_path / f"out-{codec.name}.ivf"
    write_ivf(ivf, codec, frames)
    run, lumas = decode(codec, ivf)
    decoded_at = time.monotonic()
    numbers = [number_of(luma, WIDTH) for luma in lumas]
    measured = [n for n in numbers if first_measured <= n < first_measured + MEASURED]
    psnr = [luma_psnr(luma, picture(n)[0]) for luma, n in zip(lumas, numbers)] or [0.0]
    summary = (f"{codec.name}: pushed {pushed} pictures ({first_measured} before video flowed), received "
               f"{len(packets)} packets, {len(frames)} decodable frames ({sum(f.key for f in frames)} keyframes), "
               f"assembly {stats}, subscriber {subscriber.counts}, decoded {len(lumas)} pictures, "
               f"numbers {numbers}; IVF kept in {ivf}")
    print(f"{summary}; luma PSNR {min(psnr):.1f} dB worst, {sum(psnr) / len(psnr):.1f} dB mean; "
          f"{received_at - started:.1f} s in the call, {decoded_at - received_at:.1f} s to decode")

    assert not violations, f"the stream breaks its payload format:\n" + "\n".join(violations) + f"\n{summary}"
    assert frames and frames[0].key, summary
    assert run.returncode == 0 and run.stderr == b"", \
        f"ffmpeg -c:v {codec.name} exit {run.returncode}: {run.stderr.decode(errors='replace')[-3000:]}\n{summary}"
    assert len(run.stdout) % PICTURE_BYTES == 0, f"{len(run.stdout)} bytes of {WIDTH}x{HEIGHT} I420 pictures"
    assert len(lumas) == shown_frames(codec, frames), f"every frame written decodes to a picture; {summary}"
    assert len(measured) >= 0.8 * MEASURED, f"{len(measured)} of the {MEASURED} measured pictures decoded; {summary}"
    assert all(b > a for a, b in zip(numbers, numbers[1:])), f"pictures out of order: {numbers}"
    assert set(numbers) <= set(range(pushed)), f"numbers never pushed: {sorted(set(numbers) - set(range(pushed)))}"
    # A decoder may hide damage (FFmpeg's VP8 decoder says nothing about a truncated
    # frame): each picture must also be the one pushed, at the quality of the bitrate.
    assert min(psnr) > MIN_PSNR, f"luma PSNR against the pushed pictures: worst {min(psnr):.1f} dB at picture " \
                                 f"{numbers[psnr.index(min(psnr))]}, mean {sum(psnr) / len(psnr):.1f} dB"


# --------------------------------------------------------------------------
# The C demo's files
# --------------------------------------------------------------------------

DEMO = ROOT / "build" / "examples" / "demo_call"


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory) -> Tuple[Path, subprocess.CompletedProcess]:
    """build/examples/demo_call run once in a temporary working directory, with the library under test."""
    if not DEMO.exists():
        pytest.skip(f"{DEMO.relative_to(ROOT)} is not built (make hosts builds it)")
    workdir = tmp_path_factory.mktemp("demo")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(library_path().parent), env.get("LD_LIBRARY_PATH")]))
    try:
        out = subprocess.run([str(DEMO)], cwd=str(workdir), env=env, capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"demo_call did not finish within 90 s: {error.stdout!r}") from None
    assert out.returncode == 0, f"demo_call exit {out.returncode}\n--- stdout\n{out.stdout}\n--- stderr\n{out.stderr}"
    return workdir / "demo-out", out


def ffprobe_streams(path: Path) -> List[Dict[str, str]]:
    run = subprocess.run([FFPROBE, "-v", "error", "-show_streams", str(path)], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0 and run.stderr == "", f"ffprobe {path.name}: exit {run.returncode}: {run.stderr}"
    streams: List[Dict[str, str]] = []
    for line in run.stdout.splitlines():
        if line == "[STREAM]":
            streams.append({})
        elif "=" in line and streams:
            key, value = line.split("=", 1)
            streams[-1][key] = value
    return streams


def ffmpeg_null(path: Path) -> Tuple[subprocess.CompletedProcess, int]:
    """`ffmpeg -v error -i path -f null -`, with the frames it decoded (from -progress)."""
    run = subprocess.run([FFMPEG, "-nostdin", "-v", "error", "-i", str(path), "-progress", "pipe:1", "-nostats",
                          "-f", "null", "-"], capture_output=True, text=True, timeout=120)
    frames = [int(m) for m in re.findall(r"^frame=(\d+)$", run.stdout, re.M)]
    return run, frames[-1] if frames else 0


@needs_ffmpeg
def test_demo_received_y4m_is_valid_video(demo_run):
    out_dir, out = demo_run
    y4m = out_dir / "received.y4m"
    assert y4m.exists(), f"no {y4m.name}; demo said:\n{out.stdout}"
    streams = ffprobe_streams(y4m)
    assert len(streams) == 1, streams
    s = streams[0]
    said = re.search(r"saw (\d+) pictures of (\d+)x(\d+)", out.stdout)
    assert said, out.stdout
    pictures, width, height = (int(g) for g in said.groups())
    assert (s["codec_type"], s["codec_name"]) == ("video", "rawvideo"), s
    assert (int(s["width"]), int(s["height"])) == (width, height) == (320, 240), (s, said.group(0))
    assert s["pix_fmt"] in ("yuv420p", "yuvj420p"), s
    run, frames = ffmpeg_null(y4m)
    assert run.returncode == 0 and run.stderr == "", f"ffmpeg exit {run.returncode}: {run.stderr[-3000:]}"
    assert frames > 10, f"{frames} frames decoded"
    assert frames == pictures, f"the file holds {frames} pictures, the demo says it wrote {pictures}"


@needs_ffmpeg
def test_demo_received_wav_is_valid_audio(demo_run):
    out_dir, out = demo_run
    wav = out_dir / "received.wav"
    assert wav.exists(), f"no {wav.name}; demo said:\n{out.stdout}"
    (s,) = ffprobe_streams(wav)
    assert (s["codec_type"], s["codec_name"], s["sample_rate"], s["channels"]) == \
        ("audio", "pcm_s16le", "48000", "1"), s
    assert float(s["duration"]) >= 3.0, s
    run, _ = ffmpeg_null(wav)
    assert run.returncode == 0 and run.stderr == "", f"ffmpeg exit {run.returncode}: {run.stderr[-3000:]}"
