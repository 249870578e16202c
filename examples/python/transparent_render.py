#!/usr/bin/env python3
"""transparent_render.py — Agora's TransparentRender case in Python: pictures
with an alpha channel, from a video file and from the host, reach their
canvases with their alpha planes.

    create_media_player -> set_view -> open(WebM VP8 with alpha) -> play
    -> the view gets each picture with frame.alpha
    set_external_video_source -> setup_local_video -> start_preview
    -> push_external_video_frame(..., alpha=plane) -> the local canvas gets it with frame.alpha
    -> remote users get the picture without alpha (VP8 over RTP carries none)

"local" plays a 3 s WebM (VP8 with an alpha channel: FFmpeg's moving test
pattern inside an opaque disc of radius 70 that moves to the right, fully
transparent around it) that the example makes first with the ffmpeg
command-line tool in demo-out/transparent_render.webm; its player's view
counts the transparent and opaque pixels of each picture and follows the
disc. At the same time local sends pictures of its own through an external
video source, each with an alpha plane (its left quarter opaque, the next
quarter half transparent, the right half transparent), and watches them in
its preview (setup_local_video, start_preview), mirrored as a preview is:
the alpha plane is mirrored with the picture. "remote", a second engine in
the same process, receives local's pictures in the call: without alpha.

Runs from a checkout: it imports bindings/python and, unless AGORAISH_LIBRARY
says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/transparent_render.py
"""
import os
import sys
import threading
import time
from typing import List, Optional, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, make_media, meet, name_of, part, run_call, say

CHANNEL = "transparent-render"
WIDTH, HEIGHT, FPS = 320, 240, 15
RADIUS = 70
MOVIE = os.path.join("demo-out", "transparent_render.webm")
SECONDS = 3
PUSHED = 30         # two seconds of local's own pictures
WAIT_SECONDS = 10


# ---- one user's events, and the player's ---------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def on_first_local_video_frame(self, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_local_video_frame {width}x{height}, {elapsed} ms")

    def on_first_remote_video_decoded(self, uid: int, width: int, height: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_video_decoded uid {uid}, {width}x{height}, {elapsed} ms")


class PlayerEvents(agoraish.MediaPlayerSourceObserver):
    """The player's states, on the engine's event thread."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.states: List[int] = []  # guarded by `changed`

    def on_player_source_state_changed(self, state: agoraish.MediaPlayerState,
                                       reason: agoraish.MediaPlayerReason) -> None:
        say("player", f"on_player_source_state_changed {name_of(state)} ({name_of(reason)})")
        with self.changed:
            self.states.append(int(state))
            self.changed.notify_all()

    def wait_state(self, state: int) -> bool:
        with self.changed:
            ok = self.changed.wait_for(lambda: state in self.states, timeout=WAIT_SECONDS)
        if not ok:
            say("player", f"no {agoraish.MediaPlayerState(state).name} within {WAIT_SECONDS} s")
        return ok


# ---- canvases that read the alpha planes -----------------------------------------------------------


class AlphaCanvas:
    """A canvas: per picture, the share of its pixels that are transparent (alpha
    below 16), half transparent (112..143) and opaque (above 239), and the mean
    column of the opaque ones (a share of the width). Keeps the sums and the
    first and last picture's figures."""

    def __init__(self, who: str, what: str) -> None:
        self.who, self.what = who, what
        self.lock = threading.Lock()
        # Guarded by `lock`.
        self.pictures = 0
        self.with_alpha = 0
        self.shares = [0.0, 0.0, 0.0]  # summed over the pictures with alpha
        self.first_x: Optional[float] = None
        self.last_x: Optional[float] = None

    def __call__(self, *args: object) -> None:
        frame = args[-1]  # a local or remote canvas gets (frame), the player's view (uid, frame)
        alpha: Optional[bytes] = frame.alpha  # a copy: valid after the call too
        if alpha is None:
            with self.lock:
                self.pictures += 1
            return
        width, size = frame.width, len(alpha)
        transparent = sum(alpha.count(bytes([v])) for v in range(16))
        half = sum(alpha.count(bytes([v])) for v in range(112, 144))
        opaque = sum(alpha.count(bytes([v])) for v in range(240, 256))
        # The mean column of the opaque pixels, from every fourth row.
        columns = [x for y in range(0, frame.height, 4) for x, v in enumerate(alpha[y * width:(y + 1) * width])
                   if v >= 240]
        x = sum(columns) / len(columns) / width if columns else None
        with self.lock:
            if self.with_alpha == 0:
                say(self.who, f"{self.what}: first picture {frame.width}x{frame.height} with alpha: "
                              f"{100 * transparent / size:.0f} % transparent, {100 * opaque / size:.0f} % opaque")
                self.first_x = x
            self.pictures += 1
            self.with_alpha += 1
            for i, count in enumerate((transparent, half, opaque)):
                self.shares[i] += count / size
            self.last_x = x

    def report(self) -> Tuple[int, int, List[float], Optional[float], Optional[float]]:
        with self.lock:
            n = max(1, self.with_alpha)
            shares = [share / n for share in self.shares]
            report = (self.pictures, self.with_alpha, shares, self.first_x, self.last_x)
        if report[1] == 0:
            say(self.who, f"{self.what}: {report[0]} pictures, none with alpha")
            return report
        where = (f", the opaque part centred from {report[3]:.2f} to {report[4]:.2f} of the width"
                 if report[3] is not None and report[4] is not None else "")
        say(self.who, f"{self.what}: {report[0]} pictures, {report[1]} with alpha; on average "
                      f"{100 * shares[0]:.1f} % transparent, {100 * shares[1]:.1f} % half, "
                      f"{100 * shares[2]:.1f} % opaque{where}")
        return report


# ---- local's own pictures with alpha -----------------------------------------------------------


def own_picture() -> Tuple[bytes, bytes, bytes, bytes]:
    """A blue-ish I420 picture and its alpha plane: the left quarter opaque,
    the next quarter half transparent (128), the right half transparent."""
    luma = bytes([100]) * (WIDTH * HEIGHT)
    cb, cr = bytes([180]) * (WIDTH * HEIGHT // 4), bytes([100]) * (WIDTH * HEIGHT // 4)
    row = bytes([255]) * (WIDTH // 4) + bytes([128]) * (WIDTH // 4) + bytes([0]) * (WIDTH // 2)
    return luma, cb, cr, row * HEIGHT


# ---- the call ----------------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    S = agoraish.MediaPlayerState
    for engine in (local_engine, remote_engine):
        engine.disable_audio()  # a video-only call
        engine.enable_video()
    local_engine.set_external_video_source(True)
    local_engine.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS)
    preview = AlphaCanvas("local", "preview")
    local_engine.setup_local_video(preview)  # mirrored, as previews are (VideoMirrorMode.AUTO)
    local_engine.start_preview()
    say("local", "set_external_video_source, setup_local_video, start_preview")
    if not meet(CHANNEL, local_engine, local, remote_engine, remote):
        return False
    received = AlphaCanvas("remote", "remote canvas")
    remote_engine.setup_remote_video(remote.peer, received)

    player = local_engine.create_media_player()
    events = PlayerEvents()
    player.register_player_source_observer(events)
    view = AlphaCanvas("local", "player's view")
    player.set_view(view)
    player.open(MOVIE)
    if not events.wait_state(S.OPEN_COMPLETED):
        return False
    info = next(player.get_stream_info(i) for i in range(player.get_stream_count()))
    say("local", f"{MOVIE}: {name_of(info.stream_type)} {info.codec_name} {info.video_width}x{info.video_height}")
    player.play()

    # local's own pictures, with their alpha plane, while the file plays.
    luma, cb, cr, alpha = own_picture()
    refused = 0
    start = time.monotonic()
    for n in range(PUSHED):
        try:
            local_engine.push_external_video_frame(WIDTH, HEIGHT, luma, cb, cr, alpha=alpha, timestamp=n * 1000 // FPS)
        except agoraish.AgoraishError as error:
            if refused == 0:
                say("local", f"push_external_video_frame({n}) = {error.code}")
            refused += 1
        delay = start + (n + 1) / FPS - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    say("local", f"pushed {PUSHED} pictures with an alpha plane, {refused} refused")
    if not events.wait_state(S.PLAYBACK_ALL_LOOPS_COMPLETED):
        return False
    local_engine.destroy_media_player(player)  # no view callback runs afterwards
    remote_engine.setup_remote_video(remote.peer, None)  # waits for a picture being rendered
    local_engine.stop_preview()
    local_engine.setup_local_video(None)

    shown, shown_alpha, shares, first_x, last_x = view.report()
    own, own_alpha, own_shares, own_x, _ = preview.report()
    got, got_alpha, _, _, _ = received.report()
    if not part(local_engine, local, remote_engine, remote):
        return False
    disc = 3.14159 * RADIUS * RADIUS / (WIDTH * HEIGHT)  # the disc's share of the picture
    return (shown >= SECONDS * FPS * 3 // 4 and shown_alpha == shown
            and abs(shares[2] - disc) < 0.03 and abs(shares[0] - (1 - disc)) < 0.03
            and first_x is not None and last_x is not None and last_x > first_x + 0.3   # the disc moved right
            and own >= PUSHED * 3 // 4 and own_alpha == own
            and all(abs(share - want) < 0.02 for share, want in zip(own_shares, (0.5, 0.25, 0.25)))
            and own_x is not None and own_x > 0.75                                     # mirrored: on the right
            and got >= PUSHED // 2 and got_alpha == 0 and refused == 0)


def main() -> int:
    say("ffmpeg", f"making {MOVIE}: {SECONDS} s of VP8 with alpha, a moving opaque disc on a transparent ground")
    disc = f"if(lt(hypot(X-90-50*T\\,Y-{HEIGHT // 2})\\,{RADIUS})\\,255\\,0)"
    if not make_media(MOVIE, "-f", "lavfi", "-i",
                      f"testsrc2=size={WIDTH}x{HEIGHT}:rate={FPS}:duration={SECONDS},format=yuva420p,"
                      f"geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='{disc}'",
                      "-c:v", "libvpx", "-pix_fmt", "yuva420p", "-auto-alt-ref", "0", "-metadata:s:v:0", "alpha_mode=1",
                      "-deadline", "realtime", "-cpu-used", "8", "-b:v", "400k"):
        return 1
    local, remote = User("local"), User("remote")
    return run_call("transparent_render", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: both canvases got their pictures' alpha, and remote the pictures without it")


if __name__ == "__main__":
    sys.exit(main())
