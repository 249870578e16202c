#!/usr/bin/env python3
"""raw_audio_data.py — Agora's RawAudioData case in Python: a raw audio
observer sees the audio at the four positions of the audio path, and changes
what is sent.

    set_recording_audio_frame_parameters, set_playback_audio_frame_parameters,
    set_mixed_audio_frame_parameters, set_playback_audio_frame_before_mixing_parameters
    -> register_audio_frame_observer(all four positions) -> join_channel
    -> on_record_audio_frame (read-write), on_playback_audio_frame,
       on_playback_audio_frame_before_mixing, on_mixed_audio_frame
    -> register_audio_frame_observer(None) -> leave_channel -> release

"local" observes. Its "microphone" is a 440 Hz tone it pushes through an
external source from a thread named "local-mic"; it plays what it hears on
ALSA's "null" device, so the playback positions run on the engine's audio
device thread. "remote", a second engine in the same process, says 660 Hz and
listens through an external sink.

Each position asks for its own format (rate, channels, samples per call), and
the example reports what each saw: the format, the callback period, the
thread, and which of the two tones (and their octave) the audio holds. The
record observer runs in read-write mode and rectifies the wave (|x| minus its
mean): local's 440 Hz tone leaves an octave higher, and remote hears 880 Hz.

Each callback gets an ``agoraish.AudioFrame``, whose ``buffer`` is a writable
int16 memoryview over the engine's own samples, valid only during the
callback. With numpy installed the callbacks work on ``frame.numpy()`` (an
int16 array over the same memory); without it, on the memoryview in plain
Python. Either way they keep copies of what they saw and the analysis runs
after the call, so the callbacks stay short.

The Python version of examples/c/raw_audio_data.c. Runs from a checkout: it
imports bindings/python and, unless AGORAISH_LIBRARY says otherwise, uses the
checkout's dist/lib (`make dist`):

    python3 examples/python/raw_audio_data.py
"""
import array
import ctypes
import math
import operator
import sys
import threading
import time
from typing import Any, Dict, List, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, frequency, meet, part, run_call, say, sleep_until

try:
    import numpy
except ImportError:  # the observer then works on the memoryview in plain Python
    numpy = None

CHANNEL = "raw-audio-data"
LOCAL_UID = 1001
REMOTE_UID = 2002
LOCAL_HZ = 440.0
REMOTE_HZ = 660.0
AMPLITUDE = 8000.0
CALL_MS = 3000


# ---- one user's events -----------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""


# ---- frames: numpy when installed, else the memoryview in plain Python --------------------


def channel0(frame: agoraish.AudioFrame) -> Any:
    """A copy of channel 0 of `frame` (the frame itself is valid only during its callback)."""
    if numpy is not None:
        return frame.numpy()[::frame.channels].copy()
    samples = array.array("h")
    samples.frombytes(frame.buffer[::frame.channels].tobytes())
    return samples


def rectify(frame: agoraish.AudioFrame) -> None:
    """Writes 2 * (|x| - mean |x|) over the frame's samples, in place: a full-wave
    rectified sine has twice the frequency of the sine."""
    if len(frame) == 0:
        return
    if numpy is not None:
        pcm = frame.numpy()
        magnitude = numpy.abs(pcm.astype(numpy.int32))
        wave = 2 * (magnitude - magnitude.mean())
        pcm[:] = numpy.clip(wave, -32768, 32767).astype(numpy.int16)
        return
    pcm = frame.buffer
    values = pcm.tolist()
    mean = sum(map(abs, values)) / len(values)
    pcm[:] = array.array("h", [int(min(32767.0, max(-32768.0, 2 * (abs(v) - mean)))) for v in values])


# ---- tones in a frame ---------------------------------------------------------------------

TONES = (LOCAL_HZ, REMOTE_HZ, 2 * LOCAL_HZ)


class Spectrum:
    """What frames with sound held: the summed amplitude of each tone, and the summed power."""

    def __init__(self) -> None:
        self.amplitude = [0.0] * len(TONES)
        self.power = 0.0
        self.frames = 0


_BASES: Dict[Tuple[int, int], Any] = {}


def _basis(count: int, rate: int) -> Any:
    """For frames of `count` samples at `rate`: the Hann window's gain and, per
    tone, the window times cos and sin at the tone (numpy: one complex matrix)."""
    key = (count, rate)
    if key not in _BASES:
        hann = [0.5 - 0.5 * math.cos(2 * math.pi * i / (count - 1)) for i in range(count)]
        gain = sum(hann)
        if numpy is not None:
            i = numpy.arange(count)
            w = numpy.array([2 * math.pi * hz / rate for hz in TONES])[:, None]
            _BASES[key] = (gain, numpy.array(hann) * numpy.exp(-1j * w * i))
        else:
            _BASES[key] = (gain, [([h * math.cos(2 * math.pi * hz / rate * i) for i, h in enumerate(hann)],
                                   [h * math.sin(2 * math.pi * hz / rate * i) for i, h in enumerate(hann)])
                                  for hz in TONES])
    return _BASES[key]


def measure(frames: List[Any], rate: int) -> Spectrum:
    """Adds up the frames (channel 0) that are not silent. The amplitude of each
    tone is the magnitude of a Hann-windowed DFT at its frequency."""
    s = Spectrum()
    for pcm in frames:
        count = len(pcm)
        if count < 2:
            continue
        if numpy is not None:
            x = pcm.astype(numpy.float64)
            power = float(numpy.dot(x, x)) / count
            if power < 100.0 * 100.0:
                continue
            gain, basis = _basis(count, rate)
            amplitudes = (2 * numpy.abs(basis @ x) / gain).tolist()
        else:
            power = sum(map(operator.mul, pcm, pcm)) / count
            if power < 100.0 * 100.0:
                continue
            gain, basis = _basis(count, rate)
            amplitudes = [2 * math.hypot(sum(map(operator.mul, pcm, cos)), sum(map(operator.mul, pcm, sin))) / gain
                          for cos, sin in basis]
        for t, amplitude in enumerate(amplitudes):
            s.amplitude[t] += amplitude
        s.power += power
        s.frames += 1
    return s


def describe(s: Spectrum) -> str:
    """"660 Hz at -17.8 dBFS", or several tones joined with " + ": the tones
    within 10 dB of the frames' whole level."""
    if s.frames == 0:
        return "silence"
    total = 10 * math.log10(s.power / s.frames) - 20 * math.log10(32768.0)
    parts = []
    for hz, amplitude in zip(TONES, s.amplitude):
        dbfs = 20 * math.log10(max(amplitude, 1e-9) / s.frames / math.sqrt(2) / 32768.0)
        if dbfs > total - 10:
            parts.append(f"{hz:.0f} Hz at {dbfs:.1f} dBFS")
    return " + ".join(parts) if parts else f"no known tone ({total:.1f} dBFS)"


def only_tone(s: Spectrum, hz: float) -> bool:
    """Whether the description names exactly the tone `hz`."""
    text = describe(s)
    return text.startswith(f"{hz:.0f} Hz") and " + " not in text


# ---- the observer ---------------------------------------------------------------------------


def os_thread_name() -> str:
    """The calling thread's name as the OS knows it (the engine names its own threads)."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm") as f:
            return f.read().strip()
    except OSError:
        return threading.current_thread().name


def name_os_thread(name: str) -> None:
    """Gives the calling thread `name` in the OS too, as pthread_setname_np does."""
    try:
        ctypes.CDLL(None).prctl(15, ctypes.c_char_p(name.encode()[:15]), 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


class Position:
    """What one position saw. Written only by that position's callbacks, which
    never overlap; main reads it after unregistering the observer."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls = 0
        self.rate = self.channels = self.samples = 0  # the first frame's format
        self.first_ms = self.last_ms = 0              # render_time_ms of the first and last frames
        self.thread = ""
        self.uid = 0                                  # before mixing: the user
        self.heard: List[Any] = []                    # channel 0 of the frames, from 500 ms on
        self.written: List[Any] = []                  # record: what the observer handed back
        self.nested_push = 0                          # record: a push from inside the callback

    def saw(self, frame: agoraish.AudioFrame) -> None:
        if self.calls == 0:
            self.rate, self.channels, self.samples = frame.samples_per_sec, frame.channels, frame.samples_per_channel
            self.first_ms = frame.render_time_ms
            self.thread = os_thread_name()
        self.calls += 1
        self.last_ms = frame.render_time_ms
        if self.settled(frame):  # the first half second is the path starting up
            self.heard.append(channel0(frame))

    def settled(self, frame: agoraish.AudioFrame) -> bool:
        return frame.render_time_ms - self.first_ms >= 500


class Observer(agoraish.AudioFrameObserver):
    """local's raw audio observer, at all four positions."""

    def __init__(self, engine: agoraish.RtcEngine) -> None:
        self.engine = engine
        self.record = Position("record")
        self.playback = Position("playback")
        self.mixed = Position("mixed")
        self.before_mixing = Position("before mixing")

    def total_calls(self) -> int:
        return self.record.calls + self.playback.calls + self.mixed.calls + self.before_mixing.calls

    def on_record_audio_frame(self, frame: agoraish.AudioFrame) -> bool:
        """Local audio before encoding, read-write: rectified, an octave up."""
        self.record.saw(frame)
        if self.record.calls == 1:
            # Pushing from inside a callback is refused (-5); other calls are allowed.
            try:
                self.engine.push_external_audio_frame(b"")
            except agoraish.AgoraishError as error:
                self.record.nested_push = error.code
        rectify(frame)
        if self.record.settled(frame):
            self.record.written.append(channel0(frame))
        return True  # keep the frame: what was written is sent

    def on_playback_audio_frame(self, frame: agoraish.AudioFrame) -> bool:
        self.playback.saw(frame)
        return True

    def on_mixed_audio_frame(self, frame: agoraish.AudioFrame) -> bool:
        self.mixed.saw(frame)
        return True

    def on_playback_audio_frame_before_mixing(self, uid: int, frame: agoraish.AudioFrame) -> bool:
        self.before_mixing.uid = uid
        self.before_mixing.saw(frame)
        return True


def report(p: Position, heard: Spectrum) -> None:
    if p.calls == 0:
        say("local", f"{p.name:<14} no callback")
        return
    period = (p.last_ms - p.first_ms) / (p.calls - 1) if p.calls > 1 else 0.0
    say("local", f"{p.name:<14} {p.calls:4d} calls on {p.thread:<13} {p.rate:5d} Hz, {p.channels} ch, "
                 f"{p.samples:4d} samples every {period:3.0f} ms; {describe(heard)}")


# ---- the users' voices ----------------------------------------------------------------------


def tone(hz: float, count: int) -> array.array:
    """`count` samples of a sine at 48 kHz, 16-bit."""
    step = 2 * math.pi * hz / 48000
    return array.array("h", (int(AMPLITUDE * math.sin(step * i)) for i in range(count)))


def talk(engine: agoraish.RtcEngine, thread_name: str, voice: array.array, stop: threading.Event) -> None:
    """Pushes `voice`, 10 ms every 10 ms at 48 kHz, for the whole call."""
    name_os_thread(thread_name)
    frames = memoryview(voice)
    start = time.monotonic()
    for k in range(len(voice) // 480):
        if stop.is_set():
            break
        engine.push_external_audio_frame(frames[k * 480:(k + 1) * 480])
        sleep_until(start, (k + 1) * 10)


# ---- the call ----------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    """The case, from the frame formats to the checks; True when it went as expected."""
    observed = Observer(local_engine)
    Mode = agoraish.RawAudioFrameOpMode

    # The formats each position delivers, as the case sets them.
    local_engine.set_recording_audio_frame_parameters(44100, 1, Mode.READ_WRITE, 4410)
    say("local", "set_recording_audio_frame_parameters(44100 Hz, 1 ch, READ_WRITE, 4410) = 0")
    local_engine.set_playback_audio_frame_parameters(16000, 2, Mode.READ_ONLY, 0)
    say("local", "set_playback_audio_frame_parameters(16000 Hz, 2 ch, READ_ONLY, 10 ms) = 0")
    local_engine.set_mixed_audio_frame_parameters(44100, 1, 4410)
    say("local", "set_mixed_audio_frame_parameters(44100 Hz, 1 ch, 4410) = 0")
    local_engine.set_playback_audio_frame_before_mixing_parameters(32000, 1)
    say("local", "set_playback_audio_frame_before_mixing_parameters(32000 Hz, 1 ch) = 0")

    At = agoraish.AudioFramePosition
    local_engine.register_audio_frame_observer(observed, At.PLAYBACK | At.RECORD | At.MIXED | At.BEFORE_MIXING)
    say("local", "register_audio_frame_observer(all four positions) = 0")
    say("local", "frames handled " + ("with numpy over the memoryview" if numpy is not None
                                      else "as memoryview in plain Python (numpy is not installed)"))

    # local pushes its voice and plays on "null"; remote pushes and pulls.
    local_engine.set_external_audio_source(True, 48000, 1)
    local_engine.set_playback_device("null")
    remote_engine.set_external_audio_source(True, 48000, 1)
    remote_engine.set_external_audio_sink(True, 48000, 1)

    if not meet(CHANNEL, local_engine, local, remote_engine, remote, LOCAL_UID, REMOTE_UID):
        return False

    heard = array.array("h")
    stop = threading.Event()
    voices = ((local_engine, "local-mic", LOCAL_HZ), (remote_engine, "remote-mic", REMOTE_HZ))
    talkers = [threading.Thread(target=talk, name=name, args=(engine, name, tone(hz, CALL_MS // 10 * 480), stop))
               for engine, name, hz in voices]
    for talker in talkers:
        talker.start()
    try:
        start = time.monotonic()
        for k in range(CALL_MS // 10):
            heard.frombytes(remote_engine.pull_playback_audio_frame(480))
            sleep_until(start, (k + 1) * 10)
    except BaseException:
        stop.set()  # the voices end early only when the call failed
        raise
    finally:
        for talker in talkers:
            talker.join()

    # After this returns no callback runs: the counts can be read.
    local_engine.register_audio_frame_observer(None)
    calls_after = observed.total_calls()
    say("local", "register_audio_frame_observer(None) = 0")
    time.sleep(0.3)

    if not part(local_engine, local, remote_engine, remote):
        return False

    # What each position saw.
    record, playback, mixed, before_mixing = (observed.record, observed.playback, observed.mixed,
                                              observed.before_mixing)
    spectra = {p.name: measure(p.heard, p.rate) for p in (record, playback, mixed, before_mixing)}
    written = measure(record.written, record.rate)
    report(record, spectra[record.name])
    say("local", f"{'':<14} the observer sent {describe(written)}")
    report(before_mixing, spectra[before_mixing.name])
    say("local", f"{'':<14} (uid {before_mixing.uid})")
    report(playback, spectra[playback.name])
    report(mixed, spectra[mixed.name])
    say("local", f"push_external_audio_frame from inside on_record_audio_frame returned {record.nested_push} "
                 f"({agoraish.get_error_description(record.nested_push)})")
    calls_after = observed.total_calls() - calls_after
    say("local", f"callbacks after unregistering: {calls_after}")
    remote_heard = frequency(heard[100 * 480:])
    say("remote", f"heard {remote_heard:.0f} Hz from local (local's microphone: {LOCAL_HZ:.0f} Hz)")

    return (only_tone(spectra[record.name], LOCAL_HZ) and only_tone(written, 2 * LOCAL_HZ)
            and only_tone(spectra[playback.name], REMOTE_HZ) and only_tone(spectra[before_mixing.name], REMOTE_HZ)
            and before_mixing.uid == REMOTE_UID and spectra[mixed.name].frames > 0
            and record.nested_push == -agoraish.ErrorCode.REFUSED and calls_after == 0
            and abs(remote_heard - 2 * LOCAL_HZ) < 10)


def main() -> int:
    local = User("local")
    remote = User("remote")
    return run_call("raw_audio_data", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: every position saw its audio, and remote heard the changed recording")


if __name__ == "__main__":
    sys.exit(main())
