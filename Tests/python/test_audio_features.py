"""Audio features of ABI 0.4 between two engines through the embedded server, from Python.

User 1 (engine A) pushes a 1 kHz tone through an external source; user 2
(engine B) pulls what it hears through an external sink. One pump thread
drives both in real time, 10 ms per call, for the whole module, so the tests
measure what B hears while they change settings: the level of the tone (read
as bytes, as a memoryview and as a numpy array), the playback, recording and
per-user volumes, raw audio observers in read-only and read-write modes,
muting, recording to a file, volume indication and the statistics callbacks.

Every wait polls with a generous timeout; the only sleeps pace the pump.
"""

from __future__ import annotations

import array
import math
import os
import subprocess
import sys
import textwrap
import threading
import time
import wave
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import agoraish
from support import BINDING, library_path

APP = "0123456789abcdef0123456789abcdef"
RATE = 48000
CHUNK = RATE // 100  # 10 ms
AMPLITUDE = 8000
FREQUENCY = 1000
SENDER, RECEIVER = 1, 2
#: How long any wait may take, in seconds (generous: the pump runs in real time).
TIMEOUT = 20.0
#: Audio heard after a change before it counts: the jitter buffer and one write-mode period.
SETTLE_MS = 300
#: Audio measured per level, in ms.
MEASURE_MS = 1000


# --------------------------------------------------------------------------
# Signal helpers
# --------------------------------------------------------------------------


def level_db(samples: Any) -> float:
    """RMS level of int16 samples relative to the pushed tone (0 dB = the tone as pushed)."""
    count = len(samples)
    assert count, "no samples"
    rms = math.sqrt(sum(int(s) * int(s) for s in samples) / count)
    return 20 * math.log10(max(rms, 1e-3) / (AMPLITUDE / math.sqrt(2)))


def frequency(samples: Any, rate: int = RATE) -> float:
    """Frequency from zero crossings."""
    values = [int(s) for s in samples]
    crossings = sum(1 for a, b in zip(values, values[1:]) if (a < 0) != (b < 0))
    return crossings / 2 / (len(values) / rate)


# --------------------------------------------------------------------------
# Events of both engines
# --------------------------------------------------------------------------


class Events(agoraish.EventHandler):
    """Records every audio event of one engine; `wait_for` polls for one that matches."""

    def __init__(self) -> None:
        self.events: List[Tuple[str, tuple]] = []
        self.cond = threading.Condition()

    def _add(self, name: str, *args: Any) -> None:
        with self.cond:
            self.events.append((name, args))
            self.cond.notify_all()

    def wait_for(self, name: str, match: Callable[..., bool] = lambda *a: True, timeout: float = TIMEOUT,
                 after: int = 0) -> tuple:
        """The arguments of the first event `name` (from index `after`) for which `match(*args)` holds."""

        def find() -> Optional[tuple]:
            for event, args in self.events[after:]:
                if event == name and match(*args):
                    return args
            return None

        with self.cond:
            found = self.cond.wait_for(find, timeout)
            seen = [args for event, args in self.events[after:] if event == name][-5:]
        assert found is not None, f"no matching {name} within {timeout} s; last ones: {seen}"
        return found

    def mark(self) -> int:
        with self.cond:
            return len(self.events)

    def on_join_channel_success(self, channel, uid, elapsed):
        self._add("join", channel, uid, elapsed)

    def on_user_joined(self, uid, elapsed):
        self._add("user_joined", uid, elapsed)

    def on_first_local_audio_frame_published(self, elapsed):
        self._add("first_local_audio_frame_published", elapsed)

    def on_first_remote_audio_frame(self, uid, elapsed):
        self._add("first_remote_audio_frame", uid, elapsed)

    def on_first_remote_audio_decoded(self, uid, elapsed):
        self._add("first_remote_audio_decoded", uid, elapsed)

    def on_user_mute_audio(self, uid, muted):
        self._add("user_mute_audio", uid, muted)

    def on_local_audio_state_changed(self, state, error):
        self._add("local_audio_state_changed", state, error)

    def on_remote_audio_state_changed(self, uid, state, reason, elapsed):
        self._add("remote_audio_state_changed", uid, state, reason, elapsed)

    def on_audio_volume_indication(self, speakers, total_volume):
        self._add("audio_volume_indication", speakers, total_volume)

    def on_active_speaker(self, uid):
        self._add("active_speaker", uid)

    def on_rtc_stats(self, stats):
        self._add("rtc_stats", stats)

    def on_local_audio_stats(self, stats):
        self._add("local_audio_stats", stats)

    def on_remote_audio_stats(self, stats):
        self._add("remote_audio_stats", stats)


# --------------------------------------------------------------------------
# The pump: A pushes the tone, B pulls, 10 ms per call in real time
# --------------------------------------------------------------------------


class Pump:
    """Pushes the tone on `sender` and pulls on `receiver` every 10 ms on one thread.

    Pulled audio is kept as the bytes each call returned. `collect` waits
    (polling on the pump's own progress) for audio pulled after it was called.
    """

    def __init__(self, sender: agoraish.RtcEngine, receiver: agoraish.RtcEngine) -> None:
        self.sender, self.receiver = sender, receiver
        self.pulled: List[bytes] = []
        self.errors: List[BaseException] = []
        self.cond = threading.Condition()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="audio-pump", daemon=True)
        self.table = array.array("h", (int(AMPLITUDE * math.sin(2 * math.pi * FREQUENCY * i / RATE))
                                       for i in range(RATE // FREQUENCY * CHUNK)))  # whole periods

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(TIMEOUT)

    def _run(self) -> None:
        start = time.monotonic()
        k = 0
        try:
            while not self.stopping.is_set():
                offset = (k * CHUNK) % len(self.table)
                self.sender.push_external_audio_frame(self.table[offset:offset + CHUNK])
                data = self.receiver.pull_playback_audio_frame(CHUNK)
                with self.cond:
                    self.pulled.append(data)
                    self.cond.notify_all()
                k += 1
                delay = start + k / 100 - time.monotonic()
                if delay > 0:
                    time.sleep(delay)  # real time, as audio devices would run
                elif delay < -1.0:
                    start = time.monotonic() - k / 100  # far behind (a stalled host): do not rush
        except BaseException as error:  # reported by collect()
            with self.cond:
                self.errors.append(error)
                self.cond.notify_all()

    def collect(self, ms: int = MEASURE_MS, skip_ms: int = SETTLE_MS) -> List[bytes]:
        """The pulls (10 ms of bytes each) made after `skip_ms` of pumping from now, for `ms`."""
        with self.cond:
            first = len(self.pulled) + skip_ms // 10
            wanted = first + ms // 10
            done = self.cond.wait_for(lambda: len(self.pulled) >= wanted or self.errors,
                                      TIMEOUT + (skip_ms + ms) / 1000)
            assert not self.errors, f"the pump failed: {self.errors[0]!r}"
            assert done, "the pump stalled"
            return self.pulled[first:wanted]

    def heard(self, ms: int = MEASURE_MS, skip_ms: int = SETTLE_MS) -> array.array:
        samples = array.array("h")
        for data in self.collect(ms, skip_ms):
            samples.frombytes(data)
        return samples

    def wait_until_heard(self, predicate: Callable[[float], bool], what: str) -> float:
        """Polls 200 ms windows until `predicate(level_db)` holds; returns that level."""
        deadline = time.monotonic() + TIMEOUT
        levels: List[float] = []
        while time.monotonic() < deadline:
            levels.append(level_db(self.heard(200, 0)))
            if predicate(levels[-1]):
                return levels[-1]
        raise AssertionError(f"{what}: never heard within {TIMEOUT} s; levels {levels[-10:]}")


class Call:
    """The module's call: server, engines A and B with their events, and the pump."""

    def __init__(self, tmp: Path) -> None:
        self.server = agoraish.ChannelServer()
        self.server.start()
        self.events_a, self.events_b = Events(), Events()
        self.a = agoraish.RtcEngine(APP, self.events_a, server_url=self.server.url, log_file=str(tmp / "a.log"))
        self.b = agoraish.RtcEngine(APP, self.events_b, server_url=self.server.url, log_file=str(tmp / "b.log"))
        self.a.set_external_audio_source(True, RATE, 1)
        self.b.set_external_audio_sink(True, RATE, 1)
        self.a.enable_audio_volume_indication(200, 3, True)
        self.b.enable_audio_volume_indication(200, 3, True)
        self.a.join_channel(None, "audio-features", uid=SENDER)
        self.b.join_channel(None, "audio-features", uid=RECEIVER)
        self.events_a.wait_for("join")
        self.events_b.wait_for("join")
        self.pump = Pump(self.a, self.b)
        self.pump.start()

    def close(self) -> None:
        self.pump.stop()
        for engine in (self.a, self.b):
            engine.release()
        self.server.release()


@pytest.fixture(scope="module")
def call(tmp_path_factory) -> Any:
    c = Call(tmp_path_factory.mktemp("audio-features"))
    try:
        c.pump.wait_until_heard(lambda db: db > -3, "the tone")
        yield c
    finally:
        c.close()


@pytest.fixture
def clean_call(call):
    """The call, with every setting a test may change put back afterwards."""
    yield call
    call.a.register_audio_frame_observer(None)
    call.b.register_audio_frame_observer(None)
    call.a.set_recording_audio_frame_parameters(RATE, 1, agoraish.RawAudioFrameOpMode.READ_ONLY, 0)
    call.b.set_playback_audio_frame_parameters(RATE, 1, agoraish.RawAudioFrameOpMode.READ_ONLY, 0)
    call.a.adjust_recording_signal_volume(100)
    call.b.adjust_playback_signal_volume(100)
    call.b.adjust_user_playback_signal_volume(SENDER, 100)
    call.a.mute_local_audio_stream(False)
    call.b.mute_remote_audio_stream(SENDER, False)
    call.b.stop_audio_recording()
    call.pump.wait_until_heard(lambda db: abs(db) < 1, "the tone at its level again")


# --------------------------------------------------------------------------
# Level of the tone: bytes, memoryview, numpy
# --------------------------------------------------------------------------


def test_the_tone_is_heard_at_its_level_as_bytes_and_as_memoryview(clean_call):
    pulls = clean_call.pump.collect()
    assert all(isinstance(p, bytes) and len(p) == 2 * CHUNK for p in pulls)

    # As bytes: decoded sample by sample with array('h').
    from_bytes = array.array("h")
    for data in pulls:
        from_bytes.frombytes(data)

    # As memoryviews: each pull cast to int16 without a copy.
    views = [memoryview(data).cast("h") for data in pulls]
    assert all(v.format == "h" and v.itemsize == 2 and len(v) == CHUNK for v in views)
    from_views = [s for v in views for s in v]

    assert list(from_bytes) == from_views
    for samples in (from_bytes, from_views):
        assert abs(level_db(samples)) < 1.0, "within 1 dB of what was pushed"
        assert abs(frequency(samples) - FREQUENCY) < 20


def test_the_tone_is_heard_at_its_level_as_numpy(clean_call):
    numpy = pytest.importorskip("numpy")
    pulls = clean_call.pump.collect()
    heard = numpy.concatenate([numpy.frombuffer(data, dtype=numpy.int16) for data in pulls])
    assert heard.dtype == numpy.int16 and heard.shape == (len(pulls) * CHUNK,)
    rms = float(numpy.sqrt(numpy.mean(heard.astype(numpy.float64) ** 2)))
    db = 20 * math.log10(rms / (AMPLITUDE / math.sqrt(2)))
    assert abs(db) < 1.0
    spectrum = numpy.abs(numpy.fft.rfft(heard.astype(numpy.float64)))
    peak = float(numpy.argmax(spectrum)) * RATE / len(heard)
    assert abs(peak - FREQUENCY) < 5
    assert abs(db - level_db(heard.tolist())) < 1e-6, "numpy and the pure-Python level agree"


# --------------------------------------------------------------------------
# Volumes
# --------------------------------------------------------------------------


def test_playback_signal_volume_50_lowers_the_level_by_6_db(clean_call):
    before = level_db(clean_call.pump.heard())
    clean_call.b.adjust_playback_signal_volume(50)
    after = level_db(clean_call.pump.heard())
    assert abs(before) < 1.0
    assert abs((after - before) - 20 * math.log10(0.5)) < 0.5, (before, after)
    clean_call.b.adjust_playback_signal_volume(0)
    assert level_db(clean_call.pump.heard()) < -60, "volume 0 is silence"


def test_user_playback_volume_and_recording_volume(clean_call):
    clean_call.b.adjust_user_playback_signal_volume(SENDER, 50)
    user = level_db(clean_call.pump.heard())
    assert abs(user + 6.02) < 1.0, user
    clean_call.b.adjust_user_playback_signal_volume(SENDER, 100)
    clean_call.a.adjust_recording_signal_volume(50)
    recording = level_db(clean_call.pump.heard(skip_ms=600))  # sent before the change may still play
    assert abs(recording + 6.02) < 1.0, recording


# --------------------------------------------------------------------------
# Raw audio observers
# --------------------------------------------------------------------------


class PlaybackObserver(agoraish.AudioFrameObserver):
    """Keeps copies of what B plays, as memoryview contents, bytes and (if installed) numpy."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.frames: List[Dict[str, Any]] = []
        self.before_mixing: List[Tuple[int, int, int]] = []
        self.mixed = 0
        self.kept: List[agoraish.AudioFrame] = []

    def on_playback_audio_frame(self, frame):
        view = frame.buffer
        info = {
            "format": view.format, "readonly": view.readonly, "len": len(view), "nbytes": view.nbytes,
            "samples": view.tolist(), "bytes": frame.bytes(), "shape": (frame.samples_per_channel, frame.channels),
            "rate": frame.samples_per_sec, "bps": frame.bytes_per_sample, "type": frame.type,
            "time": frame.render_time_ms, "thread": threading.current_thread().name,
        }
        try:
            array_view = frame.numpy()
        except ModuleNotFoundError:
            pass
        else:
            info["numpy"] = array_view.copy()
            del array_view
        with self.lock:
            self.frames.append(info)
            if len(self.kept) < 1:
                self.kept.append(frame)
        return True

    def on_playback_audio_frame_before_mixing(self, uid, frame):
        with self.lock:
            self.before_mixing.append((uid, frame.samples_per_channel, frame.channels))
        return True

    def on_mixed_audio_frame(self, frame):
        with self.lock:
            self.mixed += 1
        return True

    def wait(self, count: int) -> List[Dict[str, Any]]:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.frames) >= count:
                    return list(self.frames)
            time.sleep(0.01)
        raise AssertionError(f"{len(self.frames)} playback frames, wanted {count}")


def test_playback_observer_sees_the_tone_as_memoryview_bytes_and_numpy(clean_call):
    observer = PlaybackObserver()
    clean_call.b.set_playback_audio_frame_parameters(RATE, 1, agoraish.RawAudioFrameOpMode.READ_ONLY, 0)
    clean_call.b.set_mixed_audio_frame_parameters(RATE, 1, 0)
    clean_call.b.set_playback_audio_frame_before_mixing_parameters(RATE, 1)
    clean_call.b.register_audio_frame_observer(observer)  # positions from the overridden methods
    frames = observer.wait(150)[-100:]  # 1 s

    assert all(f["format"] == "h" and not f["readonly"] and f["len"] == CHUNK and f["nbytes"] == 2 * CHUNK
               for f in frames)
    assert all(f["shape"] == (CHUNK, 1) and f["rate"] == RATE and f["bps"] == 2 and f["type"] == 0 for f in frames)
    assert all(f["thread"] == "audio-pump" for f in frames), "on the thread that pulls"
    times = [f["time"] for f in frames]
    # The stamp is the pull's time: pulls that catch up after a stall can share a millisecond.
    steps = [b - a for a, b in zip(times, times[1:])]
    assert all(step >= 0 for step in steps), f"render_time_ms never goes back: steps {steps}"
    assert times[-1] > times[0], f"render_time_ms grows: {times[0]} .. {times[-1]}"
    samples = [s for f in frames for s in f["samples"]]
    assert b"".join(f["bytes"] for f in frames) == array.array("h", samples).tobytes(), "bytes() copies the view"
    assert abs(level_db(samples)) < 1.0 and abs(frequency(samples) - FREQUENCY) < 20
    if "numpy" in frames[0]:
        assert [int(s) for f in frames for s in f["numpy"]] == samples, "numpy() views the same samples"

    with observer.lock:
        assert observer.before_mixing and all(entry == (SENDER, CHUNK, 1) for entry in observer.before_mixing[-50:])
        assert observer.mixed > 0
        kept = observer.kept[0]
    with pytest.raises(ValueError):
        kept.buffer  # noqa: B018 - valid only during its callback
    with pytest.raises(ValueError):
        kept.bytes()

    clean_call.b.register_audio_frame_observer(None)
    with observer.lock:
        count = len(observer.frames)
    clean_call.pump.collect(200, 0)
    with observer.lock:
        assert len(observer.frames) == count, "no callback after removal"


class RecordScaler(agoraish.AudioFrameObserver):
    """Changes A's local audio before encoding: scales it, zeroes it, or discards the frame."""

    def __init__(self) -> None:
        self.factor = 0.5
        self.keep = True
        self.calls = 0
        self.threads = set()
        self.formats = set()

    def on_record_audio_frame(self, frame):
        self.calls += 1
        self.threads.add(threading.current_thread().name)
        self.formats.add((frame.samples_per_channel, frame.channels, frame.samples_per_sec))
        view = frame.buffer
        if self.factor == 0:
            view[:] = array.array("h", bytes(view.nbytes))
        elif self.factor != 1:
            factor = self.factor
            for i, value in enumerate(view):
                view[i] = int(value * factor)
        return self.keep


def test_record_observer_in_read_write_mode_changes_what_is_heard(clean_call):
    observer = RecordScaler()
    clean_call.a.set_recording_audio_frame_parameters(RATE, 1, agoraish.RawAudioFrameOpMode.READ_WRITE, 0)
    clean_call.a.register_audio_frame_observer(observer, agoraish.AudioFramePosition.RECORD)

    scaled = level_db(clean_call.pump.heard(skip_ms=600))
    assert abs(scaled + 6.02) < 1.0, f"scaled by 0.5 at the sender: {scaled:.2f} dB at the receiver"
    assert observer.threads == {"audio-pump"}, "on the thread that pushes"
    assert observer.formats == {(CHUNK, 1, RATE)}

    observer.factor = 0
    assert level_db(clean_call.pump.heard(skip_ms=600)) < -60, "zeroed at the sender"

    observer.factor, observer.keep = 1, False
    assert level_db(clean_call.pump.heard(skip_ms=600)) < -60, "a discarded frame becomes silence"

    observer.keep = True
    assert abs(level_db(clean_call.pump.heard(skip_ms=600))) < 1.0, "unchanged frames pass"


def test_record_observer_read_only_mode_ignores_changes(clean_call):
    observer = RecordScaler()
    observer.factor = 0
    clean_call.a.set_recording_audio_frame_parameters(RATE, 1, agoraish.RawAudioFrameOpMode.READ_ONLY, 0)
    clean_call.a.register_audio_frame_observer(observer, agoraish.AudioFramePosition.RECORD)
    assert abs(level_db(clean_call.pump.heard(skip_ms=600))) < 1.0
    assert observer.calls > 0


def test_record_observer_numpy_writes_are_heard(clean_call):
    numpy = pytest.importorskip("numpy")

    class Quarter(agoraish.AudioFrameObserver):
        def on_record_audio_frame(self, frame):
            samples = frame.numpy()
            samples //= 4
            return True

    clean_call.a.set_recording_audio_frame_parameters(RATE, 1, agoraish.RawAudioFrameOpMode.READ_WRITE, 0)
    clean_call.a.register_audio_frame_observer(Quarter(), agoraish.AudioFramePosition.RECORD)
    quarter = level_db(clean_call.pump.heard(skip_ms=600))
    assert abs(quarter - 20 * math.log10(0.25)) < 1.0, quarter
    assert numpy is not None


def test_an_exception_in_an_observer_is_reported_and_the_frame_kept(clean_call, monkeypatch):
    reported: List[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)

    class Faulty(agoraish.AudioFrameObserver):
        def on_record_audio_frame(self, frame):
            frame.buffer[:] = array.array("h", bytes(frame.buffer.nbytes))  # written, then it fails
            raise RuntimeError("observer failure")

    clean_call.a.set_recording_audio_frame_parameters(RATE, 1, agoraish.RawAudioFrameOpMode.READ_ONLY, 0)
    clean_call.a.register_audio_frame_observer(Faulty(), agoraish.AudioFramePosition.RECORD)
    assert abs(level_db(clean_call.pump.heard(skip_ms=600))) < 1.0, "read-only: the audio goes on unchanged"
    clean_call.a.register_audio_frame_observer(None)
    assert reported, "the exception went to sys.unraisablehook"
    assert all(r.exc_type is RuntimeError and "on_record_audio_frame" in r.err_msg for r in reported)


def test_pushing_pulling_and_releasing_from_inside_an_observer_are_refused(clean_call):
    codes: Dict[str, List[int]] = {"push": [], "pull": [], "release": []}

    def attempt(name: str, call: Callable[[], Any]) -> None:
        try:
            call()
        except agoraish.AgoraishError as error:
            codes[name].append(error.code)

    class Reentrant(agoraish.AudioFrameObserver):
        def on_record_audio_frame(self, frame):
            attempt("push", lambda: clean_call.a.push_external_audio_frame(bytes(2 * CHUNK)))
            attempt("release", lambda: clean_call.a.release())
            return True

        def on_playback_audio_frame(self, frame):
            attempt("pull", lambda: clean_call.b.pull_playback_audio_frame(CHUNK))
            attempt("release", lambda: clean_call.b.release(sync=False))
            return True

    clean_call.a.register_audio_frame_observer(Reentrant(), agoraish.AudioFramePosition.RECORD)
    clean_call.b.register_audio_frame_observer(Reentrant(), agoraish.AudioFramePosition.PLAYBACK)
    clean_call.pump.collect(100, 0)
    clean_call.a.register_audio_frame_observer(None)
    clean_call.b.register_audio_frame_observer(None)
    refused = -agoraish.ErrorCode.REFUSED
    assert codes["push"] and set(codes["push"]) == {refused}
    assert codes["pull"] and set(codes["pull"]) == {refused}
    assert codes["release"] and set(codes["release"]) == {refused}
    assert not clean_call.a.released and not clean_call.b.released


# --------------------------------------------------------------------------
# Muting
# --------------------------------------------------------------------------


def test_muting_the_sender_is_heard_and_reported(clean_call):
    mark = clean_call.events_b.mark()
    clean_call.a.mute_local_audio_stream(True)
    clean_call.events_b.wait_for("user_mute_audio", lambda uid, muted: uid == SENDER and muted, after=mark)
    clean_call.events_b.wait_for(
        "remote_audio_state_changed",
        lambda uid, state, reason, elapsed: (uid, state, reason) == (
            SENDER, agoraish.RemoteAudioState.STOPPED, agoraish.RemoteAudioStateReason.REMOTE_MUTED),
        after=mark)
    clean_call.pump.wait_until_heard(lambda db: db < -60, "silence while muted")

    mark = clean_call.events_b.mark()
    clean_call.a.mute_local_audio_stream(False)
    clean_call.events_b.wait_for("user_mute_audio", lambda uid, muted: uid == SENDER and not muted, after=mark)
    clean_call.pump.wait_until_heard(lambda db: abs(db) < 1, "the tone after unmuting")


def test_muting_the_remote_user_locally(clean_call):
    mark = clean_call.events_b.mark()
    clean_call.b.mute_remote_audio_stream(SENDER, True)
    clean_call.events_b.wait_for(
        "remote_audio_state_changed",
        lambda uid, state, reason, elapsed: (uid, state, reason) == (
            SENDER, agoraish.RemoteAudioState.STOPPED, agoraish.RemoteAudioStateReason.LOCAL_MUTED),
        after=mark)
    clean_call.pump.wait_until_heard(lambda db: db < -60, "silence while the sender is muted locally")
    clean_call.b.mute_remote_audio_stream(SENDER, False)
    clean_call.pump.wait_until_heard(lambda db: abs(db) < 1, "the tone after unmuting")


# --------------------------------------------------------------------------
# Recording to a file
# --------------------------------------------------------------------------


def test_recording_what_is_played_to_a_wav_file(clean_call, tmp_path):
    path = tmp_path / "played.wav"
    clean_call.b.start_audio_recording(path, sample_rate=16000,
                                       position=agoraish.AudioRecordingPosition.MIXED_PLAYBACK,
                                       quality=agoraish.AudioRecordingQuality.HIGH)
    clean_call.pump.collect(1500, 0)
    clean_call.b.stop_audio_recording()
    with wave.open(str(path), "rb") as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 16000)
        frames = w.getnframes()
        recorded = array.array("h", w.readframes(frames))
    assert 16000 <= frames <= 16000 * 2, frames
    middle = recorded[len(recorded) // 4: 3 * len(recorded) // 4]
    assert abs(level_db(middle)) < 1.0 and abs(frequency(middle, 16000) - FREQUENCY) < 20


def test_ogg_recording_stopped_at_once_replaced_or_left_to_release(tmp_path):
    # In a child process, since a failure here aborts the process (libopusenc
    # asserts): Ogg recordings stopped before any audio was written, replaced
    # by another Ogg recording, or still running when the engine is released.
    script = textwrap.dedent(f"""
        import agoraish, time
        e = agoraish.RtcEngine("{APP}", log_file={str(tmp_path / "ogg.log")!r}, server_url="ws://127.0.0.1:1")
        e.set_external_audio_source(True, 48000, 1)
        for attempt in range(3):
            e.start_audio_recording({str(tmp_path)!r} + f"/stopped{{attempt}}.ogg")
            e.stop_audio_recording()
        e.start_audio_recording({str(tmp_path / "first.ogg")!r})
        e.start_audio_recording({str(tmp_path / "second.ogg")!r}, sample_rate=48000)
        e.start_audio_recording({str(tmp_path / "kept.opus")!r}, position=1)
        for _ in range(30):
            e.push_external_audio_frame(bytes(960))
            time.sleep(0.01)
        e.release()
        print("done")
    """)
    env = dict(os.environ, PYTHONPATH=str(BINDING), AGORAISH_LIBRARY=str(library_path()))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0 and "done" in out.stdout, f"exit {out.returncode}: {out.stderr[-500:]}"
    for name in ("stopped0.ogg", "first.ogg", "second.ogg", "kept.opus"):
        data = (tmp_path / name).read_bytes()
        assert data[:4] == b"OggS" and b"OpusHead" in data[:128], (name, data[:64])


# --------------------------------------------------------------------------
# Events: first frames, volume indication, statistics
# --------------------------------------------------------------------------


def test_first_frame_events_arrived_at_the_start(call):
    elapsed, = call.events_a.wait_for("first_local_audio_frame_published")
    assert 0 <= elapsed < 10000
    uid, elapsed = call.events_b.wait_for("first_remote_audio_frame")
    assert uid == SENDER and 0 <= elapsed < 10000
    uid, elapsed = call.events_b.wait_for("first_remote_audio_decoded")
    assert uid == SENDER and 0 <= elapsed < 10000
    call.events_a.wait_for("local_audio_state_changed",
                           lambda state, error: (state, error) == (agoraish.LocalAudioStreamState.ENCODING,
                                                                   agoraish.LocalAudioStreamError.OK))
    call.events_b.wait_for("remote_audio_state_changed",
                           lambda uid, state, reason, elapsed: (uid, state) == (SENDER,
                                                                                agoraish.RemoteAudioState.DECODING))


def test_volume_indication_reports_the_speakers(call):
    mark_a, mark_b = call.events_a.mark(), call.events_b.mark()
    speakers, total = call.events_b.wait_for(
        "audio_volume_indication", lambda speakers, total: any(s.uid == SENDER for s in speakers), after=mark_b)
    assert all(isinstance(s, agoraish.AudioVolumeInfo) for s in speakers)
    sender = next(s for s in speakers if s.uid == SENDER)
    assert 20 < sender.volume <= 255 and sender.vad == 1, sender
    assert 20 < total <= 255, "the played mix"
    assert len(speakers) <= 3

    speakers, total = call.events_a.wait_for(
        "audio_volume_indication", lambda speakers, total: [s.uid for s in speakers] == [0], after=mark_a)
    assert 20 < speakers[0].volume <= 255 and total == speakers[0].volume, "the local report"
    assert speakers[0].vad in (0, 1)

    uid, = call.events_b.wait_for("active_speaker")
    assert uid == SENDER


def test_rtc_stats_arrive_with_plausible_values(call):
    mark_a, mark_b = call.events_a.mark(), call.events_b.mark()
    # The second report after the mark covers a whole period of the running call.
    call.events_a.wait_for("rtc_stats", after=mark_a)
    call.events_b.wait_for("rtc_stats", after=mark_b)
    sent, = call.events_a.wait_for("rtc_stats", after=call.events_a.mark())
    received, = call.events_b.wait_for("rtc_stats", after=call.events_b.mark())
    for stats in (sent, received):
        assert isinstance(stats, agoraish.RtcStats)
        assert stats.user_count == 2 and stats.duration >= 2
        assert stats.tx_bytes > 0 and stats.rx_bytes > 0 and stats.tx_packets > 0 and stats.rx_packets > 0
        assert 1000 < stats.memory_app_usage_kb < 64 * 1024 * 1024
        assert 0.0 <= stats.cpu_app_usage < 100.0 * (os.cpu_count() or 1)
        assert stats.tx_bytes >= stats.tx_audio_bytes and stats.rx_bytes >= stats.rx_audio_bytes
    # A sends a 48 kHz mono Opus stream (about 20..40 kbps with headers); B receives it.
    assert sent.tx_audio_bytes > 4000 and 10 <= sent.tx_audio_kbitrate <= 200 and sent.tx_kbitrate >= sent.tx_audio_kbitrate
    assert received.rx_audio_bytes > 4000 and 10 <= received.rx_audio_kbitrate <= 200
    assert received.rx_kbitrate >= received.rx_audio_kbitrate
    assert received.tx_audio_bytes == 0, "B sends no audio"


def test_local_and_remote_audio_stats_arrive_with_plausible_values(call):
    local, = call.events_a.wait_for("local_audio_stats", lambda s: s.sent_bitrate > 0, after=call.events_a.mark())
    assert isinstance(local, agoraish.LocalAudioStats)
    assert local.num_channels == 1 and local.sent_sample_rate == RATE
    assert 8 <= local.sent_bitrate <= 200 and 0 <= local.tx_packet_loss_rate <= 100

    remote, = call.events_b.wait_for("remote_audio_stats", after=call.events_b.mark())
    assert isinstance(remote, agoraish.RemoteAudioStats)
    assert remote.uid == SENDER
    assert remote.num_channels == 1 and remote.received_sample_rate == RATE
    assert 8 <= remote.received_bitrate <= 200
    assert remote.quality in (1, 2), "loopback: excellent or good"
    assert 0 <= remote.audio_loss_rate <= 5 and 0 <= remote.frozen_rate <= 100
    assert 0 <= remote.network_transport_delay < 500 and 0 <= remote.jitter_buffer_delay < 1000
    assert remote.end_to_end_delay >= remote.jitter_buffer_delay and remote.end_to_end_delay < 1500
    assert remote.total_active_time >= 1000 and remote.total_frozen_time <= remote.total_active_time
    assert remote.fec_recovered_frames >= 0 and remote.concealed_frames >= 0


def test_the_first_rtc_stats_of_a_call_carry_rates(call):
    # The first report covers the first 2 s of the call, during which A sent and B received audio.
    call.events_a.wait_for("rtc_stats")
    call.events_b.wait_for("rtc_stats")
    sent = next(args[0] for name, args in call.events_a.events if name == "rtc_stats")
    received = next(args[0] for name, args in call.events_b.events if name == "rtc_stats")
    assert sent.tx_audio_bytes > 0 and received.rx_audio_bytes > 0
    assert sent.tx_audio_kbitrate > 0 and sent.tx_kbitrate > 0, sent
    assert received.rx_audio_kbitrate > 0 and received.rx_kbitrate > 0, received
    assert sent.cpu_app_usage > 0.0, sent


# --------------------------------------------------------------------------
# A capture device that will not open
# --------------------------------------------------------------------------


def test_a_capture_device_that_will_not_open_is_reported(call, tmp_path):
    events = Events()
    engine = agoraish.RtcEngine(APP, events, server_url=call.server.url, log_file=str(tmp_path / "c.log"))
    try:
        engine.set_recording_device("agoraish-no-such-device")
        assert engine.get_recording_device() == "agoraish-no-such-device"
        engine.join_channel(None, "audio-features-device", uid=3)
        state, error = events.wait_for("local_audio_state_changed",
                                       lambda state, error: state == agoraish.LocalAudioStreamState.FAILED)
        assert error in (agoraish.LocalAudioStreamError.NO_RECORDING_DEVICE,
                         agoraish.LocalAudioStreamError.RECORD_FAILURE), error
    finally:
        engine.release()


# --------------------------------------------------------------------------
# The binding's argument handling
# --------------------------------------------------------------------------


def test_binding_methods_raise_on_negative_codes(tmp_path):
    e = agoraish.RtcEngine(APP, log_file=str(tmp_path / "e.log"), server_url="ws://127.0.0.1:1")
    try:
        for call, code in (
            (lambda: e.adjust_playback_signal_volume(401), -2),
            (lambda: e.adjust_recording_signal_volume(-1), -2),
            (lambda: e.adjust_user_playback_signal_volume(0, 50), -2),
            (lambda: e.mute_remote_audio_stream(0, True), -2),
            (lambda: e.enable_audio_volume_indication(5), -2),
            (lambda: e.set_recording_audio_frame_parameters(22050, 1), -2),
            (lambda: e.set_playback_audio_frame_parameters(48000, 3), -2),
            (lambda: e.set_mixed_audio_frame_parameters(48000, 1, 1), -2),
            (lambda: e.set_playback_audio_frame_before_mixing_parameters(0, 1), -2),
            (lambda: e.register_audio_frame_observer(agoraish.AudioFrameObserver(), 0x10), -2),
            (lambda: e.start_audio_recording(tmp_path / "x.wav", sample_rate=8000), -2),
            (lambda: e.start_audio_recording(tmp_path / "missing" / "x.wav"), -1),
            (lambda: e.get_audio_device_count(2), -2),
            (lambda: e.get_audio_device(0, -1), -2),
            (lambda: e.set_recording_device(""), -2),
            (lambda: e.set_playback_device("d" * 512), -2),
            (lambda: e.start_recording_device_test(5), -2),
            (lambda: e.start_playback_device_test(tmp_path / "none.wav"), -2),
            (lambda: e.start_audio_device_loopback_test(60001), -2),
        ):
            with pytest.raises(agoraish.AgoraishError) as err:
                call()
            assert err.value.code == code
        assert e.get_recording_device() == "default" and e.get_playback_device() == "default"
        for kind in agoraish.MediaDeviceType:
            devices = e.get_audio_devices(kind)
            assert len(devices) == e.get_audio_device_count(kind)
            assert all(isinstance(d, agoraish.AudioDeviceInfo) and isinstance(d.id, str) for d in devices)
        assert e.enumerate_recording_devices() == e.get_audio_devices(agoraish.MediaDeviceType.AUDIO_RECORDING_DEVICE)
        assert e.enumerate_playback_devices() == e.get_audio_devices(agoraish.MediaDeviceType.AUDIO_PLAYOUT_DEVICE)
        e.set_playback_device("hw:9,9")
        assert e.get_playback_device() == "hw:9,9"
        e.enable_audio()
        e.disable_audio()
        e.enable_local_audio(False)
        e.mute_all_remote_audio_streams(True)
        e.set_default_mute_all_remote_audio_streams(True)
        e.start_audio_recording(tmp_path / "ok.wav")
        e.stop_audio_recording()
        e.start_recording_device_test(100)
        e.stop_recording_device_test()
        e.start_audio_device_loopback_test(100)
        e.stop_audio_device_loopback_test()
        e.stop_playback_device_test()
        e.register_audio_frame_observer(agoraish.AudioFrameObserver())  # nothing overridden: no position
        e.register_audio_frame_observer(None)
    finally:
        e.release()
    with pytest.raises(agoraish.AgoraishError) as err:
        e.enable_audio()
    assert err.value.code == -7


def test_an_engine_released_with_an_observer_registered(tmp_path):
    class Observer(agoraish.AudioFrameObserver):
        def on_record_audio_frame(self, frame):
            return True

    e = agoraish.RtcEngine(APP, log_file=str(tmp_path / "e.log"), server_url="ws://127.0.0.1:1")
    e.set_external_audio_source(True, RATE, 1)
    e.register_audio_frame_observer(Observer())
    e.push_external_audio_frame(bytes(2 * CHUNK))
    e.release()
    assert e.released
    with pytest.raises(agoraish.AgoraishError):
        e.register_audio_frame_observer(None)
