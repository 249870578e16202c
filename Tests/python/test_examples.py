"""The Python examples (examples/python), each run as its own program, as a
reader would run it: `sys.executable examples/python/<name>.py`; and the C
and C++ builds (build/examples, `make hosts`) of the data, metadata,
encryption, quick switch, simulcast and media examples, which tell the same
stories.

Each example starts a channel server inside its process and checks its own
story (what the remote user heard, what the observer saw, ...); it exits 0
when the story went as expected. The examples run one after the other (the
audio and video ones pace themselves in real time, so running them side by
side on a small machine would only test the machine) in a temporary working
directory, so the files they write under demo-out/ stay out of the checkout,
with the library under test (AGORAISH_LIBRARY) and their logs in the test's
directory. About 100 s in all, and about 100 s more for the media examples
(ABI 0.13: media player, URL streaming, audio mixing, recorder, alpha), which
make their media with the ffmpeg command-line tool first, and about 80 s for
the voice examples (ABI 0.14: voice changer, spatial audio) in the three
languages.
"""

from __future__ import annotations

import array
import math
import os
import re
import shutil
import subprocess
import sys
import wave
from pathlib import Path
from typing import Dict, Optional, Sequence

import pytest

from support import ROOT, library_path

EXAMPLES = ROOT / "examples" / "python"


def run_example(name: str, workdir: Path, timeout: float, args: Sequence[str] = (),
                env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    """Runs examples/python/<name>.py in `workdir`; its logs go to workdir/logs."""
    logs = workdir / "logs"
    logs.mkdir(exist_ok=True)
    environment = dict(os.environ, AGORAISH_LIBRARY=str(library_path()), AGORAISH_LOG_DIR=str(logs))
    environment.update(env or {})
    return subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), *args], cwd=str(workdir),
                          env=environment, capture_output=True, text=True, timeout=timeout)


def check_success(out: subprocess.CompletedProcess, last_line: Optional[str] = None) -> None:
    """Exit code 0, the example's own success line, and no exception raised in a callback."""
    report = f"exit {out.returncode}\n--- stdout\n{out.stdout[-3000:]}\n--- stderr\n{out.stderr[-3000:]}"
    assert out.returncode == 0, report
    if last_line is not None:
        assert out.stdout.rstrip().splitlines()[-1] == last_line, report
    # An exception in a callback does not reach the library: it is only printed.
    assert "Traceback" not in out.stderr and "Exception ignored" not in out.stderr, report


# (example, timeout in seconds, its last line on success)
AUDIO_EXAMPLES = [
    ("join_channel_audio", 40, "done: local was heard at each recording volume and heard remote"),
    ("raw_audio_data", 30, "done: every position saw its audio, and remote heard the changed recording"),
    ("custom_pcm_audio_source", 30, "done: remote heard what local pushed"),
    ("custom_audio_render", 30, "done: local rendered remote's tone and its mute"),
]


@pytest.mark.parametrize("name,timeout,last_line", AUDIO_EXAMPLES, ids=[case[0] for case in AUDIO_EXAMPLES])
def test_audio_example(name, timeout, last_line, tmp_path):
    out = run_example(name, tmp_path, timeout)
    check_success(out, last_line)


# (example, timeout in seconds, its last line on success)
VIDEO_EXAMPLES = [
    ("custom_video_source_push", 30, "done: remote rendered local's pictures in order"),
    ("custom_video_render", 30, "done: local rendered remote's pictures into demo-out/custom_video_render.y4m"),
    ("join_channel_video", 30, "done: each user saw itself mirrored and the other as sent"),
    ("raw_video_data", 30, "done: remote rendered local's pictures grey and framed, as the observers made them"),
    ("live_streaming", 40, "done: the audience watched the host's high stream, then its low stream"),
]


def check_y4m(path: Path, stdout: str) -> None:
    """The YUV4MPEG2 file custom_video_render wrote: 320x240 4:2:0, as many
    frames as the example says it rendered, each behind its FRAME tag."""
    data = path.read_bytes()
    header, _, body = data.partition(b"\n")
    fields = header.split()
    assert fields[:4] == [b"YUV4MPEG2", b"W320", b"H240", b"F15:1"], header
    rendered = re.search(r"rendered (\d+) pictures of 320x240", stdout)
    assert rendered, stdout
    frame_size = len(b"FRAME\n") + 320 * 240 * 3 // 2
    assert len(body) == int(rendered.group(1)) * frame_size, (len(body), rendered.group(0))
    assert all(body[i:i + 6] == b"FRAME\n" for i in range(0, len(body), frame_size))


@pytest.mark.parametrize("name,timeout,last_line", VIDEO_EXAMPLES, ids=[case[0] for case in VIDEO_EXAMPLES])
def test_video_example(name, timeout, last_line, tmp_path):
    out = run_example(name, tmp_path, timeout)
    check_success(out, last_line)
    if name == "custom_video_render":
        check_y4m(tmp_path / "demo-out" / "custom_video_render.y4m", out.stdout)


# (example, timeout in seconds, its last line on success): the same in C, C++ and Python.
DATA_EXAMPLES = [
    ("create_data_stream", 20, "done: remote got local's messages once and in order, and local got the answer"),
    ("video_metadata", 20, "done: remote got each picture's metadata with its timestamp, in order"),
    ("stream_encryption", 20,
     "done: the tone and a message each way crossed encrypted, through both packet observers"),
]


@pytest.mark.parametrize("name,timeout,last_line", DATA_EXAMPLES, ids=[case[0] for case in DATA_EXAMPLES])
def test_data_example(name, timeout, last_line, tmp_path):
    out = run_example(name, tmp_path, timeout)
    check_success(out, last_line)


# (example, timeout in seconds, its last line on success): several channels per
# engine, custom audio tracks and custom video tracks (ABI 0.11), in Python only.
CONNECTION_EXAMPLES = [
    ("join_multi_channel", 20, "done: local was in both channels at once, each with its own users and messages"),
    ("custom_audio_source", 30,
     "done: remote heard each custom track local published, and the volume change"),
    # Custom video tracks and custom encoded video tracks (needs libvpx.so.7 for the host's own VP8 frames).
    ("custom_video_source_push_multi", 30,
     "done: remote rendered both of local's tracks, the encoded frames as pushed"),
]


@pytest.mark.parametrize("name,timeout,last_line", CONNECTION_EXAMPLES, ids=[case[0] for case in CONNECTION_EXAMPLES])
def test_connection_example(name, timeout, last_line, tmp_path):
    out = run_example(name, tmp_path, timeout)
    check_success(out, last_line)


# (example, timeout in seconds, its last line on success): preloaded channels
# (ABI 0.12), the same story in C, C++ and Python.
QUICK_SWITCH_EXAMPLES = [
    ("quick_switch_channel", 30, "done: viewer heard each channel's host right after every switch"),
]


def check_switches(stdout: str) -> None:
    """quick_switch_channel's report of each of its five joins: the first audio's delay and the tone heard."""
    joins = re.findall(r'"(quick-switch-[12])": uid (\d+) decoded (\d+) ms after join\w*; heard (\d+) Hz', stdout)
    assert [(channel, int(uid)) for channel, uid, _, _ in joins] == [
        ("quick-switch-1", 101), ("quick-switch-2", 102)] * 2 + [("quick-switch-1", 101)], stdout
    assert all(abs(int(hz) - (440 if channel.endswith("1") else 1000)) < 10 for channel, _, _, hz in joins), stdout


@pytest.mark.parametrize("name,timeout,last_line", QUICK_SWITCH_EXAMPLES, ids=[case[0] for case in QUICK_SWITCH_EXAMPLES])
def test_quick_switch_example(name, timeout, last_line, tmp_path):
    out = run_example(name, tmp_path, timeout)
    check_success(out, last_line)
    check_switches(out.stdout)


# (example, timeout in seconds, its last line on success): simulcast layers
# (ABI 0.12), the same story in C, C++ and Python.
SIMULCAST_EXAMPLES = [
    ("simulcast", 30, "done: each viewer received the stream it asked for, and viewer3 its new one"),
]


def check_layers(stdout: str) -> None:
    """simulcast's report: the picture size each viewer settled on for the stream type it asked for (LAYER_1,
    LAYER_2, LOW of a 640x360 host with LAYER_1 480x270, LAYER_2 320x180, LOW 160x90), and viewer3's after it
    switched to LAYER_1."""
    asked = re.findall(r"(viewer[123])\s+asked for (\d+) \((\w+)\), receives (\d+)x(\d+)", stdout)
    assert [(viewer, int(t), name, int(w), int(h)) for viewer, t, name, w, h in asked] == [
        ("viewer1", 4, "LAYER_1", 480, 270), ("viewer2", 5, "LAYER_2", 320, 180), ("viewer3", 1, "LOW", 160, 90)], stdout
    switched = re.findall(r"(viewer3)\s+switched to (\d+) \((\w+)\), receives (\d+)x(\d+) \(was (\d+)x(\d+)\)",
                          stdout)
    assert [(viewer, int(t), name, int(w), int(h), int(w0), int(h0)) for viewer, t, name, w, h, w0, h0 in switched] == [
        ("viewer3", 4, "LAYER_1", 480, 270, 160, 90)], stdout


@pytest.mark.parametrize("name,timeout,last_line", SIMULCAST_EXAMPLES, ids=[case[0] for case in SIMULCAST_EXAMPLES])
def test_simulcast_example(name, timeout, last_line, tmp_path):
    out = run_example(name, tmp_path, timeout)
    check_success(out, last_line)
    check_layers(out.stdout)


def run_built_example(program: Path, workdir: Path, timeout: float) -> subprocess.CompletedProcess:
    """A C or C++ example of build/examples (make hosts), run in `workdir` with the library under test."""
    logs = workdir / "logs"
    logs.mkdir(exist_ok=True)
    environment = dict(os.environ, AGORAISH_LOG_DIR=str(logs))
    environment["LD_LIBRARY_PATH"] = os.pathsep.join(
        filter(None, [str(library_path().parent), environment.get("LD_LIBRARY_PATH")]))
    return subprocess.run([str(program)], cwd=str(workdir), env=environment, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("language", ["c", "cpp"])
@pytest.mark.parametrize("name,timeout,last_line", DATA_EXAMPLES, ids=[case[0] for case in DATA_EXAMPLES])
def test_built_data_example(name, timeout, last_line, language, tmp_path):
    # The C and C++ versions of the same stories end with the same line.
    program = ROOT / "build" / "examples" / (name if language == "c" else f"{name}_cpp")
    if not program.exists():
        pytest.skip(f"{program.relative_to(ROOT)} is not built (make hosts builds it)")
    check_success(run_built_example(program, tmp_path, timeout), last_line)


# (example, timeout in seconds, its last line on success): the C and C++ builds of
# the connection examples (ABI 0.11), which tell their own stories, the same in both.
BUILT_CONNECTION_EXAMPLES = [
    ("join_multi_channel", 20, "done: local was in both channels at once and left each on its own"),
    ("custom_audio_source", 30, "done: remote heard the custom track at both publish volumes"),
    ("custom_video_source_push_multi", 20, "done: viewer received both custom video tracks, each as its own user"),
]


@pytest.mark.parametrize("language", ["c", "cpp"])
@pytest.mark.parametrize("name,timeout,last_line", BUILT_CONNECTION_EXAMPLES,
                         ids=[case[0] for case in BUILT_CONNECTION_EXAMPLES])
def test_built_connection_example(name, timeout, last_line, language, tmp_path):
    program = ROOT / "build" / "examples" / (name if language == "c" else f"{name}_cpp")
    if not program.exists():
        pytest.skip(f"{program.relative_to(ROOT)} is not built (make hosts builds it)")
    check_success(run_built_example(program, tmp_path, timeout), last_line)


@pytest.mark.parametrize("language", ["c", "cpp"])
@pytest.mark.parametrize("name,timeout,last_line", QUICK_SWITCH_EXAMPLES, ids=[case[0] for case in QUICK_SWITCH_EXAMPLES])
def test_built_quick_switch_example(name, timeout, last_line, language, tmp_path):
    program = ROOT / "build" / "examples" / (name if language == "c" else f"{name}_cpp")
    if not program.exists():
        pytest.skip(f"{program.relative_to(ROOT)} is not built (make hosts builds it)")
    out = run_built_example(program, tmp_path, timeout)
    check_success(out, last_line)
    check_switches(out.stdout)


@pytest.mark.parametrize("language", ["c", "cpp"])
@pytest.mark.parametrize("name,timeout,last_line", SIMULCAST_EXAMPLES, ids=[case[0] for case in SIMULCAST_EXAMPLES])
def test_built_simulcast_example(name, timeout, last_line, language, tmp_path):
    program = ROOT / "build" / "examples" / (name if language == "c" else f"{name}_cpp")
    if not program.exists():
        pytest.skip(f"{program.relative_to(ROOT)} is not built (make hosts builds it)")
    out = run_built_example(program, tmp_path, timeout)
    check_success(out, last_line)
    check_layers(out.stdout)


# (example, timeout in seconds, its last line on success): the media player,
# audio mixing and effects, and the media recorder (ABI 0.13), the same story
# in C, C++ and Python. Each makes its media with the ffmpeg CLI into
# demo-out/ first (rte_player serves its HLS playlist over http:// itself).
MEDIA_EXAMPLES = [
    ("media_player", 30,
     "done: remote heard and saw the file local's player published, through pause, resume and seek"),
    ("rte_player", 30, "done: remote heard and saw the stream local played from its URL"),
    ("audio_mixing", 30,
     "done: remote heard the voice with the music, its volume, pitch and pause, and the effect"),
    ("join_channel_video_recorder", 30,
     "done: each user recorded the call to MP4, H.264 and AAC as ffprobe reads them"),
    ("transparent_render", 30,
     "done: both canvases got their pictures' alpha, and remote the pictures without it"),
]


def ffmpeg_missing() -> Optional[str]:
    """Why the media examples cannot run (the ffmpeg or ffprobe CLI is missing), or None."""
    missing = [tool for tool in ("ffmpeg", "ffprobe") if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not installed (make setup installs ffmpeg)" if missing else None


def check_media(name: str, workdir: Path) -> None:
    """What a media example leaves in demo-out/: the recordings are there and not empty."""
    if name == "join_channel_video_recorder":
        for who in ("local", "remote"):
            path = workdir / "demo-out" / f"join_channel_video_recorder_{who}.mp4"
            assert path.is_file() and path.stat().st_size > 10000, path


@pytest.mark.skipif(ffmpeg_missing() is not None, reason=str(ffmpeg_missing()))
@pytest.mark.parametrize("name,timeout,last_line", MEDIA_EXAMPLES, ids=[case[0] for case in MEDIA_EXAMPLES])
def test_media_example(name, timeout, last_line, tmp_path):
    out = run_example(name, tmp_path, timeout)
    check_success(out, last_line)
    check_media(name, tmp_path)


@pytest.mark.skipif(ffmpeg_missing() is not None, reason=str(ffmpeg_missing()))
@pytest.mark.parametrize("language", ["c", "cpp"])
@pytest.mark.parametrize("name,timeout,last_line", MEDIA_EXAMPLES, ids=[case[0] for case in MEDIA_EXAMPLES])
def test_built_media_example(name, timeout, last_line, language, tmp_path):
    program = ROOT / "build" / "examples" / (name if language == "c" else f"{name}_cpp")
    if not program.exists():
        pytest.skip(f"{program.relative_to(ROOT)} is not built (make hosts builds it)")
    check_success(run_built_example(program, tmp_path, timeout), last_line)
    check_media(name, tmp_path)


# (example, timeout in seconds, its last line on success): noise suppression and
# voice effects, and spatial audio (ABI 0.14), the same story in C, C++ and
# Python. Each prints what its listener measured at each step; check_voice
# checks it again.
VOICE_EXAMPLES = [
    ("voice_changer", 40, "done: remote heard the noise suppressed, then each voice effect change the voice"),
    ("spatial_audio", 30, "done: listener heard the speaker in front, right, behind and left, and not out of range"),
]

VOICE_STEPS = ["as pushed", "AINS aggressive", "beautifier SINGING_BEAUTIFIER", "effect VOICE_CHANGER_EFFECT_HULK",
               "conversion VOICE_CHANGER_CHIPMUNK", "pitch 2.0"]
PLACES = [("front", (1, 0, 0)), ("right", (0, 1, 0)), ("back", (-1, 0, 0)), ("left", (0, -1, 0)),
          ("out of range", (30, 0, 0))]
HRTF_SET = Path("/usr/share/libmysofa/default.sofa")


def check_voice(name: str, stdout: str) -> None:
    """What the voice examples measured. voice_changer: a 150 Hz voice as pushed; noise
    suppression lowers the pauses by 6 dB or more and keeps the voice; each preset changes the
    voice without effects (F0 by 5 % or more, the brightness by 1.5 dB or more, or the pauses
    raised by 6 dB or more); pitch 2.0 doubles F0. spatial_audio: the interaural level
    difference (right minus left) about 0 in front and behind, +6 dB or more on the right,
    -6 dB or less on the left, and both ears silent out of range."""
    if name == "voice_changer":
        found = re.findall(r"remote\s+(.+?): F0 (\d+) Hz, voice (-?\d+\.\d) dBFS, pauses (-?\d+\.\d) dBFS, "
                           r"brightness (-?\d+\.\d) dB$", stdout, re.MULTILINE)
        assert [step for step, *_ in found] == VOICE_STEPS, stdout
        f0, voice, pauses, bright = ([float(row[i]) for row in found] for i in (1, 2, 3, 4))
        assert abs(f0[0] - 150) <= 5, stdout
        assert abs(f0[1] - 150) <= 5 and pauses[1] <= pauses[0] - 6 and voice[1] >= voice[0] - 6, stdout
        for i in (2, 3, 4):
            assert (abs(f0[i] / f0[1] - 1) >= 0.05 or abs(bright[i] - bright[1]) >= 1.5
                    or pauses[i] - pauses[1] >= 6), (VOICE_STEPS[i], stdout)
        assert abs(f0[5] - 300) <= 12, stdout
    else:
        found = re.findall(r"listener\s+(front|right|back|left|out of range) \((-?\d+), (-?\d+), (-?\d+)\): "
                           r"left (-?\d+\.\d) dBFS, right (-?\d+\.\d) dBFS, ILD ([+-]\d+\.\d) dB", stdout)
        assert [(place, (int(x), int(y), int(z))) for place, x, y, z, *_ in found] == PLACES, stdout
        left, right, ild = ([float(row[i]) for row in found] for i in (4, 5, 6))
        assert left[0] > -50 and right[0] > -50, stdout
        assert abs(ild[0]) <= 3 and ild[1] >= 6 and abs(ild[2]) <= 3 and ild[3] <= -6, stdout
        assert left[4] <= -60 and right[4] <= -60, stdout


def skip_without_hrtf_set(name: str) -> None:
    """spatial_audio needs Debian's HRTF set (libmysofa's default.sofa)."""
    if name == "spatial_audio" and not HRTF_SET.is_file():
        pytest.skip(f"{HRTF_SET} missing (Debian package libmysofa1)")


@pytest.mark.parametrize("name,timeout,last_line", VOICE_EXAMPLES, ids=[case[0] for case in VOICE_EXAMPLES])
def test_voice_example(name, timeout, last_line, tmp_path):
    skip_without_hrtf_set(name)
    out = run_example(name, tmp_path, timeout)
    check_success(out, last_line)
    check_voice(name, out.stdout)


@pytest.mark.parametrize("language", ["c", "cpp"])
@pytest.mark.parametrize("name,timeout,last_line", VOICE_EXAMPLES, ids=[case[0] for case in VOICE_EXAMPLES])
def test_built_voice_example(name, timeout, last_line, language, tmp_path):
    skip_without_hrtf_set(name)
    program = ROOT / "build" / "examples" / (name if language == "c" else f"{name}_cpp")
    if not program.exists():
        pytest.skip(f"{program.relative_to(ROOT)} is not built (make hosts builds it)")
    out = run_built_example(program, tmp_path, timeout)
    check_success(out, last_line)
    check_voice(name, out.stdout)


@pytest.mark.parametrize("name", ["hello_engine", "join_channel"])
def test_first_examples(name, tmp_path):
    out = run_example(name, tmp_path, 20)
    check_success(out)
    assert out.stdout.rstrip().splitlines()[-1] in ("engine released", "released"), out.stdout


def test_raw_audio_data_without_numpy(tmp_path):
    # The observer falls back to the frames' memoryview in plain Python when
    # numpy cannot be imported: a numpy package that refuses to import comes first on the path.
    hidden = tmp_path / "hidden"
    (hidden / "numpy").mkdir(parents=True)
    (hidden / "numpy" / "__init__.py").write_text('raise ImportError("numpy is hidden from this run")\n')
    path = os.pathsep.join(p for p in (str(hidden), os.environ.get("PYTHONPATH", "")) if p)
    out = run_example("raw_audio_data", tmp_path, 30, env={"PYTHONPATH": path})
    check_success(out, AUDIO_EXAMPLES[1][2])
    assert "plain Python (numpy is not installed)" in out.stdout, out.stdout


def test_raw_video_data_without_numpy(tmp_path):
    # The observers write through the frames' memoryviews in plain Python when numpy cannot be imported.
    hidden = tmp_path / "hidden"
    (hidden / "numpy").mkdir(parents=True)
    (hidden / "numpy" / "__init__.py").write_text('raise ImportError("numpy is hidden from this run")\n')
    path = os.pathsep.join(p for p in (str(hidden), os.environ.get("PYTHONPATH", "")) if p)
    out = run_example("raw_video_data", tmp_path, 30, env={"PYTHONPATH": path})
    check_success(out, VIDEO_EXAMPLES[3][2])
    assert "plain Python in the observers" in out.stdout, out.stdout


def test_custom_pcm_audio_source_pushes_a_given_file(tmp_path):
    # A file of the reader's own: 16 kHz mono, 500 Hz for 1 s. The example
    # reports each second it heard without checking it; the test checks the tone.
    path = tmp_path / "tone.wav"
    samples = array.array("h", (int(8000 * math.sin(2 * math.pi * 500 * i / 16000)) for i in range(16000)))
    if sys.byteorder != "little":
        samples.byteswap()
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(samples.tobytes())
    out = run_example("custom_pcm_audio_source", tmp_path, 30, args=[str(path)])
    check_success(out, "done: remote heard what local pushed")
    assert "16000 Hz, 1 channel, 1.00 s" in out.stdout, out.stdout
    heard = re.search(r"second 1: (\d+) Hz", out.stdout)
    assert heard and abs(int(heard.group(1)) - 500) < 10, out.stdout


def test_custom_pcm_audio_source_refuses_a_file_that_is_not_wav(tmp_path):
    path = tmp_path / "not.wav"
    path.write_bytes(b"this is not a WAV file")
    out = run_example("custom_pcm_audio_source", tmp_path, 20, args=[str(path)])
    assert out.returncode == 1, (out.returncode, out.stdout, out.stderr)
    assert "not a 16-bit PCM WAV file" in out.stderr, out.stderr
