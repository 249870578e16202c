#!/usr/bin/env python3
"""custom_video_source_push_multi.py — Agora's CustomVideoSourcePushMulti case
in Python: one engine sends two video tracks the host supplies, as two users of
one channel: a custom video track of pictures (encoded by the engine) and a
custom encoded video track of frames the host encoded itself.

    create_custom_video_track() -> join_channel_with_options(..., uid 1,
        ChannelMediaOptions(publish_custom_video_track=True, custom_video_track_id=raw))
    create_custom_encoded_video_track() -> join_channel_ex(RtcConnection(channel, 2),
        ChannelMediaOptions(publish_encoded_video_track=True, custom_video_track_id=encoded))
    -> push_external_video_frame_by_id(raw, ...) and
       push_external_encoded_video_frame(vp8, EncodedVideoFrameInfo(...), encoded) at 15 fps
    -> destroy_custom_video_track -> leave_channel_ex, leave_channel -> release

"local" pushes three seconds of 320x240 I420 pictures (a moving gradient) into
the custom video track, which its own connection (uid 1) encodes and sends,
and 160x120 VP8 frames it encodes itself with libvpx (through ctypes; Agora's
sample reads H.264 from a file) into the custom encoded video track, which a
second connection (uid 2) sends unchanged. "remote" renders both users
(setup_remote_video for each uid) and registers an encoded frame observer
(register_video_encoded_frame_observer), which sees every frame before it is
decoded: uid 2's arrive as local pushed them, byte for byte, first a keyframe.
Audio is off: neither connection publishes the microphone, and local's
connections receive nothing (ChannelMediaOptions).

Needs libvpx (libvpx.so.7 on Debian 12; the engine uses it too). Runs from a
checkout: it imports bindings/python and, unless AGORAISH_LIBRARY says
otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/custom_video_source_push_multi.py
"""
import ctypes
import ctypes.util
import sys
import threading
import time
from typing import Dict, List, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, has_left, is_joined, run_call, say, sleep_until

CHANNEL = "custom-video-source-push-multi"
RAW_UID, ENCODED_UID = 1, 2
RAW_W, RAW_H = 320, 240          # the pictures of the custom video track
ENC_W, ENC_H = 160, 120          # the frames of the custom encoded video track
FPS = 15
PUSHED = 45                      # three seconds
KEYFRAME_EVERY = 30              # receivers' keyframe requests do not reach the host: send one every 2 s
SETTLE_MS = 500                  # after the last push, for the last pictures to be rendered

# Both connections send no audio, leave the audio device alone and receive nothing.
QUIET = dict(publish_microphone_track=False, enable_audio_recording_or_playout=False, auto_subscribe_audio=False,
             auto_subscribe_video=False)


# ---- the host's own VP8 encoder: libvpx through ctypes ---------------------------------


class Vp8Encoder:
    """Just enough of libvpx (vpx/vpx_encoder.h of libvpx 1.12) to encode I420
    pictures in real time: the head of vpx_codec_enc_cfg_t, the frame member of
    vpx_codec_cx_pkt_t, and opaque buffers for the context and the image."""

    ABI_VERSION = 15 + (4 + 5) + 1  # VPX_ENCODER_ABI_VERSION
    FMT_I420, FORCE_KF, DL_REALTIME, FRAME_IS_KEY = 0x102, 1, 1, 1

    class Config(ctypes.Structure):
        _fields_ = [(name, ctypes.c_uint) for name in ("g_usage", "g_threads", "g_profile", "g_w", "g_h",
                                                       "g_bit_depth", "g_input_bit_depth", "g_timebase_num",
                                                       "g_timebase_den", "g_error_resilient", "g_pass",
                                                       "g_lag_in_frames")]

    class Packet(ctypes.Structure):
        _fields_ = [("kind", ctypes.c_int), ("buf", ctypes.c_void_p), ("sz", ctypes.c_size_t),
                    ("pts", ctypes.c_int64), ("duration", ctypes.c_ulong), ("flags", ctypes.c_uint32)]

    def __init__(self, width: int, height: int, fps: int) -> None:
        vpx = ctypes.CDLL(ctypes.util.find_library("vpx") or "libvpx.so.7")
        vpx.vpx_codec_vp8_cx.restype = ctypes.c_void_p
        vpx.vpx_codec_enc_config_default.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
        vpx.vpx_codec_enc_init_ver.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_long, ctypes.c_int]
        vpx.vpx_img_wrap.restype = ctypes.c_void_p
        vpx.vpx_img_wrap.argtypes = [ctypes.c_void_p, ctypes.c_int] + [ctypes.c_uint] * 3 + [ctypes.c_void_p]
        vpx.vpx_codec_encode.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_ulong,
                                         ctypes.c_long, ctypes.c_ulong]
        vpx.vpx_codec_get_cx_data.restype = ctypes.POINTER(self.Packet)
        vpx.vpx_codec_get_cx_data.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        vpx.vpx_codec_destroy.argtypes = [ctypes.c_void_p]
        self.vpx, self.width, self.height, self.pts = vpx, width, height, 0
        iface = vpx.vpx_codec_vp8_cx()
        cfg = ctypes.create_string_buffer(8192)  # more than sizeof(vpx_codec_enc_cfg_t)
        if vpx.vpx_codec_enc_config_default(iface, cfg, 0) != 0:
            raise OSError("vpx_codec_enc_config_default failed")
        head = self.Config.from_buffer(cfg)
        head.g_w, head.g_h, head.g_timebase_num, head.g_timebase_den = width, height, 1, fps
        head.g_lag_in_frames, head.g_threads = 0, 1  # a frame out for each picture in
        self.ctx = ctypes.create_string_buffer(512)  # vpx_codec_ctx_t
        self.image = ctypes.create_string_buffer(512)  # vpx_image_t
        if vpx.vpx_codec_enc_init_ver(self.ctx, iface, cfg, 0, self.ABI_VERSION) != 0:
            raise OSError("vpx_codec_enc_init_ver failed")

    def encode(self, i420: bytes, keyframe: bool) -> List[Tuple[bytes, bool]]:
        """The frames of one picture: (VP8 frame, whether it is a keyframe)."""
        data = ctypes.create_string_buffer(i420, len(i420))
        self.vpx.vpx_img_wrap(self.image, self.FMT_I420, self.width, self.height, 1, data)
        if self.vpx.vpx_codec_encode(self.ctx, self.image, self.pts, 1, self.FORCE_KF if keyframe else 0,
                                     self.DL_REALTIME) != 0:
            raise OSError("vpx_codec_encode failed")
        self.pts += 1
        frames, iterator = [], ctypes.c_void_p(None)
        while True:
            packet = self.vpx.vpx_codec_get_cx_data(self.ctx, ctypes.byref(iterator))
            if not packet:
                return frames
            if packet.contents.kind == 0:  # VPX_CODEC_CX_FRAME_PKT
                frames.append((ctypes.string_at(packet.contents.buf, packet.contents.sz),
                               bool(packet.contents.flags & self.FRAME_IS_KEY)))

    def close(self) -> None:
        self.vpx.vpx_codec_destroy(self.ctx)


def gradient(width: int, height: int, shift: int) -> bytes:
    """An I420 picture: a luma gradient `shift` steps along, over grey chroma."""
    return bytes((x + y + shift) & 0xFF for y in range(height) for x in range(width)) + b"\x80" * (width * height // 2)


# ---- the users' events, remote's sinks and encoded frame observer ----------------------


class User(ExampleUser):
    """A user's (own connection's) events, on its engine's event thread."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.peers: List[int] = []  # guarded by `changed`

    def on_user_joined(self, uid: int, elapsed: int) -> None:
        super().on_user_joined(uid, elapsed)
        with self.changed:
            self.peers.append(uid)
            self.changed.notify_all()

    def on_first_remote_video_decoded(self, uid: int, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_video_decoded uid {uid}, {width}x{height}, {elapsed} ms")


class SecondConnection(agoraish.EventHandlerEx):
    """The events of local's second connection (uid 2), on the engine's event thread."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.joined = self.left = False  # guarded by `changed`

    def on_join_channel_success(self, connection: agoraish.RtcConnection, uid: int, elapsed: int) -> None:
        say("local", f'second connection: on_join_channel_success "{connection.channel_id}" uid {uid}')
        with self.changed:
            self.joined = True
            self.changed.notify_all()

    def on_leave_channel(self, connection: agoraish.RtcConnection, stats: agoraish.RtcStats) -> None:
        say("local", f"second connection: on_leave_channel after {stats.duration} s, sent {stats.tx_bytes} bytes")
        with self.changed:
            self.left = True
            self.changed.notify_all()

    def wait_until(self, attribute: str) -> bool:
        with self.changed:
            ok = self.changed.wait_for(lambda: getattr(self, attribute), timeout=5)
        if not ok:
            say("local", f"second connection: not {attribute} within 5 s")
        return ok


class Renderer:
    """remote's render sinks, on its engine's video thread: the picture sizes of each uid."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sizes: Dict[int, List[Tuple[int, int]]] = {RAW_UID: [], ENCODED_UID: []}  # guarded by `lock`

    def sink(self, uid: int):
        def render(frame: agoraish.VideoFrame) -> None:
            with self.lock:
                self.sizes[uid].append((frame.width, frame.height))
        return render


class EncodedFrames(agoraish.VideoEncodedFrameObserver):
    """remote's encoded frame observer, on the receiving connection's video thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.frames: List[Tuple[int, bytes, agoraish.EncodedVideoFrameInfo]] = []  # guarded by `lock`

    def on_encoded_video_frame_received(self, uid: int, data: bytes, info: agoraish.EncodedVideoFrameInfo) -> None:
        with self.lock:
            if not any(u == uid for u, _, _ in self.frames):
                say("remote", f"first encoded frame of uid {uid}: {len(data)} bytes, {info.codec_type.name}, "
                              f"{info.frame_type.name}, {info.width}x{info.height}")
            self.frames.append((uid, data, info))


# ---- the call ---------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    remote_engine.disable_audio()
    remote_engine.enable_video()
    renderer, observer = Renderer(), EncodedFrames()
    for uid in (RAW_UID, ENCODED_UID):
        remote_engine.setup_remote_video(uid, renderer.sink(uid))
    remote_engine.register_video_encoded_frame_observer(observer)
    remote_engine.join_channel(None, CHANNEL, uid=9)

    # The two tracks, and a connection publishing each.
    raw = local_engine.create_custom_video_track()
    encoded = local_engine.create_custom_encoded_video_track()
    say("local", f"create_custom_video_track() = {raw}, create_custom_encoded_video_track() = {encoded}")
    local_engine.join_channel_with_options(None, CHANNEL, RAW_UID, agoraish.ChannelMediaOptions(
        publish_custom_video_track=True, custom_video_track_id=raw, **QUIET))
    second = SecondConnection()
    connection = local_engine.join_channel_ex(None, agoraish.RtcConnection(CHANNEL, ENCODED_UID),
                                              agoraish.ChannelMediaOptions(publish_encoded_video_track=True,
                                                                           custom_video_track_id=encoded, **QUIET),
                                              second)
    if not (local.wait_until(is_joined, "join") and second.wait_until("joined") and remote.wait_until(is_joined, "join")
            and remote.wait_until(lambda u: {RAW_UID, ENCODED_UID} <= set(u.peers), "both of local's users")):
        return False
    time.sleep(0.3)  # the media transports bind with STUN

    say("local", f"pushing {PUSHED} pictures of {RAW_W}x{RAW_H} and {PUSHED} VP8 frames of {ENC_W}x{ENC_H} "
                 f"at {FPS} fps")
    encoder = Vp8Encoder(ENC_W, ENC_H, FPS)
    pushed: List[bytes] = []
    sent_by = set()
    start = time.monotonic()
    try:
        for n in range(PUSHED):
            stamp = n * 1000 // FPS
            local_engine.push_external_video_frame_by_id(raw, RAW_W, RAW_H, gradient(RAW_W, RAW_H, 4 * n),
                                                         timestamp=stamp)
            for data, keyframe in encoder.encode(gradient(ENC_W, ENC_H, 8 * n), n % KEYFRAME_EVERY == 0):
                info = agoraish.EncodedVideoFrameInfo(
                    codec_type=agoraish.VideoCodecType.VP8, width=ENC_W, height=ENC_H, capture_time_ms=stamp,
                    frame_type=agoraish.VideoFrameType.KEY_FRAME if keyframe else agoraish.VideoFrameType.DELTA_FRAME)
                sent_by.add(local_engine.push_external_encoded_video_frame(data, info, encoded))
                pushed.append(data)
            sleep_until(start, (n + 1) * 1000 / FPS)
    finally:
        encoder.close()
    sleep_until(start, PUSHED * 1000 / FPS + SETTLE_MS)
    say("local", f"push_external_encoded_video_frame: sent by {sorted(sent_by)} connection(s) each time")

    # Unbinding and unregistering wait for a callback in progress: afterwards the counts stay put.
    for uid in (RAW_UID, ENCODED_UID):
        remote_engine.setup_remote_video(uid, None)
    remote_engine.register_video_encoded_frame_observer(None)
    local_engine.destroy_custom_video_track(raw)
    local_engine.destroy_custom_video_track(encoded)
    connection.leave_channel()
    local_engine.leave_channel()
    remote_engine.leave_channel()
    if not (second.wait_until("left") and local.wait_until(has_left, "leave") and remote.wait_until(has_left, "leave")):
        return False

    sizes = renderer.sizes
    for uid in (RAW_UID, ENCODED_UID):
        say("remote", f"uid {uid}: rendered {len(sizes[uid])} pictures of {sorted(set(sizes[uid]))}")
    mine = [(data, info) for uid, data, info in observer.frames if uid == ENCODED_UID]
    unchanged = [data in pushed for data, _ in mine]
    order = [pushed.index(data) for data, _ in mine if data in pushed]
    say("remote", f"uid {ENCODED_UID}: observed {len(mine)} of {len(pushed)} encoded frames, "
                  f"{sum(unchanged)} unchanged, {'in order' if order == sorted(order) else 'NOT in order'}; "
                  f"uid {RAW_UID}: {sum(1 for uid, _, _ in observer.frames if uid == RAW_UID)} frames observed")
    return (sent_by == {1} and len(sizes[RAW_UID]) >= PUSHED * 8 // 10 and set(sizes[RAW_UID]) == {(RAW_W, RAW_H)}
            and len(sizes[ENCODED_UID]) >= PUSHED * 8 // 10 and set(sizes[ENCODED_UID]) == {(ENC_W, ENC_H)}
            and len(mine) >= PUSHED * 8 // 10 and all(unchanged) and order == sorted(order)
            and mine[0][1].frame_type == agoraish.VideoFrameType.KEY_FRAME)


def main() -> int:
    local = User("local")
    remote = User("remote")
    return run_call("custom_video_source_push_multi", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: remote rendered both of local's tracks, the encoded frames as pushed")


if __name__ == "__main__":
    sys.exit(main())
