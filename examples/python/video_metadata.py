#!/usr/bin/env python3
"""video_metadata.py — Agora's VideoMetadata case in Python: a few bytes of
the host's own (subtitles, scores, a cue) travel with each video picture and
reach the others with that picture's timestamp.

    register_media_metadata_observer(observer, MetadataType.VIDEO)
    -> get_max_metadata_size()                 (asked once, when registered)
    -> enable_video -> join_channel
    -> on_ready_to_send_metadata(timestamp_ms)  (each picture sent: return the bytes, or None)
    -> on_metadata_received(uid, data, timestamp_ms) on the others
    -> leave_channel -> register_media_metadata_observer(None) -> release

Both users register an observer of the same class (Agora's
IMetadataObserver is one object for both directions). "local" pushes 20
pictures of 320x240 at 15 fps through an external source (no camera here),
and its observer attaches "frame <timestamp>" to each one it sends;
"remote", a second engine in the same process, renders the pictures and
prints each piece of metadata as it arrives. The metadata travels reliably
beside the video (on the media path, as a data stream does) and carries the
timestamp the picture was pushed with. The example checks that what arrived
names its own timestamp, in order, and that most pictures brought some.
Audio is off on both engines.

The Python version of examples/c/video_metadata.c. Runs from a checkout: it
imports bindings/python and, unless AGORAISH_LIBRARY says otherwise, uses the
checkout's dist/lib (`make dist`):

    python3 examples/python/video_metadata.py
"""
import sys
import threading
import time
from typing import List, Optional, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, meet, part, run_call, say, sleep_until

CHANNEL = "video-metadata"
WIDTH, HEIGHT = 320, 240
FPS = 15
PUSHED = 20
MAX_METADATA = 64    # what this host's metadata needs (Agora's case asks for 1024)
SETTLE_MS = 500      # after the last push, for the last metadata to arrive


# ---- one user's events --------------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def on_first_remote_video_frame(self, uid: int, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_video_frame uid {uid}, {width}x{height}, {elapsed} ms")


# ---- the metadata observer --------------------------------------------------------------


class Captions(agoraish.MetadataObserver):
    """One user's metadata source and sink: "frame <timestamp>" on each picture sent,
    and a list of what arrived."""

    max_size = MAX_METADATA

    def __init__(self, who: str) -> None:
        super().__init__(MAX_METADATA)
        self.who = who
        self.lock = threading.Lock()
        # Guarded by `lock`.
        self.attached = 0
        self.received: List[Tuple[int, bytes, int]] = []  # (uid, data, timestamp)

    def on_ready_to_send_metadata(self, timestamp_ms: int) -> Optional[bytes]:
        # On the thread that pushes the picture: keep it short.
        with self.lock:
            self.attached += 1
        return f"frame {timestamp_ms}".encode()

    def on_metadata_received(self, uid: int, data: bytes, timestamp_ms: int) -> None:
        # On the event thread; `data` is a copy.
        text = data.decode("utf-8", "replace")
        say(self.who, f'on_metadata_received uid {uid}, picture of {timestamp_ms} ms: "{text}"')
        with self.lock:
            self.received.append((uid, data, timestamp_ms))


class View:
    """remote's view of local: counts the pictures rendered."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pictures = 0

    def __call__(self, frame: agoraish.VideoFrame) -> None:
        with self.lock:
            self.pictures += 1


# ---- local's "camera" -------------------------------------------------------------------


def draw_picture(n: int) -> Tuple[bytes, bytes, bytes]:
    """Picture `n`: grey, with a bright bar that moves down."""
    top = (n * 8) % HEIGHT
    luma = b"".join(bytes([235 if top <= r < top + 8 else 90]) * WIDTH for r in range(HEIGHT))
    chroma = bytes([128]) * ((WIDTH // 2) * (HEIGHT // 2))
    return luma, chroma, chroma


# ---- the call ---------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    sent, heard = Captions("local"), Captions("remote")
    # Both: the observer, video on, audio off.
    local_engine.register_media_metadata_observer(sent, agoraish.MetadataType.VIDEO)
    remote_engine.register_media_metadata_observer(heard, agoraish.MetadataType.VIDEO)
    say("both", f"register_media_metadata_observer(VIDEO), at most {MAX_METADATA} bytes a picture")
    for engine in (local_engine, remote_engine):
        engine.disable_audio()
        engine.enable_video()
    # local sends what it pushes: 320x240 at 15 fps.
    local_engine.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS)
    local_engine.set_external_video_source(True)
    say("local", f"set_video_encoder_configuration({WIDTH}x{HEIGHT}, {FPS} fps), set_external_video_source(True)")

    if not meet(CHANNEL, local_engine, local, remote_engine, remote):
        return False
    local_uid = remote.peer
    view = View()
    remote_engine.setup_remote_video(local_uid, view)

    say("local", f"pushing {PUSHED} pictures of {WIDTH}x{HEIGHT} at {FPS} fps")
    refused = 0
    start = time.monotonic()
    for n in range(PUSHED):
        try:
            # The timestamp is what the metadata will carry.
            local_engine.push_external_video_frame(WIDTH, HEIGHT, *draw_picture(n), timestamp=n * 1000 // FPS)
        except agoraish.AgoraishError as error:
            if not refused:
                say("local", f"push_external_video_frame({n}) = {error.code}")
            refused += 1
        sleep_until(start, (n + 1) * 1000 // FPS)
    sleep_until(start, PUSHED * 1000 // FPS + SETTLE_MS)

    remote_engine.setup_remote_video(local_uid, None)  # waits for a picture being rendered
    if not part(local_engine, local, remote_engine, remote):
        return False
    local_engine.register_media_metadata_observer(None)
    remote_engine.register_media_metadata_observer(None)

    with sent.lock:
        attached = sent.attached
    with heard.lock:
        received = list(heard.received)
    with view.lock:
        pictures = view.pictures
    mismatched = [r for r in received if r[1] != f"frame {r[2]}".encode()]
    times = [r[2] for r in received]
    in_order = all(a < b for a, b in zip(times, times[1:]))
    say("local", f"pushed {PUSHED} pictures ({refused} refused), attached metadata to {attached}")
    senders = sorted({r[0] for r in received})
    say("remote", f"rendered {pictures} pictures; {len(received)} metadata from uids {senders}, "
                  f"{len(mismatched)} not naming their picture, {'in order' if in_order else 'NOT in order'}")
    return (refused == 0 and attached >= PUSHED * 3 // 4 and PUSHED * 3 // 4 <= len(received) <= attached
            and all(r[0] == local_uid for r in received) and not mismatched and in_order and pictures >= PUSHED // 2)


def main() -> int:
    local, remote = User("local"), User("remote")
    return run_call("video_metadata", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: remote got each picture's metadata with its timestamp, in order")


if __name__ == "__main__":
    sys.exit(main())
