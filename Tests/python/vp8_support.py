"""VP8 frames for the tests of custom encoded video tracks: libvpx's encoder
through ctypes (libvpx.so.7 on Debian 12), so that a test pushes real frames
without Python bindings of libvpx.

Only the parts of libvpx's ABI used here are declared: the head of
vpx_codec_enc_cfg_t up to kf_max_dist (the rest of the struct stays as
vpx_codec_enc_config_default wrote it) and the frame member of
vpx_codec_cx_pkt_t; the codec context and the image are opaque buffers that
libvpx fills. VPX_ENCODER_ABI_VERSION is that of /usr/include/vpx (libvpx
1.12): 15 + VPX_CODEC_ABI_VERSION (4 + VPX_IMAGE_ABI_VERSION 5) +
VPX_EXT_RATECTRL_ABI_VERSION 1.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from typing import List, Optional, Tuple

VPX_ENCODER_ABI_VERSION = 15 + (4 + 5) + 1
VPX_IMG_FMT_I420 = 0x100 | 2
VPX_CODEC_CX_FRAME_PKT = 0
VPX_FRAME_IS_KEY = 0x1
VPX_EFLAG_FORCE_KF = 1 << 0
VPX_DL_REALTIME = 1
VPX_RC_CBR = 1


class _EncoderConfig(ctypes.Structure):
    """The head of vpx_codec_enc_cfg_t (vpx/vpx_encoder.h), up to kf_max_dist."""

    _fields_ = [
        ("g_usage", ctypes.c_uint), ("g_threads", ctypes.c_uint), ("g_profile", ctypes.c_uint),
        ("g_w", ctypes.c_uint), ("g_h", ctypes.c_uint), ("g_bit_depth", ctypes.c_int),
        ("g_input_bit_depth", ctypes.c_uint), ("g_timebase_num", ctypes.c_int), ("g_timebase_den", ctypes.c_int),
        ("g_error_resilient", ctypes.c_uint32), ("g_pass", ctypes.c_int), ("g_lag_in_frames", ctypes.c_uint),
        ("rc_dropframe_thresh", ctypes.c_uint), ("rc_resize_allowed", ctypes.c_uint),
        ("rc_scaled_width", ctypes.c_uint), ("rc_scaled_height", ctypes.c_uint),
        ("rc_resize_up_thresh", ctypes.c_uint), ("rc_resize_down_thresh", ctypes.c_uint),
        ("rc_end_usage", ctypes.c_int),
        ("rc_twopass_stats_in", ctypes.c_void_p * 2), ("rc_firstpass_mb_stats_in", ctypes.c_void_p * 2),
        ("rc_target_bitrate", ctypes.c_uint), ("rc_min_quantizer", ctypes.c_uint), ("rc_max_quantizer", ctypes.c_uint),
        ("rc_undershoot_pct", ctypes.c_uint), ("rc_overshoot_pct", ctypes.c_uint), ("rc_buf_sz", ctypes.c_uint),
        ("rc_buf_initial_sz", ctypes.c_uint), ("rc_buf_optimal_sz", ctypes.c_uint),
        ("rc_2pass_vbr_bias_pct", ctypes.c_uint), ("rc_2pass_vbr_minsection_pct", ctypes.c_uint),
        ("rc_2pass_vbr_maxsection_pct", ctypes.c_uint), ("rc_2pass_vbr_corpus_complexity", ctypes.c_uint),
        ("kf_mode", ctypes.c_int), ("kf_min_dist", ctypes.c_uint), ("kf_max_dist", ctypes.c_uint),
    ]


class _FramePacket(ctypes.Structure):
    """vpx_codec_cx_pkt_t with its data union read as `frame`."""

    _fields_ = [
        ("kind", ctypes.c_int), ("buf", ctypes.c_void_p), ("sz", ctypes.c_size_t), ("pts", ctypes.c_int64),
        ("duration", ctypes.c_ulong), ("flags", ctypes.c_uint32),
    ]


def _load() -> Optional[ctypes.CDLL]:
    for name in ("libvpx.so.7", ctypes.util.find_library("vpx")):
        if name:
            try:
                return ctypes.CDLL(name)
            except OSError:
                pass
    return None


_LIB = _load()
if _LIB is not None:
    _LIB.vpx_codec_vp8_cx.restype = ctypes.c_void_p
    _LIB.vpx_codec_enc_config_default.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
    _LIB.vpx_codec_enc_init_ver.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long,
                                            ctypes.c_int]
    _LIB.vpx_img_wrap.restype = ctypes.c_void_p
    _LIB.vpx_img_wrap.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                  ctypes.c_void_p]
    _LIB.vpx_codec_encode.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_ulong,
                                      ctypes.c_long, ctypes.c_ulong]
    _LIB.vpx_codec_get_cx_data.restype = ctypes.POINTER(_FramePacket)
    _LIB.vpx_codec_get_cx_data.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    _LIB.vpx_codec_destroy.argtypes = [ctypes.c_void_p]

AVAILABLE = _LIB is not None


class Vp8Encoder:
    """A real-time VP8 encoder of I420 pictures: ``encode(picture, keyframe)``
    returns the frames (bytes, is_keyframe) libvpx made of it."""

    def __init__(self, width: int, height: int, fps: int = 15, kbps: int = 400) -> None:
        if _LIB is None:
            raise OSError("libvpx is not installed (libvpx.so.7)")
        self.width, self.height = width, height
        self._iface = _LIB.vpx_codec_vp8_cx()
        self._cfg = ctypes.create_string_buffer(8192)  # more than sizeof(vpx_codec_enc_cfg_t)
        assert _LIB.vpx_codec_enc_config_default(self._iface, self._cfg, 0) == 0
        cfg = _EncoderConfig.from_buffer(self._cfg)
        cfg.g_w, cfg.g_h = width, height
        cfg.g_timebase_num, cfg.g_timebase_den = 1, fps
        cfg.g_lag_in_frames = 0
        cfg.g_threads = 1
        cfg.rc_end_usage = VPX_RC_CBR
        cfg.rc_target_bitrate = kbps
        cfg.kf_max_dist = 10 * fps
        self._ctx = ctypes.create_string_buffer(512)  # vpx_codec_ctx_t, opaque here
        rc = _LIB.vpx_codec_enc_init_ver(self._ctx, self._iface, self._cfg, 0, VPX_ENCODER_ABI_VERSION)
        if rc != 0:
            raise OSError(f"vpx_codec_enc_init_ver: {rc}")
        self._image = ctypes.create_string_buffer(512)  # vpx_image_t, filled by vpx_img_wrap
        self._pts = 0

    def encode(self, picture: bytes, keyframe: bool = False) -> List[Tuple[bytes, bool]]:
        """Encodes one I420 picture (width x height, planes packed)."""
        assert len(picture) == self.width * self.height * 3 // 2
        data = ctypes.create_string_buffer(picture, len(picture))
        assert _LIB.vpx_img_wrap(self._image, VPX_IMG_FMT_I420, self.width, self.height, 1, data)
        rc = _LIB.vpx_codec_encode(self._ctx, self._image, self._pts, 1, VPX_EFLAG_FORCE_KF if keyframe else 0,
                                   VPX_DL_REALTIME)
        if rc != 0:
            raise OSError(f"vpx_codec_encode: {rc}")
        self._pts += 1
        frames: List[Tuple[bytes, bool]] = []
        iterator = ctypes.c_void_p(None)
        while True:
            packet = _LIB.vpx_codec_get_cx_data(self._ctx, ctypes.byref(iterator))
            if not packet:
                return frames
            if packet.contents.kind == VPX_CODEC_CX_FRAME_PKT:
                p = packet.contents
                frames.append((ctypes.string_at(p.buf, p.sz), bool(p.flags & VPX_FRAME_IS_KEY)))

    def close(self) -> None:
        if self._ctx is not None:
            _LIB.vpx_codec_destroy(self._ctx)
            self._ctx = None

    def __enter__(self) -> "Vp8Encoder":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def gradient(width: int, height: int, shift: int) -> bytes:
    """An I420 picture: a moving luma gradient over grey chroma."""
    y = bytes((x + row + shift) & 0xFF for row in range(height) for x in range(width))
    return y + bytes([128]) * (width * height // 2)
