// agoraish.js — the agoraish web client, shaped like Agora's Web SDK 4.x.
//
// One ES module, no build step, no third-party code. A browser joins an
// agoraish channel over the signaling WebSocket (docs/protocol.md) with
// `"webrtc": true`, and its media goes over one RTCPeerConnection that the
// client always offers and the server (ICE-lite, DTLS passive) answers:
// one m-section per published track and one per subscribed remote stream,
// renegotiated one change at a time. docs/web.md is the manual.
//
// What it leaves to others: the server writes the SDP answer, maps the
// browser's SSRCs and payload types, and forwards only what the answer and
// the subscriptions name. Data streams are not built (no SCTP on the server).
//
// Layout of this file (one module because the server embeds it whole):
//   1. constants, logging, errors, events
//   2. SDP helpers (pure)
//   3. players and tracks
//   4. the signaling socket
//   5. the client (membership, publish/subscribe, negotiation, stats)
//   6. the AgoraRTC facade

// ---------------------------------------------------------------------------
// 1. Constants, logging, errors, events

/** The client's version (not the server's). */
export const VERSION = "0.1.0";

const SIGNAL_PATH = "/v1/signal";
/** Server payload types of the streams a web client can subscribe to. */
const PT_OPUS = 111, PT_VP8 = 96, PT_VP9 = 98;
/** Request timeout, leave wait, silence before a link counts as broken (ms). */
const REQUEST_TIMEOUT_MS = 10000, LEAVE_WAIT_MS = 2000, SILENCE_MS = 8000;
/** Reconnect backoff (ms), the engine's: then 4 s repeated. */
const BACKOFF_MS = [250, 500, 1000, 2000, 4000];
/** Stats poll and network-quality period (ms). */
const STATS_INTERVAL_MS = 2000;
/** The server's default `max_message_bytes`; an offer must fit in one message. */
const DEFAULT_MAX_MESSAGE_BYTES = 65536;
/** The most entries `webrtc_offer.receive` may have (docs/protocol.md, webrtc_offer). */
const MAX_RECEIVE = 64;
/** The data channels (docs/web.md, Data streams): reliable and ordered, and unreliable. */
const DATA_LABEL = "agoraish-data", DATA_LABEL_UNRELIABLE = "agoraish-data-unreliable";
/** An engine's limits on stream messages: 1 KB each; within any second 30 messages and 6 KB. */
const MAX_STREAM_MESSAGE = 1024, MAX_STREAM_MESSAGES_PER_SECOND = 30, MAX_STREAM_BYTES_PER_SECOND = 6144;
/** Bytes in front of each message the server sends: version, uid, stream id, sent time. */
const DATA_FRAME_HEADER = 14;
/** Channel names: 1–63 characters from this set (docs/protocol.md, Concepts). */
const CHANNEL_RE = /^[a-zA-Z0-9 !#$%&()+\-:;<=.>?@[\]^_{}|~,]{1,63}$/;
/** Header extensions offered; the rest are stopped to keep offers small. */
const HEADER_EXTENSIONS = new Set([
  "urn:ietf:params:rtp-hdrext:sdes:mid",
  "urn:ietf:params:rtp-hdrext:ssrc-audio-level",
  "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
  "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
]);
/** Agora's USER_OFFLINE reasons, by the server's `user_offline.reason`. */
const OFFLINE_REASONS = ["Quit", "ServerTimeOut", "BecomeAudience"];

const LOG_NAMES = ["DEBUG", "INFO", "WARNING", "ERROR", "NONE"];
let logLevel = 1;
const log = {
  debug: (...a) => logLevel <= 0 && console.debug("[agoraish]", ...a),
  info: (...a) => logLevel <= 1 && console.info("[agoraish]", ...a),
  warn: (...a) => logLevel <= 2 && console.warn("[agoraish]", ...a),
  error: (...a) => logLevel <= 3 && console.error("[agoraish]", ...a),
};

/**
 * The error every promise of this client rejects with. `code` is one of
 * Agora's names ("INVALID_PARAMS", "INVALID_OPERATION", …; docs/web.md has
 * the list); `serverCode` is the server's negative code when the server
 * refused a request, and `reason` its reason label.
 */
export class AgoraRTCError extends Error {
  constructor(code, message = "", { serverCode, reason, data } = {}) {
    super(`AgoraRTCError ${code}: ${message}`);
    this.name = "AgoraRTCError";
    this.code = code;
    this.serverCode = serverCode;
    this.reason = reason;
    this.data = data;
  }
}

/** The one table from the server's error codes (docs/protocol.md, Errors) to Agora's names. */
const SERVER_ERROR_CODES = new Map([
  [-2, "INVALID_PARAMS"], [-4, "NOT_SUPPORTED"], [-5, "INVALID_OPERATION"],
  [-12, "TOO_OFTEN"], [-17, "UID_CONFLICT"], [-22, "TOO_MANY_ACCOUNTS"],
  [-101, "INVALID_APP_ID"], [-102, "INVALID_CHANNEL_NAME"], [-103, "SERVER_BUSY"],
  [-109, "TOKEN_EXPIRED"], [-110, "INVALID_TOKEN"], [-113, "INVALID_OPERATION"],
  [-119, "NO_PUBLISH_PERMISSION"], [-134, "INVALID_PARAMS"],
]);
/** Join refusals that a reconnect cannot cure. */
const FATAL_JOIN_CODES = new Set([-2, -4, -5, -101, -102, -109, -110, -119, -134]);

function serverError(msg) {
  const code = SERVER_ERROR_CODES.get(msg.code) ?? "UNEXPECTED_RESPONSE";
  return new AgoraRTCError(code, `server refused: ${msg.reason ?? "?"} (${msg.code})`,
    { serverCode: msg.code, reason: msg.reason });
}

/** on / off / once / emit; a listener that throws is logged, never breaks the caller. */
class Emitter {
  #handlers = new Map();
  on(event, fn) {
    if (typeof fn !== "function") throw new AgoraRTCError("INVALID_PARAMS", "listener must be a function");
    if (!this.#handlers.has(event)) this.#handlers.set(event, []);
    this.#handlers.get(event).push(fn);
  }
  once(event, fn) {
    const wrapper = (...args) => { this.off(event, wrapper); fn(...args); };
    wrapper.listener = fn;
    this.on(event, wrapper);
  }
  off(event, fn) {
    const list = this.#handlers.get(event);
    if (!list) return;
    if (!fn) { this.#handlers.delete(event); return; }
    const i = list.findIndex((h) => h === fn || h.listener === fn);
    if (i >= 0) list.splice(i, 1);
  }
  removeAllListeners(event) {
    if (event === undefined) this.#handlers.clear(); else this.#handlers.delete(event);
  }
  getListeners(event) { return (this.#handlers.get(event) ?? []).map((h) => h.listener ?? h); }
  emit(event, ...args) {
    for (const h of [...(this.#handlers.get(event) ?? [])]) {
      try { h(...args); } catch (e) { log.error(`a "${event}" listener threw`, e); }
    }
  }
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const utf8Length = (s) => new TextEncoder().encode(s).length;
const isUid = (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff;

// ---------------------------------------------------------------------------
// 2. SDP helpers (pure functions of SDP text)

/** Splits an SDP into its media sections: `[{mid, kind, direction, lines}]`. */
export function sdpMediaSections(sdp) {
  const sections = [];
  let current = null;
  for (const line of sdp.split(/\r?\n/)) {
    if (line.startsWith("m=")) {
      current = { mid: null, kind: line.slice(2).split(" ")[0], direction: "sendrecv", lines: [line] };
      sections.push(current);
    } else if (current && line) {
      current.lines.push(line);
      if (line.startsWith("a=mid:")) current.mid = line.slice(6).trim();
      else if (/^a=(sendrecv|sendonly|recvonly|inactive)$/.test(line)) current.direction = line.slice(2);
    }
  }
  return sections;
}

/**
 * The SSRCs a local description sends in the m-section `mid`:
 * `{ssrc, rtxSsrc}` from `a=ssrc-group:FID S R` (RFC 4588 §8), else the first
 * `a=ssrc:` line with `rtxSsrc` 0; `null` when the section sends nothing.
 */
export function sdpSendSsrcs(sdp, mid) {
  const section = sdpMediaSections(sdp).find((s) => s.mid === String(mid));
  if (!section) return null;
  let first = 0;
  for (const line of section.lines) {
    const fid = /^a=ssrc-group:FID (\d+) (\d+)/.exec(line);
    if (fid) return { ssrc: Number(fid[1]), rtxSsrc: Number(fid[2]) };
    const one = /^a=ssrc:(\d+) /.exec(line);
    if (one && !first) first = Number(one[1]);
  }
  return first ? { ssrc: first, rtxSsrc: 0 } : null;
}

/**
 * The codec order for a transceiver: Opus for audio; for video the preferred
 * codec first (VP8, or VP9 profile 0), then the other, then RTX. Nothing the
 * server cannot forward is offered, which also keeps the offer small.
 */
function codecPreferences(kind, preferred) {
  const caps = globalThis.RTCRtpReceiver?.getCapabilities?.(kind);
  if (!caps) return null;
  const is = (c, mime) => c.mimeType.toLowerCase() === mime;
  if (kind === "audio") return caps.codecs.filter((c) => is(c, "audio/opus"));
  const vp8 = caps.codecs.filter((c) => is(c, "video/vp8"));
  const vp9 = caps.codecs.filter((c) => is(c, "video/vp9") && /(^|;)\s*profile-id=0\b/.test(c.sdpFmtpLine ?? "profile-id=0"));
  const rtx = caps.codecs.filter((c) => is(c, "video/rtx"));
  return [...(preferred === "vp9" ? [...vp9, ...vp8] : [...vp8, ...vp9]), ...rtx];
}

/** Applies the codec order and the header-extension list to a transceiver (best effort). */
function trimTransceiver(tr, kind, preferred) {
  try {
    const codecs = codecPreferences(kind, preferred);
    if (codecs?.length && tr.setCodecPreferences) tr.setCodecPreferences(codecs);
  } catch (e) { log.warn("setCodecPreferences failed", e); }
  try {
    if (tr.getHeaderExtensionsToNegotiate && tr.setHeaderExtensionsToNegotiate) {
      tr.setHeaderExtensionsToNegotiate(tr.getHeaderExtensionsToNegotiate().map((h) =>
        ({ ...h, direction: HEADER_EXTENSIONS.has(h.uri) ? h.direction : "stopped" })));
    }
  } catch (e) { log.warn("setHeaderExtensionsToNegotiate failed", e); }
}

// ---------------------------------------------------------------------------
// 3. Players and tracks

let trackCounter = 0;
const newTrackId = (prefix) => `${prefix}-${(++trackCounter).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** Media elements whose play() the autoplay policy refused; retried on the next user gesture. */
const blockedElements = new Set();
let autoplayHook = null;
function autoplayBlocked(el) {
  const first = blockedElements.size === 0;
  blockedElements.add(el);
  if (!first) return;
  const retry = () => {
    for (const e of blockedElements) e.play().catch(() => {});
    blockedElements.clear();
    for (const t of ["click", "touchstart", "keydown"]) document.removeEventListener(t, retry, true);
  };
  for (const t of ["click", "touchstart", "keydown"]) document.addEventListener(t, retry, true);
  try { autoplayHook?.(); } catch (e) { log.error("onAutoplayFailed threw", e); }
}
function playElement(el) {
  el.play()?.catch((e) => { if (e?.name === "NotAllowedError") autoplayBlocked(el); });
}

function resolveElement(element) {
  if (typeof element === "string") {
    const el = document.getElementById(element);
    if (!el) throw new AgoraRTCError("INVALID_PARAMS", `no element with id "${element}"`);
    return el;
  }
  if (element instanceof HTMLElement) return element;
  throw new AgoraRTCError("INVALID_PARAMS", "play() needs an element or an element id");
}

/** A <video> in a <div> inside the caller's element (Agora's player shape). */
class VideoPlayer {
  constructor(trackId, mst, { fit = "cover", mirror = false } = {}) {
    this.div = document.createElement("div");
    this.div.id = `agora-video-player-${trackId}`;
    this.div.className = "agoraish-player";
    this.div.style.cssText = "width:100%;height:100%;position:relative;overflow:hidden;background:#000";
    this.video = document.createElement("video");
    this.video.autoplay = true;
    this.video.muted = true;
    this.video.playsInline = true;
    this.video.setAttribute("playsinline", "");
    this.video.style.cssText = `width:100%;height:100%;position:absolute;left:0;top:0;object-fit:${fit}` +
      (mirror ? ";transform:rotateY(180deg)" : "");
    this.div.append(this.video);
    this.setTrack(mst);
  }
  mount(container) { container.append(this.div); playElement(this.video); }
  setTrack(mst) {
    this.video.srcObject = mst ? new MediaStream([mst]) : null;
    if (mst && this.div.isConnected) playElement(this.video);
  }
  destroy() { this.video.srcObject = null; blockedElements.delete(this.video); this.div.remove(); }
}

/**
 * Plays an audio track: an <audio> element at 0–100 %, and past 100 % a
 * WebAudio gain (the element stays, muted: Chrome pulls remote WebRTC audio
 * only for a media element).
 */
class AudioPlayer {
  constructor(mst, volume) {
    this.el = new Audio();
    this.el.autoplay = true;
    this.volume = volume;
    this.setTrack(mst);
  }
  setTrack(mst) {
    this.mst = mst;
    this.el.srcObject = mst ? new MediaStream([mst]) : null;
    this.#graph();
    if (mst) playElement(this.el);
  }
  setVolume(volume) { this.volume = volume; this.#graph(); }
  #graph() {
    this.source?.disconnect();
    this.source = null;
    if (this.volume <= 100 || !this.mst) {
      this.el.muted = false;
      this.el.volume = Math.max(0, Math.min(1, this.volume / 100));
      return;
    }
    this.ctx ??= new AudioContext();
    this.gain ??= this.ctx.createGain();
    this.gain.connect(this.ctx.destination);
    this.gain.gain.value = this.volume / 100;
    this.source = this.ctx.createMediaStreamSource(new MediaStream([this.mst]));
    this.source.connect(this.gain);
    this.el.muted = true;
    this.ctx.resume().catch(() => {});
  }
  destroy() {
    this.source?.disconnect();
    this.ctx?.close().catch(() => {});
    this.el.pause();
    this.el.srcObject = null;
    blockedElements.delete(this.el);
  }
}

/** The level (0..1) of an audio track, through an AnalyserNode made on first use. */
class LevelMeter {
  constructor() { this.ctx = null; this.analyser = null; this.source = null; this.mst = null; }
  level(mst) {
    if (!mst || mst.readyState !== "live") return 0;
    try {
      if (!this.ctx) { this.ctx = new AudioContext(); this.analyser = this.ctx.createAnalyser(); this.analyser.fftSize = 1024; }
      if (this.mst !== mst) {
        this.source?.disconnect();
        this.source = this.ctx.createMediaStreamSource(new MediaStream([mst]));
        this.source.connect(this.analyser);
        this.mst = mst;
      }
      this.ctx.resume().catch(() => {});
      const buf = new Float32Array(this.analyser.fftSize);
      this.analyser.getFloatTimeDomainData(buf);
      let sum = 0;
      for (const v of buf) sum += v * v;
      return Math.min(1, Math.sqrt(sum / buf.length) * Math.SQRT2);
    } catch { return 0; }
  }
  close() { this.source?.disconnect(); this.ctx?.close().catch(() => {}); this.ctx = null; this.mst = null; }
}

/**
 * A local track: a camera, microphone or caller-given MediaStreamTrack.
 * `setMuted(true)` keeps capturing and sends black/silence (the server drops
 * it and others see the track unpublished); `setEnabled(false)` stops the
 * capture device (a custom track is only detached) and sends nothing.
 * Events: "track-ended" (the device went away).
 */
class LocalTrack extends Emitter {
  constructor(kind, mst, { capture = null, bitrateMax } = {}) {
    super();
    this.trackMediaType = kind;
    this.enabled = true;
    this.muted = false;
    this._id = newTrackId(kind === "audio" ? "mic" : "cam");
    this._capture = capture;        // getUserMedia constraints to capture again, or null for custom tracks
    this._bitrateMax = bitrateMax;  // kbps, video only
    this._client = null;            // the client that publishes this track
    this._player = null;
    this._closed = false;
    this._setSource(mst);
  }
  getTrackId() { return this._id; }
  getMediaStreamTrack() { return this._mst; }
  get isPlaying() { return !!this._player; }
  get isClosed() { return this._closed; }

  _setSource(mst) {
    this._mst = mst;
    mst.enabled = !this.muted;
    mst.addEventListener("ended", () => { if (this._mst === mst && this.enabled && !this._closed) this.emit("track-ended"); });
  }
  /** What the RTCRtpSender sends: null while disabled or closed. */
  _sendTrack() { return this.enabled && !this._closed ? this._mst : null; }

  play(element, config = {}) {
    this._checkOpen();
    const container = resolveElement(element);
    this.stop();
    this._player = new VideoPlayer(this._id, this._mst, { fit: config.fit, mirror: config.mirror ?? true });
    this._player.mount(container);
  }
  stop() { this._player?.destroy(); this._player = null; }

  async setMuted(muted) {
    this._checkOpen();
    muted = !!muted;
    if (muted === this.muted) return;
    this.muted = muted;
    this._mst.enabled = !muted;
    this._client?._localTrackChanged(this, false);
  }

  async setEnabled(enabled) {
    this._checkOpen();
    enabled = !!enabled;
    if (enabled === this.enabled) return;
    if (!enabled) {
      this.enabled = false;
      if (this._capture) this._mst.stop();
    } else {
      if (this._capture) {
        const stream = await getUserMedia({ [this.trackMediaType]: this._capture });
        this._setSource(this.trackMediaType === "audio" ? stream.getAudioTracks()[0] : stream.getVideoTracks()[0]);
      }
      this.enabled = true;
    }
    this._sourceChanged();
    await this._client?._localTrackChanged(this, true);
  }

  /** Players and processing follow the source after it changed. */
  _sourceChanged() { this._player?.setTrack(this.enabled ? this._mst : null); }

  close() {
    if (this._closed) return;
    const client = this._client;
    this.stop();
    this._mst.stop();
    this._closed = true;
    client?.unpublish(this).catch((e) => log.warn("unpublish on close failed", e));
    this.removeAllListeners();
  }
  _checkOpen() { if (this._closed) throw new AgoraRTCError("INVALID_OPERATION", "the track is closed"); }
}

/** A local audio track; `setVolume` (0–1000, 100 unchanged) scales what is sent through a WebAudio gain. */
class LocalAudioTrack extends LocalTrack {
  constructor(mst, options) {
    super("audio", mst, options);
    this._volume = 100;
    this._graph = null;
    this._meter = new LevelMeter();
  }
  _sendTrack() {
    if (!this.enabled || this._closed) return null;
    return this._graph ? this._graph.out : this._mst;
  }
  setVolume(volume) {
    if (!(typeof volume === "number" && volume >= 0 && volume <= 1000)) throw new AgoraRTCError("INVALID_PARAMS", "volume must be 0–1000");
    this._volume = volume;
    if (volume === 100 && !this._graph) return;
    this._rebuildGraph();
    this._client?._localTrackChanged(this, true);
  }
  getVolumeLevel() { return this._meter.level(this._mst); }
  _rebuildGraph() {
    if (!this._graph) {
      const ctx = new AudioContext();
      const gain = ctx.createGain();
      const dest = ctx.createMediaStreamDestination();
      gain.connect(dest);
      this._graph = { ctx, gain, source: null, out: dest.stream.getAudioTracks()[0] };
    }
    const g = this._graph;
    g.gain.gain.value = this._volume / 100;
    g.source?.disconnect();
    g.source = g.ctx.createMediaStreamSource(new MediaStream([this._mst]));
    g.source.connect(g.gain);
    g.ctx.resume().catch(() => {});
  }
  _sourceChanged() {
    if (this._graph && this.enabled) this._rebuildGraph();
    this._player?.setTrack(this.enabled ? this._mst : null);
  }
  /** Plays the captured audio locally (you hear yourself); the element argument is ignored. */
  play() {
    this._checkOpen();
    this.stop();
    this._player = new AudioPlayer(this._mst, 100);
  }
  close() {
    if (this._closed) return;
    super.close();
    this._meter.close();
    this._graph?.ctx.close().catch(() => {});
  }
}

/** A local video track (camera or custom). */
class LocalVideoTrack extends LocalTrack {
  constructor(mst, options) { super("video", mst, options); }
  /** Changes the capture size/frame rate (camera) and the sending bitrate cap. */
  async setEncoderConfiguration(config) {
    this._checkOpen();
    const enc = videoEncoderConfig(config);
    if (this._capture) {
      Object.assign(this._capture, sizeConstraints(enc));
      await this._mst.applyConstraints(sizeConstraints(enc)).catch((e) => { throw gumError(e); });
    }
    if (enc.bitrateMax) this._bitrateMax = enc.bitrateMax;
    await this._client?._localTrackChanged(this, true);
  }
  /** The optimization mode: "motion" (frame rate first) or "detail" (resolution first). */
  async setOptimizationMode(mode) {
    this._checkOpen();
    if (!["motion", "detail", "balanced"].includes(mode)) throw new AgoraRTCError("INVALID_PARAMS", "mode must be motion, detail or balanced");
    this._mst.contentHint = mode === "balanced" ? "" : mode;
  }
}

/** A subscribed remote track; its MediaStreamTrack is the transceiver receiver's. */
class RemoteTrack {
  constructor(kind, mst, user, client) {
    this.trackMediaType = kind;
    this._id = newTrackId(`remote-${kind}`);
    this._mst = mst;
    this._user = user;
    this._client = client;
    this._player = null;
    this._volume = 100;
    this._meter = null;
  }
  getUserId() { return this._user.uid; }
  getTrackId() { return this._id; }
  getMediaStreamTrack() { return this._mst; }
  get isPlaying() { return !!this._player; }
  /** Video: into an element (or its id). Audio: through an <audio> element; `element` is ignored. */
  play(element, config = {}) {
    this.stop();
    if (this.trackMediaType === "audio") {
      this._player = new AudioPlayer(this._mst, this._volume);
      return;
    }
    const container = resolveElement(element);
    this._player = new VideoPlayer(this._id, this._mst, { fit: config.fit, mirror: config.mirror ?? false });
    this._player.mount(container);
  }
  stop() { this._player?.destroy(); this._player = null; }
  /** Audio only: 0–1000 (100 is unchanged; above 100 through a WebAudio gain). */
  setVolume(volume) {
    if (this.trackMediaType !== "audio") throw new AgoraRTCError("INVALID_OPERATION", "setVolume is for audio tracks");
    if (!(typeof volume === "number" && volume >= 0 && volume <= 1000)) throw new AgoraRTCError("INVALID_PARAMS", "volume must be 0–1000");
    this._volume = volume;
    this._player?.setVolume(volume);
  }
  getVolumeLevel() {
    if (this.trackMediaType !== "audio") return 0;
    this._meter ??= new LevelMeter();
    return this._meter.level(this._mst);
  }
  /** This track's statistics from the client's last poll (as getRemoteAudioStats / getRemoteVideoStats). */
  getStats() {
    const all = this.trackMediaType === "audio" ? this._client.getRemoteAudioStats() : this._client.getRemoteVideoStats();
    return all[this._user.uid] ?? {};
  }
  _setTrack(mst) { this._mst = mst; this._player?.setTrack(mst); }
  _release() { this.stop(); this._meter?.close(); this._meter = null; }
}

// Capture ------------------------------------------------------------------

/** Agora's video encoder presets: [width, height, frameRate, bitrateMax kbps]. */
const VIDEO_PRESETS = {
  "120p_1": [160, 120, 15, 65], "180p_1": [320, 180, 15, 140], "240p_1": [320, 240, 15, 200],
  "360p_1": [640, 360, 15, 400], "360p_2": [640, 360, 30, 800], "480p_1": [640, 480, 15, 500],
  "480p_2": [640, 480, 30, 1000], "720p_1": [1280, 720, 15, 1130], "720p_2": [1280, 720, 30, 2000],
  "1080p_1": [1920, 1080, 15, 2080], "1080p_2": [1920, 1080, 30, 3000],
};

function videoEncoderConfig(config = "480p_1") {
  if (typeof config === "string") {
    const p = VIDEO_PRESETS[config];
    if (!p) throw new AgoraRTCError("INVALID_PARAMS", `unknown video encoder preset "${config}"`);
    return { width: p[0], height: p[1], frameRate: p[2], bitrateMax: p[3] };
  }
  if (config && typeof config === "object") return { ...config };
  throw new AgoraRTCError("INVALID_PARAMS", "encoderConfig must be a preset name or an object");
}
function sizeConstraints(enc) {
  const ideal = (v) => (typeof v === "number" ? { ideal: v } : v);
  const c = {};
  if (enc.width !== undefined) c.width = ideal(enc.width);
  if (enc.height !== undefined) c.height = ideal(enc.height);
  if (enc.frameRate !== undefined) c.frameRate = ideal(enc.frameRate);
  return c;
}
function audioCapture(config = {}) {
  const c = {};
  if (config.microphoneId) c.deviceId = { exact: config.microphoneId };
  if (config.AEC !== undefined) c.echoCancellation = !!config.AEC;
  if (config.ANS !== undefined) c.noiseSuppression = !!config.ANS;
  if (config.AGC !== undefined) c.autoGainControl = !!config.AGC;
  if (typeof config.encoderConfig === "object" && config.encoderConfig?.stereo) c.channelCount = 2;
  return c;
}
function videoCapture(config = {}) {
  const enc = videoEncoderConfig(config.encoderConfig ?? "480p_1");
  const c = sizeConstraints(enc);
  if (config.cameraId) c.deviceId = { exact: config.cameraId };
  if (config.facingMode) c.facingMode = config.facingMode;
  return { constraints: c, bitrateMax: enc.bitrateMax };
}

function gumError(e) {
  if (e instanceof AgoraRTCError) return e;
  const names = {
    NotAllowedError: "PERMISSION_DENIED", SecurityError: "PERMISSION_DENIED",
    NotFoundError: "DEVICE_NOT_FOUND", NotReadableError: "NOT_READABLE",
    OverconstrainedError: "CONSTRAINT_NOT_SATISFIED", TypeError: "INVALID_PARAMS",
  };
  return new AgoraRTCError(names[e?.name] ?? "UNEXPECTED_ERROR", `${e?.name ?? "Error"}: ${e?.message ?? e}`);
}
async function getUserMedia(constraints) {
  const md = globalThis.navigator?.mediaDevices;
  if (!md?.getUserMedia) {
    throw new AgoraRTCError("NOT_SUPPORTED", "getUserMedia is not available (it needs a secure context: https or localhost)");
  }
  const c = {};
  for (const k of ["audio", "video"]) if (constraints[k]) c[k] = Object.keys(constraints[k]).length ? constraints[k] : true;
  try { return await md.getUserMedia(c); } catch (e) { throw gumError(e); }
}

async function createMicrophoneAudioTrack(config = {}) {
  const capture = audioCapture(config);
  const stream = await getUserMedia({ audio: capture });
  return new LocalAudioTrack(stream.getAudioTracks()[0], { capture });
}
async function createCameraVideoTrack(config = {}) {
  const { constraints, bitrateMax } = videoCapture(config);
  const stream = await getUserMedia({ video: constraints });
  const mst = stream.getVideoTracks()[0];
  if (config.optimizationMode === "motion" || config.optimizationMode === "detail") mst.contentHint = config.optimizationMode;
  return new LocalVideoTrack(mst, { capture: constraints, bitrateMax });
}
async function createMicrophoneAndCameraTracks(audioConfig = {}, videoConfig = {}) {
  const audio = audioCapture(audioConfig);
  const { constraints, bitrateMax } = videoCapture(videoConfig);
  const stream = await getUserMedia({ audio, video: constraints });
  return [
    new LocalAudioTrack(stream.getAudioTracks()[0], { capture: audio }),
    new LocalVideoTrack(stream.getVideoTracks()[0], { capture: constraints, bitrateMax }),
  ];
}
function customTrack(kind, config) {
  const mst = config?.mediaStreamTrack;
  if (!(globalThis.MediaStreamTrack && mst instanceof MediaStreamTrack) || mst.kind !== kind) {
    throw new AgoraRTCError("INVALID_PARAMS", `mediaStreamTrack must be a MediaStreamTrack of kind ${kind}`);
  }
  return mst;
}
function createCustomAudioTrack(config) {
  return new LocalAudioTrack(customTrack("audio", config), {});
}
function createCustomVideoTrack(config) {
  return new LocalVideoTrack(customTrack("video", config), { bitrateMax: config.bitrateMax });
}

// ---------------------------------------------------------------------------
// 4. The signaling socket

/**
 * One WebSocket to `/v1/signal`: JSON requests with ids and their replies,
 * notices to `onNotice`, the first close to `onClose` (not when we closed it).
 * Requests in flight when it closes reject with WS_DISCONNECT (WS_ABORT when
 * closed by `close(…, true)`).
 */
class SignalSocket {
  constructor(url, { onNotice, onClose, onError, nextId, maxBytes }) {
    this.url = url;
    this.onNotice = onNotice;
    this.onClose = onClose;
    this.onError = onError;
    this.nextId = nextId;
    this.maxBytes = maxBytes;
    this.pending = new Map();   // id → {resolve, reject, timer}
    this.oneWay = new Map();    // id → type, for requests answered only when they fail
    this.ws = null;
    this.closed = false;
    this.aborted = false;
    this.lastReceived = performance.now();
  }
  get isOpen() { return !this.closed && this.ws?.readyState === WebSocket.OPEN; }

  open(timeoutMs = REQUEST_TIMEOUT_MS) {
    return new Promise((resolve, reject) => {
      let ws;
      try { ws = new WebSocket(this.url); } catch (e) {
        reject(new AgoraRTCError("WS_ERR", `cannot open ${this.url}: ${e.message}`));
        return;
      }
      this.ws = ws;
      let opened = false;
      const timer = setTimeout(() => { if (!opened) { ws.close(); fail(new AgoraRTCError("WS_ERR", "signaling connect timed out")); } }, timeoutMs);
      const fail = (err) => { clearTimeout(timer); this.closed = true; reject(err); };
      ws.onopen = () => { opened = true; clearTimeout(timer); this.lastReceived = performance.now(); resolve(); };
      ws.onmessage = (ev) => this.#received(ev.data);
      ws.onerror = () => { if (!opened) fail(new AgoraRTCError(this.aborted ? "WS_ABORT" : "WS_ERR", `cannot connect to ${this.url}`)); };
      ws.onclose = (ev) => {
        if (!opened) { fail(new AgoraRTCError(this.aborted ? "WS_ABORT" : "WS_ERR", `cannot connect to ${this.url} (${ev.code})`)); return; }
        this.#closed(ev.code, ev.reason, false);
      };
    });
  }

  /** A request with a success reply: resolves with it, rejects with AgoraRTCError. */
  request(type, fields = {}, timeoutMs = REQUEST_TIMEOUT_MS) {
    return new Promise((resolve, reject) => {
      const id = this.nextId();
      try { this.#send(type, fields, id); } catch (e) { reject(e); return; }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new AgoraRTCError("TIMEOUT", `no reply to ${type} in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
    });
  }

  /** A request without a success reply (set_*_state, set_*_subscription, ping). */
  notify(type, fields = {}) {
    const id = this.nextId();
    this.oneWay.set(id, type);
    if (this.oneWay.size > 64) this.oneWay.delete(this.oneWay.keys().next().value);
    this.#send(type, fields, id);
  }

  close(code = 1000, abort = false) {
    this.aborted = abort;
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) this.ws.close(code);
    this.#closed(code, "", true);
  }

  #send(type, fields, id) {
    if (!this.isOpen) throw new AgoraRTCError("WS_DISCONNECT", `signaling is not connected (${type})`);
    const text = JSON.stringify({ v: 1, type, id, ...fields });
    const size = utf8Length(text);
    if (size > this.maxBytes) {
      throw new AgoraRTCError("NOT_SUPPORTED", `${type} is ${size} bytes, more than the server's message limit (${this.maxBytes})`);
    }
    log.debug("→", type === "webrtc_offer" ? `webrtc_offer (${size} bytes)` : text);
    this.ws.send(text);
  }

  #received(data) {
    this.lastReceived = performance.now();
    let msg;
    try { msg = JSON.parse(data); } catch { log.warn("unparsable signaling message", data); return; }
    if (!msg || typeof msg !== "object") return;
    log.debug("←", msg.type === "webrtc_answer" ? "webrtc_answer" : data);
    const waiter = Number.isInteger(msg.id) ? this.pending.get(msg.id) : undefined;
    if (waiter) {
      this.pending.delete(msg.id);
      clearTimeout(waiter.timer);
      if (msg.type === "error") waiter.reject(serverError(msg)); else waiter.resolve(msg);
      return;
    }
    if (msg.type === "error") {
      const type = this.oneWay.get(msg.id);
      this.oneWay.delete(msg.id);
      this.onError(msg, type);
      return;
    }
    if (msg.type === "pong") return;
    this.onNotice(msg);
  }

  #closed(code, reason, byUs) {
    if (this.closed) return;
    this.closed = true;
    const code_ = this.aborted ? "WS_ABORT" : "WS_DISCONNECT";
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(new AgoraRTCError(code_, `signaling closed (${code})`));
    }
    this.pending.clear();
    if (!byUs) this.onClose(code, reason);
  }
}

// ---------------------------------------------------------------------------
// 5. The client

/** A remote user as the application sees it (Agora's IAgoraRTCRemoteUser). */
class RemoteUser {
  constructor(uid, account) {
    /** The account when the user joined with one, else the numeric uid. */
    this.uid = account ?? uid;
    /** The numeric uid, always. */
    this.numericUid = uid;
    if (account !== undefined) this.account = account;
    this.hasAudio = false;
    this.hasVideo = false;
    this.audioTrack = undefined;
    this.videoTrack = undefined;
  }
}

/** Which server stream a `stream_added` / `streams` entry is, for a web subscriber (null: none). */
function webStreamKind(entry) {
  if (entry.layer !== undefined && entry.layer !== null) return null;  // low stream or simulcast layer
  if (entry.payload_type === PT_OPUS) return "audio";
  if (entry.payload_type === PT_VP8 || entry.payload_type === PT_VP9) return "video";
  return null;  // data streams (100, 102) and anything unknown
}

const KINDS = ["audio", "video"];

/**
 * The client: one channel membership over one signaling socket and one
 * RTCPeerConnection. Model → transceivers → offer: publish, unpublish,
 * subscribe and unsubscribe change the model (send slots and receive slots),
 * then ask for a negotiation; negotiations run one at a time and each
 * applies the whole model, so requests that come while one runs share the
 * next one.
 */
class AgoraishClient extends Emitter {
  constructor(config = {}) {
    super();
    const mode = config.mode ?? "rtc", codec = config.codec ?? "vp8";
    if (mode !== "rtc" && mode !== "live") throw new AgoraRTCError("INVALID_PARAMS", 'mode must be "rtc" or "live"');
    if (codec !== "vp8" && codec !== "vp9") throw new AgoraRTCError("NOT_SUPPORTED", 'codec must be "vp8" or "vp9"');
    const role = config.role ?? (mode === "live" ? "audience" : "host");
    if (role !== "host" && role !== "audience") throw new AgoraRTCError("INVALID_PARAMS", 'role must be "host" or "audience"');
    this.mode = mode;
    this.codec = codec;
    this.role = role;
    this._serverUrl = config.server;
    this._iceServers = config.iceServers ?? [];
    this._maxMessageBytes = config.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;

    this.connectionState = "DISCONNECTED";
    this.uid = undefined;
    this.numericUid = undefined;
    this.account = undefined;
    this.channelName = undefined;
    this.localTracks = [];
    this.remoteUsers = [];

    this._ids = 0;
    this._sock = null;
    this._attempt = null;       // the join or reconnect in progress: {aborted}
    this._session = null;       // {id, resumeToken} from joined
    this._joinParams = null;    // {appId, channel, token, uid, account}
    this._keepaliveMs = 2000;
    this._tokenExpireTs = undefined;
    this._timers = [];
    this._joinedAt = 0;

    this._peers = new Map();    // uid → {user, account, audioMuted, videoMuted, sub: {audio, video}}
    this._streams = new Map();  // uid → {audio: {ssrc, rtx, pt}, video: …}
    this._accounts = new Map(); // uid → account from user_info, until user_joined

    this._pc = null;
    this._send = { audio: this.#newSendSlot("audio"), video: this.#newSendSlot("video") };
    this._recv = [];            // receive slots: {kind, tr, uid, ssrc, rtx, pt, live, answered, track}
    this._negTail = Promise.resolve();
    this._negQueued = null;
    this._iceRestart = false;
    this._needsNegotiation = false;
    this._sentState = { audio: "", video: "" };
    this._sentSubs = { audio: "", video: "" };
    this._dc = null;            // the data channels of the PeerConnection
    this._dcUnreliable = null;
    this._dataWindow = [];      // {at, bytes} of the stream messages sent in the last second

    this._stats = { rtc: null, remoteAudio: {}, remoteVideo: {}, localAudio: {}, localVideo: {} };
    this._prevStats = null;
  }

  #newSendSlot(kind) { return { kind, tr: null, track: null, answered: false, ssrc: 0, rtx: 0 }; }

  // Membership -------------------------------------------------------------

  /**
   * Joins `channel` of `appId`. `uid`: a number (0 or null: the server picks),
   * or a string: a user account. Resolves with the uid (the account string
   * for an account join).
   */
  async join(appId, channel, token = null, uid = null) {
    if (typeof appId !== "string" || appId.length < 1 || appId.length > 128) throw new AgoraRTCError("INVALID_PARAMS", "appId must be a non-empty string");
    if (typeof channel !== "string" || !CHANNEL_RE.test(channel)) throw new AgoraRTCError("INVALID_PARAMS", "invalid channel name");
    if (token !== null && token !== undefined && typeof token !== "string") throw new AgoraRTCError("INVALID_PARAMS", "token must be a string or null");
    let account;
    if (typeof uid === "string") {
      const bytes = utf8Length(uid);
      if (bytes < 1 || bytes > 255) throw new AgoraRTCError("INVALID_PARAMS", "a user account is 1–255 bytes");
      account = uid;
      uid = 0;
    } else if (uid === null || uid === undefined) uid = 0;
    else if (!isUid(uid)) throw new AgoraRTCError("INVALID_PARAMS", "uid must be an integer 0–4294967295 or a string");
    if (this.connectionState !== "DISCONNECTED") throw new AgoraRTCError("INVALID_OPERATION", `cannot join in state ${this.connectionState}`);
    const url = this.#signalingUrl();

    this._joinParams = { appId, channel, token: token ?? "", uid, account };
    this.channelName = channel;
    const attempt = { aborted: false };
    this._attempt = attempt;
    this.#setState("CONNECTING");
    try {
      const sock = await this.#openSocket(url, attempt);
      const joined = await sock.request("join", this.#joinFields(uid));
      if (attempt.aborted) throw new AgoraRTCError("WS_ABORT", "left while joining");
      this._attempt = null;
      this.#joined(joined, false);
      return this.uid;
    } catch (e) {
      const err = attempt.aborted ? new AgoraRTCError("WS_ABORT", "left while joining") : e;
      if (this._attempt === attempt) {
        this._attempt = null;
        this.#teardown();
        this.#setState("DISCONNECTED", err.code === "WS_ERR" ? "NETWORK_ERROR" : "SERVER_ERROR");
      }
      throw err;
    }
  }

  /** Leaves: `leave` to the server (waits up to 2 s for `left`), then closes everything. Local tracks stay open. */
  async leave() {
    const prev = this.connectionState;
    if (prev === "DISCONNECTED") return;
    if (prev === "DISCONNECTING") return this._leaving;
    this._leaving = (async () => {
      if (this._attempt) this._attempt.aborted = true;
      this._attempt = null;
      this.#setState("DISCONNECTING", "LEAVE");
      const sock = this._sock;
      if (prev === "CONNECTED" && sock?.isOpen) {
        try { await sock.request("leave", {}, LEAVE_WAIT_MS); } catch (e) { log.warn("leave:", e.message); }
      }
      this.#teardown();
      this.#setState("DISCONNECTED", "LEAVE");
    })();
    return this._leaving;
  }

  /** Live mode only: "host" (broadcaster) or "audience". Going to audience unpublishes first. */
  async setClientRole(role) {
    if (role !== "host" && role !== "audience") throw new AgoraRTCError("INVALID_PARAMS", 'role must be "host" or "audience"');
    if (this.mode !== "live") throw new AgoraRTCError("INVALID_OPERATION", "setClientRole is for live mode");
    if (this.connectionState === "DISCONNECTED") { this.role = role; return; }
    if (this.connectionState !== "CONNECTED") throw new AgoraRTCError("INVALID_OPERATION", `cannot change role in state ${this.connectionState}`);
    if (role === "audience" && this.localTracks.length) await this.unpublish();
    const reply = await this._sock.request("set_role", { role: role === "host" ? 1 : 2 });
    this.role = reply.new === 1 ? "host" : "audience";
  }

  /** Replaces the token (renew_token). */
  async renewToken(token) {
    if (typeof token !== "string") throw new AgoraRTCError("INVALID_PARAMS", "token must be a string");
    if (this.connectionState !== "CONNECTED") throw new AgoraRTCError("INVALID_OPERATION", "not in a channel");
    const reply = await this._sock.request("renew_token", { token });
    this._joinParams.token = token;
    this._tokenExpireTs = reply.token_expire_ts;
  }

  #signalingUrl() {
    let url;
    try {
      url = this._serverUrl ? new URL(this._serverUrl, import.meta.url) : new URL(import.meta.url);
    } catch {
      throw new AgoraRTCError("INVALID_PARAMS", `bad server address "${this._serverUrl}"`);
    }
    if (url.protocol === "http:") url.protocol = "ws:";
    else if (url.protocol === "https:") url.protocol = "wss:";
    if (url.protocol !== "ws:" && url.protocol !== "wss:") {
      throw new AgoraRTCError("INVALID_PARAMS", `no signaling server: pass createClient({server: "ws://host:port"}) (module loaded from ${url.protocol})`);
    }
    if (!this._serverUrl || url.pathname === "/" || url.pathname === "") url.pathname = SIGNAL_PATH;
    url.search = "";
    url.hash = "";
    return url.href;
  }

  #joinFields(uid) {
    const p = this._joinParams;
    const f = {
      app_id: p.appId, channel: p.channel, token: p.token,
      profile: this.mode === "live" ? 1 : 0,
      role: this.mode === "live" && this.role === "audience" ? 2 : 1,
      webrtc: true,
    };
    if (p.account !== undefined) f.account = p.account; else f.uid = uid;
    return f;
  }

  async #openSocket(url, attempt) {
    const sock = new SignalSocket(url, {
      nextId: () => ++this._ids,
      maxBytes: this._maxMessageBytes,
      onNotice: (msg) => this.#notice(msg),
      onClose: (code, reason) => this.#socketClosed(sock, code, reason),
      onError: (msg, type) => {
        log.warn(`${type ?? "request"} refused: ${msg.reason} (${msg.code})`);
        this.emit("exception", { code: msg.code, msg: `${type ?? "request"}: ${msg.reason}`, uid: this.uid });
      },
    });
    this._sock?.close(1000);
    this._sock = sock;
    await sock.open();
    if (attempt.aborted) { sock.close(1000, true); throw new AgoraRTCError("WS_ABORT", "left while connecting"); }
    return sock;
  }

  /** `joined` (first join, or a rejoin after a failed resume): a new session and a new PeerConnection. */
  #joined(msg, rejoin) {
    this._session = { id: msg.session, resumeToken: msg.resume_token };
    this._keepaliveMs = msg.keepalive_ms > 0 ? msg.keepalive_ms : 2000;
    this._tokenExpireTs = msg.token_expire_ts;
    this.numericUid = msg.uid;
    this.account = msg.account ?? this._joinParams.account;
    this.uid = this.account ?? msg.uid;
    if (this.mode === "live") this.role = msg.role === 2 ? "audience" : "host";
    if (!rejoin) this._joinedAt = Date.now();
    this.#newPeerConnection();
    this.#startTimers();
    const prev = this.connectionState;
    this.#setState("CONNECTED", rejoin ? "REJOIN" : undefined);
    if (prev === "CONNECTED") log.warn("joined while connected");
    this.#reconcile(msg.users ?? [], msg.streams ?? [], !rejoin);
    this.#sendStates(true);
    this.#sendSubscriptions(true);
    if (this.#hasMedia()) this.#negotiateInBackground("rejoin");
  }

  /** `resumed`: the same session and PeerConnection; catch up on users and streams, send our states again. */
  #resumed(msg) {
    this._tokenExpireTs = msg.token_expire_ts;
    if (this.mode === "live") this.role = msg.role === 2 ? "audience" : "host";
    this.#startTimers();
    this.#setState("CONNECTED", "RESUME");
    this.#reconcile(msg.users ?? [], msg.streams ?? [], false);
    this.#sendStates(true);
    this.#sendSubscriptions(true);
    if (this._needsNegotiation) this.#negotiateInBackground("resume");
  }

  #setState(state, reason) {
    const prev = this.connectionState;
    if (prev === state) return;
    this.connectionState = state;
    log.info(`connection ${prev} → ${state}${reason ? ` (${reason})` : ""}`);
    this.emit("connection-state-change", state, prev, reason);
  }

  #startTimers() {
    this.#stopTimers();
    this._timers.push(setInterval(() => this.#keepalive(), this._keepaliveMs));
    this._timers.push(setInterval(() => this.#pollStats(), STATS_INTERVAL_MS));
  }
  #stopTimers() { for (const t of this._timers) clearInterval(t); this._timers = []; }

  #keepalive() {
    const sock = this._sock;
    if (!sock?.isOpen || this.connectionState !== "CONNECTED") return;
    if (performance.now() - sock.lastReceived > Math.max(SILENCE_MS, 3 * this._keepaliveMs)) {
      log.warn("signaling silent; reconnecting");
      sock.close(4000);
      this.#socketClosed(sock, 4000, "silence");
      return;
    }
    try { sock.notify("ping"); } catch (e) { log.warn("ping:", e.message); }
  }

  #socketClosed(sock, code, reason) {
    if (sock !== this._sock) return;
    log.warn(`signaling closed: ${code} ${reason ?? ""}`);
    if (this.connectionState !== "CONNECTED") return;
    if (code === 4001 || code === 4002) {  // same uid login / resumed elsewhere: this session is gone for us
      this.#teardown();
      this.#setState("DISCONNECTED", code === 4001 ? "UID_CONFLICT" : "SERVER_ERROR");
      return;
    }
    this.#stopTimers();
    this.#setState("RECONNECTING", "NETWORK_ERROR");
    this.#reconnect();
  }

  /** Reconnects with the engine's backoff: `resume`, else `join` with the same uid (a rejoin). */
  async #reconnect() {
    const attempt = { aborted: false };
    this._attempt = attempt;
    for (let i = 0; ; i++) {
      await delay(BACKOFF_MS[Math.min(i, BACKOFF_MS.length - 1)]);
      if (attempt.aborted || this.connectionState !== "RECONNECTING") return;
      try {
        const sock = await this.#openSocket(this.#signalingUrl(), attempt);
        if (this._session) {
          try {
            const msg = await sock.request("resume", {
              session: this._session.id, resume_token: this._session.resumeToken, token: this._joinParams.token,
            });
            if (attempt.aborted) return;
            this._attempt = null;
            this.#resumed(msg);
            return;
          } catch (e) {
            if (e.serverCode === undefined) throw e;
            log.info(`resume refused (${e.reason}); joining again`);
            this._session = null;
          }
        }
        const msg = await sock.request("join", this.#joinFields(this.numericUid ?? this._joinParams.uid));
        if (attempt.aborted) return;
        this._attempt = null;
        this.#joined(msg, true);
        return;
      } catch (e) {
        if (attempt.aborted) return;
        if (FATAL_JOIN_CODES.has(e.serverCode)) {
          log.error("rejoin refused:", e.message);
          this._attempt = null;
          if (e.serverCode === -109) this.emit("token-privilege-did-expire");
          this.#teardown();
          this.#setState("DISCONNECTED", "SERVER_ERROR");
          return;
        }
        log.info(`reconnect attempt ${i + 1} failed: ${e.message}`);
      }
    }
  }

  /** Closes the socket and the PeerConnection, forgets remote users; local tracks are unpublished, not closed. */
  #teardown() {
    this.#stopTimers();
    const sock = this._sock;
    this._sock = null;
    sock?.close(1000, true);
    this._session = null;
    for (const t of this.localTracks) t._client = null;
    this.localTracks = [];
    this._send = { audio: this.#newSendSlot("audio"), video: this.#newSendSlot("video") };
    for (const slot of this._recv) slot.track?._release();
    this._recv = [];
    for (const peer of this._peers.values()) {
      peer.user.audioTrack = peer.user.videoTrack = undefined;
      peer.user.hasAudio = peer.user.hasVideo = false;
    }
    this._peers.clear();
    this._streams.clear();
    this._accounts.clear();
    this.remoteUsers = [];
    this._pc?.close();
    this._pc = null;
    this._negQueued = null;
    this._needsNegotiation = false;
    this._sentState = { audio: "", video: "" };
    this._sentSubs = { audio: "", video: "" };
    this._stats = { rtc: null, remoteAudio: {}, remoteVideo: {}, localAudio: {}, localVideo: {} };
    this._prevStats = null;
  }

  // Notices ------------------------------------------------------------------

  #notice(msg) {
    switch (msg.type) {
      case "user_info":
        if (isUid(msg.uid) && typeof msg.account === "string") this._accounts.set(msg.uid, msg.account);
        break;
      case "user_joined":
        this.#userJoined(msg);
        break;
      case "user_offline":
        this.#userLeft(msg.uid, OFFLINE_REASONS[msg.reason] ?? "Quit");
        break;
      case "stream_added":
        this.#streamAdded(msg);
        break;
      case "user_mute_audio":
      case "user_mute_video": {
        const peer = this._peers.get(msg.uid);
        if (!peer || typeof msg.muted !== "boolean") break;
        const kind = msg.type === "user_mute_audio" ? "audio" : "video";
        peer[`${kind}Muted`] = msg.muted;
        this.emit("user-info-updated", peer.user.uid, `${msg.muted ? "mute" : "unmute"}-${kind}`);
        this.#refresh(peer);
        break;
      }
      case "subscribe_fallback": {
        const peer = this._peers.get(msg.uid);
        if (peer) this.emit("stream-fallback", peer.user.uid, msg.audio_only ? "fallback" : "recover");
        break;
      }
      case "token_will_expire":
        this._tokenExpireTs = msg.token_expire_ts;
        this.emit("token-privilege-will-expire");
        break;
      case "token_expired":
        this.emit("token-privilege-did-expire");
        this.#teardown();
        this.#setState("DISCONNECTED", "TOKEN_EXPIRED");
        break;
      case "kicked":
        this.#teardown();
        this.#setState("DISCONNECTED", "UID_CONFLICT");
        break;
      default:
        log.debug("ignored notice", msg.type);
    }
  }

  #userJoined(entry) {
    if (!isUid(entry.uid) || entry.uid === this.numericUid) return;
    let peer = this._peers.get(entry.uid);
    if (!peer) {
      const account = typeof entry.account === "string" ? entry.account : this._accounts.get(entry.uid);
      peer = { user: new RemoteUser(entry.uid, account), audioMuted: false, videoMuted: false, sub: { audio: null, video: null } };
      this._peers.set(entry.uid, peer);
      this.remoteUsers = [...this.remoteUsers, peer.user];
      this._accounts.delete(entry.uid);
      peer.audioMuted = entry.audio_muted === true;
      peer.videoMuted = entry.video_muted === true;
      this.emit("user-joined", peer.user);
    } else {
      peer.audioMuted = entry.audio_muted === true;
      peer.videoMuted = entry.video_muted === true;
    }
    this.#refresh(peer);
  }

  #userLeft(uid, reason) {
    const peer = this._peers.get(uid);
    this._streams.delete(uid);
    if (!peer) return;
    this.#refresh(peer);  // no streams now: user-unpublished for what it had
    this._peers.delete(uid);
    this.remoteUsers = this.remoteUsers.filter((u) => u !== peer.user);
    this.emit("user-left", peer.user, reason);
  }

  #streamAdded(entry) {
    const kind = webStreamKind(entry);
    if (!kind || !isUid(entry.uid) || !isUid(entry.ssrc) || entry.uid === this.numericUid) return;
    const streams = this._streams.get(entry.uid) ?? {};
    streams[kind] = { ssrc: entry.ssrc, rtx: isUid(entry.rtx_ssrc) ? entry.rtx_ssrc : 0, pt: entry.payload_type };
    this._streams.set(entry.uid, streams);
    const peer = this._peers.get(entry.uid);
    if (peer) this.#refresh(peer);
  }

  /** After joined / resumed: make users and streams what the server says, with events for the differences. */
  #reconcile(users, streams, fresh) {
    const present = new Set(users.filter((u) => isUid(u?.uid)).map((u) => u.uid));
    if (!fresh) for (const uid of [...this._peers.keys()]) if (!present.has(uid)) this.#userLeft(uid, "ServerTimeOut");
    this._streams.clear();
    for (const s of streams) {
      const kind = webStreamKind(s);
      if (!kind || !isUid(s.uid) || !isUid(s.ssrc) || s.uid === this.numericUid) continue;
      const entry = this._streams.get(s.uid) ?? {};
      entry[kind] = { ssrc: s.ssrc, rtx: isUid(s.rtx_ssrc) ? s.rtx_ssrc : 0, pt: s.payload_type };
      this._streams.set(s.uid, entry);
    }
    for (const u of [...users].sort((a, b) => a.uid - b.uid)) this.#userJoined(u);
  }

  /**
   * Derives hasAudio/hasVideo of a peer (a high stream is known and not muted)
   * and reports changes: user-published, or user-unpublished after dropping
   * the subscription (Agora releases the remote track on unpublish). A
   * subscribed stream whose server SSRC changed is renegotiated.
   */
  #refresh(peer) {
    const streams = this._streams.get(peer.user.numericUid) ?? {};
    let renegotiate = false;
    for (const kind of KINDS) {
      const has = !!streams[kind] && !peer[`${kind}Muted`];
      const flag = kind === "audio" ? "hasAudio" : "hasVideo";
      const slot = peer.sub[kind];
      if (has && slot && (slot.ssrc !== streams[kind].ssrc || slot.rtx !== streams[kind].rtx)) {
        Object.assign(slot, { ssrc: streams[kind].ssrc, rtx: streams[kind].rtx, pt: streams[kind].pt });
        renegotiate = true;
      }
      if (has === peer.user[flag]) continue;
      peer.user[flag] = has;
      if (has) {
        this.emit("user-published", peer.user, kind);
      } else {
        if (slot) { this.#dropSubscription(peer, kind); renegotiate = true; }
        this.emit("user-unpublished", peer.user, kind);
      }
    }
    if (renegotiate && this.connectionState === "CONNECTED") this.#negotiateInBackground("remote change");
  }

  // Publish and subscribe ----------------------------------------------------

  /** Publishes local tracks: at most one audio and one video track. */
  async publish(tracks) {
    const list = Array.isArray(tracks) ? tracks : [tracks];
    if (this.connectionState !== "CONNECTED") throw new AgoraRTCError("INVALID_OPERATION", "publish needs a joined client");
    if (this.mode === "live" && this.role !== "host") throw new AgoraRTCError("INVALID_OPERATION", "audience cannot publish: setClientRole(\"host\") first");
    const added = [];
    for (const t of list) {
      if (!(t instanceof LocalTrack)) throw new AgoraRTCError("INVALID_LOCAL_TRACK", "not a local track");
      if (t._closed) throw new AgoraRTCError("INVALID_LOCAL_TRACK", "the track is closed");
      if (t._client === this) continue;
      if (t._client) throw new AgoraRTCError("INVALID_OPERATION", "the track is published by another client");
      const slot = this._send[t.trackMediaType];
      if (slot.track || added.some((a) => a.trackMediaType === t.trackMediaType)) {
        throw new AgoraRTCError(t.trackMediaType === "video" ? "CAN_NOT_PUBLISH_MULTIPLE_VIDEO_TRACKS" : "NOT_SUPPORTED",
          `only one ${t.trackMediaType} track can be published`);
      }
      added.push(t);
    }
    for (const t of added) {
      this._send[t.trackMediaType].track = t;
      t._client = this;
      this.localTracks.push(t);
    }
    if (!added.length) return;
    try {
      await this.#negotiate();
    } catch (e) {
      for (const t of added) {
        if (this._send[t.trackMediaType].track === t) this._send[t.trackMediaType].track = null;
        t._client = null;
        this.localTracks = this.localTracks.filter((x) => x !== t);
      }
      if (this.connectionState === "CONNECTED") this.#negotiateInBackground("publish failed");
      throw e;
    }
  }

  /** Unpublishes the given tracks, or all. */
  async unpublish(tracks) {
    const list = tracks === undefined ? [...this.localTracks] : Array.isArray(tracks) ? tracks : [tracks];
    let changed = false;
    for (const t of list) {
      if (!(t instanceof LocalTrack) || t._client !== this) continue;
      const slot = this._send[t.trackMediaType];
      if (slot.track === t) slot.track = null;
      t._client = null;
      this.localTracks = this.localTracks.filter((x) => x !== t);
      changed = true;
    }
    if (!changed || this.connectionState !== "CONNECTED") return;
    this.#sendStates(false);  // muted at once; the negotiation then stops the m-section
    await this.#negotiate();
  }

  /** Subscribes to a remote user's audio or video; resolves with the RemoteTrack (also set on the user). */
  async subscribe(user, mediaType) {
    if (mediaType !== "audio" && mediaType !== "video") throw new AgoraRTCError("INVALID_PARAMS", 'mediaType must be "audio" or "video"');
    if (this.connectionState !== "CONNECTED") throw new AgoraRTCError("INVALID_OPERATION", "subscribe needs a joined client");
    const peer = this.#peerOf(user);
    if (!peer) throw new AgoraRTCError("INVALID_REMOTE_USER", "no such user in the channel");
    if (!peer.user[mediaType === "audio" ? "hasAudio" : "hasVideo"]) {
      throw new AgoraRTCError("REMOTE_USER_IS_NOT_PUBLISHED", `user ${peer.user.uid} does not publish ${mediaType}`);
    }
    let slot = peer.sub[mediaType];
    if (!slot) {
      if (this._recv.filter((s) => s.uid !== null).length >= MAX_RECEIVE) {
        throw new AgoraRTCError("NOT_SUPPORTED", `at most ${MAX_RECEIVE} remote streams can be subscribed at once`);
      }
      const stream = this._streams.get(peer.user.numericUid)[mediaType];
      slot = this.#takeRecvSlot(mediaType);
      Object.assign(slot, { uid: peer.user.numericUid, ssrc: stream.ssrc, rtx: stream.rtx, pt: stream.pt, live: false });
      peer.sub[mediaType] = slot;
    }
    // A negotiation that started before this call cannot carry it: wait for the next one.
    for (let i = 0; i < 3 && !slot.live && peer.sub[mediaType] === slot; i++) {
      slot.pending ??= this.#negotiate().finally(() => { slot.pending = null; });
      try {
        await slot.pending;
      } catch (e) {
        if (peer.sub[mediaType] === slot && !slot.live) this.#dropSubscription(peer, mediaType);
        throw e;
      }
    }
    if (peer.sub[mediaType] !== slot || !slot.live || !slot.track) {
      throw new AgoraRTCError("OPERATION_ABORTED", `the ${mediaType} of user ${peer.user.uid} went away while subscribing`);
    }
    return slot.track;
  }

  /** Unsubscribes from a user's audio, video, or both. */
  async unsubscribe(user, mediaType) {
    if (mediaType !== undefined && mediaType !== "audio" && mediaType !== "video") throw new AgoraRTCError("INVALID_PARAMS", 'mediaType must be "audio" or "video"');
    const peer = this.#peerOf(user);
    if (!peer) return;
    let changed = false;
    for (const kind of mediaType ? [mediaType] : KINDS) {
      if (peer.sub[kind]) { this.#dropSubscription(peer, kind); changed = true; }
    }
    if (changed && this.connectionState === "CONNECTED") await this.#negotiate();
  }

  /**
   * Sends a message to every other user of the channel, as an engine's data
   * stream (Agora's sendStreamMessage): `needRetry` true on the reliable,
   * ordered channel (stream id 1 at the engines), false on the unreliable one
   * (stream id 2). At most 1024 bytes; within any second 30 messages and
   * 6144 bytes (INVALID_PARAMS, STREAM_MESSAGE_LIMIT). Audience members of a
   * live channel cannot send (INVALID_OPERATION).
   */
  async sendStreamMessage(message, needRetry = true) {
    const bytes = typeof message === "string" ? new TextEncoder().encode(message)
      : message instanceof Uint8Array ? message : ArrayBuffer.isView(message) ? new Uint8Array(message.buffer, message.byteOffset, message.byteLength)
      : message instanceof ArrayBuffer ? new Uint8Array(message) : null;
    if (!bytes || bytes.length === 0 || bytes.length > MAX_STREAM_MESSAGE) {
      throw new AgoraRTCError("INVALID_PARAMS", `a stream message is 1 to ${MAX_STREAM_MESSAGE} bytes`);
    }
    if (this.connectionState !== "CONNECTED") throw new AgoraRTCError("INVALID_OPERATION", "not in a channel");
    if (this.mode === "live" && this.role === "audience") throw new AgoraRTCError("INVALID_OPERATION", "an audience member cannot send stream messages");
    const now = performance.now();
    this._dataWindow = this._dataWindow.filter((w) => now - w.at < 990);
    if (this._dataWindow.length >= MAX_STREAM_MESSAGES_PER_SECOND
        || this._dataWindow.reduce((n, w) => n + w.bytes, 0) + bytes.length > MAX_STREAM_BYTES_PER_SECOND) {
      throw new AgoraRTCError("STREAM_MESSAGE_LIMIT", "30 messages or 6144 bytes in the last second");
    }
    const dc = needRetry ? this._dc : this._dcUnreliable;
    if (!dc) throw new AgoraRTCError("INVALID_OPERATION", "no media connection");
    if (dc.readyState !== "open") {
      if (!this._pc.remoteDescription) this.#negotiateInBackground("data channel");
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new AgoraRTCError("DATACHANNEL_TIMEOUT", "the data channel did not open")), REQUEST_TIMEOUT_MS);
        dc.addEventListener("open", () => { clearTimeout(timer); resolve(); }, { once: true });
      });
    }
    this._dataWindow.push({ at: now, bytes: bytes.length });
    dc.send(bytes);
  }

  /** A message from the server's data channel: who sent it, then the payload. */
  #streamMessage(data) {
    if (!(data instanceof ArrayBuffer) || data.byteLength < DATA_FRAME_HEADER) return;
    const view = new DataView(data);
    if (view.getUint8(0) !== 1) return;
    const numeric = view.getUint32(1);
    const streamId = view.getUint8(5);
    const sentTs = Number(view.getBigUint64(6));
    const payload = new Uint8Array(data, DATA_FRAME_HEADER);
    const uid = this._peers.get(numeric)?.user.uid ?? numeric;
    this.emit("stream-message", uid, payload, { streamId, sentTs });
  }

  #peerOf(user) {
    if (user instanceof RemoteUser) return this._peers.get(user.numericUid);
    if (typeof user === "number") return this._peers.get(user);
    if (typeof user === "string") {
      for (const p of this._peers.values()) if (p.user.account === user) return p;
    }
    return undefined;
  }

  /** A receive slot for a new subscription: one negotiated idle, else a new one. */
  #takeRecvSlot(kind) {
    let slot = this._recv.find((s) => s.kind === kind && s.uid === null && !s.answered && s.tr);
    if (!slot) {
      slot = { kind, tr: null, uid: null, ssrc: 0, rtx: 0, pt: 0, live: false, answered: false, track: null, pending: null };
      this._recv.push(slot);
    }
    return slot;
  }

  #dropSubscription(peer, kind) {
    const slot = peer.sub[kind];
    peer.sub[kind] = null;
    if (!slot) return;
    slot.track?._release();
    slot.track = null;
    slot.uid = null;
    slot.live = false;
    if (kind === "audio") peer.user.audioTrack = undefined; else peer.user.videoTrack = undefined;
  }

  #hasMedia() { return KINDS.some((k) => this._send[k].track) || this._recv.some((s) => s.uid !== null); }

  // Negotiation ----------------------------------------------------------------

  #newPeerConnection() {
    this._pc?.close();
    const pc = new RTCPeerConnection({ bundlePolicy: "max-bundle", rtcpMuxPolicy: "require", iceServers: this._iceServers });
    pc.onconnectionstatechange = () => {
      if (pc !== this._pc) return;
      log.info(`media connection ${pc.connectionState}`);
      this.emit("media-connection-state-change", pc.connectionState);
      if (pc.connectionState === "failed" && this.connectionState === "CONNECTED") {
        this.emit("exception", { code: "ICE_FAILED", msg: "media connection failed; restarting ICE", uid: this.uid });
        this._iceRestart = true;
        this.#negotiateInBackground("ice restart");
      }
    };
    this._pc = pc;
    // The data channels are in every offer, so stream messages work without media.
    this._dc = pc.createDataChannel(DATA_LABEL, { ordered: true });
    this._dcUnreliable = pc.createDataChannel(DATA_LABEL_UNRELIABLE, { ordered: false, maxRetransmits: 0 });
    for (const dc of [this._dc, this._dcUnreliable]) {
      dc.binaryType = "arraybuffer";
      dc.onmessage = (e) => { if (pc === this._pc) this.#streamMessage(e.data); };
    }
    // A new PeerConnection: every transceiver is new; the model (slots) stays.
    for (const kind of KINDS) Object.assign(this._send[kind], { tr: null, answered: false, ssrc: 0, rtx: 0 });
    this._recv = this._recv.filter((s) => s.uid !== null);
    for (const s of this._recv) Object.assign(s, { tr: null, live: false, answered: false });
    this._sentState = { audio: "", video: "" };
  }

  /** Asks for a negotiation; calls made before the next one starts share it. */
  #negotiate() {
    if (this._negQueued) return this._negQueued;
    const run = () => { this._negQueued = null; return this.#runNegotiation(); };
    const p = this._negTail.then(run, run);
    this._negQueued = p;
    this._negTail = p.catch(() => {});
    return p;
  }

  #negotiateInBackground(why) {
    this.#negotiate().catch((e) => {
      log.warn(`negotiation (${why}) failed:`, e.message);
      if (this.connectionState === "CONNECTED") this.emit("exception", { code: e.code, msg: `negotiation failed: ${e.message}`, uid: this.uid });
    });
  }

  /**
   * One offer/answer: apply the model to transceivers, offer, send
   * `webrtc_offer` with the receive map, apply the answer, then tell the
   * server our send SSRCs and subscriptions. On failure the offer is rolled
   * back, so the PeerConnection stays at the last answer the server knows.
   */
  async #runNegotiation() {
    const pc = this._pc, sock = this._sock;
    if (!pc || this.connectionState !== "CONNECTED" || !sock?.isOpen) {
      this._needsNegotiation = true;
      throw new AgoraRTCError("WS_DISCONNECT", "not connected");
    }
    this._needsNegotiation = false;
    // Model → transceivers.
    for (const kind of KINDS) {
      const slot = this._send[kind];
      const track = slot.track;
      if (!slot.tr && !track) continue;
      if (!slot.tr) {
        const init = { direction: "sendonly", streams: [] };
        if (kind === "video" && track._bitrateMax) init.sendEncodings = [{ maxBitrate: track._bitrateMax * 1000 }];
        slot.tr = pc.addTransceiver(track._sendTrack() ?? kind, init);
        trimTransceiver(slot.tr, kind, this.codec);
      }
      slot.tr.direction = track ? "sendonly" : "inactive";
      if (slot.tr.sender.track !== (track?._sendTrack() ?? null)) await slot.tr.sender.replaceTrack(track?._sendTrack() ?? null);
    }
    // The receive map is taken here, with the directions: a subscription made
    // while this negotiation runs waits for the next one.
    const wanted = [];
    for (const slot of this._recv) {
      if (!slot.tr) {
        if (slot.uid === null) continue;
        slot.tr = pc.addTransceiver(slot.kind, { direction: "recvonly" });
      }
      slot.tr.direction = slot.uid !== null ? "recvonly" : "inactive";
      trimTransceiver(slot.tr, slot.kind, slot.pt === PT_VP9 ? "vp9" : slot.pt === PT_VP8 ? "vp8" : this.codec);
      if (slot.uid !== null) wanted.push({ slot, uid: slot.uid, ssrc: slot.ssrc, rtx: slot.rtx });
    }
    const offer = await pc.createOffer(this._iceRestart ? { iceRestart: true } : undefined);
    await pc.setLocalDescription(offer);
    const included = wanted.filter((w) => w.slot.tr.mid != null);
    const receive = included.map(({ slot, ssrc, rtx }) => (rtx ? { mid: slot.tr.mid, ssrc, rtx_ssrc: rtx } : { mid: slot.tr.mid, ssrc }));
    let answer;
    try {
      answer = await sock.request("webrtc_offer", { sdp: pc.localDescription.sdp, receive });
      if (typeof answer.sdp !== "string") throw new AgoraRTCError("UNEXPECTED_RESPONSE", "webrtc_answer without sdp");
      if (pc !== this._pc) throw new AgoraRTCError("OPERATION_ABORTED", "the PeerConnection was replaced");
      await pc.setRemoteDescription({ type: "answer", sdp: answer.sdp }).catch((e) => {
        throw new AgoraRTCError("SET_ANSWER_FAILED", e.message);
      });
    } catch (e) {
      if (pc.signalingState === "have-local-offer") await pc.setLocalDescription({ type: "rollback" }).catch(() => {});
      if (e.code === "WS_DISCONNECT") this._needsNegotiation = true;
      throw e;
    }
    this._iceRestart = false;

    // The answer is in force: what is received now, and what is sent.
    const inAnswer = new Set(included.map((i) => i.slot));
    for (const s of this._recv) s.answered = inAnswer.has(s);
    for (const { slot, uid, ssrc } of included) {
      if (slot.uid !== uid || slot.ssrc !== ssrc) continue;
      slot.live = true;
      const peer = this._peers.get(uid);
      const mst = slot.tr.receiver.track;
      if (!slot.track) slot.track = new RemoteTrack(slot.kind, mst, peer.user, this);
      else if (slot.track._mst !== mst) slot.track._setTrack(mst);
      if (slot.kind === "audio") peer.user.audioTrack = slot.track; else peer.user.videoTrack = slot.track;
    }
    const local = pc.localDescription.sdp;
    for (const kind of KINDS) {
      const slot = this._send[kind];
      if (!slot.tr) continue;
      slot.answered = !!slot.track;
      const ssrcs = slot.track && slot.tr.mid != null ? sdpSendSsrcs(local, slot.tr.mid) : null;
      if (ssrcs) { slot.ssrc = ssrcs.ssrc; slot.rtx = ssrcs.rtxSsrc; }
      if (kind === "video" && slot.track) await this.#applyBitrate(slot);
    }
    this.#sendStates(false);
    this.#sendSubscriptions(false);
  }

  async #applyBitrate(slot) {
    try {
      const params = slot.tr.sender.getParameters();
      if (!params.encodings?.length) return;
      const want = slot.track._bitrateMax ? slot.track._bitrateMax * 1000 : undefined;
      if (params.encodings[0].maxBitrate === want) return;
      params.encodings[0].maxBitrate = want;
      await slot.tr.sender.setParameters(params);
    } catch (e) { log.warn("setParameters failed", e); }
  }

  /** A local track's mute/enable/source changed: swap the sender's track, tell the server. */
  async _localTrackChanged(track, sourceChanged) {
    const slot = this._send[track.trackMediaType];
    if (slot.track !== track || this.connectionState !== "CONNECTED") return;
    if (sourceChanged && slot.tr) {
      try {
        await slot.tr.sender.replaceTrack(track._sendTrack());
        if (track.trackMediaType === "video") await this.#applyBitrate(slot);
      } catch (e) { log.warn("replaceTrack failed", e); }
    }
    this.#sendStates(false);
  }

  /** `set_audio_state` / `set_video_state`, when changed (or `force`: after joined / resumed). */
  #sendStates(force) {
    const sock = this._sock;
    if (!sock?.isOpen) return;
    for (const kind of KINDS) {
      const slot = this._send[kind];
      const t = slot.track;
      const sending = !!t && slot.answered;
      const fields = kind === "audio"
        ? { muted: !sending || !t.enabled || t.muted }
        : { muted: !sending || !t.enabled || t.muted, enabled: true, local_enabled: !t || t.enabled, stream_muted: !sending || t.muted };
      if (slot.ssrc) { fields.ssrc = slot.ssrc; fields.rtx_ssrc = slot.rtx; }
      const text = JSON.stringify(fields);
      if (!force && text === this._sentState[kind]) continue;
      try { sock.notify(`set_${kind}_state`, fields); this._sentState[kind] = text; } catch (e) { log.warn(e.message); }
    }
  }

  /** `set_audio_subscription` / `set_video_subscription`: receive only the users subscribed (and negotiated). */
  #sendSubscriptions(force) {
    const sock = this._sock;
    if (!sock?.isOpen) return;
    for (const kind of KINDS) {
      const unmuted = [...new Set(this._recv.filter((s) => s.kind === kind && s.uid !== null && s.live).map((s) => s.uid))].sort((a, b) => a - b);
      const fields = { default_muted: true, unmuted };
      const text = JSON.stringify(fields);
      if (!force && text === this._sentSubs[kind]) continue;
      try { sock.notify(`set_${kind}_subscription`, fields); this._sentSubs[kind] = text; } catch (e) { log.warn(e.message); }
    }
  }

  // Statistics and network quality ------------------------------------------

  /** Agora's RTCStats: Duration (s), bitrates (bps), bytes, UserCount, RTT (ms), OutgoingAvailableBandwidth (kbps). */
  getRTCStats() {
    return this._stats.rtc ?? {
      Duration: this._joinedAt && this.connectionState !== "DISCONNECTED" ? Math.round((Date.now() - this._joinedAt) / 1000) : 0,
      RecvBitrate: 0, RecvBytes: 0, SendBitrate: 0, SendBytes: 0,
      UserCount: this.connectionState === "CONNECTED" ? this._peers.size + 1 : 0, RTT: 0, OutgoingAvailableBandwidth: 0,
    };
  }
  /** `{[uid]: stats}` of subscribed remote audio, from the last poll (every 2 s). */
  getRemoteAudioStats() { return { ...this._stats.remoteAudio }; }
  /** `{[uid]: stats}` of subscribed remote video, from the last poll (every 2 s). */
  getRemoteVideoStats() { return { ...this._stats.remoteVideo }; }
  getLocalAudioStats() { return { ...this._stats.localAudio }; }
  getLocalVideoStats() { return { ...this._stats.localVideo }; }
  /** The PeerConnection's state ("new", "connecting", "connected", "failed", …), or "closed" without one. */
  get mediaConnectionState() { return this._pc?.connectionState ?? "closed"; }

  async #pollStats() {
    const pc = this._pc;
    if (!pc || this.connectionState !== "CONNECTED") return;
    let report;
    try { report = await pc.getStats(); } catch { return; }
    if (pc !== this._pc) return;
    const now = performance.now();
    const prev = this._prevStats;
    const counters = new Map();
    const all = new Map();
    report.forEach((s) => all.set(s.id, s));
    const perSecond = (key, value) => {
      counters.set(key, value);
      const before = prev?.counters.get(key);
      return before === undefined || value < before ? 0 : (value - before) / ((now - prev.t) / 1000);
    };
    const codecOf = (s) => (all.get(s.codecId)?.mimeType ?? "").split("/")[1] ?? "";

    let pair = null;
    for (const s of all.values()) if (s.type === "transport" && s.selectedCandidatePairId) pair = all.get(s.selectedCandidatePairId);
    if (!pair) for (const s of all.values()) if (s.type === "candidate-pair" && s.nominated && s.state === "succeeded") pair = s;
    const rttMs = pair?.currentRoundTripTime !== undefined ? pair.currentRoundTripTime * 1000 : undefined;

    const slotByMid = new Map(this._recv.filter((s) => s.tr?.mid != null && s.live).map((s) => [s.tr.mid, s]));
    const remoteInbound = new Map();
    for (const s of all.values()) if (s.type === "remote-inbound-rtp") remoteInbound.set(s.localId, s);

    const remoteAudio = {}, remoteVideo = {}, localAudio = {}, localVideo = {};
    let recvBytes = 0, sendBytes = 0, recvRate = 0, sendRate = 0;
    let downLost = 0, downTotal = 0, upLoss = null, upMedia = false, downMedia = false;
    for (const s of all.values()) {
      if (s.type === "inbound-rtp") {
        const slot = slotByMid.get(s.mid) ?? this._recv.find((x) => x.live && x.tr?.receiver.track.id === s.trackIdentifier);
        const bitrate = perSecond(`in-bytes-${s.id}`, s.bytesReceived ?? 0) * 8;
        const dLost = perSecond(`in-lost-${s.id}`, s.packetsLost ?? 0), dRecv = perSecond(`in-pkts-${s.id}`, s.packetsReceived ?? 0);
        recvBytes += s.bytesReceived ?? 0;
        recvRate += bitrate;
        downLost += Math.max(0, dLost);
        downTotal += Math.max(0, dLost) + dRecv;
        if (!slot) continue;
        downMedia = true;
        const peer = this._peers.get(slot.uid);
        if (!peer) continue;
        const common = {
          codecType: codecOf(s), receiveBitrate: Math.round(bitrate), receiveBytes: s.bytesReceived ?? 0,
          receivePackets: s.packetsReceived ?? 0, receivePacketsLost: s.packetsLost ?? 0,
          packetLossRate: dLost + dRecv > 0 ? Math.round((1000 * Math.max(0, dLost)) / (dLost + dRecv)) / 10 : 0,
          transportDelay: rttMs !== undefined ? Math.round(rttMs / 2) : 0,
          jitterBufferDelay: s.jitterBufferEmittedCount ? Math.round((1000 * s.jitterBufferDelay) / s.jitterBufferEmittedCount) : 0,
        };
        if (s.kind === "audio") {
          remoteAudio[peer.user.uid] = { ...common, receiveLevel: Math.round((s.audioLevel ?? 0) * 32767),
            totalConcealedSamples: s.concealedSamples ?? 0, totalSamplesReceived: s.totalSamplesReceived ?? 0 };
        } else {
          remoteVideo[peer.user.uid] = { ...common,
            receiveResolutionWidth: s.frameWidth ?? 0, receiveResolutionHeight: s.frameHeight ?? 0,
            receiveFrameRate: Math.round(s.framesPerSecond ?? 0),
            decodeFrameRate: Math.round(perSecond(`in-dec-${s.id}`, s.framesDecoded ?? 0)),
            renderFrameRate: Math.round(s.framesPerSecond ?? 0),
            framesDecoded: s.framesDecoded ?? 0, framesDropped: s.framesDropped ?? 0,
            keyFramesDecoded: s.keyFramesDecoded ?? 0, totalFreezeTime: s.totalFreezesDuration ?? 0,
            nackCount: s.nackCount ?? 0, pliCount: s.pliCount ?? 0 };
        }
      } else if (s.type === "outbound-rtp") {
        const bitrate = perSecond(`out-bytes-${s.id}`, s.bytesSent ?? 0) * 8;
        sendBytes += s.bytesSent ?? 0;
        sendRate += bitrate;
        const slot = this._send[s.kind];
        if (!slot?.track || !slot.answered) continue;
        upMedia = true;
        const rr = remoteInbound.get(s.id);
        if (rr?.fractionLost !== undefined) upLoss = Math.max(upLoss ?? 0, rr.fractionLost);
        const common = {
          codecType: codecOf(s), sendBitrate: Math.round(bitrate), sendBytes: s.bytesSent ?? 0,
          sendPackets: s.packetsSent ?? 0, sendPacketsLost: rr?.packetsLost ?? 0,
          currentPacketLossRate: rr?.fractionLost !== undefined ? Math.round(rr.fractionLost * 1000) / 10 : 0,
          ssrc: s.ssrc,
        };
        if (s.kind === "audio") {
          Object.assign(localAudio, common, { sendVolumeLevel: Math.round((all.get(s.mediaSourceId)?.audioLevel ?? 0) * 32767) });
        } else {
          const settings = slot.track._mst.getSettings?.() ?? {};
          Object.assign(localVideo, common, {
            sendResolutionWidth: s.frameWidth ?? 0, sendResolutionHeight: s.frameHeight ?? 0,
            sendFrameRate: Math.round(s.framesPerSecond ?? 0), framesEncoded: s.framesEncoded ?? 0,
            captureResolutionWidth: settings.width ?? 0, captureResolutionHeight: settings.height ?? 0,
            targetSendBitrate: s.targetBitrate ?? 0, encoderImplementation: s.encoderImplementation ?? "",
            qualityLimitationReason: s.qualityLimitationReason ?? "",
          });
        }
      }
    }
    this._prevStats = { t: now, counters };
    this._stats = {
      rtc: {
        Duration: Math.round((Date.now() - this._joinedAt) / 1000),
        RecvBitrate: Math.round(recvRate), RecvBytes: recvBytes,
        SendBitrate: Math.round(sendRate), SendBytes: sendBytes,
        UserCount: this._peers.size + 1,
        RTT: rttMs !== undefined ? Math.round(rttMs) : 0,
        OutgoingAvailableBandwidth: pair?.availableOutgoingBitrate ? Math.round(pair.availableOutgoingBitrate / 1000) : 0,
      },
      remoteAudio, remoteVideo, localAudio, localVideo,
    };

    const state = pc.connectionState;
    const down = state === "failed" || (state === "disconnected" && (upMedia || downMedia));
    const quality = (media, loss) => {
      if (down) return 6;
      if (!media && state !== "connected") return 0;
      return networkQuality(media ? loss ?? 0 : 0, rttMs);
    };
    this.emit("network-quality", {
      uplinkNetworkQuality: quality(upMedia, upLoss),
      downlinkNetworkQuality: quality(downMedia, downTotal > 0 ? downLost / downTotal : 0),
    });
  }
}

/**
 * Agora's 0..6 network quality from a packet loss fraction (0..1) and a
 * round-trip time (ms): 1 excellent (≤1 %, ≤100 ms), 2 good (≤3 %, ≤200 ms),
 * 3 poor (≤8 %, ≤400 ms), 4 bad (≤15 %, ≤800 ms), 5 very bad (≤30 %), 6 down.
 * The worse of the two decides; an unknown RTT counts as 0.
 */
export function networkQuality(loss, rttMs = 0) {
  const rtt = rttMs ?? 0;
  if (loss <= 0.01 && rtt <= 100) return 1;
  if (loss <= 0.03 && rtt <= 200) return 2;
  if (loss <= 0.08 && rtt <= 400) return 3;
  if (loss <= 0.15 && rtt <= 800) return 4;
  if (loss <= 0.3) return 5;
  return 6;
}

// ---------------------------------------------------------------------------
// 6. The AgoraRTC facade

function createClient(config = {}) { return new AgoraishClient(config); }

function checkSystemRequirements() {
  return !!(globalThis.RTCPeerConnection && globalThis.WebSocket && globalThis.RTCRtpTransceiver &&
    globalThis.RTCRtpReceiver?.getCapabilities && globalThis.navigator?.mediaDevices?.getUserMedia);
}

/** What this browser can send and receive of the codecs agoraish forwards. */
async function getSupportedCodec() {
  const has = (kind, mime) => (globalThis.RTCRtpSender?.getCapabilities?.(kind)?.codecs ?? []).some((c) => c.mimeType.toLowerCase() === mime);
  const video = [has("video", "video/vp8") && "VP8", has("video", "video/vp9") && "VP9"].filter(Boolean);
  return { video, audio: has("audio", "audio/opus") ? ["OPUS"] : [] };
}

async function getDevices(skipPermissionCheck = true) {
  const md = globalThis.navigator?.mediaDevices;
  if (!md?.enumerateDevices) throw new AgoraRTCError("NOT_SUPPORTED", "enumerateDevices is not available");
  if (!skipPermissionCheck) await getUserMedia({ audio: {}, video: {} }).then((s) => s.getTracks().forEach((t) => t.stop()));
  try { return await md.enumerateDevices(); } catch (e) { throw new AgoraRTCError("ENUMERATE_DEVICES_FAILED", e.message); }
}
const getCameras = async (skip) => (await getDevices(skip)).filter((d) => d.kind === "videoinput");
const getMicrophones = async (skip) => (await getDevices(skip)).filter((d) => d.kind === "audioinput");
const getPlaybackDevices = async (skip) => (await getDevices(skip)).filter((d) => d.kind === "audiooutput");

/** 0 DEBUG, 1 INFO (default), 2 WARNING, 3 ERROR, 4 NONE. */
function setLogLevel(level) {
  if (!(Number.isInteger(level) && level >= 0 && level <= 4)) throw new AgoraRTCError("INVALID_PARAMS", "log level is 0–4");
  logLevel = level;
  log.info(`log level ${LOG_NAMES[level]}`);
}

const AgoraRTC = {
  VERSION,
  createClient,
  createMicrophoneAudioTrack,
  createCameraVideoTrack,
  createMicrophoneAndCameraTracks,
  createCustomAudioTrack,
  createCustomVideoTrack,
  checkSystemRequirements,
  getSupportedCodec,
  getDevices,
  getCameras,
  getMicrophones,
  getPlaybackDevices,
  setLogLevel,
  /** A function called once when the autoplay policy blocks audio or video; playback resumes on the next click or key. */
  get onAutoplayFailed() { return autoplayHook; },
  set onAutoplayFailed(fn) { autoplayHook = typeof fn === "function" ? fn : null; },
  AgoraRTCError,
};

export default AgoraRTC;
export {
  createClient, createMicrophoneAudioTrack, createCameraVideoTrack, createMicrophoneAndCameraTracks,
  createCustomAudioTrack, createCustomVideoTrack, checkSystemRequirements, getSupportedCodec,
  getDevices, getCameras, getMicrophones, getPlaybackDevices, setLogLevel,
  AgoraishClient, LocalTrack, LocalAudioTrack, LocalVideoTrack, RemoteTrack, RemoteUser,
};
