"""The browser scenarios of test_webrtc.py, one per process, each inside its own network namespace.

    unshare -n -- sh -c 'ip link set lo up && exec python3 webrtc_scenarios.py <scenario> <outdir>'

A scenario starts what it needs in this process — an embedded channel server
(`agoraish.ChannelServer`), native engines through the Python binding, and
headless Chromiums (browser_support.py) whose pages load the web SDK
(`/sdk/agoraish.js`, served on the signaling port) — drives them, and prints
one line `WEBRTC-RESULT {json}` on stdout: what it measured (`checks`), how
long each step took (`timings`, seconds since the start) and, when a step
failed or timed out, `error`. The test asserts on the JSON; everything else
(step log, page consoles, Chromium logs, engine logs) goes to stderr and
`<outdir>`.

The page logic is evaluated JS (browser_support's `Web`: `CLIENT_JS`, then
`page.call(...)`) on a page of the server's origin (`BLANK_PATH`), so it does
not depend on the call page; only `call_page` opens /call itself.

Native engines push a tone through their external audio source and pull
what they hear through the external sink every 10 ms (the playout clock),
keeping each remote user's audio before mixing; they push video pictures
(test_video's numbered pictures, 15 fps) and count the pictures they decode
per user with a render observer.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import support  # noqa: E402,F401  (the binding on sys.path, the library)
import browser_support as bs  # noqa: E402

APP = "0123456789abcdef0123456789abcdef"
#: APP's certificate in wrong_token (as abuse_support.CERT), and a certificate that forges tokens.
CERT = "fedcba9876543210fedcba9876543210"
OTHER_CERT = "00112233445566778899aabbccddeeff"
RATE = 48000
CHUNK = RATE // 100
#: The call page's query (call_page); with a channel it joins and publishes on load.
CALL_QUERY = "/call?appId={app}&channel={channel}&uid={uid}&codec=vp8&mode=rtc"
#: A whole scenario may take this long before it is stopped with an error, in seconds.
SCENARIO_TIMEOUT = 60
RESULT_PREFIX = "WEBRTC-RESULT "

SCENARIOS: Dict[str, Callable[["Run"], None]] = {}


def scenario(fn: Callable[["Run"], None]) -> Callable[["Run"], None]:
    SCENARIOS[fn.__name__] = fn
    return fn


def log(text: str) -> None:
    print(f"{time.monotonic():.3f} {text}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Signals
# --------------------------------------------------------------------------


def spectrum_peak(samples: Any, rate: int = RATE) -> Dict[str, float]:
    """The strongest frequency of int16 samples (Hann-windowed FFT, parabolic interpolation) and the
    RMS level in dBFS. An FFT rather than zero crossings (test_audio.py): what a browser sends has been
    through echo cancellation, noise suppression and gain control, and may carry some noise."""
    import numpy

    x = numpy.asarray(samples, dtype=numpy.float64)
    if len(x) < 256:
        return {"hz": 0.0, "dbfs": -200.0}
    rms = math.sqrt(float(numpy.mean(x * x)))
    spectrum = numpy.abs(numpy.fft.rfft(x * numpy.hanning(len(x))))
    k = int(numpy.argmax(spectrum[1:-1])) + 1
    a, b, c = numpy.log(spectrum[k - 1:k + 2] + 1e-9)
    offset = 0.5 * (a - c) / (a - 2 * b + c) if (a - 2 * b + c) != 0 else 0.0
    return {"hz": round(float((k + offset) * rate / len(x)), 1),
            "dbfs": round(20 * math.log10(max(rms, 1e-3) / 32768), 1)}


def wait_until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Polls `condition()` every 50 ms until it returns something truthy; raises AssertionError after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s")
        time.sleep(0.05)


# --------------------------------------------------------------------------
# Native engines
# --------------------------------------------------------------------------


class Native:
    """A native engine in a channel: pushes a tone (unless `tone_hz` is None) and pictures (if `video`),
    pulls what it hears in real time, records its events, each remote user's audio and decoded pictures."""

    def __init__(self, run: "Run", uid: int, channel: str, *, tone_hz: Optional[float] = 440.0,
                 video: bool = True, codec: str = "vp8", live: bool = False, token: Optional[str] = None) -> None:
        import agoraish

        self.run, self.uid, self.channel, self.tone_hz = run, uid, channel, tone_hz
        self.lock = threading.Condition()
        self.events: List[tuple] = []
        self.heard: Dict[int, List[tuple]] = {}  # uid -> [(time, 10 ms of samples)]
        self.pictures: Dict[int, List[tuple]] = {}
        self.stopping = threading.Event()
        self.pump: Optional[threading.Thread] = None
        self.pusher: Any = None
        native = self

        class Handler(agoraish.EventHandler):
            def on_join_channel_success(self, channel, uid, elapsed):
                native._event("join", uid)

            def on_user_joined(self, uid, elapsed):
                native._event("user_joined", uid)

            def on_user_offline(self, uid, reason):
                native._event("user_offline", uid, int(reason))

            def on_user_mute_audio(self, uid, muted):
                native._event("user_mute_audio", uid, bool(muted))

            def on_remote_audio_state_changed(self, uid, state, reason, elapsed):
                native._event("remote_audio_state", uid, int(state), int(reason))

            def on_user_mute_video(self, uid, muted):
                native._event("user_mute_video", uid, bool(muted))

            def on_connection_state_changed(self, state, reason):
                native._event("connection_state", int(state), int(reason))

            def on_error(self, err, msg):
                native._event("error", int(err), msg)

            def on_stream_message(self, uid, stream_id, data, sent_ts):
                native._event("stream_message", uid, int(stream_id), bytes(data))

        class Ears(agoraish.AudioFrameObserver):
            def on_playback_audio_frame_before_mixing(self, uid, frame):
                native._heard(uid, frame.bytes())
                return True

        class Eyes(agoraish.VideoFrameObserver):
            def on_render_video_frame(self, uid, frame):
                native._picture(uid, frame.width, frame.height)
                return True

        self.handler, self.ears, self.eyes = Handler(), Ears(), Eyes()
        engine = self.engine = agoraish.RtcEngine(APP, self.handler, server_url=run.server.url,
                                                  log_file=str(run.outdir / f"native{uid}.log"))
        run.defer(self.close)
        if live:
            engine.set_channel_profile(agoraish.ChannelProfile.LIVE_BROADCASTING)
            engine.set_client_role(agoraish.ClientRole.BROADCASTER)
        engine.set_external_audio_source(True, RATE, 1)
        engine.set_external_audio_sink(True, RATE, 1)
        engine.set_playback_audio_frame_before_mixing_parameters(RATE, 1)
        engine.register_audio_frame_observer(self.ears)
        engine.enable_video()
        engine.set_external_video_source(True)
        codec_type = agoraish.VideoCodecType.VP9 if codec == "vp9" else agoraish.VideoCodecType.VP8
        engine.set_video_encoder_configuration(320, 240, frame_rate=15, bitrate=400, codec_type=codec_type)
        engine.register_video_frame_observer(self.eyes)
        if tone_hz is None:
            engine.mute_local_audio_stream(True)
        if not video:
            engine.mute_local_video_stream(True)
        engine.join_channel(token, channel, uid=uid)
        self.wait_event("join", timeout=10)
        self.pump = threading.Thread(target=self._pump, name=f"native{uid}-audio", daemon=True)
        self.pump.start()
        if video:
            from video_support import Pusher, numbered_source
            self.pusher = Pusher(engine, numbered_source)
        run.mark(f"native {uid} joined {channel}")

    def _event(self, name: str, *args: Any) -> None:
        with self.lock:
            self.events.append((name, args, time.monotonic()))
            self.lock.notify_all()

    def _heard(self, uid: int, data: bytes) -> None:
        with self.lock:
            frames = self.heard.setdefault(uid, [])
            frames.append((time.monotonic(), data))
            del frames[:-300]  # the last 3 s

    def _picture(self, uid: int, width: int, height: int) -> None:
        with self.lock:
            self.pictures.setdefault(uid, []).append((width, height, time.monotonic()))
            self.lock.notify_all()

    def _pump(self) -> None:
        """Pushes the tone and pulls the playout, 10 ms each, in real time."""
        import array

        table = None
        if self.tone_hz:
            period = RATE // math.gcd(int(self.tone_hz), RATE)  # samples of a whole number of periods
            length = math.lcm(period, CHUNK)
            table = array.array("h", (int(8000 * math.sin(2 * math.pi * self.tone_hz * i / RATE))
                                      for i in range(length)))
        start, k = time.monotonic(), 0
        while not self.stopping.is_set():
            try:
                if table is not None:
                    offset = (k * CHUNK) % len(table)
                    self.engine.push_external_audio_frame(table[offset:offset + CHUNK])
                self.engine.pull_playback_audio_frame(CHUNK)
            except Exception as error:  # the engine is being released
                log(f"native {self.uid} audio pump: {error!r}")
                return
            k += 1
            delay = start + k / 100 - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            elif delay < -1.0:
                start = time.monotonic() - k / 100

    def wait_event(self, name: str, match: Callable[..., bool] = lambda *a: True, timeout: float = 10.0,
                   after: float = 0.0) -> tuple:
        """The arguments and time of the first event `name` (at or after time `after`) that matches."""

        def find() -> Optional[tuple]:
            for event, args, at in self.events:
                if event == name and at >= after and match(*args):
                    return args + (at,)
            return None

        with self.lock:
            found = self.lock.wait_for(find, timeout)
            seen = [(e, a) for e, a, _ in self.events][-12:]
        if found is None:
            raise AssertionError(f"native {self.uid}: no matching {name} within {timeout} s; last events: {seen}")
        return found

    def has_event(self, name: str, match: Callable[..., bool] = lambda *a: True) -> bool:
        with self.lock:
            return any(event == name and match(*args) for event, args, _ in self.events)

    def tone_of(self, uid: int, ms: int = 500) -> Dict[str, float]:
        """The spectrum peak of what was heard from `uid` (before mixing) in the last `ms`; a user whose
        audio stopped coming is silent (-200 dBFS)."""
        import array

        since = time.monotonic() - ms / 1000
        with self.lock:
            frames = [data for at, data in self.heard.get(uid, []) if at >= since]
        samples = array.array("h", b"".join(frames))
        return spectrum_peak(samples)

    def wait_tone(self, uid: int, hz: float, timeout: float = 10.0, tolerance: float = 15.0,
                  min_dbfs: float = -45.0) -> Dict[str, float]:
        """Waits until the audio of `uid` has its peak at `hz` and is loud enough; returns the measure."""
        deadline = time.monotonic() + timeout
        last: Dict[str, float] = {}
        while time.monotonic() < deadline:
            last = self.tone_of(uid)
            if abs(last["hz"] - hz) <= tolerance and last["dbfs"] >= min_dbfs:
                return last
            time.sleep(0.1)
        raise AssertionError(f"native {self.uid}: no {hz} Hz from {uid} within {timeout} s; last: {last}")

    def level_of(self, uid: int, ms: int = 300) -> float:
        return self.tone_of(uid, ms)["dbfs"]

    def wait_pictures(self, uid: int, count: int, timeout: float = 10.0) -> List[tuple]:
        """Waits until `count` pictures of `uid` were decoded; returns them (width, height, time)."""
        with self.lock:
            ok = self.lock.wait_for(lambda: len(self.pictures.get(uid, [])) >= count, timeout)
            got = list(self.pictures.get(uid, []))
        if not ok:
            raise AssertionError(f"native {self.uid}: {len(got)} pictures of {uid} within {timeout} s, wanted {count}")
        return got

    def close(self) -> None:
        self.stopping.set()
        if self.pusher is not None:
            self.pusher.stop()
        if self.pump is not None:
            self.pump.join(5)
        self.engine.release()


# --------------------------------------------------------------------------
# A run: the server, the engines, the browsers, and their cleanup
# --------------------------------------------------------------------------


class Run:
    def __init__(self, name: str, outdir: Path) -> None:
        self.name, self.outdir = name, outdir
        self.start = time.monotonic()
        self.timings: Dict[str, float] = {}
        self.checks: Dict[str, Any] = {}
        self.closers: List[Callable[[], None]] = []
        self.browsers: List[bs.Browser] = []
        self.server: Any = None

    def mark(self, step: str) -> None:
        self.timings[step] = round(time.monotonic() - self.start, 2)
        log(f"[{self.timings[step]:6.2f} s] {step}")

    def check(self, name: str, value: Any) -> Any:
        self.checks[name] = value
        log(f"check {name} = {json.dumps(value)[:400]}")
        return value

    def defer(self, closer: Callable[[], None]) -> None:
        self.closers.append(closer)

    def start_server(self, config: Optional[Dict[str, Any]] = None) -> Any:
        import agoraish

        self.server = agoraish.ChannelServer(http_port=-1, config_json=config)
        self.server.start()
        self.defer(self.server.release)
        self.origin = f"http://127.0.0.1:{self.server.signaling_port}"
        self.mark(f"server on {self.server.url}, http {self.server.http_port}")
        return self.server

    def browser(self, name: str, tone_hz: float = 700.0) -> bs.Browser:
        """A Chromium whose microphone plays `tone_hz` and whose camera plays the moving pattern.
        Started from the main thread (its parent-death signal follows the thread that starts it)."""
        fixtures = bs.make_fixtures(self.outdir / "fixtures", tone_hz)
        browser = bs.Browser(name, self.outdir, fixtures)
        self.browsers.append(browser)
        self.defer(browser.close)
        self.mark(f"chromium {name} up")
        return browser

    def web(self, name: str, uid: int, tone_hz: float = 700.0) -> bs.Web:
        """A browser of its own with one page ready for the SDK."""
        browser = self.browser(name, tone_hz)
        web = bs.Web(browser.new_page(name=name), self.origin, uid, APP, self.mark)
        self.mark(f"{name}: sdk loaded")
        return web

    def native(self, uid: int, channel: str, **kwargs: Any) -> Native:
        return Native(self, uid, channel, **kwargs)

    def close(self) -> None:
        for closer in reversed(self.closers):
            try:
                closer()
            except Exception as error:
                log(f"cleanup: {error!r}")
        self.closers.clear()


# --------------------------------------------------------------------------
# The harness's own check: fake devices, no server, no library
# --------------------------------------------------------------------------

SELF_TEST_PAGE = "<!doctype html><meta charset=utf-8><title>harness</title><body><p>harness</p></body>"


@scenario
def harness(run: Run) -> None:
    """getUserMedia on a page of a local HTTP server: the fake microphone's tone (700 Hz) is found by the
    page's analyser, the fake camera's pictures are counted; the same tracks sent over a loopback
    RTCPeerConnection are found again on the receiving side (tone, framesDecoded, VP8); a second page
    in its own browser context evaluates too."""
    import functools
    import http.server

    run.check("netns", os.readlink("/proc/self/ns/net"))
    www = run.outdir / "www"
    www.mkdir(exist_ok=True)
    (www / "index.html").write_text(SELF_TEST_PAGE)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            log("http: " + format % args)

    handler = functools.partial(Quiet, directory=str(www))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, name="http", daemon=True).start()
    run.defer(httpd.shutdown)
    url = f"http://127.0.0.1:{httpd.server_address[1]}/"
    run.mark("http server up")

    browser = run.browser("self", tone_hz=700.0)
    page = browser.new_page()
    run.check("status", page.navigate(url))
    run.mark("page loaded")
    run.check("helpers", page.evaluate("typeof __h"))
    local = page.call("""
        const stream = await navigator.mediaDevices.getUserMedia({audio: true, video: true});
        window.localStream = stream;
        const [audio] = stream.getAudioTracks(), [video] = stream.getVideoTracks();
        const context = await __h.listen('mic', audio);
        __h.countFrames('cam', video);
        const tone = await __h.waitTone('mic', 700, 15, 5000);
        await __h.sleep(1000);
        return {context, tone, frames: __h.frames('cam'), settings: video.getSettings(), label: audio.label};
    """, timeout=20)
    run.check("local", local)
    run.mark("local tone and pictures")

    loop = page.call("""
        const stream = window.localStream;
        const a = new RTCPeerConnection(), b = new RTCPeerConnection();
        a.onicecandidate = e => e.candidate && b.addIceCandidate(e.candidate);
        b.onicecandidate = e => e.candidate && a.addIceCandidate(e.candidate);
        const got = {};
        b.ontrack = e => { got[e.track.kind] = e.track; };
        for (const track of stream.getTracks()) a.addTrack(track, stream);
        await a.setLocalDescription(); await b.setRemoteDescription(a.localDescription);
        await b.setLocalDescription(); await a.setRemoteDescription(b.localDescription);
        const end = performance.now() + 5000;
        while (!(got.audio && got.video) && performance.now() < end) await __h.sleep(50);
        if (!got.audio || !got.video) return {tracks: Object.keys(got)};
        await __h.listen('remote', got.audio);
        __h.countFrames('remote', got.video);
        const tone = await __h.waitTone('remote', 700, 15, 8000);
        const progress = await __h.decodeProgress(got.video, 1500);
        return {tracks: Object.keys(got).sort(), tone, progress, recorded: __h.pcs.length};
    """, timeout=30)
    run.check("loopback", loop)
    run.mark("loopback tone and decoding")

    other = browser.new_page(isolated=True, name="self/isolated")
    other.navigate(url)
    run.check("isolated", other.evaluate("location.href + ' ' + typeof __h"))
    try:
        other.evaluate("(async () => { throw new Error('thrown on purpose') })()")
        run.check("js_error", None)
    except bs.JsError as error:
        run.check("js_error", str(error))
    other.evaluate("console.log('hello from', location.pathname)")
    time.sleep(0.2)
    run.check("console", "console.log: hello from /" in other.console_text())
    run.mark("isolated page")




# --------------------------------------------------------------------------
# The scenarios
# --------------------------------------------------------------------------


@scenario
def browser_to_native(run: Run) -> None:
    """The browser publishes its microphone (700 Hz) and camera (VP8); a native engine hears 700 Hz from
    the browser's uid and decodes its pictures at the size the browser captures."""
    run.start_server()
    native = run.native(1, "b2n", tone_hz=None, video=False)
    web = run.web("browser", 21)
    web.must_join("b2n")
    native.wait_event("user_joined", lambda uid: uid == 21)
    run.mark("native sees the browser")
    web.must_publish(["audio", "video"])
    run.check("browser_video_size", web.page.evaluate("__t.localVideoSize()"))
    run.check("native_heard", native.wait_tone(21, 700))
    run.mark("native hears 700 Hz")
    pictures = native.wait_pictures(21, 15)
    run.check("native_pictures", {"count": len(pictures), "sizes": sorted({(w, h) for w, h, _ in pictures}),
                                  "last": list(pictures[-1][:2]), "fps": _rate(pictures)})
    run.mark("native decodes the browser's pictures")


def _native_to_browser(run: Run, codec: str) -> None:
    run.start_server()
    channel = f"n2b-{codec}"
    run.native(1, channel, tone_hz=440.0, video=True, codec=codec)
    web = run.web("browser", 22)
    web.must_join(channel, codec=codec)
    web.wait_subscribed(1, "audio")
    web.wait_subscribed(1, "video")
    run.mark("browser subscribed")
    run.check("browser_heard", web.wait_tone(1, 440))
    run.mark("browser hears 440 Hz")
    run.check("browser_video", web.wait_decoding([1])[1])
    run.mark("browser decodes")


@scenario
def native_to_browser_vp8(run: Run) -> None:
    """A native engine publishes 440 Hz and VP8 pictures; the browser hears 440 Hz and decodes VP8."""
    _native_to_browser(run, "vp8")


@scenario
def native_to_browser_vp9(run: Run) -> None:
    """The same with VP9: the client created with codec "vp9", the engine encoding VP9."""
    _native_to_browser(run, "vp9")


@scenario
def two_browsers_and_native(run: Run) -> None:
    """Two browsers (700 Hz and 900 Hz microphones, two Chromium processes) and a native engine (440 Hz)
    in one channel: everyone hears and sees the two others."""
    run.start_server()
    native = run.native(1, "trio", tone_hz=440.0, video=True)
    alice, bob = run.web("alice", 31, 700.0), run.web("bob", 32, 900.0)
    for web in (alice, bob):
        web.must_join("trio")
        web.must_publish(["audio", "video"])
    tones = {1: 440.0, 31: 700.0, 32: 900.0}
    for web, others in ((alice, (1, 32)), (bob, (1, 31))):
        for uid in others:
            web.wait_subscribed(uid, "audio")
            web.wait_subscribed(uid, "video")
        run.check(f"{web.page.name}_published", sorted({(e["uid"], e["kind"]) for e in web.events()
                                                        if e["ev"] == "user-published"}))
        for uid in others:
            run.check(f"{web.page.name}_heard_{uid}", web.wait_tone(uid, tones[uid]))
        for uid, progress in web.wait_decoding(list(others)).items():
            run.check(f"{web.page.name}_video_{uid}", progress)
        run.mark(f"{web.page.name} hears and sees both")
    for uid in (31, 32):
        run.check(f"native_heard_{uid}", native.wait_tone(uid, tones[uid]))
        run.check(f"native_pictures_{uid}", len(native.wait_pictures(uid, 10)))
    run.mark("native hears and sees both")


@scenario
def live_roles(run: Run) -> None:
    """Live broadcasting: an audience browser's publish is refused (INVALID_OPERATION) and it still
    receives the host; after setClientRole("host") it publishes and the native host hears and sees it."""
    run.start_server()
    native = run.native(1, "stage", tone_hz=440.0, video=True, live=True)
    web = run.web("browser", 41)
    web.must_join("stage", mode="live", role="audience")
    refused = web.publish(["audio", "video"])
    run.check("audience_publish", refused)
    web.wait_subscribed(1, "audio")
    web.wait_subscribed(1, "video")
    run.check("audience_heard", web.wait_tone(1, 440))
    run.check("audience_video", web.wait_decoding([1])[1])
    run.check("native_saw_audience", native.has_event("user_joined", lambda uid: uid == 41))
    run.mark("audience receives the host")
    run.check("set_role_host", web.js("return await __t.attempt(() => __t.client.setClientRole('host'))"))
    web.must_publish(["audio", "video"])
    native.wait_event("user_joined", lambda uid: uid == 41)
    run.check("native_heard_host", native.wait_tone(41, 700))
    run.check("native_pictures_host", len(native.wait_pictures(41, 10)))
    run.mark("the new host is heard and seen")


@scenario
def wrong_token(run: Run) -> None:
    """A server where APP has a certificate: joins with a forged, a garbage and no token reject with the
    documented error; a valid token joins (the control)."""
    from agoraish.token import Role_Publisher, RtcTokenBuilder

    run.start_server({"apps": [{"app_id": APP, "certificate": CERT}]})
    native_token = RtcTokenBuilder.build_token_with_uid(APP, CERT, "vault", 1, Role_Publisher, token_expire=600)
    native = run.native(1, "vault", tone_hz=None, video=False, token=native_token)
    web = run.web("browser", 51)
    tokens = {
        "forged": RtcTokenBuilder.build_token_with_uid(APP, OTHER_CERT, "vault", 51, Role_Publisher, token_expire=600),
        "other_channel": RtcTokenBuilder.build_token_with_uid(APP, CERT, "elsewhere", 51, Role_Publisher,
                                                              token_expire=600),
        "garbage": "007garbage",
        "none": None,
    }
    for name, token in tokens.items():
        run.check(f"join_{name}", web.join("vault", token=token))
    run.check("native_saw_refused", native.has_event("user_joined", lambda uid: uid == 51))
    good = RtcTokenBuilder.build_token_with_uid(APP, CERT, "vault", 51, Role_Publisher, token_expire=600)
    run.check("join_valid", web.join("vault", token=good))
    native.wait_event("user_joined", lambda uid: uid == 51)
    run.mark("valid token joins")


@scenario
def mute_and_unpublish(run: Run) -> None:
    """The browser unpublishes its audio: the native engine is told (mute / remote audio state) and
    hears silence; the native mutes its audio: the browser gets user-unpublished (audio), not video."""
    run.start_server()
    native = run.native(1, "mute", tone_hz=440.0, video=True)
    web = run.web("browser", 61)
    web.must_join("mute")
    web.must_publish(["audio", "video"])
    web.wait_subscribed(1, "audio")
    native.wait_tone(61, 700)
    run.mark("both publish")
    before = time.monotonic()
    run.check("unpublish", web.js("return await __t.attempt(() => __t.client.unpublish([__t.local.audio]))"))
    told = _first_of(native, before, 10.0, [
        ("user_mute_audio", lambda uid, muted: uid == 61 and muted),
        ("remote_audio_state", lambda uid, state, reason: uid == 61 and state == 0),
    ])
    run.check("native_told", told)
    time.sleep(0.6)
    run.check("native_level_after_unpublish", native.level_of(61))
    run.mark("native told of the unpublish")
    native.engine.mute_local_audio_stream(True)
    web.page.wait_for("__t.seen('user-unpublished', 1, 'audio')", 10, "user-unpublished audio of 1")
    time.sleep(0.5)
    run.check("browser_unpublished", [e for e in web.events() if e["ev"] == "user-unpublished"])
    run.mark("browser told of the mute")


@scenario
def data_messages(run: Run) -> None:
    """Stream messages each way: the browser's reliable channel reaches the engine as the browser's
    data stream 1, in order; the engine's data stream reaches the browser's `stream-message`."""
    run.start_server()
    native = run.native(1, "data", tone_hz=None, video=False)
    web = run.web("browser", 71)
    web.must_join("data")
    sent = run.check("browser_sent", web.js(
        "const out = []; for (let i = 0; i < 5; i++) out.push(await __t.attempt(() => __t.client.sendStreamMessage('web ' + i)));"
        "return out;"))
    got = wait_until(lambda: [e for e in native.events if e[0] == "stream_message"][4:5], 10.0, "five messages at the engine")
    run.check("native_got", [[e[1][0], e[1][1], e[1][2].decode()] for e in native.events if e[0] == "stream_message"])
    run.mark("browser to engine")
    stream = native.engine.create_data_stream(True, True)
    for i in range(5):
        native.engine.send_stream_message(stream, f"native {i}".encode())
        time.sleep(0.05)
    web.page.wait_for("__t.events.filter(e => e.ev === 'stream-message').length >= 5", 10, "five messages at the browser")
    run.check("browser_got", [e for e in web.events() if e["ev"] == "stream-message"])
    run.check("too_large", web.js("return await __t.attempt(() => __t.client.sendStreamMessage(new Uint8Array(1025)))"))
    run.mark("engine to browser")
    del got, sent


@scenario
def status_page(run: Run) -> None:
    """/status.html on the HTTP port, rendered by Chromium, lists the channel and its two users (a native
    engine and a browser); after the browser leaves and the page reloads, only the engine."""
    run.start_server()
    run.native(1, "status-room", tone_hz=None, video=False)
    web = run.web("browser", 71)
    web.must_join("status-room")
    page = run.browsers[0].new_page(name="status")
    url = f"http://127.0.0.1:{run.server.http_port}/status.html"
    status = page.navigate(url)
    if status != 200:
        raise AssertionError(f"GET /status.html on the HTTP port answered {status}")
    rows = "Array.from(document.querySelectorAll('section.channel[data-channel=\"status-room\"] tr.user'))"
    users = f"{rows}.map(row => Number(row.dataset.uid)).sort((a, b) => a - b)"
    run.check("listed", page.wait_for(f"(() => {{ const u = {users}; return u.length >= 2 && u; }})()", 10,
                                      "both users listed"))
    clients = f"Object.fromEntries({rows}.map(row => [row.dataset.uid, row.dataset.client]))"
    run.check("clients", page.evaluate(clients))
    run.mark("status page lists both")
    web.js("await __t.client.leave(); return true;")
    page.navigate(url)
    run.check("listed_after_leave", page.wait_for(f"(() => {{ const u = {users}; return u.length === 1 && u; }})()",
                                                  10, "only the engine listed"))
    run.mark("status page after the leave")


@scenario
def browser_vanishes(run: Run) -> None:
    """The browser's Chromium is killed (SIGKILL): the native engine sees on_user_offline for it, reason
    DROPPED, within the server's drop timeout (2 s here, keepalive 0.5 s) plus a margin."""
    drop_ms = 2000
    run.check("drop_timeout_ms", drop_ms)
    run.start_server({"timeouts": {"keepalive_ms": 500, "drop_timeout_ms": drop_ms}})
    native = run.native(1, "vanish", tone_hz=None, video=False)
    web = run.web("browser", 81)
    web.must_join("vanish")
    web.must_publish(["audio"])
    native.wait_event("user_joined", lambda uid: uid == 81)
    native.wait_tone(81, 700)
    run.mark("native hears the browser")
    killed = time.monotonic()
    run.browsers[0].kill()
    run.mark("chromium killed")
    uid, reason, at = native.wait_event("user_offline", lambda uid, reason: uid == 81, timeout=drop_ms / 1000 + 10)
    run.check("offline", {"uid": uid, "reason": reason, "after_s": round(at - killed, 2)})


@scenario
def call_page(run: Run) -> None:
    """The call page itself (/call with app, channel and uid in the query) joins, publishes the camera and
    microphone and shows the native engine's video."""
    run.start_server()
    native = run.native(1, "call-room", tone_hz=440.0, video=True)
    browser = run.browser("call", 700.0)
    page = browser.new_page(name="call")
    status = page.navigate(run.origin + CALL_QUERY.format(app=APP, channel="call-room", uid=91))
    if status != 200:
        raise AssertionError(f"GET /call on the signaling port answered {status}")
    run.mark("call page loaded")
    native.wait_event("user_joined", lambda uid: uid == 91, timeout=10)
    run.check("native_heard", native.wait_tone(91, 700))
    run.check("native_pictures", len(native.wait_pictures(91, 10)))
    run.check("page_videos", page.wait_for(
        "(() => { const v = Array.from(document.querySelectorAll('video')).filter(v => v.videoWidth > 0);"
        " return v.length >= 2 && v.length; })()", 10, "the local and the remote video playing"))
    run.mark("call page works")


# --------------------------------------------------------------------------
# Helpers of the scenarios
# --------------------------------------------------------------------------


def _rate(pictures: List[tuple]) -> float:
    """Pictures per second over the last ones (width, height, time)."""
    recent = pictures[-15:]
    if len(recent) < 2 or recent[-1][2] == recent[0][2]:
        return 0.0
    return round((len(recent) - 1) / (recent[-1][2] - recent[0][2]), 1)


def _first_of(native: Native, after: float, timeout: float, wanted: List[tuple]) -> Dict[str, Any]:
    """The first of several events (name, match) after time `after`, with the events of the kinds seen."""

    def find() -> Optional[Dict[str, Any]]:
        with native.lock:
            for event, args, at in native.events:
                for name, match in wanted:
                    if event == name and at >= after and match(*args):
                        return {"event": name, "args": list(args), "after_s": round(at - after, 2)}
        return None

    try:
        return wait_until(find, timeout, " or ".join(name for name, _ in wanted))
    finally:
        with native.lock:
            seen = [(e, list(a)) for e, a, at in native.events if at >= after]
        log(f"native events after the step: {seen}")


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def main(argv: List[str]) -> int:
    if len(argv) != 3 or argv[1] not in SCENARIOS:
        print(f"usage: {argv[0]} {{{','.join(SCENARIOS)}}} OUTDIR", file=sys.stderr)
        return 2
    name, outdir = argv[1], Path(argv[2])
    outdir.mkdir(parents=True, exist_ok=True)
    run = Run(name, outdir)
    error: Optional[str] = None

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"scenario {name} ran over {SCENARIO_TIMEOUT} s")

    signal.signal(signal.SIGALRM, expired)
    signal.alarm(SCENARIO_TIMEOUT)
    try:
        SCENARIOS[name](run)
    except BaseException as exc:  # reported in the JSON, with the pages' consoles in the log
        error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        log(traceback.format_exc())
    finally:
        signal.alarm(0)
        for browser in run.browsers:
            log(browser.report())
        run.mark("done")
        run.close()
        run.timings["total"] = round(time.monotonic() - run.start, 2)
    result = {"scenario": name, "error": error, "checks": run.checks, "timings": run.timings}
    print(RESULT_PREFIX + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
