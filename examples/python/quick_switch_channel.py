#!/usr/bin/env python3
"""quick_switch_channel.py — Agora 4.x's QuickSwitchChannel case in Python: an
audience hops between live channels and hears each one at once.

    set_channel_profile(ChannelProfile.LIVE_BROADCASTING) -> set_client_role(ClientRole.AUDIENCE)
    -> preload_channel(token, "quick-switch-1", uid) -> preload_channel(token, "quick-switch-2", uid)
    -> join_channel(token, "quick-switch-1", uid=uid) -> on_first_remote_audio_decoded
    -> leave_channel -> join_channel(token, "quick-switch-2", uid=uid) -> on_first_remote_audio_decoded
    -> ... -> leave_channel -> release

"host1" and "host2" broadcast in "quick-switch-1" and "quick-switch-2", each
pushing its own tone (440 Hz, 1000 Hz) through an external audio source.
"viewer", an audience, preloads both channels with its uid, joins the first,
then switches four times (leave_channel, then join_channel of the other
channel with the same uid). A join of a preloaded channel goes on the
signaling connection opened by the preload and asks for fast start, so the
channel is heard within a few tens of milliseconds. For each join the viewer
prints the time from the join call to on_first_remote_audio_decoded and the
tone it heard through an external sink.

The Python version of examples/c/quick_switch_channel.c. Runs from a
checkout: it imports bindings/python and, unless AGORAISH_LIBRARY says
otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/quick_switch_channel.py
"""
import array
import math
import sys
import threading
import time
from typing import List, Sequence

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, frequency, has_left, is_joined, run_call, say, sleep_until

CHANNELS = ("quick-switch-1", "quick-switch-2")
HOST_UIDS = (101, 102)
TONES = (440.0, 1000.0)
VIEWER_UID = 1000
RATE = 48000
FRAME = RATE // 100  # 10 ms
JOINS = 5  # the first join and four switches
LISTEN_MS = 600  # after each join
ANALYZE_FROM_MS = 200  # the tone from here on, when the jitter buffer has settled


# ---- the viewer's events ------------------------------------------------------------


class Viewer(ExampleUser):
    """The viewer's events, and the first remote audio of each join."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.decoded_uid = 0  # guarded by `changed`, like decoded_at
        self.decoded_at = 0.0

    def on_first_remote_audio_decoded(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_decoded uid {uid}, {elapsed} ms")
        with self.changed:
            self.decoded_uid, self.decoded_at = uid, time.monotonic()
            self.changed.notify_all()

    def reset(self) -> None:
        """Forgets the last join: its events and its first audio."""
        with self.changed:
            self.joined = self.left = False
            self.decoded_uid = 0


# ---- the hosts' tones and what the viewer heard ---------------------------------------


def one_second(hz: float) -> array.array:
    """A second of the tone at 48 kHz (a whole number of periods, so it loops)."""
    return array.array("h", (int(8000 * math.sin(2 * math.pi * hz * i / RATE)) for i in range(RATE)))


def push_tones(hosts: Sequence[agoraish.RtcEngine], stop: threading.Event) -> None:
    """Each host pushes 10 ms of its tone every 10 ms, in real time, until `stop`."""
    seconds = [one_second(hz) for hz in TONES]
    start = time.monotonic()
    k = 0
    while not stop.is_set():
        at = (k % 100) * FRAME
        for host, tone in zip(hosts, seconds):
            host.push_external_audio_frame(tone[at:at + FRAME])
        k += 1
        sleep_until(start, k * 10)


# ---- the call ---------------------------------------------------------------------------


def join_and_listen(engine: agoraish.RtcEngine, viewer: Viewer, c: int) -> bool:
    """Joins channel `c` as VIEWER_UID, pulls LISTEN_MS of what the viewer hears,
    and says how long the first audio took and what it was. Returns whether the
    viewer heard that channel's host and tone."""
    viewer.reset()
    joined_at = time.monotonic()
    engine.join_channel(None, CHANNELS[c], uid=VIEWER_UID)
    say("viewer", f'join_channel("{CHANNELS[c]}", uid={VIEWER_UID})')
    # The sink is the viewer's speaker: pulled in real time from the join on.
    heard = array.array("h")
    start = time.monotonic()
    for k in range(LISTEN_MS // 10):
        heard.frombytes(engine.pull_playback_audio_frame(FRAME))
        sleep_until(start, (k + 1) * 10)
    if not viewer.wait_until(lambda v: v.decoded_uid != 0, "first remote audio"):
        return False
    with viewer.changed:
        uid, decoded_at = viewer.decoded_uid, viewer.decoded_at
    hz = frequency(heard[ANALYZE_FROM_MS * RATE // 1000:])
    say("viewer", f'"{CHANNELS[c]}": uid {uid} decoded {(decoded_at - joined_at) * 1000:.0f} ms after join_channel; '
                  f"heard {hz:.0f} Hz (host{c + 1} sends {TONES[c]:.0f} Hz)")
    return uid == HOST_UIDS[c] and abs(hz - TONES[c]) < 10


def call(viewer_engine: agoraish.RtcEngine, host1_engine: agoraish.RtcEngine, host2_engine: agoraish.RtcEngine,
         viewer: Viewer, hosts: List[ExampleUser]) -> bool:
    # The viewer: an audience that listens through an external sink and preloads both channels.
    viewer_engine.set_channel_profile(agoraish.ChannelProfile.LIVE_BROADCASTING)
    viewer_engine.set_client_role(agoraish.ClientRole.AUDIENCE)
    viewer_engine.set_external_audio_sink(True, RATE, 1)
    viewer_engine.enable_local_audio(False)
    for channel in CHANNELS:
        viewer_engine.preload_channel(None, channel, VIEWER_UID)
        say("viewer", f'preload_channel("{channel}", {VIEWER_UID})')

    # A host in each channel, sending its tone; what it would hear goes to ALSA's "null".
    host_engines = [host1_engine, host2_engine]
    for engine, user, channel, uid in zip(host_engines, hosts, CHANNELS, HOST_UIDS):
        engine.set_channel_profile(agoraish.ChannelProfile.LIVE_BROADCASTING)
        engine.set_client_role(agoraish.ClientRole.BROADCASTER)
        engine.set_playback_device("null")
        engine.set_external_audio_source(True, RATE, 1)
        engine.join_channel(None, channel, uid=uid)
        if not user.wait_until(is_joined, "join"):
            return False
    stop = threading.Event()
    pusher = threading.Thread(target=push_tones, name="hosts-pusher", args=(host_engines, stop))
    pusher.start()
    try:
        time.sleep(0.5)  # the shows are on before the viewer comes in
        # Into the first channel, then back and forth: leave, and join the other with the same uid.
        heard = [False, False]
        for j in range(JOINS):
            c = j % 2
            if j > 0:
                viewer_engine.leave_channel()
                if not viewer.wait_until(has_left, "leave"):
                    return False
            if not join_and_listen(viewer_engine, viewer, c):
                return False
            heard[c] = True
        viewer_engine.leave_channel()
        return viewer.wait_until(has_left, "leave") and all(heard)
    finally:
        stop.set()
        pusher.join()


def main() -> int:
    viewer = Viewer("viewer")
    hosts = [ExampleUser("host1"), ExampleUser("host2")]
    return run_call("quick_switch_channel", [viewer, *hosts], lambda engines: call(*engines, viewer, hosts),
                    "done: viewer heard each channel's host right after every switch")


if __name__ == "__main__":
    sys.exit(main())
