"""Helpers of the media player, audio mixing/effects and media recorder tests
(test_media_player.py, test_audio_mixing.py, test_media_recorder.py).

- Test media, made at test time with the ``ffmpeg`` CLI into a temporary
  directory once per session (`media_files`): tones in MP3, AAC, Ogg/Opus,
  WAV and FLAC, moving test pictures with a tone in MP4 (H.264 + AAC), WebM
  (VP8 + Opus) and MKV (VP9 + Vorbis), a VP8 WebM with an alpha channel, a
  file with two audio tracks, an HLS playlist, and bad files (truncated,
  random bytes, text named .mp4, a codec FFmpeg cannot decode, subtitles only).
- Local servers: an HTTP server (http.server in a thread, with byte ranges,
  and paths that stall) and nginx with its RTMP module fed by ``ffmpeg -re``.
- Measuring: the frequency and level of a tone (numpy FFT), ffprobe / ffmpeg
  checks of recorded files, the process's open descriptors and RSS.
- Call machinery: an event log that tests wait on, recording observers and
  handlers, a real-time pump (pushes a tone and pictures, pulls the external
  sinks every 10 ms, as audio and video devices would), a render sink.

Every wait is bounded; the only sleeps pace the pump (the real-time clock).
"""

from __future__ import annotations

import http.server
import json
import math
import os
import random
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy
import pytest

import support  # noqa: F401  (puts the binding on sys.path, picks the library)

import agoraish

APP = "0123456789abcdef0123456789abcdef"
RATE = 48000
CHUNK = RATE // 100  # 10 ms
#: How long any wait for an event may take, in seconds (generous: a loaded 2-core machine).
TIMEOUT = 15.0
#: Size and frame rate of the test pictures.
WIDTH, HEIGHT, FPS = 320, 240, 15
#: Where nginx's RTMP module lives on Debian (libnginx-mod-rtmp).
RTMP_MODULE = Path("/usr/lib/nginx/modules/ngx_rtmp_module.so")


# --------------------------------------------------------------------------
# Test media
# --------------------------------------------------------------------------


class Tone(NamedTuple):
    """A media file of the set and the tone it holds."""

    name: str
    frequency: float
    seconds: float
    video: bool = False


#: The sources played by format, by key: file name, the tone's frequency
#: (a different one per file, so what is heard tells which file it came
#: from), its length, and whether it has pictures.
FORMATS: Dict[str, Tone] = {
    "mp3": Tone("tone440.mp3", 440, 3),
    "aac": Tone("tone523.m4a", 523, 3),
    "opus": Tone("tone660.ogg", 660, 3),
    "wav": Tone("tone750.wav", 750, 3),
    "flac": Tone("tone880.flac", 880, 3),
    "mp4": Tone("movie.mp4", 1000, 4, True),
    "webm": Tone("movie.webm", 1200, 4, True),
    "mkv": Tone("movie.mkv", 600, 4, True),
}
#: Other files of the set.
SHORT = Tone("short1000.wav", 1000, 1)     # loops, completion
LONG = Tone("long1000.wav", 1000, 6)       # speed, position
STEPS = Tone("steps.wav", 440, 4)          # 440 Hz for 2 s, then 1000 Hz for 2 s (seeks)
MUSIC = Tone("music440.mp3", 440, 4)       # audio mixing
EFFECT = Tone("effect660.wav", 660, 1)     # audio effects
ALPHA = Tone("alpha.webm", 660, 3, True)   # VP8 with alpha: red at 50 %
TRACKS = Tone("tracks.mkv", 440, 4)        # two audio tracks: 440 Hz (eng), 1000 Hz (fra)
FASTSTART = Tone("movie_faststart.mp4", 1000, 4, True)  # moov first: plays while it downloads

#: Bad sources by key: the file name (None: the path does not exist), the
#: reason of the FAILED state (agoraish.MediaPlayerReason member name).
BAD_FILES: Dict[str, Tuple[Optional[str], str]] = {
    "missing": (None, "URL_NOT_FOUND"),
    "truncated": ("truncated.mp4", "INVALID_MEDIA_SOURCE"),
    "truncated_wav": ("truncated.wav", "INVALID_MEDIA_SOURCE"),
    "random_bytes": ("random.mp4", "INVALID_MEDIA_SOURCE"),
    "text_as_mp4": ("text.mp4", "INVALID_MEDIA_SOURCE"),
    "unknown_codec": ("unknown_codec.mkv", "CODEC_NOT_SUPPORTED"),
    "subtitles_only": ("subtitles.mkv", "UNKNOWN_STREAM_TYPE"),
}

#: Red at 50 % as FFmpeg's libvpx decoder gives it (BT.601 studio range).
ALPHA_YUVA = (81, 91, 239, 127)


@dataclass
class MediaFiles:
    """The test media of a session in `root` (the HLS playlist is hls/index.m3u8)."""

    root: Path

    def path(self, name: str) -> str:
        return str(self.root / name)

    def bad(self, key: str) -> str:
        name, _ = BAD_FILES[key]
        return self.path(name) if name else self.path("no-such-file.mp4")


def run(args: Sequence[str], timeout: float = 60.0, check: bool = True) -> subprocess.CompletedProcess:
    """Runs a tool (ffmpeg, ffprobe) to completion; fails the test with its stderr if it fails."""
    done = subprocess.run(list(args), capture_output=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {done.returncode}: {done.stderr.decode(errors='replace')[-800:]}")
    return done


def ffmpeg(*args: str) -> None:
    run(["ffmpeg", "-nostdin", "-hide_banner", "-v", "error", "-y", *args])


def _sine(frequency: float, seconds: float) -> List[str]:
    return ["-f", "lavfi", "-i", f"sine=frequency={frequency}:sample_rate={RATE}:duration={seconds}"]


def _pictures(seconds: float) -> List[str]:
    return ["-f", "lavfi", "-i", f"testsrc2=size={WIDTH}x{HEIGHT}:rate={FPS}:duration={seconds}"]


def _make_media(root: Path) -> MediaFiles:
    for tool in ("ffmpeg", "ffprobe"):
        assert shutil.which(tool), f"{tool} is missing (make setup installs ffmpeg)"
    root.mkdir(parents=True, exist_ok=True)
    p = lambda name: str(root / name)  # noqa: E731

    # Tones, one file per format.
    ffmpeg(*_sine(440, 3), "-c:a", "libmp3lame", "-b:a", "96k", p("tone440.mp3"))
    ffmpeg(*_sine(523, 3), "-c:a", "aac", "-b:a", "96k", p("tone523.m4a"))
    ffmpeg(*_sine(660, 3), "-c:a", "libopus", "-b:a", "64k", p("tone660.ogg"))
    ffmpeg(*_sine(750, 3), "-c:a", "pcm_s16le", p("tone750.wav"))
    ffmpeg(*_sine(880, 3), "-c:a", "flac", p("tone880.flac"))
    ffmpeg(*_sine(1000, 1), "-c:a", "pcm_s16le", p(SHORT.name))
    ffmpeg(*_sine(1000, 6), "-c:a", "pcm_s16le", p(LONG.name))
    ffmpeg("-f", "lavfi", "-i", f"aevalsrc=sin(2*PI*if(lt(t\\,2)\\,440\\,1000)*t)/4:s={RATE}:d=4",
           "-c:a", "pcm_s16le", p(STEPS.name))
    ffmpeg(*_sine(440, 4), "-c:a", "libmp3lame", "-b:a", "96k", p(MUSIC.name))
    ffmpeg(*_sine(660, 1), "-c:a", "pcm_s16le", p(EFFECT.name))

    # Moving pictures with a tone: H.264 + AAC in MP4 (keyframe every second),
    # VP8 + Opus in WebM, VP9 + Vorbis in MKV.
    h264 = ["-c:v", "libx264", "-preset", "veryfast", "-g", str(FPS), "-pix_fmt", "yuv420p"]
    ffmpeg(*_pictures(4), *_sine(1000, 4), *h264, "-c:a", "aac", "-b:a", "96k", "-shortest", p("movie.mp4"))
    ffmpeg("-i", p("movie.mp4"), "-c", "copy", "-movflags", "+faststart", p(FASTSTART.name))
    ffmpeg(*_pictures(4), *_sine(1200, 4), "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8",
           "-b:v", "400k", "-g", str(FPS), "-c:a", "libopus", "-b:a", "64k", "-shortest", p("movie.webm"))
    ffmpeg(*_pictures(4), *_sine(600, 4), "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8",
           "-b:v", "300k", "-g", str(FPS), "-c:a", "libvorbis", "-shortest", p("movie.mkv"))
    # VP8 with an alpha channel (WebM's alpha_mode): red at 50 % opacity.
    ffmpeg("-f", "lavfi", "-i", f"color=c=red@0.5:size={WIDTH}x{HEIGHT}:rate={FPS}:duration=3,format=yuva420p",
           *_sine(660, 3), "-c:v", "libvpx", "-pix_fmt", "yuva420p", "-auto-alt-ref", "0", "-deadline", "realtime",
           "-cpu-used", "8", "-b:v", "200k", "-c:a", "libopus", "-shortest", p(ALPHA.name))
    # Two audio tracks with languages.
    ffmpeg(*_sine(440, 4), *_sine(1000, 4), "-map", "0", "-map", "1", "-c:a", "libopus",
           "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", p(TRACKS.name))
    # HLS (VOD playlist, 1 s segments) of the MP4's streams.
    (root / "hls").mkdir(exist_ok=True)
    ffmpeg("-i", p("movie.mp4"), "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
           "-hls_segment_filename", p("hls/seg%03d.ts"), p("hls/index.m3u8"))

    # Bad files.
    (root / "truncated.mp4").write_bytes((root / "movie.mp4").read_bytes()[:16384])  # moov is at the end
    (root / "truncated.wav").write_bytes((root / "tone750.wav").read_bytes()[:30])  # half a RIFF header
    (root / "random.mp4").write_bytes(random.Random(20240607).randbytes(64 * 1024))
    (root / "text.mp4").write_text("This is not a video, it is a text file named .mp4.\n" * 200)
    # A Matroska file whose only stream has a codec id FFmpeg does not know:
    # FLAC's "A_FLAC" patched to "A_ZZZZ" (same length, the EBML stays valid).
    ffmpeg(*_sine(440, 2), "-c:a", "flac", p("flac.mkv"))
    data = (root / "flac.mkv").read_bytes()
    assert data.count(b"A_FLAC") == 1
    (root / "unknown_codec.mkv").write_bytes(data.replace(b"A_FLAC", b"A_ZZZZ"))
    (root / "subtitles.srt").write_text("1\n00:00:00,000 --> 00:00:02,000\nHello\n\n2\n00:00:02,000 --> 00:00:04,000\n"
                                        "World\n")
    ffmpeg("-i", p("subtitles.srt"), "-c:s", "srt", p("subtitles.mkv"))

    # The bad files are what they claim to be, by FFmpeg's own tools.
    for key in ("truncated", "truncated_wav", "random_bytes", "text_as_mp4"):
        name, _ = BAD_FILES[key]
        assert run(["ffprobe", "-v", "error", p(name)], check=False).returncode != 0, f"{name} should not open"
    streams = probe(p("unknown_codec.mkv"))["streams"]
    assert [(s["codec_type"], s.get("codec_name", "unknown")) for s in streams] == [("audio", "unknown")], streams
    assert [s["codec_type"] for s in probe(p("subtitles.mkv"))["streams"]] == ["subtitle"]
    return MediaFiles(root)


_MEDIA: Optional[MediaFiles] = None
_MEDIA_LOCK = threading.Lock()


def media_files(tmp_path_factory: pytest.TempPathFactory) -> MediaFiles:
    """The session's test media, made on first use (shared by the test modules)."""
    global _MEDIA
    with _MEDIA_LOCK:
        if _MEDIA is None:
            _MEDIA = _make_media(tmp_path_factory.mktemp("media"))
        return _MEDIA


# --------------------------------------------------------------------------
# ffprobe / ffmpeg checks of files
# --------------------------------------------------------------------------


def probe(path: str) -> Dict[str, Any]:
    """ffprobe's JSON of a file's format and streams."""
    out = run(["ffprobe", "-v", "error", "-show_format", "-show_streams", "-of", "json", path], timeout=30)
    return json.loads(out.stdout)


def decode_errors(path: str) -> str:
    """What ``ffmpeg -v error -xerror`` says decoding the whole file ("" when it decodes cleanly)."""
    done = run(["ffmpeg", "-nostdin", "-v", "error", "-xerror", "-i", path, "-f", "null", "-"], timeout=60, check=False)
    text = done.stderr.decode(errors="replace").strip()
    return text or ("" if done.returncode == 0 else f"exit {done.returncode}")


def decode_audio(path: str, rate: int = RATE) -> numpy.ndarray:
    """The file's first audio stream as mono int16 at `rate`, decoded by ffmpeg."""
    out = run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-ar", str(rate),
               "-f", "s16le", "-"], timeout=60)
    return numpy.frombuffer(out.stdout, dtype=numpy.int16)


def decode_video_frames(path: str) -> int:
    """How many pictures the file's first video stream decodes to."""
    out = run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
               "stream=nb_read_frames", "-of", "csv=p=0", path], timeout=60)
    return int(out.stdout.decode().strip().split(",")[0])


def decode_gray_frame(path: str, at_seconds: float) -> numpy.ndarray:
    """The luma of the picture at `at_seconds`, as a 2-D uint8 array."""
    info = next(s for s in probe(path)["streams"] if s["codec_type"] == "video")
    width, height = int(info["width"]), int(info["height"])
    out = run(["ffmpeg", "-nostdin", "-v", "error", "-ss", str(at_seconds), "-i", path, "-frames:v", "1",
               "-f", "rawvideo", "-pix_fmt", "gray", "-"], timeout=60)
    return numpy.frombuffer(out.stdout, dtype=numpy.uint8)[: width * height].reshape(height, width)


# --------------------------------------------------------------------------
# Measuring tones
# --------------------------------------------------------------------------


def as_samples(data: Any) -> numpy.ndarray:
    """int16 samples as a float64 array (bytes, array('h'), numpy)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return numpy.frombuffer(bytes(data), dtype=numpy.int16).astype(numpy.float64)
    return numpy.asarray(data, dtype=numpy.float64)


def rms_dbfs(data: Any) -> float:
    """RMS level in dB relative to a full-scale sine (a sine of amplitude 32767 is 0 dBFS)."""
    x = as_samples(data)
    if len(x) == 0:
        return -200.0
    rms = math.sqrt(float(numpy.mean(x * x)))
    return 20 * math.log10(max(rms, 1e-3) / (32767 / math.sqrt(2)))


def _spectrum(x: numpy.ndarray) -> numpy.ndarray:
    window = numpy.hanning(len(x))
    return numpy.abs(numpy.fft.rfft((x - numpy.mean(x)) * window)) * 2 / numpy.sum(window)


def _refined(mag: numpy.ndarray, k: int, count: int, rate: int) -> float:
    """The frequency of spectrum bin `k`, refined by parabolic interpolation of the log magnitudes."""
    offset = 0.0
    if 1 <= k < len(mag) - 1:
        a, b, c = (math.log(max(float(m), 1e-12)) for m in mag[k - 1: k + 2])
        denom = a - 2 * b + c
        offset = 0.5 * (a - c) / denom if denom else 0.0
    return (k + offset) * rate / count


def dominant_frequency(data: Any, rate: int = RATE) -> float:
    """The frequency of the strongest component (0.0 for silence)."""
    x = as_samples(data)
    if len(x) < 64 or rms_dbfs(x) < -70:
        return 0.0
    mag = _spectrum(x)
    return _refined(mag, int(numpy.argmax(mag[1:])) + 1, len(x), rate)


def peak_frequency(data: Any, low: float, high: float, rate: int = RATE) -> float:
    """The frequency of the strongest component between `low` and `high` Hz (for a mix of tones)."""
    x = as_samples(data)
    mag = _spectrum(x)
    lo, hi = max(1, int(low * len(x) / rate)), int(math.ceil(high * len(x) / rate)) + 1
    return _refined(mag, lo + int(numpy.argmax(mag[lo:hi])), len(x), rate)


def tone_dbfs(data: Any, frequency: float, rate: int = RATE) -> float:
    """The level of the component at `frequency` (within 1 %), in dBFS (a full-scale sine is 0)."""
    x = as_samples(data)
    if len(x) < 64:
        return -200.0
    mag = _spectrum(x)
    lo = max(1, int(frequency * 0.99 * len(x) / rate))
    hi = max(lo + 1, int(math.ceil(frequency * 1.01 * len(x) / rate)) + 1)
    peak = float(numpy.max(mag[lo:hi]))
    return 20 * math.log10(max(peak, 1e-6) / 32767)


def near(value: float, target: float, tolerance: float = 0.01) -> bool:
    """`value` within `tolerance` (a fraction) of `target`."""
    return abs(value - target) <= tolerance * target


def mono(frame_bytes: bytes, channels: int) -> numpy.ndarray:
    """The first channel of interleaved int16 PCM."""
    samples = numpy.frombuffer(frame_bytes, dtype=numpy.int16)
    return samples[::channels] if channels > 1 else samples


# --------------------------------------------------------------------------
# The process
# --------------------------------------------------------------------------


def open_fds() -> int:
    """How many file descriptors this process has open."""
    return len(os.listdir("/proc/self/fd"))


def rss_kb() -> int:
    """This process's resident set size in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


def thread_name() -> str:
    """The kernel's name of the calling thread (agoraish names its threads, e.g. agoraish-mp1)."""
    try:
        return Path(f"/proc/self/task/{threading.get_native_id()}/comm").read_text().strip()
    except OSError:
        return "?"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (just now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------


class Event(NamedTuple):
    name: str
    args: tuple
    at: float       # time.monotonic() when it arrived
    thread: str     # the kernel's name of the thread it arrived on
    index: int


class EventLog:
    """Callbacks as (name, args) with their time and thread; tests wait on the condition variable."""

    def __init__(self) -> None:
        self.events: List[Event] = []
        self.cond = threading.Condition()

    def add(self, name: str, *args: Any) -> None:
        thread = thread_name()
        with self.cond:
            self.events.append(Event(name, args, time.monotonic(), thread, len(self.events)))
            self.cond.notify_all()

    def mark(self) -> int:
        with self.cond:
            return len(self.events)

    def find(self, name: str, match: Callable[..., bool] = lambda *a: True, after: int = 0) -> Optional[Event]:
        with self.cond:
            for event in self.events[after:]:
                if event.name == name and match(*event.args):
                    return event
        return None

    def wait_for(self, name: str, match: Callable[..., bool] = lambda *a: True, after: int = 0,
                 timeout: float = TIMEOUT) -> Event:
        """The first event `name` from index `after` for which `match(*args)` holds; fails after `timeout`."""

        def found() -> Optional[Event]:
            for event in self.events[after:]:
                if event.name == name and match(*event.args):
                    return event
            return None

        with self.cond:
            event = self.cond.wait_for(found, timeout)
            seen = [(e.name, e.args) for e in self.events[after:]][-12:]
        assert event is not None, f"no matching {name} within {timeout} s; last events: {seen}"
        return event

    def all(self, name: str, after: int = 0) -> List[Event]:
        with self.cond:
            return [e for e in self.events[after:] if e.name == name]

    def args(self, name: str, after: int = 0) -> List[tuple]:
        return [e.args for e in self.all(name, after)]


class PlayerEvents(agoraish.MediaPlayerSourceObserver):
    """A media player's observer: every callback into an EventLog."""

    def __init__(self) -> None:
        self.log = EventLog()

    def on_player_source_state_changed(self, state, reason):
        self.log.add("state", state, reason)

    def on_position_changed(self, position_ms, timestamp_ms):
        self.log.add("position", position_ms, timestamp_ms)

    def on_player_event(self, event, elapsed_time, message):
        self.log.add("event", event, elapsed_time, message)

    def on_play_buffer_updated(self, play_cached_buffer):
        self.log.add("buffer", play_cached_buffer)

    def on_completed(self):
        self.log.add("completed")

    # -- helpers -------------------------------------------------------------

    def states(self, after: int = 0) -> List[Tuple[int, int]]:
        return [(int(s), int(r)) for s, r in self.log.args("state", after)]

    def wait_state(self, *states: int, after: int = 0, timeout: float = TIMEOUT) -> Tuple[int, int]:
        """The first state among `states` reported from `after`: (state, reason)."""
        event = self.log.wait_for("state", lambda s, r: s in states, after=after, timeout=timeout)
        return int(event.args[0]), int(event.args[1])

    def wait_event(self, event: int, after: int = 0, timeout: float = TIMEOUT) -> Event:
        return self.log.wait_for("event", lambda e, elapsed, message: e == event, after=after, timeout=timeout)


class EngineEvents(agoraish.EventHandler):
    """An engine's channel, first-frame, mixing and effect events into an EventLog."""

    def __init__(self) -> None:
        self.log = EventLog()

    def on_join_channel_success(self, channel, uid, elapsed):
        self.log.add("join", channel, uid)

    def on_user_joined(self, uid, elapsed):
        self.log.add("user_joined", uid)

    def on_user_offline(self, uid, reason):
        self.log.add("user_offline", uid, reason)

    def on_first_remote_audio_decoded(self, uid, elapsed):
        self.log.add("first_remote_audio_decoded", uid)

    def on_first_remote_video_decoded(self, uid, width, height, elapsed):
        self.log.add("first_remote_video_decoded", uid, width, height)

    def on_audio_mixing_state_changed(self, state, reason):
        self.log.add("mixing", state, reason)

    def on_audio_effect_finished(self, sound_id):
        self.log.add("effect_finished", sound_id)


def open_source(player: Any, events: PlayerEvents, url: str, start_pos: int = 0,
                timeout: float = TIMEOUT) -> Tuple[int, int]:
    """Opens `url` and waits for the outcome: (state, reason) of OPEN_COMPLETED or FAILED, reported
    right after OPENING. (States of calls made before, such as a STOPPED, may still arrive first:
    calls are carried out in order on the player's thread.)"""
    S = agoraish.MediaPlayerState
    mark = events.log.mark()
    player.open(url, start_pos)
    opening = events.log.wait_for("state", lambda s, r: s == S.OPENING, after=mark, timeout=timeout)
    outcome = events.wait_state(S.OPEN_COMPLETED, S.FAILED, after=opening.index, timeout=timeout)
    states = events.states(opening.index)
    assert states[:2] == [(S.OPENING, 0), outcome], f"OPENING, then the outcome: {states}"
    return outcome


def play_and_wait(player: Any, events: PlayerEvents) -> None:
    """play() and wait for PLAYING."""
    mark = events.log.mark()
    player.play()
    events.wait_state(agoraish.MediaPlayerState.PLAYING, after=mark)


# --------------------------------------------------------------------------
# Audio frames of a player (its audio frame observer)
# --------------------------------------------------------------------------


class AudioFrames:
    """A player audio frame observer: keeps (time, rate, channels, samples per channel, mono bytes, thread)."""

    def __init__(self) -> None:
        self.frames: List[Tuple[float, int, int, int, bytes, str]] = []
        self.cond = threading.Condition()

    def __call__(self, frame: Any) -> None:
        data = frame.bytes()
        record = (time.monotonic(), frame.samples_per_sec, frame.channels, frame.samples_per_channel,
                  mono(data, frame.channels).tobytes(), thread_name())
        with self.cond:
            self.frames.append(record)
            self.cond.notify_all()

    def count(self) -> int:
        with self.cond:
            return len(self.frames)

    def wait(self, count: int, timeout: float = TIMEOUT) -> List[Tuple[float, int, int, int, bytes, str]]:
        """Waits until `count` frames in all have arrived; returns them all."""
        with self.cond:
            ok = self.cond.wait_for(lambda: len(self.frames) >= count, timeout)
            got = list(self.frames)
        assert ok, f"{len(got)} audio frames from the player within {timeout} s, wanted {count}"
        return got

    def samples(self, start: int, stop: int) -> numpy.ndarray:
        """The mono samples of frames [start, stop) (waiting for them)."""
        frames = self.wait(stop)[start:stop]
        return numpy.frombuffer(b"".join(f[4] for f in frames), dtype=numpy.int16)

    def wait_heard(self, frequency: float, window: int = 20, timeout: float = TIMEOUT) -> int:
        """Waits for `window` frames (10 ms each) in a row holding `frequency` (dominant, within 1 %);
        returns the index of the frame after them."""
        deadline = time.monotonic() + timeout
        start = self.count()
        seen: List[str] = []
        while True:
            with self.cond:
                ok = self.cond.wait_for(lambda: len(self.frames) >= start + window,
                                        max(0.0, deadline - time.monotonic()))
                chunk = b"".join(f[4] for f in self.frames[start:start + window])
            assert ok, (f"the player's audio never held {frequency} Hz within {timeout} s "
                        f"({self.count()} frames); heard {seen[-10:]}")
            samples = numpy.frombuffer(chunk, dtype=numpy.int16)
            heard = dominant_frequency(samples)
            seen.append(f"{heard:.0f} Hz {rms_dbfs(samples):.0f} dBFS")
            if near(heard, frequency) and rms_dbfs(samples) > -40:
                return start + window
            start += window


class VideoFrames:
    """A frame callback (player video observer, player view or render sink): keeps what each picture was."""

    def __init__(self) -> None:
        self.frames: List[Dict[str, Any]] = []
        self.cond = threading.Condition()

    def __call__(self, *args: Any) -> None:
        uid, frame = args if len(args) == 2 else (getattr(args[0], "uid", None), args[0])
        y = frame.y
        width, height, stride = frame.width, frame.height, frame.y_stride
        luma = numpy.frombuffer(y, dtype=numpy.uint8)
        rows = numpy.stack([luma[r * stride: r * stride + width] for r in range(0, height, max(1, height // 24))])
        u = numpy.frombuffer(frame.u, dtype=numpy.uint8)
        v = numpy.frombuffer(frame.v, dtype=numpy.uint8)
        alpha = getattr(frame, "alpha", None)
        record = {
            "uid": uid, "width": width, "height": height, "at": time.monotonic(), "thread": thread_name(),
            "luma_mean": float(rows.mean()), "luma_sig": hash(rows.tobytes()),
            "u_mean": float(u[: (width // 2)].mean()) if len(u) else 0.0,
            "v_mean": float(v[: (width // 2)].mean()) if len(v) else 0.0,
            "alpha": None if alpha is None else bytes(alpha),
        }
        with self.cond:
            self.frames.append(record)
            self.cond.notify_all()

    def count(self) -> int:
        with self.cond:
            return len(self.frames)

    def since(self, index: int) -> List[Dict[str, Any]]:
        with self.cond:
            return list(self.frames[index:])

    def wait(self, count: int, timeout: float = TIMEOUT) -> List[Dict[str, Any]]:
        """Waits until `count` pictures in all have arrived; returns them all."""
        with self.cond:
            ok = self.cond.wait_for(lambda: len(self.frames) >= count, timeout)
            got = list(self.frames)
        assert ok, f"{len(got)} pictures within {timeout} s, wanted {count}"
        return got


# --------------------------------------------------------------------------
# The pump: a real-time clock for pushing and pulling
# --------------------------------------------------------------------------


def moving_pictures(count: int = 30) -> List[Tuple[bytes, bytes, bytes]]:
    """`count` I420 pictures WIDTH x HEIGHT: a luma gradient that moves 4 pixels a picture, a bright
    square that walks across, bluish chroma: easy to tell apart and to see moving."""
    xs = numpy.arange(WIDTH)[None, :]
    ys = numpy.arange(HEIGHT)[:, None]
    out = []
    for n in range(count):
        luma = (40 + (xs + ys + 4 * n) % 160).astype(numpy.uint8)
        x0 = (n * 8) % (WIDTH - 48)
        luma[96:144, x0:x0 + 48] = 235
        chroma_u = numpy.full((HEIGHT // 2, WIDTH // 2), 150, numpy.uint8)
        chroma_v = numpy.full((HEIGHT // 2, WIDTH // 2), 110, numpy.uint8)
        out.append((luma.tobytes(), chroma_u.tobytes(), chroma_v.tobytes()))
    return out


class Pump:
    """Every 10 ms on one thread, in real time, as audio and video devices would run:
    pushes 10 ms of a tone (or silence) into `source`'s external audio source
    (or its custom audio track `track`),
    pulls 10 ms from the external sink of each engine in `sinks`, and pushes
    a picture into `video_source` FPS times a second.

    `tone` (Hz, or None for silence) and `amplitude` may be changed while it
    runs. Pulled audio is kept per sink name; `collect` waits for audio
    pulled after it was called.
    """

    def __init__(self, sinks: Dict[str, Any], source: Any = None, video_source: Any = None,
                 tone: Optional[float] = 1000.0, amplitude: int = 8000, track: Optional[int] = None) -> None:
        self.sinks = dict(sinks)
        self.source = source
        self.track = track
        self.video_source = video_source
        self.tone = tone
        self.amplitude = amplitude
        self.pulled: Dict[str, List[bytes]] = {name: [] for name in self.sinks}
        self.ticks = 0
        self.errors: List[BaseException] = []
        self.cond = threading.Condition()
        self.stopping = threading.Event()
        self.pictures = moving_pictures() if video_source is not None else []
        self.phase = 0.0
        self.thread = threading.Thread(target=self._run, name="media-pump", daemon=True)

    def start(self) -> "Pump":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(TIMEOUT)

    def _chunk(self) -> numpy.ndarray:
        if self.tone is None:
            return numpy.zeros(CHUNK, numpy.int16)
        step = 2 * math.pi * self.tone / RATE
        phases = self.phase + step * numpy.arange(CHUNK)
        self.phase = (self.phase + step * CHUNK) % (2 * math.pi)
        return (self.amplitude * numpy.sin(phases)).astype(numpy.int16)

    def _run(self) -> None:
        start = time.monotonic()
        k = 0
        pictures_sent = 0
        try:
            while not self.stopping.is_set():
                if self.source is not None and self.track is not None:
                    self.source.push_external_audio_frame_by_id(self.track, self._chunk(), RATE, 1)
                elif self.source is not None:
                    self.source.push_external_audio_frame(self._chunk())
                if self.video_source is not None and k * FPS // 100 >= pictures_sent:
                    y, u, v = self.pictures[pictures_sent % len(self.pictures)]
                    self.video_source.push_external_video_frame(WIDTH, HEIGHT, y, u, v,
                                                                 timestamp=pictures_sent * 1000 // FPS)
                    pictures_sent += 1
                pulled = {name: engine.pull_playback_audio_frame(CHUNK) for name, engine in self.sinks.items()}
                with self.cond:
                    for name, data in pulled.items():
                        self.pulled[name].append(data)
                    self.ticks += 1
                    self.cond.notify_all()
                k += 1
                delay = start + k / 100 - time.monotonic()
                if delay > 0:
                    time.sleep(delay)  # the real-time clock of the devices
                elif delay < -1.0:
                    start = time.monotonic() - k / 100  # far behind (a stalled host): do not rush
        except BaseException as error:  # reported by collect()
            with self.cond:
                self.errors.append(error)
                self.cond.notify_all()

    def collect(self, ms: int, skip_ms: int = 0) -> Dict[str, numpy.ndarray]:
        """Per sink, the samples pulled after `skip_ms` of pumping from now, for `ms`."""
        with self.cond:
            first = self.ticks + skip_ms // 10
            wanted = first + ms // 10
            done = self.cond.wait_for(lambda: self.ticks >= wanted or self.errors, TIMEOUT + (skip_ms + ms) / 1000)
            assert not self.errors, f"the pump failed: {self.errors[0]!r}"
            assert done, "the pump stalled"
            return {name: numpy.frombuffer(b"".join(pulls[first:wanted]), dtype=numpy.int16)
                    for name, pulls in self.pulled.items()}

    def heard(self, name: str, ms: int, skip_ms: int = 0) -> numpy.ndarray:
        return self.collect(ms, skip_ms)[name]

    def wait_until(self, name: str, predicate: Callable[[numpy.ndarray], bool], what: str,
                   window_ms: int = 200, timeout: float = TIMEOUT) -> numpy.ndarray:
        """Polls `window_ms` windows of sink `name` until `predicate(samples)` holds; returns that window."""
        deadline = time.monotonic() + timeout
        seen: List[str] = []
        while time.monotonic() < deadline:
            samples = self.heard(name, window_ms)
            if predicate(samples):
                return samples
            seen.append(f"{dominant_frequency(samples):.0f} Hz {rms_dbfs(samples):.0f} dBFS")
        raise AssertionError(f"{what}: not heard at {name} within {timeout} s; heard {seen[-8:]}")

    def wait_tone(self, name: str, frequency: float, what: str = "", timeout: float = TIMEOUT) -> numpy.ndarray:
        """Waits until sink `name` hears `frequency` (dominant, within 1 %, above -40 dBFS)."""
        return self.wait_until(
            name, lambda s: near(dominant_frequency(s), frequency) and tone_dbfs(s, frequency) > -40,
            what or f"{frequency} Hz", timeout=timeout)

    def wait_silence(self, name: str, what: str = "silence", timeout: float = TIMEOUT) -> numpy.ndarray:
        return self.wait_until(name, lambda s: rms_dbfs(s) < -50, what, timeout=timeout)


# --------------------------------------------------------------------------
# A local HTTP server for the player's URLs
# --------------------------------------------------------------------------

_CONTENT_TYPES = {".mp4": "video/mp4", ".m4a": "audio/mp4", ".webm": "video/webm", ".mkv": "video/x-matroska",
                  ".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".wav": "audio/wav", ".flac": "audio/flac",
                  ".m3u8": "application/vnd.apple.mpegurl", ".ts": "video/mp2t"}


class _MediaHandler(http.server.BaseHTTPRequestHandler):
    """Serves files of the server's root with byte ranges. Special paths:
    /stall/...: reads the request and never answers; /half/<name>: answers
    with the whole length but sends half of the body, then stalls."""

    server: "_Server"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve(head=True)

    def do_GET(self) -> None:  # noqa: N802
        self._serve(head=False)

    def _stall(self) -> None:
        self.server.closing.wait(60)
        self.close_connection = True

    def _serve(self, head: bool) -> None:
        path = self.path.split("?", 1)[0]
        self.server.requests.append(path)
        if path.startswith("/stall/"):
            self._stall()
            return
        half = path.startswith("/half/")
        name = path[len("/half/"):] if half else path.lstrip("/")
        file = (self.server.root / name).resolve()
        if self.server.root not in file.parents or not file.is_file():
            self.send_error(404, "Not Found")
            return
        data = file.read_bytes()
        start, end = 0, len(data) - 1
        ranged = self.headers.get("Range", "")
        if ranged.startswith("bytes=") and not half:
            first, _, last = ranged[len("bytes="):].split(",")[0].partition("-")
            if first:
                start = int(first)
                end = min(int(last), end) if last else end
            else:  # the last N bytes
                start = max(0, len(data) - int(last))
            if start > end:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        else:
            self.send_response(200)
        self.send_header("Content-Type", _CONTENT_TYPES.get(file.suffix, "application/octet-stream"))
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "none" if half else "bytes")
        self.end_headers()
        if head:
            return
        body = data[start:end + 1]
        try:
            if half:
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self._stall()
                return
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    root: Path
    closing: threading.Event
    requests: List[str]

    def handle_error(self, request: Any, client_address: Any) -> None:  # quiet on aborted connections
        pass


class MediaHttpServer:
    """An HTTP server on a free loopback port serving `root` (in a thread)."""

    def __init__(self, root: Path) -> None:
        self.server = _Server(("127.0.0.1", 0), _MediaHandler)
        self.server.root = root.resolve()
        self.server.closing = threading.Event()
        self.server.requests = []
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1},
                                       name="media-http", daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    @property
    def requests(self) -> List[str]:
        return list(self.server.requests)

    def close(self) -> None:
        self.server.closing.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(TIMEOUT)


# --------------------------------------------------------------------------
# nginx with the RTMP module, fed by ffmpeg
# --------------------------------------------------------------------------


def nginx_rtmp_missing() -> Optional[str]:
    """Why the RTMP tests cannot run (nginx or its RTMP module is not installed), or None."""
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        return "nginx is not installed (make setup installs nginx and libnginx-mod-rtmp)"
    if not RTMP_MODULE.exists():
        return f"nginx's RTMP module {RTMP_MODULE} is missing (make setup installs libnginx-mod-rtmp)"
    return None


def _wait_listening(port: int, process: subprocess.Popen, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.05)  # polling a port: there is no event to wait on
    return False


class RtmpServer:
    """nginx (``daemon off``, one process, its own config, prefix and pid file
    in `workdir`) with an RTMP application ``live`` on a free loopback port;
    `publish` feeds it a file in real time, looping, with ``ffmpeg -re``."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.publishers: List[subprocess.Popen] = []
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        (workdir / "logs").mkdir(parents=True, exist_ok=True)
        self.process: Optional[subprocess.Popen] = None
        for attempt in range(3):  # a free port may be taken between the probe and nginx's bind
            self.port = free_port()
            config = workdir / "nginx.conf"
            config.write_text(f"""
load_module {RTMP_MODULE};
daemon off;
master_process off;
worker_processes 1;
pid {workdir / 'nginx.pid'};
error_log {workdir / 'logs' / 'error.log'} info;
events {{ worker_connections 64; }}
rtmp {{
    server {{
        listen 127.0.0.1:{self.port};
        chunk_size 4096;
        application live {{
            live on;
            record off;
            wait_key on;
            wait_video on;
        }}
    }}
}}
""")
            log = open(workdir / "logs" / "nginx.out", "ab")
            process = subprocess.Popen([nginx, "-p", str(workdir), "-c", str(config),
                                        "-e", str(workdir / "logs" / "error.log")],
                                       stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            log.close()
            if _wait_listening(self.port, process, 10.0):
                self.process = process
                return
            self._end(process)
        errors = (workdir / "logs" / "error.log").read_text(errors="replace")[-800:]
        raise AssertionError(f"nginx did not start listening: {errors}")

    def url(self, name: str = "stream") -> str:
        return f"rtmp://127.0.0.1:{self.port}/live/{name}"

    def publish(self, path: str, name: str = "stream") -> str:
        """Feeds `path` (H.264 + AAC) to live/`name` in real time, forever; waits until it can be played."""
        log = open(self.workdir / "logs" / f"ffmpeg-{name}.log", "ab")
        process = subprocess.Popen(
            ["ffmpeg", "-nostdin", "-hide_banner", "-v", "error", "-re", "-stream_loop", "-1", "-i", path,
             "-c", "copy", "-f", "flv", self.url(name)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        self.publishers.append(process)
        # The stream is there when ffprobe can read its streams from nginx.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            assert process.poll() is None, "the ffmpeg publisher exited: " + (
                self.workdir / "logs" / f"ffmpeg-{name}.log").read_text(errors="replace")[-500:]
            done = run(["ffprobe", "-v", "error", "-rw_timeout", "5000000", "-show_entries", "stream=codec_type",
                        "-of", "csv=p=0", self.url(name)], timeout=15, check=False)
            types = done.stdout.decode().split()
            if "video" in types and "audio" in types:
                return self.url(name)
        raise AssertionError(f"{self.url(name)} could not be played within 20 s")

    @staticmethod
    def _end(process: subprocess.Popen) -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)

    def close(self) -> None:
        for process in self.publishers:
            self._end(process)
        if self.process is not None:
            self._end(self.process)


# --------------------------------------------------------------------------
# Engines
# --------------------------------------------------------------------------


def quiet_engine(tmp: Path, name: str, handler: Optional[Any] = None) -> agoraish.RtcEngine:
    """An engine that joins no server (its server URL leads nowhere): for players, mixing and arguments."""
    return agoraish.RtcEngine(APP, handler, server_url="ws://127.0.0.1:1", log_file=str(tmp / f"{name}.log"))


def expect_error(code: int, call: Callable[[], Any]) -> None:
    """`call()` raises AgoraishError with `code`."""
    with pytest.raises(agoraish.AgoraishError) as error:
        call()
    assert error.value.code == code, f"wanted {code}, got {error.value}"


def poll(predicate: Callable[[], bool], timeout: float = TIMEOUT, interval: float = 0.02) -> bool:
    """Polls `predicate` until it holds (for values that have no event, such as getters)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


