"""A headless Chromium driven through the DevTools protocol, for the browser tests (test_webrtc.py).

No Selenium, no chromedriver: `Browser` starts Debian's Chromium with a fake
microphone (a WAV file, looped) and a fake camera (a y4m file, looped), reads
the DevTools port from `<profile>/DevToolsActivePort` and speaks CDP over one
WebSocket (the `websockets` sync client), with flattened sessions. Each
`Page` is a target attached to that connection: `navigate`, `evaluate` (with
awaitPromise and returnByValue), `wait_for` (a JS condition polled in the
page), and what the page printed (`Runtime.consoleAPICalled`) or threw
(`Runtime.exceptionThrown`), so that a failing test can show it.

    fixtures = make_fixtures(tmp, tone_hz=700)
    with Browser("alice", tmp, fixtures) as browser:
        page = browser.new_page()
        page.navigate("http://127.0.0.1:8000/")
        assert page.evaluate("1 + 1") == 2

Cleanup: Chromium runs in its own process group, with SIGKILL as its parent-death
signal (`setpriv --pdeathsig`), and `close()` kills the whole group; a
browser is killed even when the test that started it fails or its process
dies. (The parent-death signal follows the thread that started Chromium:
start browsers from a thread that lives as long as they should, the main one.)
Every wait has a timeout.

Page helpers (`HELPERS_JS`, installed in every page as `window.__h` before any
page script runs):
- `__h.listen(key, track)` feeds a (remote or local) audio track into an
  AnalyserNode; `__h.tone(key)` reads its spectrum peak in Hz and dBFS;
  `__h.waitTone(key, hz, tolerance, ms)` polls until the peak is there.
  Chromium only feeds remote WebRTC audio into WebAudio when the stream is
  also attached to a media element, so `listen` attaches it to a muted
  `Audio` too.
- `__h.countFrames(key, track)` counts the pictures of a video track
  (requestVideoFrameCallback on a hidden <video>); `__h.frames(key)`.
- Every RTCPeerConnection the page creates is kept in `__h.pcs` (the
  constructor is wrapped before any page script runs), so
  `__h.inboundStats(track)` finds the receiver of a remote track and reads
  its inbound-rtp report: framesDecoded, freezeCount, packetsLost, the codec's
  mimeType.

The web SDK in a page (`Web`): a page of the server's origin that imports
`/sdk/agoraish.js` and runs `CLIENT_JS`, which records the client's events in
`__t.events`, subscribes to whatever is published, listens to remote audio
(`a<uid>`) and counts remote pictures (`v<uid>`); `Web.join`, `publish`,
`wait_subscribed`, `wait_tone`, `wait_decoding` drive it from Python.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import struct
import subprocess
import threading
import time
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

#: The Chromium binary itself (Debian's /usr/bin/chromium is a shell wrapper that adds flags of its own).
CHROMIUM_BINARY = Path("/usr/lib/chromium/chromium")
#: How long Chromium may take to write DevToolsActivePort, in seconds.
LAUNCH_TIMEOUT = 20.0
#: Default timeout of one DevTools command, in seconds.
COMMAND_TIMEOUT = 15.0
#: The page a Web opens before loading the SDK: any document of the server's origin will do.
BLANK_PATH = "/sdk/agoraish.js"
#: Lines of Chromium's log that say nothing here (no D-Bus, no sound card): left out of reports.
LOG_NOISE = ("dbus/", "ALSA lib", "alsa_util.cc")


def chromium_path() -> Optional[str]:
    """The Chromium executable, or None when Chromium is not installed."""
    if CHROMIUM_BINARY.exists():
        return str(CHROMIUM_BINARY)
    return shutil.which("chromium") or shutil.which("chromium-browser")


# --------------------------------------------------------------------------
# Fixtures: the fake microphone and camera
# --------------------------------------------------------------------------


@dataclass
class Fixtures:
    """The files Chromium plays as its microphone and camera."""

    wav: Path
    y4m: Path
    tone_hz: float
    width: int
    height: int


def write_tone_wav(path: Path, hz: float, seconds: float = 10.0, rate: int = 48000, amplitude: float = 0.4) -> None:
    """A mono 16-bit WAV of a pure tone. Whole periods, so that Chromium's loop has no click when the
    tone's period divides `seconds` (700 Hz over 10 s: 7000 periods)."""
    count = int(rate * seconds)
    scale = 32767 * amplitude
    step = 2 * math.pi * hz / rate
    samples = struct.pack(f"<{count}h", *(int(scale * math.sin(step * i)) for i in range(count)))
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples)


def write_pattern_y4m(path: Path, width: int = 320, height: int = 240, fps: int = 15, seconds: float = 4.0) -> None:
    """A y4m of ffmpeg's moving `testsrc` pattern (I420)."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise RuntimeError("ffmpeg is needed to make the fake camera's y4m (scripts/setup.sh installs it)")
    subprocess.run([ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc=size={width}x{height}:rate={fps}",
                    "-t", str(seconds), "-pix_fmt", "yuv420p", str(path)], check=True, timeout=60)


def make_fixtures(directory: Path, tone_hz: float = 700.0, width: int = 320, height: int = 240) -> Fixtures:
    """The WAV (tone_hz) and y4m (width x height, 15 fps, 4 s) in `directory`, made once per directory."""
    directory.mkdir(parents=True, exist_ok=True)
    wav = directory / f"tone-{int(tone_hz)}.wav"
    y4m = directory / f"pattern-{width}x{height}.y4m"
    if not wav.exists():
        write_tone_wav(wav, tone_hz)
    if not y4m.exists():
        write_pattern_y4m(y4m, width, height)
    return Fixtures(wav, y4m, tone_hz, width, height)


# --------------------------------------------------------------------------
# The DevTools connection
# --------------------------------------------------------------------------


class CdpError(RuntimeError):
    """A DevTools command failed, or timed out, or the browser went away."""


class JsError(RuntimeError):
    """An evaluated expression threw (or its promise rejected): the exception's text."""


class CdpConnection:
    """One WebSocket to the browser endpoint. Commands wait for their answer (with a timeout);
    events go to the listener of their session ("" for the browser's own)."""

    def __init__(self, url: str, timeout: float = COMMAND_TIMEOUT) -> None:
        from websockets.sync.client import connect

        # proxy=None: never a proxy from the environment (inside a network namespace there is none).
        self.ws = connect(url, proxy=None, open_timeout=timeout, max_size=None, compression=None,
                          ping_interval=None, close_timeout=2)
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.next_id = 0
        self.replies: Dict[int, Dict[str, Any]] = {}
        self.listeners: Dict[str, Callable[[str, Dict[str, Any]], None]] = {}
        self.closed: Optional[str] = None
        self.reader = threading.Thread(target=self._read, name="cdp-reader", daemon=True)
        self.reader.start()

    def _read(self) -> None:
        try:
            for raw in self.ws:
                message = json.loads(raw)
                if "id" in message:
                    with self.cond:
                        self.replies[message["id"]] = message
                        self.cond.notify_all()
                    continue
                listener = self.listeners.get(message.get("sessionId", ""))
                if listener is not None:
                    try:
                        listener(message["method"], message.get("params", {}))
                    except Exception:  # a listener's bug must not stop the reader
                        pass
            reason = "the browser closed the DevTools connection"
        except Exception as error:  # the browser died or was killed
            reason = f"the DevTools connection broke: {error!r}"
        with self.cond:
            self.closed = reason
            self.cond.notify_all()

    def send(self, method: str, params: Optional[Dict[str, Any]] = None, session: str = "",
             timeout: float = COMMAND_TIMEOUT) -> Dict[str, Any]:
        """Sends a command and returns its result; raises CdpError on an error reply, a timeout or a
        closed connection."""
        with self.cond:
            if self.closed:
                raise CdpError(f"{method}: {self.closed}")
            self.next_id += 1
            ident = self.next_id
        message: Dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        try:
            self.ws.send(json.dumps(message))
        except Exception as error:
            raise CdpError(f"{method}: cannot send: {error!r}") from error
        with self.cond:
            done = self.cond.wait_for(lambda: ident in self.replies or self.closed, timeout)
            reply = self.replies.pop(ident, None)
            closed = self.closed
        if reply is None:
            raise CdpError(f"{method}: {closed}" if done and closed else f"{method}: no answer within {timeout} s")
        if "error" in reply:
            raise CdpError(f"{method}: {reply['error'].get('message')} {reply['error'].get('data', '')}".strip())
        return reply.get("result", {})

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:
            pass
        self.reader.join(3)


# --------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------


class Page:
    """A page target, attached with its own CDP session; records console messages and exceptions."""

    def __init__(self, browser: "Browser", target_id: str, session: str, name: str) -> None:
        self.browser, self.target_id, self.session, self.name = browser, target_id, session, name
        self.cond = threading.Condition()
        self.console: List[str] = []
        self.loaded = 0
        browser.cdp.listeners[session] = self._event

    def _event(self, method: str, params: Dict[str, Any]) -> None:
        line = None
        if method == "Runtime.consoleAPICalled":
            args = " ".join(_remote_object_text(a) for a in params.get("args", []))
            line = f"console.{params.get('type')}: {args}"
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            line = f"exception: {_exception_text(details)}"
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            line = f"log.{entry.get('level')} [{entry.get('source')}]: {entry.get('text')} {entry.get('url', '')}"
        elif method == "Page.loadEventFired":
            with self.cond:
                self.loaded += 1
                self.cond.notify_all()
        if line is not None:
            with self.cond:
                self.console.append(f"{time.monotonic():.3f} {line}")

    def send(self, method: str, params: Optional[Dict[str, Any]] = None,
             timeout: float = COMMAND_TIMEOUT) -> Dict[str, Any]:
        return self.browser.cdp.send(method, params, self.session, timeout)

    def navigate(self, url: str, timeout: float = COMMAND_TIMEOUT) -> int:
        """Loads `url` and waits for its load event; returns the HTTP status of the document (0 when
        unknown). Raises CdpError when the navigation fails (no answer, refused connection...)."""
        with self.cond:
            before = self.loaded
        result = self.send("Page.navigate", {"url": url}, timeout)
        if result.get("errorText"):
            raise CdpError(f"navigate {url}: {result['errorText']}")
        with self.cond:
            if not self.cond.wait_for(lambda: self.loaded > before, timeout):
                raise CdpError(f"navigate {url}: no load event within {timeout} s")
        status = self.evaluate("performance.getEntriesByType('navigation').map(e => e.responseStatus)[0] || 0")
        return int(status or 0)

    def evaluate(self, expression: str, timeout: float = COMMAND_TIMEOUT) -> Any:
        """The value of a JS expression (a promise is awaited), returned by value (JSON)."""
        result = self.send("Runtime.evaluate", {
            "expression": expression, "awaitPromise": True, "returnByValue": True, "userGesture": True,
            "timeout": int(timeout * 1000),
        }, timeout + 2)
        if "exceptionDetails" in result:
            raise JsError(f"{self.name}: {_exception_text(result['exceptionDetails'])}")
        return result.get("result", {}).get("value")

    def call(self, body: str, timeout: float = COMMAND_TIMEOUT, **args: Any) -> Any:
        """Runs `body` as the body of an async function of the JSON arguments `args` (each a local
        variable); returns what it returns."""
        names = ", ".join(args)
        values = ", ".join(json.dumps(v) for v in args.values())
        return self.evaluate(f"(async ({names}) => {{\n{body}\n}})({values})", timeout)

    def wait_for(self, condition: str, timeout: float = 10.0, what: Optional[str] = None) -> Any:
        """Polls the JS expression `condition` in the page every 50 ms until it is truthy; returns its
        value. Raises AssertionError after `timeout` s (with the last value or exception seen)."""
        script = f"""new Promise(resolve => {{
            const end = performance.now() + {int(timeout * 1000)};
            let last = null;
            (function poll() {{
                let value;
                try {{ value = ({condition}); }} catch (e) {{ last = String(e); value = null; }}
                if (value) return resolve({{ok: true, value}});
                if (value !== null && value !== undefined) last = value;
                if (performance.now() > end) return resolve({{ok: false, last}});
                setTimeout(poll, 50);
            }})();
        }})"""
        result = self.evaluate(script, timeout + 5)
        if not result or not result.get("ok"):
            raise AssertionError(f"{self.name}: {what or condition} not true within {timeout} s "
                                 f"(last: {json.dumps(result and result.get('last'))[:300]})")
        return result["value"]

    def console_text(self) -> str:
        with self.cond:
            return "\n".join(self.console)


def _remote_object_text(obj: Dict[str, Any]) -> str:
    if "value" in obj:
        return obj["value"] if isinstance(obj["value"], str) else json.dumps(obj["value"])
    return obj.get("description") or obj.get("type", "?")


def _exception_text(details: Dict[str, Any]) -> str:
    exception = details.get("exception") or {}
    text = exception.get("description") or exception.get("value") or details.get("text", "")
    where = f" ({details.get('url', '')}:{details.get('lineNumber', '?')})" if details.get("url") else ""
    return f"{text}{where}"


# --------------------------------------------------------------------------
# The browser
# --------------------------------------------------------------------------


class Browser:
    """One Chromium process (headless, fake devices from `fixtures`), with its DevTools connection.

    Args:
        name: for logs and messages.
        workdir: the profile (`<name>-profile`) and Chromium's own log (`<name>-chromium.log`) go here.
        fixtures: the fake microphone and camera.
        extra_args: more Chromium flags.
    """

    def __init__(self, name: str, workdir: Path, fixtures: Fixtures, extra_args: Optional[List[str]] = None) -> None:
        binary = chromium_path()
        if binary is None:
            raise RuntimeError("chromium is not installed")
        self.name = name
        self.pages: List[Page] = []
        self.profile = workdir / f"{name}-profile"
        self.profile.mkdir(parents=True, exist_ok=True)
        (self.profile / "DevToolsActivePort").unlink(missing_ok=True)  # a stale one names a dead port
        self.log_path = workdir / f"{name}-chromium.log"
        args = [
            binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
            f"--user-data-dir={self.profile}",
            "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={fixtures.wav}", f"--use-file-for-fake-video-capture={fixtures.y4m}",
            "--allow-loopback-in-peer-connection", "--autoplay-policy=no-user-gesture-required",
            # A quiet, predictable browser: nothing goes out, nothing is throttled, /dev/shm may be small.
            "--no-proxy-server", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-breakpad", "--disable-crash-reporter",
            "--disable-dev-shm-usage", "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows", "--disable-features=Translate,MediaRouter,OptimizationHints",
            "--password-store=basic", "--use-mock-keychain",
            *(extra_args or []), "about:blank",
        ]
        setpriv = shutil.which("setpriv")
        if setpriv:  # SIGKILL when the process that started it dies, however it dies
            args = [setpriv, "--pdeathsig", "KILL", "--", *args]
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        self.cdp: Optional[CdpConnection] = None
        try:
            port, path = self._devtools_endpoint()
            self.cdp = CdpConnection(f"ws://127.0.0.1:{port}{path}")
        except BaseException:
            self.close()
            raise

    def _devtools_endpoint(self) -> tuple:
        active = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + LAUNCH_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name}: chromium exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                lines = active.read_text().split("\n")
                if len(lines) >= 2 and lines[0].strip().isdigit() and lines[1].startswith("/"):
                    return int(lines[0]), lines[1].strip()
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"{self.name}: no DevToolsActivePort within {LAUNCH_TIMEOUT} s:\n{self.log_tail()}")

    @property
    def pid(self) -> int:
        return self.process.pid

    def new_page(self, isolated: bool = False, name: Optional[str] = None) -> Page:
        """A new tab (about:blank), attached, with Page, Runtime and Log events on and the helpers of
        HELPERS_JS installed for every document it loads. `isolated`: in a browser context of its own
        (its own cookies and storage, like another profile)."""
        assert self.cdp is not None
        params: Dict[str, Any] = {"url": "about:blank"}
        if isolated:
            params["browserContextId"] = self.cdp.send("Target.createBrowserContext")["browserContextId"]
        target = self.cdp.send("Target.createTarget", params)["targetId"]
        session = self.cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session, name or f"{self.name}/page{len(self.pages) + 1}")
        for domain in ("Page", "Runtime", "Log"):
            page.send(f"{domain}.enable")
        page.send("Page.addScriptToEvaluateOnNewDocument", {"source": HELPERS_JS})
        self.pages.append(page)
        return page

    def kill(self) -> None:
        """SIGKILL to Chromium's whole process group (a crash, as the other side sees it)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        """Kills Chromium (its process group) and closes the connection and the log. Idempotent."""
        self.kill()
        if self.cdp is not None:
            self.cdp.close()
        if not self._log.closed:
            self._log.close()

    def log_tail(self, lines: int = 40) -> str:
        """The end of Chromium's own log, without the noise of a machine with no D-Bus and no sound card."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        kept = [line for line in text.splitlines() if not any(noise in line for noise in LOG_NOISE)]
        return "\n".join(kept[-lines:])

    def report(self) -> str:
        """What each page printed and threw, and the end of Chromium's own log."""
        parts = []
        for page in self.pages:
            parts.append(f"--- {page.name} console\n{page.console_text()}")
        parts.append(f"--- {self.name} chromium log (tail)\n{self.log_tail()}")
        return "\n".join(parts)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# --------------------------------------------------------------------------
# Page-side helpers
# --------------------------------------------------------------------------

HELPERS_JS = r"""
(() => {
  if (window.__h) return;
  const h = window.__h = {pcs: [], analysers: {}, counters: {}};

  // Keep every RTCPeerConnection the page makes (for receiver statistics).
  const Native = window.RTCPeerConnection;
  if (Native) {
    const Recorded = class RTCPeerConnection extends Native {
      constructor(...args) { super(...args); h.pcs.push(this); }
    };
    window.RTCPeerConnection = Recorded;
    window.webkitRTCPeerConnection = Recorded;
  }

  h.sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

  // An AnalyserNode on an audio track. The muted Audio element makes Chromium
  // feed remote WebRTC audio into WebAudio (it does not otherwise).
  h.listen = async (key, track) => {
    const stream = new MediaStream([track]);
    const element = new Audio();
    element.muted = true;
    element.srcObject = stream;
    element.play().catch(() => {});
    const context = new AudioContext();
    await context.resume().catch(() => {});
    const analyser = context.createAnalyser();
    analyser.fftSize = 8192;
    analyser.smoothingTimeConstant = 0;
    context.createMediaStreamSource(stream).connect(analyser);
    h.analysers[key] = {context, analyser, element, track};
    return {state: context.state, sampleRate: context.sampleRate};
  };

  // The spectrum's peak: {hz, db (dBFS of the peak bin), state, sampleRate}.
  h.tone = key => {
    const entry = h.analysers[key];
    if (!entry) return null;
    const {analyser, context} = entry;
    const bins = new Float32Array(analyser.frequencyBinCount);
    analyser.getFloatFrequencyData(bins);
    let best = 1;
    for (let i = 2; i < bins.length - 1; i++) if (bins[i] > bins[best]) best = i;
    const a = bins[best - 1], b = bins[best], c = bins[best + 1];
    const denominator = a - 2 * b + c;
    const offset = Number.isFinite(denominator) && denominator !== 0 ? 0.5 * (a - c) / denominator : 0;
    const hz = (best + offset) * context.sampleRate / analyser.fftSize;
    return {hz: Math.round(hz * 10) / 10, db: Number.isFinite(b) ? Math.round(b * 10) / 10 : -1000,
            state: context.state, sampleRate: context.sampleRate, trackState: entry.track.readyState,
            muted: entry.track.muted};
  };

  // Polls h.tone(key) until its peak is within `tolerance` Hz of `hz` and louder than `minDb`.
  h.waitTone = async (key, hz, tolerance = 15, ms = 8000, minDb = -60) => {
    const end = performance.now() + ms;
    let last = null;
    while (performance.now() < end) {
      last = h.tone(key);
      if (last && Math.abs(last.hz - hz) <= tolerance && last.db >= minDb) {
        await h.sleep(300);  // and still there a moment later
        const again = h.tone(key);
        if (again && Math.abs(again.hz - hz) <= tolerance && again.db >= minDb) return {ok: true, ...again};
      }
      await h.sleep(100);
    }
    return {ok: false, ...(last || {})};
  };

  // Counts the pictures of a video track on a hidden <video>.
  h.countFrames = (key, track) => {
    const video = document.createElement("video");
    video.muted = true;
    video.playsInline = true;
    video.style.cssText = "position:absolute;left:-10000px;width:160px;height:120px";
    video.srcObject = new MediaStream([track]);
    document.body.appendChild(video);
    const counter = h.counters[key] = {frames: 0, width: 0, height: 0, video};
    const onFrame = (now, meta) => {
      counter.frames++;
      counter.width = meta.width;
      counter.height = meta.height;
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
    video.play().catch(() => {});
    return true;
  };
  h.frames = key => {
    const c = h.counters[key];
    return c ? {frames: c.frames, width: c.width, height: c.height} : null;
  };

  // The receiver of a remote track, among every peer connection of the page.
  h.receiverOf = track => {
    for (const pc of h.pcs) {
      if (pc.connectionState === "closed") continue;
      for (const receiver of pc.getReceivers()) if (receiver.track === track) return receiver;
    }
    return null;
  };

  // The inbound-rtp report of a remote track, with its codec's mimeType.
  h.inboundStats = async track => {
    const receiver = h.receiverOf(track);
    if (!receiver) return {found: false, pcs: h.pcs.length};
    const report = await receiver.getStats();
    let inbound = null;
    const codecs = {};
    report.forEach(s => {
      if (s.type === "inbound-rtp" && s.kind === track.kind) inbound = s;
      if (s.type === "codec") codecs[s.id] = s;
    });
    if (!inbound) return {found: true, inbound: false};
    const codec = codecs[inbound.codecId] || {};
    return {
      found: true, inbound: true, kind: inbound.kind, mimeType: codec.mimeType || null,
      framesDecoded: inbound.framesDecoded ?? null, framesReceived: inbound.framesReceived ?? null,
      frameWidth: inbound.frameWidth ?? null, frameHeight: inbound.frameHeight ?? null,
      freezeCount: inbound.freezeCount ?? null, totalFreezesDuration: inbound.totalFreezesDuration ?? null,
      packetsReceived: inbound.packetsReceived ?? null, packetsLost: inbound.packetsLost ?? null,
      bytesReceived: inbound.bytesReceived ?? null, audioLevel: inbound.audioLevel ?? null,
      totalSamplesReceived: inbound.totalSamplesReceived ?? null, concealedSamples: inbound.concealedSamples ?? null,
    };
  };

  // framesDecoded of a remote video track now and `ms` later.
  h.decodeProgress = async (track, ms = 1500) => {
    const first = await h.inboundStats(track);
    await h.sleep(ms);
    const second = await h.inboundStats(track);
    return {first, second};
  };

  // An error (AgoraRTCError or any) as plain JSON.
  h.error = e => ({name: e && e.name, code: e && e.code !== undefined ? String(e.code) : null,
                   message: e && (e.message || String(e))});
})();
"""


# --------------------------------------------------------------------------
# The web SDK in a page
# --------------------------------------------------------------------------

#: The glue of the web client tests, evaluated in a page after BLANK_PATH loads. It records the
#: client's events in __t.events, subscribes to whatever is published (when asked), feeds remote
#: audio into an analyser ("a<uid>") and counts remote pictures ("v<uid>").
CLIENT_JS = r"""
(() => {
  if (window.__t) return;
  const t = window.__t = {events: [], remote: {}, local: {}, clients: []};
  const note = (ev, extra) => t.events.push({ev, at: Math.round(performance.now()), ...extra});
  t.note = note;

  t.load = async () => {
    const module = await import("/sdk/agoraish.js");
    const AgoraRTC = module.default || module.AgoraRTC || window.AgoraRTC;
    if (!AgoraRTC || !AgoraRTC.createClient) throw new Error("/sdk/agoraish.js exports no AgoraRTC");
    window.AgoraRTC = AgoraRTC;
    return Object.keys(AgoraRTC).sort();
  };

  t.createClient = ({mode = "rtc", codec = "vp8", subscribe = true} = {}) => {
    const client = AgoraRTC.createClient({mode, codec});
    client.on("user-joined", user => note("user-joined", {uid: user.uid}));
    client.on("user-left", (user, reason) => note("user-left", {uid: user.uid, reason: reason ?? null}));
    client.on("user-unpublished", (user, kind) => note("user-unpublished", {uid: user.uid, kind}));
    client.on("stream-message", (uid, payload, info) =>
      note("stream-message", {uid, text: new TextDecoder().decode(payload), streamId: info?.streamId ?? null}));
    client.on("connection-state-change", (current, previous, reason) =>
      note("connection-state-change", {current, previous, reason: reason ?? null}));
    client.on("user-published", async (user, kind) => {
      note("user-published", {uid: user.uid, kind});
      if (!subscribe) return;
      try {
        await client.subscribe(user, kind);
        const remote = t.remote[user.uid] = t.remote[user.uid] || {};
        if (kind === "audio") {
          remote.audio = user.audioTrack;
          await __h.listen("a" + user.uid, user.audioTrack.getMediaStreamTrack());
        } else {
          remote.video = user.videoTrack;
          let box = document.getElementById("v" + user.uid);
          if (!box) {
            box = document.createElement("div");
            box.id = "v" + user.uid;
            box.style.cssText = "width:320px;height:240px";
            document.body.appendChild(box);
          }
          user.videoTrack.play(box);
          __h.countFrames("v" + user.uid, user.videoTrack.getMediaStreamTrack());
        }
        note("subscribed", {uid: user.uid, kind});
      } catch (e) {
        note("subscribe-failed", {uid: user.uid, kind, error: __h.error(e)});
      }
    });
    t.clients.push(client);
    t.client = client;
    return client;
  };

  // Runs an SDK call: {ok: true, value} or {ok: false, error: {name, code, message}}.
  t.attempt = async fn => {
    try { const value = await fn(); return {ok: true, value: value === undefined ? null : value}; }
    catch (e) { return {ok: false, error: __h.error(e)}; }
  };

  t.tracks = async kinds => {
    const tracks = [];
    if (kinds.includes("audio")) {
      t.local.audio = t.local.audio || await AgoraRTC.createMicrophoneAudioTrack();
      tracks.push(t.local.audio);
    }
    if (kinds.includes("video")) {
      t.local.video = t.local.video || await AgoraRTC.createCameraVideoTrack();
      tracks.push(t.local.video);
    }
    return tracks;
  };

  t.localVideoSize = () => {
    const settings = t.local.video ? t.local.video.getMediaStreamTrack().getSettings() : {};
    return {width: settings.width || 0, height: settings.height || 0};
  };

  t.seen = (ev, uid, kind) => t.events.some(e => e.ev === ev && (uid === undefined || e.uid === uid) &&
                                                   (kind === undefined || e.kind === kind));
})();
"""


class Web:
    """A page on the server's origin (`origin`, "http://127.0.0.1:<signaling port>") with the web SDK
    loaded and CLIENT_JS installed, acting as user `uid` of app `app_id`. `mark(step)` is told of each
    join and publish (a step log)."""

    def __init__(self, page: Page, origin: str, uid: int, app_id: str,
                 mark: Callable[[str], None] = lambda step: None) -> None:
        self.page, self.uid, self.app_id, self.mark = page, uid, app_id, mark
        status = page.navigate(origin + BLANK_PATH)
        if status != 200:
            raise AssertionError(f"GET {BLANK_PATH} on the signaling port answered {status}: the server does "
                                 "not serve the web SDK")
        page.evaluate(CLIENT_JS)
        self.exports = page.evaluate("__t.load()", timeout=10)
        mark(f"{page.name}: AgoraRTC exports {self.exports}")

    def js(self, body: str, timeout: float = 15.0, **args: Any) -> Any:
        return self.page.call(body, timeout=timeout, **args)

    def join(self, channel: str, *, mode: str = "rtc", codec: str = "vp8", token: Optional[str] = None,
             role: Optional[str] = None, subscribe: bool = True) -> Dict[str, Any]:
        """Creates the client (in `role` first, if given) and joins as self.uid: {ok, value | error}."""
        result = self.js("""
            const client = __t.createClient({mode, codec, subscribe});
            if (role) { const r = await __t.attempt(() => client.setClientRole(role)); if (!r.ok) return r; }
            return await __t.attempt(() => client.join(app, channel, token, uid));
        """, app=self.app_id, channel=channel, token=token, uid=self.uid, mode=mode, codec=codec, role=role,
            subscribe=subscribe)
        self.mark(f"{self.page.name} join {channel}: {'ok' if result.get('ok') else result.get('error')}")
        return result

    def must_join(self, channel: str, **kwargs: Any) -> None:
        result = self.join(channel, **kwargs)
        if not result.get("ok"):
            raise AssertionError(f"{self.page.name}: join failed: {result.get('error')}")

    def publish(self, kinds: Sequence[str] = ("audio", "video")) -> Dict[str, Any]:
        result = self.js("""
            const made = await __t.attempt(() => __t.tracks(kinds));
            if (!made.ok) return made;
            return await __t.attempt(() => __t.client.publish(made.value));
        """, kinds=list(kinds))
        self.mark(f"{self.page.name} publish {kinds}: {'ok' if result.get('ok') else result.get('error')}")
        return result

    def must_publish(self, kinds: Sequence[str] = ("audio", "video")) -> None:
        result = self.publish(kinds)
        if not result.get("ok"):
            raise AssertionError(f"{self.page.name}: publish {kinds} failed: {result.get('error')}")

    def wait_subscribed(self, uid: int, kind: str, timeout: float = 10.0) -> None:
        self.page.wait_for(f"__t.seen('subscribed', {uid}, '{kind}') || "
                           f"(__t.seen('subscribe-failed', {uid}, '{kind}') && JSON.stringify(__t.events))",
                           timeout, f"subscribed to {kind} of {uid}")
        if not self.page.evaluate(f"__t.seen('subscribed', {uid}, '{kind}')"):
            raise AssertionError(f"{self.page.name}: subscribing to {kind} of {uid} failed: {self.events()}")

    def wait_tone(self, uid: int, hz: float, timeout: float = 8.0) -> Dict[str, Any]:
        result = self.page.evaluate(f"__h.waitTone('a{uid}', {hz}, 15, {int(timeout * 1000)})", timeout + 5)
        if not result or not result.get("ok"):
            raise AssertionError(f"{self.page.name}: no {hz} Hz from {uid} within {timeout} s: {result}")
        return result

    def wait_decoding(self, uids: List[int], timeout: float = 10.0, ms: int = 1500) -> Dict[int, Dict[str, Any]]:
        """Waits until the video of each of `uids` shows pictures, then reads their inbound-rtp reports
        now and `ms` later (all in the same window) and the pictures counted: {uid: progress}."""
        for uid in uids:
            self.page.wait_for(f"__h.frames('v{uid}') && __h.frames('v{uid}').frames > 0", timeout,
                               f"a picture of {uid}")
        progress = self.js("""
            const out = {};
            await Promise.all(uids.map(async uid => {
              const track = __t.remote[uid].video.getMediaStreamTrack();
              out[uid] = {...await __h.decodeProgress(track, ms), counted: __h.frames('v' + uid)};
            }));
            return out;
        """, uids=uids, ms=ms)
        return {int(uid): value for uid, value in progress.items()}

    def events(self) -> List[Dict[str, Any]]:
        return self.page.evaluate("__t.events")
