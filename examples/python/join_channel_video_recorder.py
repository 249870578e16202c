#!/usr/bin/env python3
"""join_channel_video_recorder.py — Agora's JoinChannelVideo(Recorder) case in
Python: a video call in which each user records a stream of it to an MP4
file with the media recorder.

    join_channel -> create_media_recorder(channel, uid) -> set_media_recorder_observer
    -> start_recording(MediaRecorderConfiguration) -> on_recorder_state_changed(START)
    -> on_recorder_info_updated every second -> stop_recording (the file is complete)
    -> on_recorder_state_changed(STOP) -> destroy_media_recorder -> leave_channel -> release

"local" sends what its "camera" and "microphone" give: a thread pushes a
320x240 picture with a bright square moving across it 15 times a second
through an external video source, and a 440 Hz tone 10 ms every 10 ms
through an external audio source. local records itself (uid 0: what it
sends) into demo-out/join_channel_video_recorder_local.mp4; "remote", a
second engine in the same process, watches and listens (its playout is an
external sink, pulled in real time) and records local as received (local's
uid) into demo-out/join_channel_video_recorder_remote.mp4. After four
seconds both stop; the example checks each file with ffprobe: an H.264
stream of 320x240 with its pictures and an AAC stream, about four seconds
long, and with ffmpeg that the tone is in the sound.

Runs from a checkout: it imports bindings/python and, unless AGORAISH_LIBRARY
says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/join_channel_video_recorder.py
"""
import array
import json
import math
import os
import subprocess
import sys
import threading
import time
from typing import Dict, List, Optional, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import Ears, ExampleUser, meet, name_of, part, run_call, say, sleep_until, tone_level

CHANNEL = "join-channel-video-recorder"
WIDTH, HEIGHT, FPS = 320, 240, 15
TONE_HZ = 440
RECORD_MS = 4000
FILES = {"local": os.path.join("demo-out", "join_channel_video_recorder_local.mp4"),
         "remote": os.path.join("demo-out", "join_channel_video_recorder_remote.mp4")}
WAIT_SECONDS = 10


# ---- one user's events, and its recorder's -----------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def on_first_remote_video_decoded(self, uid: int, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_video_decoded uid {uid}, {width}x{height}, {elapsed} ms")

    def on_first_remote_audio_decoded(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_decoded uid {uid}, {elapsed} ms")


class RecorderEvents(agoraish.MediaRecorderObserver):
    """A recorder's states and updates, on the engine's event thread."""

    def __init__(self, who: str) -> None:
        self.who = who
        self.changed = threading.Condition()
        # Guarded by `changed`.
        self.states: List[Tuple[int, int]] = []
        self.updates = 0

    def on_recorder_state_changed(self, channel_id: str, uid: int, state: agoraish.RecorderState,
                                  reason: agoraish.RecorderReason) -> None:
        say(self.who, f"on_recorder_state_changed \"{channel_id}\" uid {uid}: {name_of(state)} ({name_of(reason)})")
        with self.changed:
            self.states.append((int(state), int(reason)))
            self.changed.notify_all()

    def on_recorder_info_updated(self, channel_id: str, uid: int, info: agoraish.RecorderInfo) -> None:
        say(self.who, f"on_recorder_info_updated uid {uid}: {info.file_name}, {info.duration_ms} ms, "
                      f"{info.file_size} bytes")
        with self.changed:
            self.updates += 1

    def wait_state(self, state: int) -> Optional[int]:
        """Waits for `state`; its reason, or None."""
        def reason() -> Optional[int]:
            return next((r for s, r in self.states if s == state), None)
        with self.changed:
            self.changed.wait_for(lambda: reason() is not None, timeout=WAIT_SECONDS)
            found = reason()
        if found is None:
            say(self.who, f"no {name_of(agoraish.RecorderState(state))} within {WAIT_SECONDS} s")
        return found


# ---- local's camera and microphone ----------------------------------------------------------


def picture(n: int) -> Tuple[bytes, bytes, bytes]:
    """Picture `n`: grey, with a bright 40x40 square moving right 8 pixels a picture."""
    left = (n * 8) % (WIDTH - 40)
    row = bytes([90]) * left + bytes([235]) * 40 + bytes([90]) * (WIDTH - 40 - left)
    luma = b"".join(row if 100 <= r < 140 else bytes([90]) * WIDTH for r in range(HEIGHT))
    chroma = bytes([128]) * (WIDTH // 2 * HEIGHT // 2)
    return luma, chroma, chroma


def devices(engine: agoraish.RtcEngine, stop: threading.Event, failures: List[int]) -> None:
    """Pushes 10 ms of the tone every 10 ms and a picture FPS times a second, in real time, until `stop`."""
    pictures = [picture(n) for n in range((WIDTH - 40) // 8)]
    step = 2 * math.pi * TONE_HZ / 48000
    start = time.monotonic()
    k = sent = 0
    while not stop.is_set():
        chunk = array.array("h", (int(8000 * math.sin(step * (k * 480 + i))) for i in range(480)))
        try:
            engine.push_external_audio_frame(chunk)
            if k * FPS // 100 >= sent:
                engine.push_external_video_frame(WIDTH, HEIGHT, *pictures[sent % len(pictures)],
                                                 timestamp=sent * 1000 // FPS)
                sent += 1
        except agoraish.AgoraishError:
            failures.append(k)
        k += 1
        sleep_until(start, k * 10)


# ---- the files ----------------------------------------------------------------------------------


def probe(who: str, path: str) -> bool:
    """What ffprobe says of a recording, and the tone ffmpeg decodes from it, said; whether it holds
    H.264 320x240 (at least three pictures in four seconds) and AAC with the tone, about RECORD_MS long."""
    try:
        out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                              "stream=codec_type,codec_name,width,height,sample_rate,nb_read_frames:format=duration",
                              "-of", "json", path], capture_output=True, text=True, timeout=30)
        info = json.loads(out.stdout)
        pcm = array.array("h", subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a:0",
                                               "-ac", "1", "-ar", "48000", "-f", "s16le", "-"],
                                              capture_output=True, timeout=30).stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError) as error:
        say(who, f"cannot read {path}: {error}")
        return False
    streams = info.get("streams", [])
    duration = float(info.get("format", {}).get("duration", 0))
    described = ", ".join(f"{s.get('codec_type')} {s.get('codec_name')}"
                          + (f" {s.get('width')}x{s.get('height')}, {s.get('nb_read_frames')} pictures"
                             if s.get("codec_type") == "video" else f" {s.get('sample_rate')} Hz")
                          for s in streams)
    level = tone_level(pcm[len(pcm) // 4:len(pcm) * 3 // 4], TONE_HZ)  # the middle half
    say(who, f"{path}: {described}; {duration:.2f} s, {os.path.getsize(path)} bytes; {TONE_HZ} Hz at "
             f"{level:.1f} dBFS")
    video = [s for s in streams if s.get("codec_type") == "video"]
    audio = [s for s in streams if s.get("codec_type") == "audio"]
    return (len(video) == 1 and video[0].get("codec_name") == "h264"
            and (video[0].get("width"), video[0].get("height")) == (WIDTH, HEIGHT)
            and int(video[0].get("nb_read_frames", 0)) >= RECORD_MS * FPS * 3 // 4000
            and len(audio) == 1 and audio[0].get("codec_name") == "aac"
            and abs(duration * 1000 - RECORD_MS) < 1000 and level > -40)


# ---- the call ------------------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    S = agoraish.RecorderState
    # local sends its pushed pictures and tone; remote receives, and hears through an external sink.
    local_engine.set_external_audio_source(True, 48000, 1)
    local_engine.set_external_video_source(True)
    local_engine.enable_video()
    local_engine.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS)
    remote_engine.enable_video()
    remote_engine.enable_local_audio(False)
    remote_engine.set_external_audio_sink(True, Ears.RATE, 1)
    if not meet(CHANNEL, local_engine, local, remote_engine, remote):
        return False
    local_uid = remote.peer
    pictures = [0]
    remote_engine.setup_remote_video(local_uid, lambda frame: pictures.__setitem__(0, pictures[0] + 1))

    stop = threading.Event()
    failures: List[int] = []
    pusher = threading.Thread(target=devices, args=(local_engine, stop, failures), name="local-devices")
    pusher.start()
    recorders: Dict[str, agoraish.MediaRecorder] = {}
    observers = {"local": RecorderEvents("local"), "remote": RecorderEvents("remote")}
    try:
        with Ears({"remote": remote_engine}) as ears:
            ears.listen(500)  # the first pictures and audio arrive
            os.makedirs("demo-out", exist_ok=True)
            for who, engine, uid in (("local", local_engine, 0), ("remote", remote_engine, local_uid)):
                recorder = engine.create_media_recorder(CHANNEL, uid)
                recorders[who] = recorder
                recorder.set_media_recorder_observer(observers[who])
                recorder.start_recording(agoraish.MediaRecorderConfiguration(
                    storage_path=FILES[who], width=WIDTH, height=HEIGHT, fps=FPS, recorder_info_update_interval=1000))
                say(who, f"create_media_recorder(\"{CHANNEL}\", uid {uid}), start_recording({FILES[who]})")
            started = all(observers[who].wait_state(S.START) is not None for who in observers)
            ears.listen(RECORD_MS)
            for who, recorder in recorders.items():
                recorder.stop_recording()  # the file is complete when it returns
                say(who, "stop_recording()")
            stopped = all(observers[who].wait_state(S.STOP) == agoraish.RecorderReason.NONE for who in observers)
    finally:
        stop.set()
        pusher.join()
        for who, recorder in recorders.items():
            recorder.destroy()

    remote_engine.setup_remote_video(local_uid, None)
    say("remote", f"rendered {pictures[0]} pictures of local; {len(failures)} pushes failed")
    if not part(local_engine, local, remote_engine, remote):
        return False
    files_ok = all([probe(who, FILES[who]) for who in FILES])
    with observers["local"].changed, observers["remote"].changed:
        updates = min(observers["local"].updates, observers["remote"].updates)
    return started and stopped and files_ok and updates >= 2 and not failures


def main() -> int:
    local, remote = User("local"), User("remote")
    return run_call("join_channel_video_recorder", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: each user recorded the call to MP4, H.264 and AAC as ffprobe reads them")


if __name__ == "__main__":
    sys.exit(main())
