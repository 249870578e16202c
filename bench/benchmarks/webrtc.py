"""Browsers beside native engines, through agoraish-server run as its own process.

- webrtc_join_to_first_frame_ms_p50 / _p90 and native_join_to_first_frame_ms_p50 / _p90:
  a native engine (uid 1) publishes a 440 Hz tone (pushed every 10 ms) and
  VP8 320x240 pictures pushed at 15 fps. JOINS times (after WARMUP joins
  that are not counted), in turn:
  - one headless Chromium page (browser_support.Web: the web SDK loaded from
    the server) creates a client, registers `user-published` (subscribe to
    uid 1's video, `videoTrack.play(box)`, and requestVideoFrameCallback on
    the <video> the SDK made), calls `client.join(...)` with a fresh uid and
    waits for the callback; the time is the callback's `presentationTime`
    (the frame handed to the compositor) minus performance.now() taken just
    before `join`, both in the page. The page then leaves; the next join is
    in the same page with a new client. The note gives the median of each
    step on the way (join resolved, subscribe resolved, media connection
    `connected`, first RTP packet and first PLI as seen by getStats polled
    every 10 ms, the frame's `receiveTime`), so what dominates can be read.
  - one native engine (video only: disable_audio, like the page that
    subscribes to the video only) joins with a fresh uid; the time is from
    right before join_channel() to the first on_render_video_frame of uid 1
    (the frame observer, after decoding), time.monotonic in this process.
    The note gives on_first_remote_video_decoded's `elapsed` (the engine's
    own clock from the join call) beside it. It then leaves and waits for
    on_leave_channel.
- webrtc_forward_us_per_packet and native_forward_us_per_packet: in a fresh
  server process with /metrics on, the same kind of publisher and SUBSCRIBERS
  subscribers of its audio and video: first two Chromiums (one page each,
  CLIENT_JS subscribes to everything, feeds the audio to an analyser and
  counts pictures), then, after they have left, two native engines
  (webrtc_scenarios.Native: they pull the playout every 10 ms and observe
  every decoded picture). Once every subscriber shows pictures and SETTLE_S
  more have passed, a WINDOW_S window: server CPU (user + system, its
  process CPU clock through clock_getcpuclockid, in ns rather than
  /proc/PID/stat's 10 ms ticks) over the delta of
  `agoraish_media_packets_out_total`. Both
  include what the server spends on the publisher's uplink and on the
  subscribers' feedback; a window with the publisher alone (no subscriber) is
  measured first and the note gives the marginal cost over it too.

Everything runs in a child process (`python3 -m benchmarks.webrtc OUTDIR`),
in a process group of its own that is killed when it ends or times out (the
server is in it; Chromium dies with the child's main thread through its
parent-death signal). Loopback, no network namespace. The server binary is
$AGORAISH_SERVER_BINARY when set, else sfu_forward's release build.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List, Optional

from ._common import BenchError, Figure, figure, median, quantile

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "Tests" / "python"

#: Set to an agoraish-server binary to measure it instead of the release build.
SERVER_ENV = "AGORAISH_SERVER_BINARY"
JOINS = 10
WARMUP = 1
SUBSCRIBERS = 2
#: Seconds of measurement per forwarding window, and of settling before it.
WINDOW_S = 5.0
SETTLE_S = 1.5
#: The child process may take this long, in seconds.
CHILD_TIMEOUT = 170
PUBLISHER = 1
APP = "0123456789abcdef0123456789abcdef"
PACKETS_OUT = "agoraish_media_packets_out_total"
PACKETS_IN = "agoraish_media_packets_in_total"
BYTES_OUT = "agoraish_media_bytes_out_total"


def server_binary() -> Path:
    """$AGORAISH_SERVER_BINARY, else the release build sfu_forward uses."""
    explicit = os.environ.get(SERVER_ENV)
    if explicit:
        if not Path(explicit).exists():
            raise BenchError(f"{SERVER_ENV}={explicit} does not exist")
        return Path(explicit)
    from .sfu_forward import server_binary as release_server
    return release_server()


# --------------------------------------------------------------------------
# The parent: runs the child, kills its process group
# --------------------------------------------------------------------------


def run(ctx) -> List[Figure]:
    sys.path.insert(0, str(TESTS))
    from browser_support import chromium_path
    if chromium_path() is None:
        raise BenchError("chromium is not installed (scripts/setup.sh installs it)")
    binary = server_binary()
    outdir = ctx.scratch / "webrtc"
    outdir.mkdir(parents=True, exist_ok=True)
    log_path = outdir / "child.log"
    env = dict(ctx.env, PYTHONUNBUFFERED="1", **{SERVER_ENV: str(binary)})
    argv = [sys.executable, "-m", "benchmarks.webrtc", str(outdir), str(ctx.repeats(JOINS))]
    with open(log_path, "wb") as log_file:
        child = subprocess.Popen(argv, cwd=str(ROOT / "bench"), env=env, stdout=subprocess.PIPE, stderr=log_file,
                                 start_new_session=True)
        timed_out = False
        try:
            stdout, _ = child.communicate(timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            stdout, timed_out = b"", True
        finally:
            try:
                os.killpg(child.pid, signal.SIGKILL)  # the server, whatever the child left behind
            except ProcessLookupError:
                pass
            child.wait()
    lines = [line for line in stdout.decode(errors="replace").splitlines() if line.startswith("{")]
    if not lines:
        tail = log_path.read_text(errors="replace")[-4000:]
        why = f"ran over {CHILD_TIMEOUT} s" if timed_out else f"exited {child.returncode}"
        raise BenchError(f"webrtc child {why} without figures; log tail:\n{tail}")
    data = json.loads(lines[-1])
    if data.get("error"):
        tail = log_path.read_text(errors="replace")[-4000:]
        raise BenchError(f"webrtc: {data['error']}\nlog tail:\n{tail}")
    return data["figures"]


# --------------------------------------------------------------------------
# The child
# --------------------------------------------------------------------------


def log(text: str) -> None:
    print(f"{time.monotonic():.3f} {text}", file=sys.stderr, flush=True)


class Server:
    """agoraish-server as a child with /metrics (media_client.ServerProcess); `origin` is the page origin."""

    def __init__(self, outdir: Path, name: str) -> None:
        import media_client
        self.process = media_client.ServerProcess(
            os.environ[SERVER_ENV], outdir / f"{name}.json", {}, "--accept-unknown-apps",
            "--joins-per-second", "1000")
        self.url = self.process.url
        self.origin = "http://" + self.url.split("://", 1)[1]
        self.pid = self.process.proc.pid
        log(f"server {name} pid {self.pid} on {self.url}, http {self.process.http}")

    def sample(self) -> Dict[str, float]:
        """Server CPU seconds and the media counters, now."""
        metrics = self.process.metrics()
        return {"cpu": self.cpu_clock(), "out": metrics[PACKETS_OUT], "in": metrics[PACKETS_IN],
                "bytes_out": metrics[BYTES_OUT], "at": time.monotonic()}

    def cpu_clock(self) -> float:
        """The server's CPU time in seconds (user + system, every thread), in ns steps: its process CPU
        clock (clock_getcpuclockid) rather than /proc/PID/stat's 10 ms ticks, which would be a 10 %
        step of a 5 s window here."""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        clock = ctypes.c_int()
        if libc.clock_getcpuclockid(self.pid, ctypes.byref(clock)) != 0:
            raise RuntimeError(f"clock_getcpuclockid({self.pid}) failed")
        return time.clock_gettime(clock.value)

    def stop(self) -> None:
        self.process.stop()


def new_run(name: str, outdir: Path, server: Server):
    """A webrtc_scenarios.Run against `server` (its natives, browsers and cleanup), without its embedded server."""
    import webrtc_scenarios as ws
    run = ws.Run(name, outdir)
    run.server = SimpleNamespace(url=server.url)
    run.origin = server.origin
    return run


# -- join to first frame ------------------------------------------------------

#: One join of a page: the times of the steps, in ms after the join call. Arguments app, channel, uid,
#: publisher, timeoutMs.
BROWSER_JOIN_JS = r"""
const marks = {};
let start = 0;
const at = (name, time) => { if (!(name in marks)) marks[name] = Math.round(((time ?? performance.now()) - start) * 10) / 10; };
let box = document.getElementById("bench-box");
if (!box) {
  box = document.createElement("div");
  box.id = "bench-box";
  box.style.cssText = "width:320px;height:240px";
  document.body.appendChild(box);
}
const client = AgoraRTC.createClient({mode: "rtc", codec: "vp8"});
let stopPolling = false, receiver = null, last = null;
const poll = async () => {  // first packet, first PLI, first decoded frame, as getStats shows them
  while (!stopPolling) {
    if (receiver) {
      const report = await receiver.getStats().catch(() => new Map());  // closed by the leave
      report.forEach(s => {
        if (s.type !== "inbound-rtp" || s.kind !== "video") return;
        last = s;
        if (s.packetsReceived > 0 && !("stats_first_packet" in marks)) {
          at("stats_first_packet");
          // The first packets' arrival itself (RTCStats times are epoch-based), while few have come.
          if (s.lastPacketReceivedTimestamp && s.packetsReceived <= 3)
            at("first_packet_arrival", s.lastPacketReceivedTimestamp - performance.timeOrigin);
        }
        if (s.pliCount > 0) at("stats_first_pli");
        if (s.framesDecoded > 0) at("stats_first_decoded");
      });
    }
    await __h.sleep(10);
  }
};
const first = new Promise(resolve => {
  client.on("media-connection-state-change", state => at("media_" + state));
  client.on("user-published", async (user, kind) => {
    at("published_" + kind);
    if (kind !== "video" || user.uid !== publisher) return;
    try {
      await client.subscribe(user, "video");
      at("subscribed");
      user.videoTrack.play(box);
      const video = box.querySelector("video");
      video.requestVideoFrameCallback((now, meta) => {
        at("frame", meta.presentationTime);
        if (meta.receiveTime) at("frame_received", meta.receiveTime);
        at("frame_callback");
        marks.frame_meta = {width: meta.width, height: meta.height, presentedFrames: meta.presentedFrames,
                            processingDuration: meta.processingDuration ?? null};
        resolve(true);
      });
      receiver = __h.receiverOf(user.videoTrack.getMediaStreamTrack());
    } catch (e) {
      marks.error = __h.error(e);
      resolve(false);
    }
  });
});
poll();
start = performance.now();
const joined = await __t.attempt(() => client.join(app, channel, null, uid));
at("joined");
if (!joined.ok) { stopPolling = true; return {ok: false, error: joined.error, marks}; }
const ok = await Promise.race([first, __h.sleep(timeoutMs).then(() => false)]);
stopPolling = true;
let stats = null, cipher = null;
if (receiver) {
  const report = await receiver.getStats();
  report.forEach(s => {
    if (s.type === "inbound-rtp" && s.kind === "video")
      stats = {packetsReceived: s.packetsReceived, framesReceived: s.framesReceived, framesDecoded: s.framesDecoded,
               keyFramesDecoded: s.keyFramesDecoded, pliCount: s.pliCount, firCount: s.firCount, nackCount: s.nackCount};
    if (s.type === "transport") cipher = s.srtpCipher || null;
  });
}
await client.leave();
box.replaceChildren();
return {ok, marks, stats, cipher};
"""


class Joiner:
    """A native engine that joins, waits for the publisher's first picture, and leaves, again and again.
    Video only (disable_audio), nothing published."""

    def __init__(self, run, server_url: str) -> None:
        import agoraish

        self.cond = threading.Condition()
        self.times: Dict[str, float] = {}
        self.decoded_elapsed: Optional[int] = None
        joiner = self

        class Handler(agoraish.EventHandler):
            def on_join_channel_success(self, channel, uid, elapsed):
                joiner._at("joined")

            def on_user_joined(self, uid, elapsed):
                if uid == PUBLISHER:
                    joiner._at("user_joined")

            def on_remote_video_state_changed(self, uid, state, reason, elapsed):
                if uid == PUBLISHER:
                    joiner._at({1: "video_starting", 2: "video_decoding"}.get(int(state), f"video_state_{int(state)}"))

            def on_first_remote_video_decoded(self, uid, width, height, elapsed):
                if uid == PUBLISHER:
                    joiner.decoded_elapsed = elapsed
                    joiner._at("decoded")

            def on_leave_channel(self, stats):
                joiner._at("left")

        class Eyes(agoraish.VideoFrameObserver):
            def on_render_video_frame(self, uid, frame):
                if uid == PUBLISHER:
                    joiner._at("frame")
                return True

        self.handler, self.eyes = Handler(), Eyes()
        engine = self.engine = agoraish.RtcEngine(APP, self.handler, server_url=server_url,
                                                  log_file=str(run.outdir / "joiner.log"))
        run.defer(engine.release)
        engine.disable_audio()
        engine.enable_video()
        engine.set_external_video_source(True)
        engine.mute_local_video_stream(True)
        engine.register_video_frame_observer(self.eyes)

    def _at(self, name: str) -> None:
        with self.cond:
            self.times.setdefault(name, time.monotonic())
            self.cond.notify_all()

    def _wait(self, name: str, timeout: float) -> float:
        with self.cond:
            if not self.cond.wait_for(lambda: name in self.times, timeout):
                raise RuntimeError(f"native joiner: no {name} within {timeout} s (saw {sorted(self.times)})")
            return self.times[name]

    def join(self, channel: str, uid: int) -> Dict[str, Any]:
        """Joins as `uid`; the steps in ms after the join call, and the decode callback's `elapsed`."""
        with self.cond:
            self.times.clear()
            self.decoded_elapsed = None
        start = time.monotonic()
        self.engine.join_channel(None, channel, uid=uid)
        self._wait("frame", 10.0)
        self._wait("decoded", 2.0)  # on the event thread, it may come just after the picture
        with self.cond:
            marks = {k: round((v - start) * 1000, 1) for k, v in self.times.items()}
            elapsed = self.decoded_elapsed
        self.engine.leave_channel()
        self._wait("left", 10.0)
        return {"marks": marks, "decoded_elapsed": elapsed}


def first_frames(outdir: Path, joins: int) -> List[Figure]:
    server = Server(outdir, "first-frame")
    run = new_run("first-frame", outdir, server)
    channel = "first-frame"
    try:
        run.native(PUBLISHER, channel, tone_hz=440.0, video=True)
        web = run.web("joiner", 100)
        joiner = Joiner(run, server.url)
        time.sleep(1.0)  # the publisher's first keyframe and uplink estimate are behind it
        browser: List[Dict[str, Any]] = []
        native: List[Dict[str, Any]] = []
        for i in range(WARMUP + joins):
            got = web.page.call(BROWSER_JOIN_JS, timeout=20, app=APP, channel=channel, uid=100 + i,
                                publisher=PUBLISHER, timeoutMs=10000)
            if not got.get("ok") or "frame" not in got.get("marks", {}):
                raise RuntimeError(f"browser join {i}: no first frame: {json.dumps(got)[:800]}")
            log(f"browser join {i}: {json.dumps(got)}")
            time.sleep(0.3)
            mine = joiner.join(channel, 200 + i)
            log(f"native join {i}: {json.dumps(mine)}")
            time.sleep(0.3)
            if i >= WARMUP:
                browser.append(got)
                native.append(mine)
    finally:
        run.close()
        server.stop()
    return first_frame_figures(browser, native, joins)


def _step_medians(samples: List[Dict[str, float]], order: List[str]) -> str:
    parts = []
    for name in order:
        values = [s[name] for s in samples if name in s]
        if values:
            parts.append(f"{name} {median(values):.0f}" + ("" if len(values) == len(samples) else
                                                            f" (in {len(values)})"))
    return ", ".join(parts)


def first_frame_figures(browser: List[Dict[str, Any]], native: List[Dict[str, Any]], joins: int) -> List[Figure]:
    web_ms = [b["marks"]["frame"] for b in browser]
    native_ms = [n["marks"]["frame"] for n in native]
    elapsed = [n["decoded_elapsed"] for n in native if n["decoded_elapsed"] is not None]
    web_steps = _step_medians([b["marks"] for b in browser], [
        "joined", "published_video", "subscribed", "media_connected", "first_packet_arrival", "stats_first_packet",
        "stats_first_pli",
        "frame_received", "stats_first_decoded", "frame"])
    native_steps = _step_medians([n["marks"] for n in native], ["joined", "user_joined", "video_starting", "frame",
                                                                "decoded", "video_decoding"])
    stats = [b["stats"] for b in browser if b.get("stats")]
    pli = median([s.get("pliCount") or 0 for s in stats]) if stats else None
    pkts = median([s.get("packetsReceived") or 0 for s in stats]) if stats else None
    cipher = sorted({b.get("cipher") for b in browser if b.get("cipher")})
    common = f"N={joins} joins each (after {WARMUP} not counted), browser and native joins alternating, same publisher"
    return [
        figure("webrtc_join_to_first_frame_ms_p50", round(median(web_ms), 1), "ms",
               f"headless Chromium page, client.join() -> first remote video frame presented "
               f"(requestVideoFrameCallback presentationTime on the SDK's <video>), performance.now() in the page; "
               f"{common} (native uid {PUBLISHER}: VP8 320x240 pushed at 15 fps + audio). Median steps, ms after "
               f"join (stats_*: getStats polled every 10 ms; first_packet_arrival: lastPacketReceivedTimestamp when <= 3 had come): {web_steps}; at the first frame (medians): {pkts} video packets received, {pli} PLI sent; "
               f"SRTP {', '.join(cipher) or '?'}"),
        figure("webrtc_join_to_first_frame_ms_p90", round(quantile(web_ms, 0.9), 1), "ms",
               f"nearest-rank p90 of the same N={joins}; max {max(web_ms):.0f}"),
        figure("native_join_to_first_frame_ms_p50", round(median(native_ms), 1), "ms",
               f"a second native engine (Python binding, video only): join_channel() -> first on_render_video_frame "
               f"of the publisher, time.monotonic; {common}. Median steps, ms after join: {native_steps}; "
               f"on_first_remote_video_decoded elapsed (engine clock) median "
               f"{median(elapsed) if elapsed else 'n/a'}"),
        figure("native_join_to_first_frame_ms_p90", round(quantile(native_ms, 0.9), 1), "ms",
               f"nearest-rank p90 of the same N={joins}; max {max(native_ms):.0f}"),
    ]


# -- forwarding cost ------------------------------------------------------------


def _window(server: Server, seconds: float) -> Dict[str, float]:
    before = server.sample()
    time.sleep(seconds)
    after = server.sample()
    return {key: after[key] - before[key] for key in before}


def forwarding(outdir: Path) -> List[Figure]:
    server = Server(outdir, "forward")
    channel = "forward"
    base = new_run("forward-publisher", outdir, server)
    windows: Dict[str, Dict[str, float]] = {}
    extra: Dict[str, Any] = {}
    try:
        base.native(PUBLISHER, channel, tone_hz=440.0, video=True)
        time.sleep(SETTLE_S)
        windows["alone"] = _window(server, WINDOW_S)
        log(f"window alone: {windows['alone']}")

        browsers = new_run("forward-browsers", outdir, server)
        try:
            webs = [browsers.web(f"sub{k}", 300 + k) for k in range(SUBSCRIBERS)]
            for web in webs:
                web.must_join(channel)
            for web in webs:
                web.page.wait_for(f"__h.frames('v{PUBLISHER}') && __h.frames('v{PUBLISHER}').frames > 5", 15,
                                  "pictures of the publisher")
                web.wait_subscribed(PUBLISHER, "audio")
            time.sleep(SETTLE_S)
            windows["browsers"] = _window(server, WINDOW_S)
            log(f"window browsers: {windows['browsers']}")
            extra["browser_frames"] = [web.page.evaluate(f"__h.frames('v{PUBLISHER}').frames") for web in webs]
            for web in webs:
                web.js("await __t.client.leave(); return true;")
        finally:
            browsers.close()
        time.sleep(1.0)

        natives = new_run("forward-natives", outdir, server)
        try:
            subs = [natives.native(400 + k, channel, tone_hz=None, video=False) for k in range(SUBSCRIBERS)]
            for sub in subs:
                sub.wait_pictures(PUBLISHER, 5, timeout=15)
            time.sleep(SETTLE_S)
            windows["natives"] = _window(server, WINDOW_S)
            log(f"window natives: {windows['natives']}")
            extra["native_frames"] = [len(sub.pictures.get(PUBLISHER, [])) for sub in subs]
        finally:
            natives.close()
    finally:
        base.close()
        server.stop()
    return forwarding_figures(windows, extra)


def forwarding_figures(windows: Dict[str, Dict[str, float]], extra: Dict[str, Any]) -> List[Figure]:
    alone = windows["alone"]

    def per_packet(w: Dict[str, float]) -> Optional[float]:
        return round(w["cpu"] * 1e6 / w["out"], 1) if w["out"] > 0 else None

    def marginal(w: Dict[str, float]) -> str:
        packets = w["out"] - alone["out"]
        return f"{(w['cpu'] - alone['cpu']) * 1e6 / packets:.1f}" if packets > 0 else "n/a"

    def describe(w: Dict[str, float]) -> str:
        return (f"{w['out']:.0f} packets out ({w['out'] / w['at']:.0f}/s, {w['bytes_out'] / w['at'] / 1000:.0f} kB/s), "
                f"{w['in']:.0f} in, {w['cpu']:.3f} server CPU-s over {w['at']:.1f} s")

    web, native = per_packet(windows["browsers"]), per_packet(windows["natives"])
    ratio = f"{web / native:.2f}" if web and native else "n/a"
    setup = (f"agoraish-server process, one native publisher (Opus 440 Hz + VP8 320x240 pushed at 15 fps), "
             f"{SUBSCRIBERS} subscribers of its audio and video, one {WINDOW_S:.0f} s window after {SETTLE_S} s of "
             f"settling; server CPU (process CPU clock, user+system) / delta {PACKETS_OUT} (includes its uplink work and the subscribers' "
             f"feedback)")
    return [
        figure("webrtc_forward_us_per_packet", web, "us/packet",
               f"{setup}; subscribers: {SUBSCRIBERS} headless Chromiums (web SDK, DTLS-SRTP). {describe(windows['browsers'])}; "
               f"marginal over the publisher alone: {marginal(windows['browsers'])} us/packet; "
               f"pictures counted {extra.get('browser_frames')}; browser/native = {ratio}"),
        figure("native_forward_us_per_packet", native, "us/packet",
               f"same run, same publisher, after the browsers left; subscribers: {SUBSCRIBERS} native engines "
               f"(Python binding). {describe(windows['natives'])}; marginal over the publisher alone: "
               f"{marginal(windows['natives'])} us/packet; publisher alone: {describe(alone)}"),
    ]


def child(outdir: Path, joins: int) -> int:
    sys.path.insert(0, str(TESTS))
    import support  # noqa: F401  (the binding on sys.path; AGORAISH_LIBRARY comes from the parent)
    figures: List[Figure] = []
    error = None
    started = time.monotonic()
    try:
        figures += first_frames(outdir, joins)
        log(f"first frames done after {time.monotonic() - started:.1f} s")
        figures += forwarding(outdir)
        log(f"forwarding done after {time.monotonic() - started:.1f} s")
    except BaseException as exc:  # reported to the parent, with the log
        import traceback
        log(traceback.format_exc())
        error = f"{type(exc).__name__}: {exc}"
    print(json.dumps({"figures": figures, "error": error}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(child(Path(sys.argv[1]), int(sys.argv[2])))
