"""What the Python examples share, so each shows its own case (the Python
counterpart of examples/c/example_support.h):

- `say`: timestamped output lines from any thread; `sleep_until`: real-time
  pacing; `name_of`: the name of an enum value;
- `analyze` and `frequency`: the tone of mono audio; `tone_level`: the level
  of one frequency in it, so tones that sound at once can be told apart;
- `Ears`: pulls what users hear from their engines' external sinks every
  10 ms on a thread of its own, as sound cards would, and hands the main
  thread what it pulled next (`listen`);
- `make_media`: media files made with the ``ffmpeg`` command-line tool;
- `ExampleUser`: one user of a call, an event handler that records join,
  leave, peer and error events behind a condition, with `wait_until` and the
  predicates `is_joined`, `has_left`, `sees_peer`, `sees_nobody`;
- `meet` and `part`: two users join a channel and see each other, then part;
- `run_call`: an embedded channel server and an engine per user around the
  example's call, released whatever happens, and the example's last line.

An example's user subclasses ExampleUser and adds its own callbacks and
fields (guarded by `self.changed` too). Importing this module also imports
`_checkout`, so it runs from a checkout before anything is installed.
"""
import array
import math
import os
import statistics
import subprocess
import sys
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish

APP_ID = "0123456789abcdef0123456789abcdef"
WAIT_SECONDS = 5  # how long ExampleUser.wait_until waits for an event, by default

T0 = time.monotonic()
_PRINTING = threading.Lock()


def say(who: str, text: str) -> None:
    """Prints one line: seconds since the example started, who speaks, and what happened."""
    with _PRINTING:
        print(f"{time.monotonic() - T0:6.2f} s  {who:<6}  {text}", flush=True)


def sleep_until(start: float, offset_ms: float) -> None:
    """Sleeps until `offset_ms` after `start` (time.monotonic()), so pacing does not drift."""
    delay = start + offset_ms / 1000 - time.monotonic()
    if delay > 0:
        time.sleep(delay)


def analyze(pcm: Sequence[int], rate: int = 48000) -> Tuple[float, float]:
    """Frequency and level (dBFS) of mono audio at `rate`; (0, -120) for
    silence. The frequency is the rate over the median period between upward
    crossings of a hysteresis band at a quarter of the RMS (so noise near zero
    does not count; each crossing placed between its two samples), so a short
    gap or glitch in the sound does not move it; with fewer than three
    crossings it is the crossing count over the duration."""
    count = len(pcm)
    energy = float(sum(s * s for s in pcm)) if count else 0.0
    if energy <= 0:
        return 0.0, -120.0
    band = math.sqrt(energy / count) / 4
    crossings, high, last = 0, False, -1.0
    periods: List[float] = []
    previous = 0
    for i, s in enumerate(pcm):
        if not high and s > band:
            at = float(i)
            if i > 0 and s != previous:
                at = i - 1 + (band - previous) / (s - previous)
            if last >= 0:
                periods.append(at - last)
            last = at
            high = True
            crossings += 1
        elif high and s < -band:
            high = False
        previous = s
    if len(periods) >= 2:
        hz = rate / statistics.median(periods)
    else:
        hz = crossings / (count / rate)
    return hz, 10 * math.log10(energy / count) - 20 * math.log10(32768.0)


def frequency(pcm: Sequence[int], rate: int = 48000) -> float:
    """Frequency of mono audio at `rate` (see `analyze`)."""
    return analyze(pcm, rate)[0]


def tone_level(pcm: Sequence[int], hz: float, rate: int = 48000) -> float:
    """The level (dBFS, as `analyze` gives a lone sine's) of the `hz` component
    of mono audio at `rate`: Goertzel's algorithm over a Hann window, so a
    tone 100 Hz away or more barely counts. -120 for none."""
    count = len(pcm)
    if count < 2:
        return -120.0
    coefficient = 2 * math.cos(2 * math.pi * hz / rate)
    step = 2 * math.pi / (count - 1)
    s1 = s2 = 0.0
    for i, sample in enumerate(pcm):
        s1, s2 = sample * (0.5 - 0.5 * math.cos(step * i)) + coefficient * s1 - s2, s1
    power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
    amplitude = 2 * math.sqrt(max(power, 0.0)) / (count / 2)  # the Hann window's gain is 1/2
    if amplitude <= 0:
        return -120.0
    return max(-120.0, 20 * math.log10(amplitude / math.sqrt(2) / 32768))


class Ears:
    """Pulls 10 ms of 48 kHz mono from the external sink of each engine of
    `engines` (name -> engine; each set with ``set_external_audio_sink(True,
    48000, 1)``) every 10 ms on its own thread, in real time, as sound cards
    would, until stopped. ``listen(ms)`` returns what each heard in the next
    `ms`."""

    RATE = 48000
    CHUNK = RATE // 100  # 10 ms

    def __init__(self, engines: Dict[str, agoraish.RtcEngine]) -> None:
        self.engines = dict(engines)
        self.changed = threading.Condition()
        # Guarded by `changed`.
        self.heard = {name: array.array("h") for name in self.engines}
        self.ticks = 0
        self.wanted = 0        # ticks the current `listen` still wants
        self.errors = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, name="ears")

    def __enter__(self) -> "Ears":
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopping.set()
        self.thread.join()

    def run(self) -> None:
        start = time.monotonic()
        silence = bytes(2 * self.CHUNK)
        while not self.stopping.is_set():
            pulled = {}
            for name, engine in self.engines.items():
                try:
                    pulled[name] = engine.pull_playback_audio_frame(self.CHUNK, 1)
                except agoraish.AgoraishError:
                    pulled[name] = silence
                    self.errors += 1
            with self.changed:
                self.ticks += 1
                if self.wanted > 0:
                    for name, data in pulled.items():
                        self.heard[name].frombytes(data)
                    self.wanted -= 1
                self.changed.notify_all()
            delay = start + self.ticks / 100 - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    def listen(self, ms: int) -> Dict[str, array.array]:
        """What each engine heard during the next `ms` (name -> array of samples)."""
        with self.changed:
            self.heard = {name: array.array("h") for name in self.engines}
            self.wanted = ms // 10
            self.changed.wait_for(lambda: self.wanted == 0, timeout=ms / 1000 + 5)
            self.wanted = 0
            return self.heard


def make_media(path: str, *args: str) -> bool:
    """Runs ``ffmpeg -y <args> <path>`` (quiet), making the directories of
    `path` first; says why and returns False when it fails or ffmpeg is missing."""
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    command = ["ffmpeg", "-nostdin", "-hide_banner", "-v", "error", "-y", *args, path]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        say("ffmpeg", f"cannot make {path}: {error}")
        return False
    if done.returncode != 0:
        say("ffmpeg", f"cannot make {path}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
        return False
    return True


class Camera:
    """Pushes `pictures` (I420 planes of `width` x `height`, in turn) into an
    engine's external video source at `fps` on its own thread until stopped,
    as a camera would."""

    def __init__(self, engine: agoraish.RtcEngine, width: int, height: int, fps: int,
                 pictures: Sequence[Tuple[bytes, bytes, bytes]], who: str = "host") -> None:
        self.engine = engine
        self.width, self.height, self.fps = width, height, fps
        self.pictures = list(pictures)
        self.who = who
        self.stopping = threading.Event()
        self.pushed = 0
        self.refused = 0
        self.thread = threading.Thread(target=self.run, name=f"{who}-camera")

    def run(self) -> None:
        start = time.monotonic()
        while not self.stopping.is_set():
            n = self.pushed
            try:
                self.engine.push_external_video_frame(self.width, self.height, *self.pictures[n % len(self.pictures)],
                                                      timestamp=n * 1000 // self.fps)
            except agoraish.AgoraishError as error:
                if self.refused == 0:
                    say(self.who, f"push_external_video_frame({n}) = {error.code}")
                self.refused += 1
            self.pushed += 1
            delay = start + self.pushed / self.fps - time.monotonic()
            if delay > 0:
                time.sleep(delay)


def name_of(value: object) -> str:
    """The name of an enum member, "?" for a value the header does not list."""
    return getattr(value, "name", "?")


class ExampleUser(agoraish.EventHandler):
    """One user of a call: its engine's events, on the engine's event thread."""

    wait_seconds: float = WAIT_SECONDS  # how long wait_until waits; a subclass may wait longer

    def __init__(self, name: str) -> None:
        self.name = name
        self.changed = threading.Condition()  # notified on every change
        # Guarded by `changed`.
        self.joined = False
        self.left = False
        self.uid = 0   # its own, from on_join_channel_success
        self.peer = 0  # the last user who joined, 0 when that user went offline

    def on_join_channel_success(self, channel: str, uid: int, elapsed: int) -> None:
        say(self.name, f'on_join_channel_success "{channel}" uid {uid}, {elapsed} ms')
        with self.changed:
            self.uid, self.joined = uid, True
            self.changed.notify_all()

    def on_user_joined(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_user_joined uid {uid}, {elapsed} ms")
        with self.changed:
            self.peer = uid
            self.changed.notify_all()

    def on_user_offline(self, uid: int, reason: int) -> None:
        say(self.name, f"on_user_offline uid {uid}, reason {int(reason)}")
        with self.changed:
            if self.peer == uid:
                self.peer = 0
            self.changed.notify_all()

    def on_leave_channel(self, stats: agoraish.RtcStats) -> None:
        say(self.name, f"on_leave_channel after {stats.duration} s: sent {stats.tx_bytes} bytes, "
                       f"received {stats.rx_bytes} bytes")
        with self.changed:
            self.left = True
            self.changed.notify_all()

    def on_error(self, err: int, msg: str) -> None:
        say(self.name, f"on_error {err}: {msg}")

    def wait_until(self, done: Callable, what: str) -> bool:
        """Waits (at most `wait_seconds`) until `done(self)`, called under the
        condition; says "no <what>" and returns False when it does not happen."""
        with self.changed:
            ok = self.changed.wait_for(lambda: done(self), timeout=self.wait_seconds)
        if not ok:
            say(self.name, f"no {what} within {self.wait_seconds:g} s")
        return ok


def is_joined(u: ExampleUser) -> bool:
    return u.joined


def has_left(u: ExampleUser) -> bool:
    return u.left


def sees_peer(u: ExampleUser) -> bool:
    return u.peer != 0


def sees_nobody(u: ExampleUser) -> bool:
    return u.peer == 0


def meet(channel: str, a_engine: agoraish.RtcEngine, a: ExampleUser, b_engine: agoraish.RtcEngine, b: ExampleUser,
         a_uid: int = 0, b_uid: int = 0) -> bool:
    """`a` joins `channel` as `a_uid`, then `b` as `b_uid` (0: the server
    picks), and each sees the other. Returns whether every event came."""
    a_engine.join_channel(None, channel, uid=a_uid)
    if not a.wait_until(is_joined, "join"):
        return False
    b_engine.join_channel(None, channel, uid=b_uid)
    return (b.wait_until(is_joined, "join") and a.wait_until(sees_peer, "remote user")
            and b.wait_until(sees_peer, "remote user"))


def part(a_engine: agoraish.RtcEngine, a: ExampleUser, b_engine: agoraish.RtcEngine, b: ExampleUser) -> bool:
    """`b` leaves, `a` sees it go, then `a` leaves. Returns whether every event came."""
    b_engine.leave_channel()
    if not (b.wait_until(has_left, "leave") and a.wait_until(sees_nobody, "user offline")):
        return False
    a_engine.leave_channel()
    return a.wait_until(has_left, "leave")


def run_call(example: str, users: Sequence[ExampleUser], call: Callable[[List[agoraish.RtcEngine]], bool],
             success: str, failure: str = "the call did not go as expected") -> int:
    """Starts a channel server inside this process (127.0.0.1, a free port,
    any app id) and an engine per user, runs `call(engines)`, releases them
    all (release waits for the callbacks), prints `success` when the call
    returned True (else `failure`), and returns the exit status."""
    server: Optional[agoraish.ChannelServer] = None
    engines: List[agoraish.RtcEngine] = []
    ok = False
    try:
        server = agoraish.ChannelServer().start()
        say("server", server.url)
        for user in users:
            engines.append(agoraish.RtcEngine(APP_ID, user, server_url=server.url))
        ok = call(engines)
    except agoraish.AgoraishError as error:
        print(f"{example}: {error}", file=sys.stderr)
    finally:
        for engine in engines:
            engine.release()
        if server is not None:
            server.release()
    print(success if ok else failure, flush=True)
    return 0 if ok else 1
