#!/usr/bin/env python3
"""audio_mixing.py — Agora's AudioMixing case in Python: music and sound
effects mixed into what a user says.

    set_external_audio_source -> join_channel -> push_external_audio_frame every 10 ms
    -> start_audio_mixing(music) -> on_audio_mixing_state_changed(PLAYING, OK)
    -> adjust_audio_mixing_publish_volume, get_audio_mixing_*_volume
    -> set_audio_mixing_pitch -> pause_audio_mixing / resume_audio_mixing
    -> play_effect(publish=True) -> on_audio_effect_finished
    -> stop_audio_mixing -> on_audio_mixing_state_changed(STOPPED, STOPPED_BY_USER)
    -> leave_channel -> release

"local" talks: its "microphone" is an external audio source into which a
thread pushes a 400 Hz tone, 10 ms every 10 ms. It mixes in music, a 1 kHz
MP3 the example makes first with the ffmpeg command-line tool in
demo-out/audio_mixing_music.mp3, and later an effect, 1.5 kHz in
demo-out/audio_mixing_effect.wav. "remote", a second engine in the same
process, pulls what it hears from its external sink; local's own playout
(its external sink) plays the music too. Each step measures the level of
each frequency in what both heard: the voice and the music together at
remote, the music alone at local; the music's publish volume lowered (remote
hears it quieter, local does not); pitch +12 semitones (2 kHz instead of
1 kHz); the music paused and resumed; the effect published with the music.

Runs from a checkout: it imports bindings/python and, unless AGORAISH_LIBRARY
says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/audio_mixing.py
"""
import array
import math
import os
import sys
import threading
import time
from typing import Dict, List, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import Ears, ExampleUser, make_media, meet, name_of, part, run_call, say, sleep_until, tone_level

CHANNEL = "audio-mixing"
VOICE_HZ, MUSIC_HZ, PITCHED_HZ, EFFECT_HZ = 400, 1000, 2000, 1500
MUSIC = os.path.join("demo-out", "audio_mixing_music.mp3")
EFFECT = os.path.join("demo-out", "audio_mixing_effect.wav")
MUSIC_SECONDS, EFFECT_SECONDS = 10, 1
EFFECT_ID = 1
SETTLE_MS = 400        # after a change, until what is heard has it
LISTEN_MS = 800        # each step's measure
HEARD_DBFS = -40       # a frequency at least this loud is heard ...
SILENT_DBFS = -60      # ... and at most this loud is not
WAIT_SECONDS = 10


# ---- one user's events ------------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        # Guarded by `changed`.
        self.mixing: List[Tuple[int, int]] = []
        self.effects_finished: List[int] = []

    def on_first_remote_audio_decoded(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_decoded uid {uid}, {elapsed} ms")

    def on_audio_mixing_state_changed(self, state: agoraish.AudioMixingState,
                                      reason: agoraish.AudioMixingReason) -> None:
        say(self.name, f"on_audio_mixing_state_changed {name_of(state)} ({name_of(reason)})")
        with self.changed:
            self.mixing.append((int(state), int(reason)))
            self.changed.notify_all()

    def on_audio_effect_finished(self, sound_id: int) -> None:
        say(self.name, f"on_audio_effect_finished {sound_id}")
        with self.changed:
            self.effects_finished.append(sound_id)
            self.changed.notify_all()

    def wait_mixing(self, state: int, reason: int) -> bool:
        with self.changed:
            ok = self.changed.wait_for(lambda: (state, reason) in self.mixing, timeout=WAIT_SECONDS)
        if not ok:
            say(self.name, f"no {name_of(agoraish.AudioMixingState(state))} within {WAIT_SECONDS} s")
        return ok


# ---- local's microphone: a tone pushed 10 ms every 10 ms ------------------------------------


def microphone(engine: agoraish.RtcEngine, stop: threading.Event) -> None:
    step = 2 * math.pi * VOICE_HZ / 48000
    start = time.monotonic()
    k = 0
    while not stop.is_set():
        chunk = array.array("h", (int(8000 * math.sin(step * (k * 480 + i))) for i in range(480)))
        engine.push_external_audio_frame(chunk)
        k += 1
        sleep_until(start, k * 10)


# ---- the call ---------------------------------------------------------------------------


def measure(ears: Ears, what: str, listen_ms: int = LISTEN_MS) -> Dict[str, Dict[int, float]]:
    """After SETTLE_MS, the level of each frequency remote and local hear for `listen_ms`, said."""
    ears.listen(SETTLE_MS)
    got = ears.listen(listen_ms)
    levels = {who: {hz: tone_level(got[who], hz) for hz in (VOICE_HZ, MUSIC_HZ, PITCHED_HZ, EFFECT_HZ)}
              for who in ("remote", "local")}
    for who in ("remote", "local"):
        heard = ", ".join(f"{hz} Hz {level:.0f}" for hz, level in levels[who].items())
        say(who, f"{what}: {heard} dBFS")
    return levels


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    S, R = agoraish.AudioMixingState, agoraish.AudioMixingReason
    local_engine.set_external_audio_source(True, 48000, 1)
    for engine in (local_engine, remote_engine):
        engine.set_external_audio_sink(True, Ears.RATE, 1)
    remote_engine.enable_local_audio(False)  # remote only listens
    if not meet(CHANNEL, local_engine, local, remote_engine, remote):
        return False

    say("local", f"get_effect_duration({EFFECT}) = {local_engine.get_effect_duration(EFFECT)} ms")
    stop = threading.Event()
    talker = threading.Thread(target=microphone, args=(local_engine, stop), name="local-microphone")
    talker.start()
    checks: Dict[str, bool] = {}
    try:
        with Ears({"local": local_engine, "remote": remote_engine}) as ears:
            voice = measure(ears, "the voice alone")
            checks["voice"] = voice["remote"][VOICE_HZ] > HEARD_DBFS and voice["remote"][MUSIC_HZ] < SILENT_DBFS

            local_engine.start_audio_mixing(MUSIC, loopback=False, cycle=1)
            say("local", f"start_audio_mixing({MUSIC}, loopback False, cycle 1)")
            if not local.wait_mixing(S.PLAYING, R.OK):
                return False
            say("local", f"get_audio_mixing_duration() = {local_engine.get_audio_mixing_duration()} ms")
            mixed = measure(ears, "voice and music")
            checks["mixed"] = (mixed["remote"][VOICE_HZ] > HEARD_DBFS and mixed["remote"][MUSIC_HZ] > HEARD_DBFS
                               and mixed["local"][MUSIC_HZ] > HEARD_DBFS
                               and mixed["local"][VOICE_HZ] < SILENT_DBFS)

            local_engine.adjust_audio_mixing_publish_volume(25)
            say("local", f"adjust_audio_mixing_publish_volume(25): publish volume "
                         f"{local_engine.get_audio_mixing_publish_volume()}, playout volume "
                         f"{local_engine.get_audio_mixing_playout_volume()}")
            quieter = measure(ears, "publish volume 25")
            drop = mixed["remote"][MUSIC_HZ] - quieter["remote"][MUSIC_HZ]
            local_drop = mixed["local"][MUSIC_HZ] - quieter["local"][MUSIC_HZ]
            say("remote", f"the music is {drop:.1f} dB quieter (a volume of 25 is 12 dB); local's only "
                          f"{local_drop:.1f} dB")
            checks["publish volume"] = 8 < drop < 16 and abs(local_drop) < 2
            local_engine.adjust_audio_mixing_volume(100)

            local_engine.set_audio_mixing_pitch(12)
            say("local", "adjust_audio_mixing_volume(100), set_audio_mixing_pitch(12): an octave up")
            pitched = measure(ears, "pitch +12")
            checks["pitch"] = (pitched["remote"][PITCHED_HZ] > HEARD_DBFS
                               and pitched["remote"][MUSIC_HZ] < pitched["remote"][PITCHED_HZ] - 20)
            local_engine.set_audio_mixing_pitch(0)

            local_engine.pause_audio_mixing()
            if not local.wait_mixing(S.PAUSED, R.PAUSED_BY_USER):
                return False
            say("local", f"pause_audio_mixing() at {local_engine.get_audio_mixing_current_position()} ms")
            paused = measure(ears, "music paused")
            checks["pause"] = paused["remote"][VOICE_HZ] > HEARD_DBFS and paused["remote"][MUSIC_HZ] < SILENT_DBFS

            local_engine.resume_audio_mixing()
            if not local.wait_mixing(S.PLAYING, R.RESUMED_BY_USER):
                return False
            local_engine.play_effect(EFFECT_ID, EFFECT, loop_count=0, pitch=1.0, pan=0.0, gain=100, publish=True)
            say("local", f"resume_audio_mixing(), play_effect({EFFECT_ID}, {EFFECT}, publish True); effects volume "
                         f"{local_engine.get_effects_volume()}")
            effect = measure(ears, "voice, music and effect", EFFECT_SECONDS * 1000 - SETTLE_MS)
            checks["effect"] = all(effect["remote"][hz] > HEARD_DBFS for hz in (VOICE_HZ, MUSIC_HZ, EFFECT_HZ))
            with local.changed:
                finished = local.changed.wait_for(lambda: EFFECT_ID in local.effects_finished, timeout=WAIT_SECONDS)
            checks["effect finished"] = finished

            local_engine.stop_audio_mixing()
            checks["stopped"] = local.wait_mixing(S.STOPPED, R.STOPPED_BY_USER)
    finally:
        stop.set()
        talker.join()

    if not part(local_engine, local, remote_engine, remote):
        return False
    failed = [name for name, ok in checks.items() if not ok]
    if failed:
        say("local", f"not as expected: {', '.join(failed)}")
    return not failed


def main() -> int:
    say("ffmpeg", f"making {MUSIC} ({MUSIC_HZ} Hz, {MUSIC_SECONDS} s) and {EFFECT} ({EFFECT_HZ} Hz, "
                  f"{EFFECT_SECONDS} s)")
    if not (make_media(MUSIC, "-f", "lavfi", "-i",
                       f"sine=frequency={MUSIC_HZ}:sample_rate=48000:duration={MUSIC_SECONDS}",
                       "-c:a", "libmp3lame", "-b:a", "96k")
            and make_media(EFFECT, "-f", "lavfi", "-i",
                           f"sine=frequency={EFFECT_HZ}:sample_rate=48000:duration={EFFECT_SECONDS}",
                           "-c:a", "pcm_s16le")):
        return 1
    local, remote = User("local"), User("remote")
    return run_call("audio_mixing", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: remote heard the voice with the music, its volume, pitch and pause, and the effect")


if __name__ == "__main__":
    sys.exit(main())
