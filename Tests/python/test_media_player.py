"""The media player of ABI 0.13 from Python (Agora's IMediaPlayer).

Published: engine A plays a file with its media player and publishes the
player's audio and pictures (ChannelMediaOptions publish_media_player_*);
engine B in the same channel (embedded server) pulls what it hears from its
external sink and renders what it sees through a remote canvas. A pump pulls
both sinks in real time, as sound cards would. A remote user hears each file's
tone (MP3, AAC, Ogg/Opus, WAV, FLAC, MP4, WebM, MKV) at its frequency and sees
its pictures; pause stops both; mute and the two volumes act where they should.

Local: players of engines in no channel, watched through their observers
(source observer, audio and video frame observers, the view): states and
stream information, seeks, loops, speed, positions, alpha, audio tracks,
network sources (http://, HLS, rtmp:// from nginx), bad files and dead URLs
with their reasons, 100 opens without leaks, and the argument checks.

The media are made with the ffmpeg CLI once per session (media_support.py).
Every wait is for an event, a frame count or a heard tone, with a timeout.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Iterator, Tuple

import numpy
import pytest

import agoraish
from agoraish import AgoraishError, ChannelMediaOptions
from media_support import (
    ALPHA,
    ALPHA_YUVA,
    APP,
    BAD_FILES,
    FASTSTART,
    FORMATS,
    FPS,
    HEIGHT,
    LONG,
    RATE,
    SHORT,
    STEPS,
    TIMEOUT,
    TRACKS,
    WIDTH,
    AudioFrames,
    EngineEvents,
    MediaHttpServer,
    PlayerEvents,
    Pump,
    RtmpServer,
    VideoFrames,
    dominant_frequency,
    expect_error,
    free_port,
    media_files,
    near,
    nginx_rtmp_missing,
    open_fds,
    open_source,
    play_and_wait,
    poll,
    quiet_engine,
    rms_dbfs,
    rss_kb,
    tone_dbfs,
)

S = agoraish.MediaPlayerState
R = agoraish.MediaPlayerReason
E = agoraish.MediaPlayerEvent
SENDER, RECEIVER = 1, 2
CHANNEL = "media-player"


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    return media_files(tmp_path_factory)


# --------------------------------------------------------------------------
# Players of an engine in no channel
# --------------------------------------------------------------------------


class Local:
    """An engine in no channel with one media player and its observer."""

    def __init__(self, tmp: Path) -> None:
        self.engine = quiet_engine(tmp, "local", EngineEvents())
        self.player = self.engine.create_media_player()
        self.events = PlayerEvents()
        self.player.register_player_source_observer(self.events)

    def open(self, url: str, start_pos: int = 0, timeout: float = TIMEOUT) -> Tuple[int, int]:
        return open_source(self.player, self.events, url, start_pos, timeout)

    def open_ok(self, url: str, start_pos: int = 0, timeout: float = TIMEOUT) -> None:
        state, reason = self.open(url, start_pos, timeout)
        assert (state, reason) == (S.OPEN_COMPLETED, R.NONE), (state, reason, self.events.states())

    def play(self) -> None:
        play_and_wait(self.player, self.events)


@pytest.fixture
def local(tmp_path) -> Iterator[Local]:
    loc = Local(tmp_path)
    try:
        yield loc
    finally:
        loc.engine.release()


# --------------------------------------------------------------------------
# Published: A plays and publishes, B hears and sees
# --------------------------------------------------------------------------


class PlayerCall:
    """A publishes its media player's audio and pictures; B receives them."""

    def __init__(self, tmp: Path) -> None:
        self.server = agoraish.ChannelServer()
        self.server.start()
        self.events_a, self.events_b = EngineEvents(), EngineEvents()
        self.a = agoraish.RtcEngine(APP, self.events_a, server_url=self.server.url, log_file=str(tmp / "a.log"))
        self.b = agoraish.RtcEngine(APP, self.events_b, server_url=self.server.url, log_file=str(tmp / "b.log"))
        self.a.set_external_audio_sink(True, RATE, 1)  # A's local playout (the player's audio)
        self.a.enable_video()
        self.a.set_video_encoder_configuration(WIDTH, HEIGHT, frame_rate=FPS, bitrate=500)
        self.player = self.a.create_media_player()
        self.player_events = PlayerEvents()
        self.player.register_player_source_observer(self.player_events)
        self.b.enable_local_audio(False)
        self.b.set_external_audio_sink(True, RATE, 1)
        self.b.enable_video()
        self.pictures = VideoFrames()
        self.b.setup_remote_video(SENDER, self.pictures)
        self.a.join_channel_with_options(None, CHANNEL, SENDER, ChannelMediaOptions(
            publish_microphone_track=False, publish_camera_track=False,
            publish_media_player_audio_track=True, publish_media_player_video_track=True,
            publish_media_player_id=self.player.id))
        self.b.join_channel(None, CHANNEL, uid=RECEIVER)
        self.events_a.log.wait_for("join")
        self.events_b.log.wait_for("join")
        self.events_b.log.wait_for("user_joined", lambda uid: uid == SENDER)
        self.events_a.log.wait_for("user_joined", lambda uid: uid == RECEIVER)
        self.pump = Pump({"a": self.a, "b": self.b}).start()

    def open_and_play(self, url: str) -> None:
        state = open_source(self.player, self.player_events, url)
        assert state == (S.OPEN_COMPLETED, R.NONE), (state, self.player_events.states())
        play_and_wait(self.player, self.player_events)

    def close(self) -> None:
        self.pump.stop()
        for engine in (self.a, self.b):
            engine.release()
        self.server.release()


@pytest.fixture(scope="class")
def call(tmp_path_factory, media) -> Iterator[PlayerCall]:
    c = PlayerCall(tmp_path_factory.mktemp("player-call"))
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def published(call) -> Iterator[PlayerCall]:
    """The call, with the player stopped and its settings put back afterwards."""
    yield call
    player = call.player
    mark = call.player_events.log.mark()
    player.stop()
    call.player_events.wait_state(S.STOPPED, after=mark)
    for undo in (lambda: player.set_loop_count(0), lambda: player.set_playback_speed(100),
                 lambda: player.mute(False), lambda: player.adjust_playout_volume(100),
                 lambda: player.adjust_publish_signal_volume(100)):
        try:
            undo()
        except AgoraishError:
            pass


class TestPublished:
    """A publishes its player; B hears and sees it (one call for the class)."""

    @pytest.mark.parametrize("fmt", list(FORMATS))
    def test_a_published_file_is_heard_remotely_and_played_locally(self, published, media, fmt):
        tone = FORMATS[fmt]
        before = published.pictures.count()
        published.open_and_play(media.path(tone.name))
        published.pump.wait_tone("b", tone.frequency, f"{tone.name} at the remote user")
        heard = published.pump.collect(800)
        for where in ("b", "a"):  # the remote user, and A's own playout (its external sink)
            frequency = dominant_frequency(heard[where])
            assert near(frequency, tone.frequency), f"{where} heard {frequency:.1f} Hz of {tone.name}"
            assert tone_dbfs(heard[where], tone.frequency) > -30, f"{where}: {rms_dbfs(heard[where]):.1f} dBFS"
        if tone.video:
            frames = published.pictures.wait(before + 15)[before:]
            assert all((f["uid"], f["width"], f["height"]) == (SENDER, WIDTH, HEIGHT) for f in frames), frames[-1]
            assert len({f["luma_sig"] for f in frames[-10:]}) >= 5, "the test picture moves"
            assert all(f["alpha"] is None for f in frames), "remote pictures have no alpha"

    def test_pause_stops_the_sound_and_the_pictures_and_resume_brings_them_back(self, published, media):
        player, events, pump, pictures = published.player, published.player_events, published.pump, published.pictures
        published.open_and_play(media.path(FORMATS["mp4"].name))
        pump.wait_tone("b", 1000, "the movie's tone")
        pictures.wait(pictures.count() + 5)

        mark = events.log.mark()
        player.pause()
        events.wait_state(S.PAUSED, after=mark)
        assert player.get_state() == S.PAUSED
        paused_at = player.get_play_position()
        pump.wait_silence("b", "silence at the remote user while paused")
        count = pictures.count()
        quiet = pump.collect(600)
        assert rms_dbfs(quiet["b"]) < -50 and rms_dbfs(quiet["a"]) < -50, "neither published nor played while paused"
        assert pictures.count() - count <= 1, "no pictures while paused"
        assert abs(player.get_play_position() - paused_at) <= 20, "the position holds while paused"

        mark = events.log.mark()
        count = pictures.count()
        player.resume()
        events.wait_state(S.PLAYING, after=mark)
        pump.wait_tone("b", 1000, "the movie's tone after resume")
        pictures.wait(count + 5)
        assert player.get_play_position() > paused_at

    def test_mute_and_the_two_volumes_act_where_they_should(self, published, media):
        player, pump = published.player, published.pump
        player.set_loop_count(-1)
        published.open_and_play(media.path(LONG.name))
        pump.wait_tone("b", 1000)
        level = tone_dbfs(pump.heard("a", 500), 1000)

        assert player.get_mute() is False
        player.mute(True)
        assert player.get_mute() is True
        pump.wait_silence("b", "muted: silence at the remote user")
        assert rms_dbfs(pump.heard("a", 300)) < -50, "muted: not played locally either"
        player.mute(False)
        assert player.get_mute() is False
        pump.wait_tone("b", 1000, "unmuted")

        assert player.get_publish_signal_volume() == 100 and player.get_playout_volume() == 100
        player.adjust_publish_signal_volume(0)
        assert player.get_publish_signal_volume() == 0
        pump.wait_silence("b", "publish volume 0: silence at the remote user")
        assert tone_dbfs(pump.heard("a", 300), 1000) > level - 1.5, "publish volume 0: still played locally"
        player.adjust_publish_signal_volume(100)
        pump.wait_tone("b", 1000, "publish volume 100")

        player.adjust_playout_volume(0)
        assert player.get_playout_volume() == 0
        pump.wait_silence("a", "playout volume 0: silence locally")
        assert tone_dbfs(pump.heard("b", 300), 1000) > -30, "playout volume 0: still published"
        player.adjust_playout_volume(50)
        assert player.get_playout_volume() == 50
        pump.wait_until("a", lambda s: tone_dbfs(s, 1000) > level - 12, "playout volume 50")
        half = pump.heard("a", 500)
        assert abs(tone_dbfs(half, 1000) - (level - 6.02)) < 1.5, (level, tone_dbfs(half, 1000))

    def test_the_camera_and_the_player_video_at_once_are_refused(self, published):
        camera = ChannelMediaOptions(publish_camera_track=True)
        try:
            expect_error(-2, lambda: published.a.update_channel_media_options(camera))
        finally:
            published.a.update_channel_media_options(ChannelMediaOptions(
                publish_camera_track=False, publish_media_player_video_track=True,
                publish_media_player_id=published.player.id))


# --------------------------------------------------------------------------
# States, stream information, stop
# --------------------------------------------------------------------------


def test_open_reports_its_states_and_the_streams(local, media):
    player = local.player
    assert player.get_state() == S.IDLE
    assert player.id >= 1 and player.get_media_player_id() == player.id
    local.open_ok(media.path(FORMATS["mp4"].name))
    assert player.get_state() == S.OPEN_COMPLETED
    assert abs(player.get_duration() - 4000) <= 100
    assert player.get_play_position() == 0
    assert player.get_stream_count() == 2
    infos = [player.get_stream_info(i) for i in range(2)]
    assert all(isinstance(info, agoraish.PlayerStreamInfo) for info in infos)
    video = next(info for info in infos if info.stream_type == agoraish.MediaStreamType.VIDEO)
    audio = next(info for info in infos if info.stream_type == agoraish.MediaStreamType.AUDIO)
    assert [info.stream_index for info in infos] == [0, 1]
    assert (video.codec_name, video.video_width, video.video_height, video.video_frame_rate) == ("h264", WIDTH, HEIGHT, FPS)
    assert video.video_rotation == 0 and abs(video.duration - 4000) <= 100
    assert (audio.codec_name, audio.audio_sample_rate, audio.audio_channels, audio.audio_bits_per_sample) == (
        "aac", RATE, 1, 0)
    assert abs(audio.duration - 4000) <= 100
    expect_error(-2, lambda: player.get_stream_info(2))
    expect_error(-2, lambda: player.get_stream_info(-1))

    local.open_ok(media.path(FORMATS["wav"].name))  # opening again replaces the source
    assert player.get_stream_count() == 1
    wav = player.get_stream_info(0)
    assert (wav.stream_type, wav.codec_name, wav.audio_bits_per_sample, wav.audio_channels) == (
        agoraish.MediaStreamType.AUDIO, "pcm_s16le", 16, 1)
    assert abs(player.get_duration() - 3000) <= 50

    local.open_ok(media.path(TRACKS.name))
    tracks = [player.get_stream_info(i) for i in range(player.get_stream_count())]
    assert [(t.stream_type, t.codec_name, t.language) for t in tracks] == [
        (agoraish.MediaStreamType.AUDIO, "opus", "eng"), (agoraish.MediaStreamType.AUDIO, "opus", "fra")]
    states = local.events.states()
    assert all(state in (S.OPENING, S.OPEN_COMPLETED) for state, _ in states), states
    events = local.events.log.events
    assert all(e.thread.startswith("agoraish-ev") for e in events), {e.thread for e in events}


def test_stop_closes_the_source(local, media):
    player = local.player
    audio = AudioFrames()
    player.register_audio_frame_observer(audio)
    local.open_ok(media.path(FORMATS["mp4"].name))
    local.play()
    audio.wait_heard(1000)
    mark = local.events.log.mark()
    player.stop()
    assert local.events.wait_state(S.STOPPED, after=mark) == (S.STOPPED, R.NONE)
    assert player.get_state() == S.STOPPED
    expect_error(-8, player.get_duration)
    expect_error(-8, player.play)
    count = audio.count()
    time.sleep(0.3)  # nothing to wait for: no frame may come
    assert audio.count() - count <= 1, "no audio after stop"
    local.open_ok(media.path(FORMATS["mp4"].name))  # a stopped player opens again
    local.play()
    audio.wait_heard(1000)


# --------------------------------------------------------------------------
# Seek, start position, loops, speed, positions
# --------------------------------------------------------------------------


def test_seek_lands_within_100_ms(local, media):
    player, events = local.player, local.events
    audio = AudioFrames()
    player.register_audio_frame_observer(audio)
    local.open_ok(media.path(STEPS.name))  # 440 Hz up to 2 s, 1000 Hz after
    local.play()
    audio.wait_heard(440)

    # Paused: the position is where the seek went.
    mark = events.log.mark()
    player.pause()
    events.wait_state(S.PAUSED, after=mark)
    mark = events.log.mark()
    player.seek(2500)
    begin = events.wait_event(E.SEEK_BEGIN, after=mark)
    complete = events.wait_event(E.SEEK_COMPLETE, after=mark)
    assert begin.index < complete.index
    position = player.get_play_position()
    assert abs(position - 2500) <= 100, position
    assert abs(complete.args[1] - 2500) <= 100, f"SEEK_COMPLETE carries the position: {complete.args}"
    count = audio.count()
    player.resume()
    events.wait_state(S.PLAYING, after=mark)
    after = audio.samples(count + 3, count + 23)
    assert near(dominant_frequency(after), 1000), "what plays after the seek is the audio at 2.5 s"

    # Playing: the position after SEEK_COMPLETE has moved on by the time since.
    mark = events.log.mark()
    player.seek(500)
    complete = events.wait_event(E.SEEK_COMPLETE, after=mark)
    position = player.get_play_position()
    since = (time.monotonic() - complete.at) * 1000
    assert 400 <= position <= 600 + since, (position, since)
    audio.wait_heard(440, timeout=2)


def test_open_at_a_start_position(local, media):
    audio = AudioFrames()
    local.player.register_audio_frame_observer(audio)
    local.open_ok(media.path(STEPS.name), start_pos=2500)
    assert abs(local.player.get_play_position() - 2500) <= 100
    local.play()
    assert near(dominant_frequency(audio.samples(3, 23)), 1000), "playing starts at 2.5 s"


@pytest.mark.parametrize("loops", [0, 2])
def test_loop_count_plays_the_file_n_plus_one_times(local, media, loops):
    player, events = local.player, local.events
    audio = AudioFrames()
    player.register_audio_frame_observer(audio)
    local.open_ok(media.path(SHORT.name))  # 1 s of 1000 Hz
    player.set_loop_count(loops)
    mark = events.log.mark()
    player.play()
    playing = events.log.wait_for("state", lambda s, r: s == S.PLAYING, after=mark)
    events.log.wait_for("completed", after=mark, timeout=(loops + 1) * 1.0 + TIMEOUT)
    done = events.log.wait_for("state", lambda s, r: s == S.PLAYBACK_ALL_LOOPS_COMPLETED, after=mark)
    states = events.states(mark)
    assert states[-2:] == [(S.PLAYBACK_COMPLETED, R.NONE), (S.PLAYBACK_ALL_LOOPS_COMPLETED, R.NONE)], states
    assert [s for s, _ in states].count(S.PLAYBACK_ALL_LOOPS_COMPLETED) == 1
    assert not any(s == S.FAILED for s, _ in states), states
    assert len(events.log.all("completed", mark)) == 1
    plays = loops + 1
    elapsed = done.at - playing.at
    assert plays * 0.9 <= elapsed <= plays + 0.7, f"{plays} plays of 1 s took {elapsed:.2f} s"
    loud = sum(1 for f in audio.frames if rms_dbfs(numpy.frombuffer(f[4], numpy.int16)) > -30)
    assert abs(loud - plays * 100) <= 12, f"{loud} loud 10 ms frames for {plays} plays of 1 s"
    assert player.get_state() == S.PLAYBACK_ALL_LOOPS_COMPLETED

    if loops == 0:  # play() after the last loop starts again from the start
        mark = events.log.mark()
        player.play()
        events.wait_state(S.PLAYING, after=mark)
        assert player.get_play_position() < 500
        events.log.wait_for("completed", after=mark)


def test_loop_count_minus_one_plays_until_stopped(local, media):
    player, events = local.player, local.events
    audio = AudioFrames()
    player.register_audio_frame_observer(audio)
    local.open_ok(media.path(SHORT.name))
    player.set_loop_count(-1)
    mark = events.log.mark()
    player.play()
    audio.wait(260)  # 2.6 s: two ends of the 1 s file passed
    assert player.get_state() == S.PLAYING
    assert player.get_play_position() < 1000
    assert not events.log.all("completed", mark)
    assert S.PLAYBACK_ALL_LOOPS_COMPLETED not in [s for s, _ in events.states(mark)]
    player.stop()
    events.wait_state(S.STOPPED, after=mark)


def test_playback_speed_changes_the_position_rate_and_keeps_the_pitch(local, media):
    player = local.player
    audio = AudioFrames()
    player.register_audio_frame_observer(audio)
    local.open_ok(media.path(LONG.name))  # 6 s of 1000 Hz
    local.play()
    audio.wait(audio.count() + 30)

    def rate() -> float:
        """Position ms per wall ms over about a second (100 frames of the player's audio)."""
        p0, t0 = player.get_play_position(), time.monotonic()
        audio.wait(audio.count() + 100)
        return (player.get_play_position() - p0) / ((time.monotonic() - t0) * 1000)

    normal = rate()
    assert abs(normal - 1.0) <= 0.12, normal
    player.set_playback_speed(200)
    audio.wait(audio.count() + 20)  # the change takes effect
    n = audio.count()
    double = rate()
    assert abs(double - 2.0) <= 0.25, double
    assert near(dominant_frequency(audio.samples(n, n + 50)), 1000), "time stretching keeps the pitch"
    player.set_playback_speed(50)
    audio.wait(audio.count() + 20)
    half = rate()
    assert abs(half - 0.5) <= 0.08, half
    expect_error(-2, lambda: player.set_playback_speed(29))
    expect_error(-2, lambda: player.set_playback_speed(401))


def test_position_and_buffer_are_reported_every_second(local, media):
    local.open_ok(media.path(LONG.name))
    mark = local.events.log.mark()
    local.play()
    local.events.log.wait_for("position", lambda p, t: p >= 2000, after=mark, timeout=TIMEOUT)
    positions = local.events.log.args("position", mark)
    assert len(positions) >= 2, positions
    ps, ts = [p for p, _ in positions], [t for _, t in positions]
    assert all(b > a for a, b in zip(ps, ps[1:])) and all(b > a for a, b in zip(ts, ts[1:])), positions
    assert all(700 <= b - a <= 1300 for a, b in zip(ts, ts[1:])), f"every second: {positions}"
    assert all(abs((pb - pa) - (tb - ta)) <= 150 for (pa, ta), (pb, tb) in zip(positions, positions[1:])), positions
    buffers = local.events.log.args("buffer", mark)
    assert buffers and all(b >= 0 for (b,) in buffers), buffers


# --------------------------------------------------------------------------
# Frame observers, the view, alpha, audio tracks
# --------------------------------------------------------------------------


def test_frame_observers_and_the_view_get_the_pictures_and_sound(local, media):
    player, events = local.player, local.events
    audio, video, view = AudioFrames(), VideoFrames(), VideoFrames()
    player.register_audio_frame_observer(audio)
    player.register_video_frame_observer(video)
    player.set_view(view)
    local.open_ok(media.path(FORMATS["mp4"].name))
    mark = events.log.mark()
    local.play()
    frames = audio.wait(100)
    pictures = video.wait(15)
    shown = view.wait(20)

    assert all(f[1:4] == (RATE, 2, RATE // 100) for f in frames), "10 ms at 48 kHz stereo"
    assert all(f[5].startswith("agoraish-mp") for f in frames), {f[5] for f in frames}
    assert near(dominant_frequency(audio.samples(20, 100)), 1000)
    assert all((p["width"], p["height"], p["alpha"]) == (WIDTH, HEIGHT, None) for p in pictures)
    assert all(p["thread"].startswith("agoraish-mp") for p in pictures + shown)
    assert all((s["uid"], s["width"], s["height"]) == (0, WIDTH, HEIGHT) for s in shown), shown[0]
    assert len({s["luma_sig"] for s in shown}) >= 10, "the pictures move"
    span = shown[19]["at"] - shown[5]["at"]
    assert 14 / FPS * 0.75 <= span <= 14 / FPS * 1.4, f"15 pictures in {span:.2f} s: shown at the file's rate"
    first = events.wait_event(E.FIRST_DISPLAYED, after=mark)
    assert first.thread.startswith("agoraish-ev")
    assert len([e for e in events.log.all("event", mark) if e.args[0] == E.FIRST_DISPLAYED]) == 1

    small = VideoFrames()
    player.set_view(small, view_width=160, view_height=120)
    assert all((s["width"], s["height"]) == (160, 120) for s in small.wait(3)), "fitted to the view size"
    player.set_view(None)
    player.register_video_frame_observer(None)
    player.register_audio_frame_observer(None)
    counts = small.count(), video.count(), audio.count(), view.count()
    position = player.get_play_position()
    assert poll(lambda: player.get_play_position() >= position + 400), "the player plays on"
    assert (small.count(), video.count(), audio.count(), view.count()) == counts, "nothing after unbinding"


def test_an_alpha_channel_reaches_the_view_and_the_video_observer(local, media):
    player = local.player
    video, view = VideoFrames(), VideoFrames()
    player.register_video_frame_observer(video)
    player.set_view(view)
    local.open_ok(media.path(ALPHA.name))
    local.play()
    y, u, v, a = ALPHA_YUVA
    for frames in (video.wait(5), view.wait(5)):
        for f in frames:
            assert (f["width"], f["height"]) == (WIDTH, HEIGHT)
            assert isinstance(f["alpha"], bytes) and len(f["alpha"]) == WIDTH * HEIGHT, "alpha: width * height bytes"
            alpha = numpy.frombuffer(f["alpha"], numpy.uint8)
            assert abs(float(alpha.mean()) - a) <= 4 and int(alpha.max()) - int(alpha.min()) <= 8, "50 % everywhere"
            assert abs(f["luma_mean"] - y) <= 5 and abs(f["u_mean"] - u) <= 5 and abs(f["v_mean"] - v) <= 5, f


def test_select_audio_track_switches_what_is_heard(local, media):
    player, events = local.player, local.events
    audio = AudioFrames()
    player.register_audio_frame_observer(audio)
    local.open_ok(media.path(TRACKS.name))
    local.play()
    audio.wait_heard(440)  # the first track
    expect_error(-2, lambda: player.select_audio_track(5))
    mark = events.log.mark()
    player.select_audio_track(1)
    events.wait_event(E.AUDIO_TRACK_CHANGED, after=mark)
    audio.wait_heard(1000, timeout=3)
    player.select_audio_track(0)
    audio.wait_heard(440, timeout=3)


# --------------------------------------------------------------------------
# Network sources: http://, HLS, rtmp://
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def http_server(media) -> Iterator[MediaHttpServer]:
    server = MediaHttpServer(media.root)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def rtmp(tmp_path_factory, media) -> Iterator[str]:
    missing = nginx_rtmp_missing()
    if missing:
        pytest.skip(missing)
    server = RtmpServer(tmp_path_factory.mktemp("nginx"))
    try:
        yield server.publish(media.path(FORMATS["mp4"].name))
    finally:
        server.close()


def play_network_source(local: Local, url: str, frequency: float = 1000, timeout: float = TIMEOUT) -> VideoFrames:
    """Opens and plays `url` on a local player; checks its tone and pictures arrive; returns the pictures."""
    audio, video = AudioFrames(), VideoFrames()
    local.player.register_audio_frame_observer(audio)
    local.player.register_video_frame_observer(video)
    local.open_ok(url, timeout=timeout)
    local.play()
    audio.wait_heard(frequency)
    frames = video.wait(10)
    assert all((f["width"], f["height"]) == (WIDTH, HEIGHT) for f in frames)
    return video


def test_a_file_over_http_plays_to_the_end(local, http_server):
    url = http_server.url(FORMATS["mp4"].name)
    mark = local.events.log.mark()
    play_network_source(local, url)
    assert abs(local.player.get_duration() - 4000) <= 100
    assert local.player.get_stream_count() == 2
    local.events.log.wait_for("completed", after=mark)
    assert local.events.states(mark)[-1] == (S.PLAYBACK_ALL_LOOPS_COMPLETED, R.NONE)


def test_an_hls_playlist_over_http_plays(local, http_server):
    url = http_server.url("hls/index.m3u8")
    play_network_source(local, url)
    assert abs(local.player.get_duration() - 4000) <= 250, "a VOD playlist has a duration"
    assert any(path.endswith(".ts") for path in http_server.requests), "the segments were fetched"


@pytest.mark.skipif(nginx_rtmp_missing() is not None, reason=str(nginx_rtmp_missing()))
def test_an_rtmp_stream_from_nginx_plays(local, rtmp):
    play_network_source(local, rtmp, timeout=20)
    assert local.player.get_duration() == 0, "a live source has no duration"
    mark = local.events.log.mark()
    local.player.seek(1000)
    local.events.wait_event(E.SEEK_ERROR, after=mark)
    assert local.player.get_state() == S.PLAYING


# --------------------------------------------------------------------------
# Bad files and dead URLs
# --------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(BAD_FILES))
def test_a_bad_file_fails_with_its_reason(local, media, key):
    _, reason = BAD_FILES[key]
    assert local.open(media.bad(key)) == (S.FAILED, R[reason])
    assert local.player.get_state() == S.FAILED
    expect_error(-8, local.player.play)
    expect_error(-8, local.player.get_duration)
    local.open_ok(media.path(FORMATS["wav"].name))  # the player is still usable


@pytest.mark.parametrize("kind", ["http_404", "http_refused", "rtmp_refused"])
def test_a_dead_url_fails_with_url_not_found(local, http_server, kind):
    url = {
        "http_404": http_server.url("no-such-file.mp4"),
        "http_refused": f"http://127.0.0.1:{free_port()}/movie.mp4",
        "rtmp_refused": f"rtmp://127.0.0.1:{free_port()}/live/stream",
    }[kind]
    assert local.open(url) == (S.FAILED, R.URL_NOT_FOUND)
    assert local.player.get_state() == S.FAILED


def test_a_server_that_never_answers_fails_with_interrupted(local, http_server):
    started = time.monotonic()
    assert local.open(http_server.url("stall/movie.mp4"), timeout=20) == (S.FAILED, R.INTERRUPTED)
    assert time.monotonic() - started <= 16, "the read times out"


def test_a_download_that_stalls_midway_fails_with_interrupted(local, http_server):
    # Half of the file arrives (its header first), then nothing more.
    audio = AudioFrames()
    local.player.register_audio_frame_observer(audio)
    local.open_ok(http_server.url(f"half/{FASTSTART.name}"))
    mark = local.events.log.mark()
    local.play()
    audio.wait_heard(1000)
    assert local.events.wait_state(S.FAILED, after=mark, timeout=20) == (S.FAILED, R.INTERRUPTED)
    low = local.events.log.find("event", lambda e, elapsed, message: e == E.BUFFER_LOW, after=mark)
    assert low is not None, "the audio ran out before the failure"


def test_a_hundred_opens_leak_no_descriptors_threads_or_memory(local, media):
    bad, good = media.bad("random_bytes"), media.path(FORMATS["mp4"].name)

    def cycle(count: int) -> None:
        for _ in range(count):
            assert local.open(bad) == (S.FAILED, R.INVALID_MEDIA_SOURCE)
            assert local.open(good) == (S.OPEN_COMPLETED, R.NONE)

    def threads() -> int:
        return len(list(Path("/proc/self/task").iterdir()))

    cycle(10)  # warm up: caches, lazily made threads
    before = open_fds(), threads(), rss_kb()
    for _ in range(10):
        cycle(10)
    after = open_fds(), threads(), rss_kb()
    assert after[0] - before[0] <= 2, f"open descriptors {before[0]} -> {after[0]}"
    assert after[1] - before[1] <= 1, f"threads {before[1]} -> {after[1]}"
    assert after[2] - before[2] <= 16 * 1024, f"RSS {before[2]} KiB -> {after[2]} KiB"
    local.play()  # still works
    assert local.player.get_state() == S.PLAYING


# --------------------------------------------------------------------------
# Players: ids, limits, arguments
# --------------------------------------------------------------------------


def test_arguments_and_states_are_checked(local, media):
    player = local.player
    # Nothing opened yet.
    for call in (player.play, player.pause, player.resume, lambda: player.seek(0), player.get_duration,
                 player.get_play_position, player.get_stream_count, lambda: player.get_stream_info(0),
                 lambda: player.select_audio_track(0)):
        expect_error(-8, call)
    player.stop()  # allowed in any state
    assert player.get_state() in (S.IDLE, S.STOPPED)
    for call in (lambda: player.open(""), lambda: player.open(None), lambda: player.open("x" * 4096),
                 lambda: player.open(media.path(FORMATS["wav"].name), -1),
                 lambda: player.set_loop_count(-2), lambda: player.set_playback_speed(0),
                 lambda: player.adjust_playout_volume(-1), lambda: player.adjust_playout_volume(401),
                 lambda: player.adjust_publish_signal_volume(-1), lambda: player.adjust_publish_signal_volume(401),
                 lambda: player.set_render_mode(5), lambda: player.set_render_mode(-1)):
        expect_error(-2, call)
    player.adjust_playout_volume(400)
    assert player.get_playout_volume() == 400
    player.adjust_publish_signal_volume(0)
    assert player.get_publish_signal_volume() == 0
    for mode in (1, 2, 4):
        player.set_render_mode(mode)
    local.open_ok(media.path(FORMATS["mp4"].name))
    expect_error(-2, lambda: player.seek(-1))
    expect_error(-8, player.pause)  # opened, not playing
    expect_error(-8, player.resume)
    video_index = next(i for i in range(2) if player.get_stream_info(i).stream_type == agoraish.MediaStreamType.VIDEO)
    expect_error(-2, lambda: player.select_audio_track(video_index))
    local.play()
    expect_error(-8, player.resume)  # playing, not paused


def test_players_are_named_by_id_up_to_sixteen(local, media):
    engine = local.engine
    players = [local.player] + [engine.create_media_player() for _ in range(15)]
    ids = [p.id for p in players]
    assert len(set(ids)) == 16 and min(ids) >= 1
    expect_error(-5, engine.create_media_player)
    engine.destroy_media_player(players[3].id)  # by id
    players[4].destroy()  # by the player itself
    engine.destroy_media_player(players[5])  # by the player object
    again = engine.create_media_player()
    assert again.id >= 1
    for gone in players[3:6]:
        expect_error(-2, gone.play)
        expect_error(-2, lambda: gone.open(media.path(FORMATS["wav"].name)))
        expect_error(-2, gone.get_state)
        expect_error(-2, gone.get_mute)
        expect_error(-2, lambda: gone.register_player_source_observer(None))
        expect_error(-2, lambda: gone.set_view(None))
    expect_error(-2, lambda: engine.destroy_media_player(players[3].id))
    expect_error(-2, lambda: engine.destroy_media_player(9999))
    expect_error(-2, lambda: engine.destroy_media_player(0))


def test_a_player_destroyed_while_playing_calls_nothing_more(local, media):
    player, events = local.player, local.events
    audio, video = AudioFrames(), VideoFrames()
    player.register_audio_frame_observer(audio)
    player.register_video_frame_observer(video)
    local.open_ok(media.path(FORMATS["webm"].name))
    local.play()
    audio.wait(20)
    video.wait(3)
    player.destroy()
    counts = audio.count(), video.count(), events.log.mark()
    other = local.engine.create_media_player()  # a clock: a second player plays on
    other_events = PlayerEvents()
    other.register_player_source_observer(other_events)
    state = open_source(other, other_events, media.path(SHORT.name))
    assert state == (S.OPEN_COMPLETED, R.NONE)
    mark = other_events.log.mark()
    other.play()
    other_events.log.wait_for("completed", after=mark)
    assert (audio.count(), video.count(), events.log.mark()) == counts, "no callback after destroy returned"
    expect_error(-2, player.get_state)


def test_a_released_engine_refuses_its_players(tmp_path, media):
    loc = Local(tmp_path)
    loc.open_ok(media.path(FORMATS["mp4"].name))
    loc.play()
    loc.engine.release()  # with a player playing
    expect_error(-7, loc.player.get_state)
    expect_error(-7, loc.player.play)
    expect_error(-7, loc.engine.create_media_player)
