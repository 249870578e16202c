"""CPU of the media player, the media recorder and audio mixing (ABI 0.13), beside the FFmpeg command line.

The media is made at bench time with the ffmpeg CLI in the scratch
directory: a 1280x720@30 H.264 + AAC MP4 (testsrc2 + a 1 kHz sine), raw
640x360@15 I420 pictures (testsrc2) with 48 kHz mono s16le audio (a two-tone
chord with a little noise), and a 44.1 kHz stereo 128 kbps MP3 (a chord and a
3.5 kHz tone). bench/media_cpu.c runs each engine case in a process of its
own: an embedded server and a receiving engine in a forked child that renders
and pulls what it gets (it proves the measured engine sends: pictures counted,
the pilot tone found in the audio by Goertzel), and the measured engine, whose
main thread pushes and pulls audio 10 ms every 10 ms as a device would
(external source and sink: no audio device). CPU = CLOCK_PROCESS_CPUTIME_ID
of that process (every thread) over a window, per second.

- media_player_cpu_ms_per_s_720p30: a media player plays the MP4 (its canvas
  bound to a callback that counts pictures, its audio pulled as local
  playout) while the engine publishes it (ChannelMediaOptions
  publish_media_player_audio_track / _video_track / _id set,
  publish_camera_track and publish_microphone_track 0): H.264 + AAC decoding
  and the pictures encoded again in VP8 1280x720@30, 1710 kbps (video_cpu's
  720p30 settings), Opus for the audio, RTP, SRTP, send. One SECONDS window
  from 1.5 s after PLAYING.
- media_player_play_only_cpu_ms_per_s_720p30: the same with nothing
  published (the engine still in the call): the difference is the publishing.
- ffmpeg_decode_cpu_ms_per_s_720p30: `ffmpeg -re -i movie.mp4 -f null -`,
  user + system CPU of the child from os.wait4, per second of media;
  media_player_vs_ffmpeg_decode_ratio_720p30 is the first figure over it.
- recorder_cpu_ms_per_s_360p15: the engine sends VP8 640x360@15 (400 kbps)
  from an external video source fed the raw pictures at 15 fps, and Opus from
  the raw audio pushed in real time; a media recorder (uid 0, 640x360, 15 fps,
  48 kHz mono, stream type BOTH: libx264 veryfast, gop 2 x fps, no B-frames,
  2 threads, CRF 23; AAC 64 kbps) records SECONDS between two SECONDS/2
  windows without it. Figure = CPU rate with the recorder (from just before
  start_recording to the return of stop_recording) minus the mean rate of the
  two windows without, per second recorded.
- ffmpeg_encode_cpu_ms_per_s_360p15: `ffmpeg -f rawvideo ... -f s16le ...
  -c:v libx264 -preset veryfast -g 30 -bf 0 -threads 2 -c:a aac -b:a 64k
  out.mp4` of the same raw files as fast as it goes, per second of media,
  median of N runs.
- audio_mixing_cpu_ms_per_s: the engine publishes a speech-like signal pushed
  as its microphone; audio mixing (loopback 0, cycle -1; the file opened in
  the warm-up, then paused) plays the MP3 into what it publishes and plays in
  MIX_PAIRS windows (SECONDS in all, resume .. pause) between MIX_PAIRS + 1
  paused ones (SECONDS in all); figure = the median over the playing windows
  of their rate minus the mean rate of the paused windows either side. The
  engine's own rate drifts up by a few ms/s over a run, hence the
  interleaving.
- ffmpeg_mp3_decode_cpu_ms_per_s: `ffmpeg -stream_loop L -i music.mp3 -f null -`
  (the file decoded L + 1 times in one process, so that the process start,
  ~70 ms of CPU, weighs little), per second of audio, median of N runs.

The notes give each window's busiest threads in ms/s (the kernel's per-thread
CPU clocks, names without trailing digits; "exited": threads that ended in
the window), its per-second slices, and the checks above.

About 95 s at SECONDS = 10.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._common import BenchError, Figure, figure, median

SECONDS = 10
#: Runs of the quick FFmpeg commands (encode, MP3 decode, idle start).
RUNS = 5
#: Playing windows of audio mixing, between paused ones (ctx.repeats).
MIX_PAIRS = 3
#: Seconds of MP3 audio ffmpeg decodes in one process (-stream_loop).
MP3_DECODE_S = 120
PLAYER_PILOT_HZ = 1000
MIX_PILOT_HZ = 3500
QUIET = ["-nostdin", "-hide_banner", "-loglevel", "error"]

NAMES = [
    ("media_player_cpu_ms_per_s_720p30", "ms/s"),
    ("media_player_play_only_cpu_ms_per_s_720p30", "ms/s"),
    ("ffmpeg_decode_cpu_ms_per_s_720p30", "ms/s"),
    ("media_player_vs_ffmpeg_decode_ratio_720p30", "x"),
    ("recorder_cpu_ms_per_s_360p15", "ms/s"),
    ("ffmpeg_encode_cpu_ms_per_s_360p15", "ms/s"),
    ("audio_mixing_cpu_ms_per_s", "ms/s"),
    ("ffmpeg_mp3_decode_cpu_ms_per_s", "ms/s"),
]


def ffmpeg(args: Sequence[Any], log: Path) -> None:
    """Runs the ffmpeg CLI (media generation); BenchError when it fails."""
    with open(log, "ab") as err:
        done = subprocess.run(["ffmpeg", *QUIET, "-y", *[str(a) for a in args]], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=err)
    if done.returncode != 0:
        raise BenchError(f"ffmpeg exited {done.returncode} making media (see {log.name})")


def child_cpu_ms(argv: Sequence[Any], log: Path) -> Tuple[float, float]:
    """Runs a command to its end: (user + system CPU of the child from os.wait4 in ms, wall s)."""
    started = time.monotonic()
    with open(log, "ab") as err:
        proc = subprocess.Popen([str(a) for a in argv], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise BenchError(f"{' '.join(str(a) for a in argv[:6])} ... exited {proc.returncode} (see {log.name})")
    return (usage.ru_utime + usage.ru_stime) * 1e3, time.monotonic() - started


def probe(path: Path) -> Dict[str, Any]:
    """ffprobe's streams (codec, size, packets, duration) and format duration of a file."""
    done = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-show_entries",
                           "stream=codec_type,codec_name,width,height,nb_read_packets,duration:format=duration",
                           "-of", "json", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"ffprobe cannot read {path.name}: {done.stderr.strip()[-200:]}")
    return json.loads(done.stdout)


def ffmpeg_version() -> str:
    done = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True)
    words = (done.stdout.splitlines() or [""])[0].split()
    return f"ffmpeg {words[2]}" if len(words) > 2 else "ffmpeg"


def rate(window: Dict[str, Any]) -> float:
    """CPU ms per second of a window."""
    return window["cpu_ms"] / (window["wall_ms"] / 1e3)


def per_s(window: Dict[str, Any], thread: str) -> float:
    return window["threads"].get(thread, 0.0) / (window["wall_ms"] / 1e3)


def slices(window: Dict[str, Any]) -> str:
    s = window["slices"]
    return f"per-second slices {min(s):.0f}..{max(s):.0f} (N={len(s)})" if s else "no whole-second slice"


def threads(window: Dict[str, Any], top: int = 4) -> str:
    """The busiest threads of a window, ms/s, with what the rest adds up to."""
    wall = window["wall_ms"] / 1e3
    items = sorted(window["threads"].items(), key=lambda kv: -kv[1])
    label = {"media_cpu": "host threads (push/pull, with the engine work done inside them)"}
    shown = [f"{label.get(name, name)} {ms / wall:.1f}" for name, ms in items[:top] if ms / wall >= 0.05]
    rest = sum(ms for _, ms in items[top:]) / wall
    return f"threads (ms/s): {', '.join(shown)}, the rest {rest:.1f}"


def receiver(window: Dict[str, Any]) -> str:
    r = window["receiver"]
    wall = window["wall_ms"] / 1e3
    pictures = (f"{r['pictures']} pictures ({r['pictures'] / wall:.1f}/s) at {r['width']}x{r['height']}"
                if r["pictures"] else "no pictures")
    return (f"the receiver got {pictures} and {r['audio_frames']} audio frames (rms {r['rms']:.0f}, "
            f"pilot share {r['pilot_share']:.3f})")


def missing_tools() -> Optional[str]:
    for tool in ("ffmpeg", "ffprobe"):
        if not shutil.which(tool):
            return f"{tool} not found (the ffmpeg package)"
    return None


def make_media(scratch: Path, seconds: float, log: Path) -> Dict[str, Path]:
    movie_s, raw_s = seconds + 3, 2 * seconds + 3
    files = {"movie": scratch / "media_movie_720p30.mp4", "yuv": scratch / "media_360p15.yuv",
             "pcm": scratch / "media_48k_mono.s16", "mp3": scratch / "media_music.mp3"}
    ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-f", "lavfi", "-i",
            f"sine=frequency={PLAYER_PILOT_HZ}:sample_rate=48000", "-t", movie_s, "-c:v", "libx264", "-preset",
            "veryfast", "-b:v", "3000k", "-maxrate", "3500k", "-bufsize", "6000k", "-g", "60", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-movflags", "+faststart", files["movie"]], log)
    ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=15", "-t", raw_s, "-f", "rawvideo", "-pix_fmt",
            "yuv420p", files["yuv"]], log)
    ffmpeg(["-f", "lavfi", "-i",
            "aevalsrc=0.2*sin(2*PI*440*t)+0.1*sin(2*PI*660*t)+0.05*(random(0)-0.5):s=48000:c=mono",
            "-t", raw_s, "-f", "s16le", "-ac", "1", "-ar", "48000", files["pcm"]], log)
    ffmpeg(["-f", "lavfi", "-i",
            "aevalsrc=0.2*sin(2*PI*523.25*t)+0.15*sin(2*PI*659.25*t)+0.15*sin(2*PI*783.99*t)"
            f"+0.15*sin(2*PI*{MIX_PILOT_HZ}*t):s=44100:c=stereo",
            "-t", movie_s, "-c:a", "libmp3lame", "-b:a", "128k", files["mp3"]], log)
    return files


def run(ctx) -> List[Figure]:
    why = missing_tools()
    if why:
        return [figure(name, None, unit, f"not measured: {why}") for name, unit in NAMES]
    seconds = 3 if ctx.quick else SECONDS
    runs = ctx.repeats(RUNS)
    program = ctx.compile_c("media_cpu.c", "-ldl", "-lpthread", "-lm")
    scratch: Path = ctx.scratch
    log = scratch / "media_ffmpeg.log"
    files = make_media(scratch, seconds, log)
    version = ffmpeg_version()
    timeout = 3 * seconds + 90

    def engine(*args: Any) -> Dict[str, Any]:
        return ctx.run_json([program, ctx.library, scratch, seconds, *args], timeout=timeout)

    # An ffmpeg process that does (almost) nothing: what starting one costs.
    idle = median([child_cpu_ms(["ffmpeg", *QUIET, "-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono", "-t", "0.01",
                                 "-f", "null", "-"], log)[0] for _ in range(runs)])
    startup = f"an ffmpeg process that decodes 10 ms of silence costs {idle:.0f} ms (median of N={runs})"

    # ---------------------------------------------------------------- player
    movie = probe(files["movie"])
    movie_s = float(movie["format"]["duration"])
    pub = engine("player", files["movie"], "publish", PLAYER_PILOT_HZ)
    play = engine("player", files["movie"], "play", PLAYER_PILOT_HZ)
    wp, wq = pub["windows"]["publish"], play["windows"]["play"]
    for name, w, want in (("publish", wp, True), ("play", wq, False)):
        if want and (w["receiver"]["pictures"] < (w["wall_ms"] / 1e3) * 30 * 0.8
                     or w["receiver"]["pilot_share"] < 0.5):
            raise BenchError(f"player {name}: the receiver did not get the file ({receiver(w)})")
        if w["player_pictures"] < (w["wall_ms"] / 1e3) * 30 * 0.9:
            raise BenchError(f"player {name}: only {w['player_pictures']} pictures reached the player's canvas")
    ff_cpu, ff_wall = child_cpu_ms(["ffmpeg", *QUIET, "-re", "-i", files["movie"], "-f", "null", "-"], log)
    ff_decode = ff_cpu / movie_s
    fast = median([child_cpu_ms(["ffmpeg", *QUIET, "-i", files["movie"], "-f", "null", "-"], log)[0]
                   for _ in range(runs)]) / movie_s
    publish_rate, play_rate = rate(wp), rate(wq)
    lv = pub["local_video"]
    vstream = next(s for s in movie["streams"] if s["codec_type"] == "video")
    source = (f"{movie_s:.1f} s MP4 made by the ffmpeg CLI: testsrc2 1280x720@30 H.264 (libx264 veryfast, "
              f"{int(vstream['nb_read_packets'])} pictures, 3 Mbps, High, B-frames, gop 60) + AAC 128 kbps stereo "
              f"48 kHz (a {PLAYER_PILOT_HZ} Hz sine)")
    ratio = publish_rate / ff_decode
    figures = [
        figure("media_player_cpu_ms_per_s_720p30", round(publish_rate, 1), "ms/s",
               f"CPU of a process (every thread) whose engine is in a call and whose media player plays the {source} "
               f"and publishes it (publish_media_player_audio_track/_video_track/_id, camera and microphone 0; "
               f"the pictures encoded again: VP8 {lv['encoded_width']}x{lv['encoded_height']} at "
               f"{lv['encoder_fps']} fps, {lv['sent_kbps']} kbps sent, as reported by on_local_video_stats), canvas "
               f"bound to a counting callback ({wp['player_pictures']} pictures), audio pulled as local playout; "
               f"{wp['wall_ms'] / 1e3:.1f} s window from 1.5 s after PLAYING (position "
               f"{pub['position_ms'][0]}..{pub['position_ms'][1]} ms), N=1, {slices(wp)}; {threads(wp)} "
               f"(agoraish-mp: demux, H.264 decode on 2 threads, AAC decode, resampling, the canvas, and the VP8 "
               f"encode of the published pictures, pushed from that thread); {receiver(wp)}; publishing costs "
               f"{publish_rate - play_rate:.1f} ms/s over media_player_play_only_cpu_ms_per_s_720p30; "
               f"agoraish/ffmpeg -re decode = {ratio:.2f}"),
        figure("media_player_play_only_cpu_ms_per_s_720p30", round(play_rate, 1), "ms/s",
               f"as media_player_cpu_ms_per_s_720p30 with nothing published (the player's tracks, camera and "
               f"microphone 0; the engine still in the call): the player plays the same file to its canvas "
               f"({wq['player_pictures']} pictures) and the local playout; {wq['wall_ms'] / 1e3:.1f} s window, N=1, "
               f"{slices(wq)}; {threads(wq)}; agoraish/ffmpeg -re decode = {play_rate / ff_decode:.2f}"),
        figure("ffmpeg_decode_cpu_ms_per_s_720p30", round(ff_decode, 1), "ms/s",
               f"`ffmpeg -re -i <the same MP4> -f null -` ({version}, its default decoder threads): user + system "
               f"CPU of the child (os.wait4) / {movie_s:.1f} s of media, {ff_wall:.1f} s wall, N=1; process start "
               f"included ({startup}); the same without -re (as fast as it goes) {fast:.1f} ms/s, median of N={runs}"),
        figure("media_player_vs_ffmpeg_decode_ratio_720p30", round(ratio, 2), "x",
               f"media_player_cpu_ms_per_s_720p30 / ffmpeg_decode_cpu_ms_per_s_720p30 = {publish_rate:.1f} / "
               f"{ff_decode:.1f}: the player also encodes every picture again (VP8 720p30) and Opus, and sends; "
               f"playing only: {play_rate:.1f} / {ff_decode:.1f} = {play_rate / ff_decode:.2f}"),
    ]

    # -------------------------------------------------------------- recorder
    recorded = scratch / "media_recorded.mp4"
    rec = engine("recorder", files["yuv"], files["pcm"], recorded)
    w1, won, w2 = rec["windows"]["off0"], rec["windows"]["on0"], rec["windows"]["off1"]
    base = (rate(w1) + rate(w2)) / 2
    on_s = won["wall_ms"] / 1e3
    recorder_cost = (won["cpu_ms"] - base * on_s) / on_s
    info = probe(recorded)
    streams = {s["codec_type"]: s for s in info["streams"]}
    v, a = streams.get("video", {}), streams.get("audio", {})
    if not v or not a:
        raise BenchError(f"the recorded file lacks a stream: {sorted(streams)}")
    vdur, adur = float(v.get("duration", 0)), float(a.get("duration", 0))
    raw_frames = files["yuv"].stat().st_size // (640 * 360 * 3 // 2)
    raw_s = raw_frames / 15
    enc = median([child_cpu_ms(["ffmpeg", *QUIET, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "640x360", "-r",
                                "15", "-i", files["yuv"], "-f", "s16le", "-ar", "48000", "-ac", "1", "-i",
                                files["pcm"], "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-bf", "0",
                                "-threads", "2", "-c:a", "aac", "-b:a", "64k", "-y",
                                scratch / "media_ffmpeg_encoded.mp4"], log)[0]
                  for _ in range(runs)])
    ff_encode = enc / raw_s
    lost = round(on_s * 15) - int(v["nb_read_packets"])
    figures += [
        figure("recorder_cpu_ms_per_s_360p15", round(recorder_cost, 1), "ms/s",
               f"CPU a media recorder adds to a process whose engine sends VP8 640x360@15 ({rec['local_video']['sent_kbps']} "
               f"kbps; raw testsrc2 pictures pushed at 15 fps) and Opus (raw 48 kHz mono pushed 10 ms every 10 ms): "
               f"{rate(won):.1f} ms/s while recording uid 0 (640x360, 15 fps, 48 kHz mono, BOTH; {on_s:.1f} s from "
               f"just before start_recording to the return of stop_recording, {rec['stop_ms']:.0f} ms) minus "
               f"{base:.1f} ms/s, the mean of the {w1['wall_ms'] / 1e3:.1f} s windows before ({rate(w1):.1f}) and "
               f"after ({rate(w2):.1f}) without it, per second recorded; N=1; {slices(won)}; {threads(won)} "
               f"(agoraish-rec: x264 + AAC + MP4; the fitting copy of each picture runs in the pushing thread); "
               f"file: H.264 {v.get('width')}x{v.get('height')} {v['nb_read_packets']} pictures over {vdur:.2f} s, "
               f"AAC {adur:.2f} s"
               + (f" — {lost} pictures (~{lost / 15:.1f} s) short: RecordingSession.close() sets output to nil before "
                  f"the flush, so send(nil) returns at once and x264's delayed frames (lookahead + 2 threads) and "
                  f"AAC's last frames are never written (the CPU here lacks their final encode)" if lost > 3 else "")
               + f"; agoraish/ffmpeg = {recorder_cost / ff_encode:.2f}"),
        figure("ffmpeg_encode_cpu_ms_per_s_360p15", round(ff_encode, 1), "ms/s",
               f"`ffmpeg -f rawvideo -pix_fmt yuv420p -s 640x360 -r 15 -i <the same {raw_frames} pictures> -f s16le "
               f"-ar 48000 -ac 1 -i <the same audio> -c:v libx264 -preset veryfast -g 30 -bf 0 -threads 2 -c:a aac "
               f"-b:a 64k out.mp4` ({version}; the recorder's settings: CRF 23 by default in both), as fast as it "
               f"goes: user + system CPU of the child (os.wait4) / {raw_s:.1f} s of media, median of N={runs}; "
               f"process start included ({startup})"),
    ]

    # ---------------------------------------------------------------- mixing
    mp3 = probe(files["mp3"])
    mp3_s = float(mp3["format"]["duration"])
    pairs = ctx.repeats(MIX_PAIRS)
    mix = engine("mixing", files["mp3"], MIX_PILOT_HZ, pairs)
    offs = [mix["windows"][f"off{i}"] for i in range(pairs + 1)]
    ons = [mix["windows"][f"on{i}"] for i in range(pairs)]
    paused_pilot = max(w["receiver"]["pilot_share"] for w in offs)
    # Paused windows keep the tail of the music in the receiver's jitter buffer and playout (~0.1 s).
    if min(w["receiver"]["pilot_share"] for w in ons) < max(0.05, 2 * paused_pilot):
        raise BenchError(f"mixing: the music's {MIX_PILOT_HZ} Hz tone did not come and go at the receiver "
                         f"(playing: {[w['receiver']['pilot_share'] for w in ons]}, paused: "
                         f"{[w['receiver']['pilot_share'] for w in offs]})")
    diffs = [rate(on) - (rate(offs[i]) + rate(offs[i + 1])) / 2 for i, on in enumerate(ons)]
    mixing_cost = median(diffs)
    mix_thread = median([per_s(on, "agoraish-mix") for on in ons])
    paused_thread = max(per_s(w, "agoraish-mix") for w in offs)
    loops = max(0, round(MP3_DECODE_S / mp3_s) - 1)
    decoded_s = mp3_s * (loops + 1)
    dec = median([child_cpu_ms(["ffmpeg", *QUIET, "-stream_loop", loops, "-i", files["mp3"], "-f", "null", "-"],
                               log)[0] for _ in range(runs)])
    once = median([child_cpu_ms(["ffmpeg", *QUIET, "-i", files["mp3"], "-f", "null", "-"], log)[0]
                   for _ in range(runs)])
    ff_mp3 = dec / decoded_s
    figures += [
        figure("audio_mixing_cpu_ms_per_s", round(mixing_cost, 1), "ms/s",
               f"CPU audio mixing adds to a process whose engine publishes a speech-like signal pushed 10 ms every "
               f"10 ms (Opus, default profile) and whose playout is pulled alike, while it mixes the {mp3_s:.1f} s "
               f"MP3 (44.1 kHz stereo 128 kbps, made by the ffmpeg CLI; start_audio_mixing loopback 0, cycle -1, "
               f"opened in the warm-up) into both: median over N={pairs} playing windows of "
               f"{ons[0]['wall_ms'] / 1e3:.1f} s (resume_audio_mixing .. pause_audio_mixing) of their rate minus "
               f"the mean of the paused windows ({offs[0]['wall_ms'] / 1e3:.1f} s) either side: "
               f"{', '.join(f'{rate(on):.1f} - {(rate(offs[i]) + rate(offs[i + 1])) / 2:.1f} = {diffs[i]:.1f}' for i, on in enumerate(ons))} "
               f"ms/s (interleaved, as the engine's own rate drifts by a few ms/s over a run); agoraish-mix thread "
               f"(MP3 decode, resampling to 48 kHz, 10 ms pacing) {mix_thread:.1f} ms/s while playing, at most "
               f"{paused_thread:.2f} paused; the rest is the music mixed into the sending path and playout and "
               f"Opus coding music instead of speech with pauses; {threads(ons[0])} in the first playing window; "
               f"the music's {MIX_PILOT_HZ} Hz tone holds "
               f"{median([w['receiver']['pilot_share'] for w in ons]):.3f} of the receiver's audio energy while "
               f"playing, at most {paused_pilot:.3f} paused (the tail still in the receiver's jitter buffer); agoraish/ffmpeg = {mixing_cost / ff_mp3:.2f}"),
        figure("ffmpeg_mp3_decode_cpu_ms_per_s", round(ff_mp3, 2), "ms/s",
               f"`ffmpeg -stream_loop {loops} -i <the same MP3> -f null -` ({version}): the file decoded {loops + 1} "
               f"times in one process ({decoded_s:.0f} s of audio, output converted to s16 by the null muxer's "
               f"pcm_s16le), user + system CPU of the child (os.wait4) / {decoded_s:.0f} s, median of N={runs}; one "
               f"pass (`ffmpeg -i file -f null -`, {mp3_s:.1f} s) costs {once:.0f} ms = {once / mp3_s:.1f} ms/s, "
               f"mostly the process start ({startup})"),
    ]
    return figures
