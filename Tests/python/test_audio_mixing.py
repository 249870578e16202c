"""Audio mixing and audio effects of ABI 0.13 from Python (Agora's
startAudioMixing / playEffect families).

Engine A sends a 1 kHz "microphone" tone through its external audio source
and plays music (a 440 Hz MP3) or effects (a 660 Hz WAV); engine B, in the
same channel through an embedded server, pulls what it hears from its
external sink, and A's own external sink gives A's local playout. A pump
pushes and pulls every 10 ms in real time, as sound cards would.

Checked: the remote user hears the microphone (or a custom audio track) and
the music together; loopback keeps the music local; the publish and playout
volumes act on their side only; pitch +12 / -12 semitones doubles / halves
the frequency; speed changes the position's rate, not the pitch; the mixing
states and reasons (loops, pause, resume, stop, a file that cannot open, a
start too soon); effects are heard remotely only with publish=True, finish
with on_audio_effect_finished, loop, pause, move, and pitch 2.0 doubles
their frequency; and the argument checks.

The media are made with the ffmpeg CLI once per session (media_support.py).
Every wait is for an event or a heard tone, with a timeout.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import pytest

import agoraish
from agoraish import AgoraishError, ChannelMediaOptions
from media_support import (
    APP,
    EFFECT,
    LONG,
    MUSIC,
    RATE,
    SHORT,
    STEPS,
    TIMEOUT,
    EngineEvents,
    Pump,
    dominant_frequency,
    expect_error,
    media_files,
    near,
    peak_frequency,
    poll,
    quiet_engine,
    rms_dbfs,
    tone_dbfs,
)

MS = agoraish.AudioMixingState
MR = agoraish.AudioMixingReason
SENDER, RECEIVER = 1, 2
MIC = 1000  # the tone A's "microphone" sends
#: The shortest time between two starts of audio mixing (a start sooner is refused: TOO_FREQUENT_CALL).
START_INTERVAL = 0.5


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    return media_files(tmp_path_factory)


def join_pair(tmp: Path, channel: str, a_options: Any = None):
    """Server, A (external sink; `a_options` for its join) and B (listens only), joined and seeing each other."""
    server = agoraish.ChannelServer()
    server.start()
    events_a, events_b = EngineEvents(), EngineEvents()
    a = agoraish.RtcEngine(APP, events_a, server_url=server.url, log_file=str(tmp / f"{channel}-a.log"))
    b = agoraish.RtcEngine(APP, events_b, server_url=server.url, log_file=str(tmp / f"{channel}-b.log"))
    a.set_external_audio_sink(True, RATE, 1)
    b.enable_local_audio(False)
    b.set_external_audio_sink(True, RATE, 1)
    return server, (a, events_a), (b, events_b)


class MixCall:
    """A sends the microphone tone (external source) and mixes music and effects in; B listens."""

    def __init__(self, tmp: Path) -> None:
        self.server, (self.a, self.events_a), (self.b, self.events_b) = join_pair(tmp, "mixing")
        self.a.set_external_audio_source(True, RATE, 1)
        self.a.join_channel(None, "mixing", uid=SENDER)
        self.b.join_channel(None, "mixing", uid=RECEIVER)
        self.events_a.log.wait_for("join")
        self.events_b.log.wait_for("join")
        self.events_b.log.wait_for("user_joined", lambda uid: uid == SENDER)
        self.pump = Pump({"a": self.a, "b": self.b}, source=self.a, tone=MIC).start()
        self.last_start = 0.0

    def start_mixing(self, path: str, **kwargs: Any) -> int:
        """start_audio_mixing, no sooner than START_INTERVAL after the previous start; returns the event mark."""
        delay = self.last_start + START_INTERVAL + 0.1 - time.monotonic()
        if delay > 0:
            time.sleep(delay)  # the documented minimum interval between starts
        mark = self.events_a.log.mark()
        self.last_start = time.monotonic()
        self.a.start_audio_mixing(path, **kwargs)
        return mark

    def mixing_state(self, state: int, reason: int, after: int, timeout: float = TIMEOUT) -> Any:
        return self.events_a.log.wait_for("mixing", lambda s, r: (s, r) == (state, reason), after=after,
                                          timeout=timeout)

    def close(self) -> None:
        self.pump.stop()
        for engine in (self.a, self.b):
            engine.release()
        self.server.release()


@pytest.fixture(scope="module")
def call(tmp_path_factory, media) -> Iterator[MixCall]:
    c = MixCall(tmp_path_factory.mktemp("mixing"))
    try:
        c.pump.wait_tone("b", MIC, "the microphone tone")
        yield c
    finally:
        c.close()


@pytest.fixture
def mix(call) -> Iterator[MixCall]:
    """The call, with mixing and effects stopped and every setting put back afterwards."""
    yield call
    a = call.a
    try:
        a.stop_audio_mixing()
    except AgoraishError:
        pass
    for undo in (a.stop_all_effects, a.unload_all_effects, lambda: a.set_audio_mixing_pitch(0),
                 lambda: a.set_audio_mixing_playback_speed(100), lambda: a.adjust_audio_mixing_volume(100),
                 lambda: a.set_effects_volume(100)):
        undo()
    call.pump.tone = MIC


def both_heard(samples: Any, low: float, high: float) -> bool:
    return tone_dbfs(samples, low) > -40 and tone_dbfs(samples, high) > -40


# --------------------------------------------------------------------------
# Audio mixing
# --------------------------------------------------------------------------


def test_the_remote_user_hears_the_microphone_and_the_music_together(mix, media):
    mark = mix.start_mixing(media.path(MUSIC.name))
    mix.mixing_state(MS.PLAYING, MR.OK, mark)
    mix.pump.wait_until("b", lambda s: both_heard(s, MUSIC.frequency, MIC), "music and microphone at B")
    heard = mix.pump.collect(800)
    remote, local = heard["b"], heard["a"]
    assert near(peak_frequency(remote, 400, 480), MUSIC.frequency), peak_frequency(remote, 400, 480)
    assert near(peak_frequency(remote, 950, 1050), MIC), peak_frequency(remote, 950, 1050)
    assert tone_dbfs(remote, MUSIC.frequency) > -30 and tone_dbfs(remote, MIC) > -30
    assert near(dominant_frequency(local), MUSIC.frequency), "A plays the music locally"
    assert tone_dbfs(local, MIC) < tone_dbfs(local, MUSIC.frequency) - 30, "not its own microphone"

    mark = mix.events_a.log.mark()
    mix.a.stop_audio_mixing()
    mix.mixing_state(MS.STOPPED, MR.STOPPED_BY_USER, mark)
    mix.pump.wait_until("b", lambda s: tone_dbfs(s, MUSIC.frequency) < tone_dbfs(s, MIC) - 30, "the music gone")
    expect_error(-8, mix.a.stop_audio_mixing)


def test_music_is_mixed_into_a_custom_audio_track(tmp_path, media):
    server, (a, events_a), (b, events_b) = join_pair(tmp_path, "track")
    pump = None
    try:
        track = a.create_custom_audio_track()
        a.join_channel_with_options(None, "track", SENDER, ChannelMediaOptions(
            publish_microphone_track=False, publish_custom_audio_track=True, publish_custom_audio_track_id=track))
        b.join_channel(None, "track", uid=RECEIVER)
        events_a.log.wait_for("join")
        events_b.log.wait_for("user_joined", lambda uid: uid == SENDER)
        pump = Pump({"a": a, "b": b}, source=a, tone=MIC, track=track).start()
        pump.wait_tone("b", MIC, "the custom track's tone")
        mark = events_a.log.mark()
        a.start_audio_mixing(media.path(MUSIC.name))
        events_a.log.wait_for("mixing", lambda s, r: (s, r) == (MS.PLAYING, MR.OK), after=mark)
        pump.wait_until("b", lambda s: both_heard(s, MUSIC.frequency, MIC), "music and the custom track at B")
        remote = pump.heard("b", 800)
        assert near(peak_frequency(remote, 400, 480), MUSIC.frequency)
        assert near(peak_frequency(remote, 950, 1050), MIC)
    finally:
        if pump is not None:
            pump.stop()
        a.release()
        b.release()
        server.release()


def test_loopback_keeps_the_music_local(mix, media):
    mark = mix.start_mixing(media.path(MUSIC.name), loopback=True)
    mix.mixing_state(MS.PLAYING, MR.OK, mark)
    mix.pump.wait_tone("a", MUSIC.frequency, "the music in A's playout")
    heard = mix.pump.collect(1000)
    assert near(dominant_frequency(heard["a"]), MUSIC.frequency) and tone_dbfs(heard["a"], MUSIC.frequency) > -30
    remote = heard["b"]
    assert near(dominant_frequency(remote), MIC), "B hears the microphone"
    assert tone_dbfs(remote, MUSIC.frequency) < tone_dbfs(remote, MIC) - 30, (
        f"B must not hear the music: {tone_dbfs(remote, MUSIC.frequency):.1f} dBFS at 440 Hz")


def test_publish_and_playout_volumes_act_on_their_side(mix, media):
    a, pump = mix.a, mix.pump
    assert a.get_audio_mixing_playout_volume() == 100 and a.get_audio_mixing_publish_volume() == 100
    mark = mix.start_mixing(media.path(MUSIC.name), cycle=-1)
    mix.mixing_state(MS.PLAYING, MR.OK, mark)
    pump.wait_until("b", lambda s: both_heard(s, MUSIC.frequency, MIC), "music and microphone at B")

    a.adjust_audio_mixing_publish_volume(0)
    assert a.get_audio_mixing_publish_volume() == 0 and a.get_audio_mixing_playout_volume() == 100
    pump.wait_until("b", lambda s: tone_dbfs(s, MUSIC.frequency) < tone_dbfs(s, MIC) - 30, "publish volume 0")
    assert tone_dbfs(pump.heard("a", 300), MUSIC.frequency) > -30, "still played locally"

    a.adjust_audio_mixing_publish_volume(100)
    a.adjust_audio_mixing_playout_volume(0)
    assert a.get_audio_mixing_playout_volume() == 0
    pump.wait_silence("a", "playout volume 0")
    pump.wait_until("b", lambda s: both_heard(s, MUSIC.frequency, MIC), "still published")

    a.adjust_audio_mixing_volume(50)
    assert a.get_audio_mixing_playout_volume() == 50 and a.get_audio_mixing_publish_volume() == 50
    a.adjust_audio_mixing_volume(100)
    level = tone_dbfs(pump.heard("a", 500, 300), MUSIC.frequency)
    a.adjust_audio_mixing_playout_volume(50)
    half = tone_dbfs(pump.heard("a", 500, 300), MUSIC.frequency)
    assert abs(half - level + 6.02) < 1.5, (level, half)


@pytest.mark.parametrize("semitones,factor", [(12, 2.0), (-12, 0.5)])
def test_pitch_in_semitones_changes_the_frequency(mix, media, semitones, factor):
    mix.pump.tone = None  # a silent microphone: the music alone
    mark = mix.start_mixing(media.path(MUSIC.name), cycle=-1)
    mix.mixing_state(MS.PLAYING, MR.OK, mark)
    mix.pump.wait_tone("b", MUSIC.frequency)
    mix.a.set_audio_mixing_pitch(semitones)
    shifted = MUSIC.frequency * factor
    mix.pump.wait_tone("b", shifted, f"pitch {semitones:+d}")
    heard = mix.pump.collect(800)
    for where in ("b", "a"):
        assert near(dominant_frequency(heard[where]), shifted), f"{where}: {dominant_frequency(heard[where]):.1f} Hz"
    position = mix.a.get_audio_mixing_current_position()
    assert poll(lambda: mix.a.get_audio_mixing_current_position() != position), "the music plays on"
    mix.a.set_audio_mixing_pitch(0)
    mix.pump.wait_tone("b", MUSIC.frequency, "pitch 0")


def test_speed_changes_the_rate_of_the_position_not_the_pitch(mix, media):
    a, pump = mix.a, mix.pump
    pump.tone = None
    mark = mix.start_mixing(media.path(LONG.name))  # 6 s of 1000 Hz
    mix.mixing_state(MS.PLAYING, MR.OK, mark)
    pump.wait_tone("b", LONG.frequency)

    def rate() -> float:
        p0, t0 = a.get_audio_mixing_current_position(), time.monotonic()
        pump.collect(1000)  # a second of the pump's clock
        return (a.get_audio_mixing_current_position() - p0) / ((time.monotonic() - t0) * 1000)

    assert abs(rate() - 1.0) <= 0.12
    a.set_audio_mixing_playback_speed(200)
    pump.collect(200)
    assert abs(rate() - 2.0) <= 0.25
    assert near(dominant_frequency(pump.heard("a", 500)), LONG.frequency), "the pitch is kept"


def test_duration_position_and_seeking_the_music(mix, media):
    a = mix.a
    expect_error(-8, a.get_audio_mixing_duration)
    expect_error(-8, a.get_audio_mixing_current_position)
    expect_error(-8, lambda: a.set_audio_mixing_position(0))
    mark = mix.start_mixing(media.path(LONG.name), start_pos=3000)
    mix.mixing_state(MS.PLAYING, MR.OK, mark)
    assert abs(a.get_audio_mixing_duration() - 6000) <= 50
    assert 2900 <= a.get_audio_mixing_current_position() <= 4500, "started at 3 s"
    a.set_audio_mixing_position(500)
    assert poll(lambda: 500 <= a.get_audio_mixing_current_position() <= 1500), a.get_audio_mixing_current_position()
    position = a.get_audio_mixing_current_position()
    assert poll(lambda: a.get_audio_mixing_current_position() >= position + 300), "it plays on from there"
    expect_error(-2, lambda: a.set_audio_mixing_position(-1))


def test_mixing_reports_its_states_with_their_reasons(mix, media):
    a, log = mix.a, mix.events_a.log
    # Two plays of a 1 s file: one loop completed, then all.
    mark = mix.start_mixing(media.path(SHORT.name), cycle=2)
    started = mix.mixing_state(MS.PLAYING, MR.OK, mark)
    mix.mixing_state(MS.PLAYING, MR.ONE_LOOP_COMPLETED, mark)
    ended = mix.mixing_state(MS.STOPPED, MR.ALL_LOOPS_COMPLETED, mark)
    assert [args for args in log.args("mixing", mark)] == [
        (MS.PLAYING, MR.OK), (MS.PLAYING, MR.ONE_LOOP_COMPLETED), (MS.STOPPED, MR.ALL_LOOPS_COMPLETED)]
    assert 1.7 <= ended.at - started.at <= 2.8, f"two plays of 1 s took {ended.at - started.at:.2f} s"
    assert all(e.thread.startswith("agoraish-ev") for e in log.all("mixing", mark))

    # Pause, resume, stop.
    mark = mix.start_mixing(media.path(MUSIC.name), cycle=-1)
    mix.mixing_state(MS.PLAYING, MR.OK, mark)
    expect_error(-8, a.resume_audio_mixing)
    a.pause_audio_mixing()
    mix.mixing_state(MS.PAUSED, MR.PAUSED_BY_USER, mark)
    expect_error(-8, a.pause_audio_mixing)
    mix.pump.wait_until("b", lambda s: tone_dbfs(s, MUSIC.frequency) < tone_dbfs(s, MIC) - 30, "paused music")
    a.resume_audio_mixing()
    mix.mixing_state(MS.PLAYING, MR.RESUMED_BY_USER, mark)
    mix.pump.wait_until("b", lambda s: both_heard(s, MUSIC.frequency, MIC), "resumed music")
    a.stop_audio_mixing()
    mix.mixing_state(MS.STOPPED, MR.STOPPED_BY_USER, mark)

    # A file that cannot be opened.
    mark = mix.start_mixing(media.bad("missing"))
    mix.mixing_state(MS.FAILED, MR.CAN_NOT_OPEN, mark)
    mark = mix.start_mixing(media.bad("random_bytes"))
    mix.mixing_state(MS.FAILED, MR.CAN_NOT_OPEN, mark)

    # A start within 500 ms of the previous one.
    mark = mix.start_mixing(media.path(MUSIC.name))
    expect_error(-12, lambda: a.start_audio_mixing(media.path(MUSIC.name)))
    mix.mixing_state(MS.FAILED, MR.TOO_FREQUENT_CALL, mark)


# --------------------------------------------------------------------------
# Audio effects
# --------------------------------------------------------------------------


def test_a_published_effect_is_heard_remotely_and_finishes(mix, media):
    mix.pump.tone = None
    mark = mix.events_a.log.mark()
    played = time.monotonic()
    mix.a.play_effect(1, media.path(EFFECT.name), publish=True)
    mix.pump.wait_tone("b", EFFECT.frequency, "the effect at B")
    finished = mix.events_a.log.wait_for("effect_finished", lambda sound_id: sound_id == 1, after=mark)
    assert 0.8 <= finished.at - played <= 2.5, f"a 1 s effect finished after {finished.at - played:.2f} s"
    assert finished.thread.startswith("agoraish-ev")
    assert len(mix.events_a.log.all("effect_finished", mark)) == 1
    mix.pump.wait_silence("b", "silence after the effect")


def test_an_effect_not_published_is_heard_locally_only(mix, media):
    mix.pump.tone = None
    mark = mix.events_a.log.mark()
    mix.a.play_effect(2, media.path(EFFECT.name), loop_count=1, publish=False)
    local = mix.pump.wait_tone("a", EFFECT.frequency, "the effect in A's playout")
    remote = mix.pump.heard("b", 600)
    assert rms_dbfs(remote) < -50, f"B must not hear it: {rms_dbfs(remote):.1f} dBFS"
    assert tone_dbfs(local, EFFECT.frequency) > -30
    mix.events_a.log.wait_for("effect_finished", lambda sound_id: sound_id == 2, after=mark)


def test_effect_pitch_two_doubles_the_frequency(mix, media):
    mix.pump.tone = None
    mix.a.play_effect(3, media.path(EFFECT.name), loop_count=2, pitch=2.0, publish=True)
    mix.pump.wait_tone("b", EFFECT.frequency * 2, "the effect an octave up")


def test_two_effects_and_the_microphone_are_heard_together(mix, media):
    mark = mix.events_a.log.mark()
    mix.a.play_effect(4, media.path(EFFECT.name), loop_count=2, publish=True)
    mix.a.play_effect(5, media.path(MUSIC.name), publish=True)
    heard = mix.pump.wait_until(
        "b", lambda s: tone_dbfs(s, EFFECT.frequency) > -40 and tone_dbfs(s, MUSIC.frequency) > -40
        and tone_dbfs(s, MIC) > -40, "two effects and the microphone")
    assert near(peak_frequency(heard, 600, 720), EFFECT.frequency)
    assert near(peak_frequency(heard, 400, 480), MUSIC.frequency)
    mix.events_a.log.wait_for("effect_finished", lambda sound_id: sound_id == 4, after=mark)
    mix.events_a.log.wait_for("effect_finished", lambda sound_id: sound_id == 5, after=mark)


def test_effects_loop_pause_resume_move_and_stop(mix, media):
    a, log = mix.a, mix.events_a.log
    mix.pump.tone = None
    path = media.path(EFFECT.name)
    assert abs(a.get_effect_duration(path) - 1000) <= 20
    # Preloaded, then played by id alone, twice (loop_count 1).
    a.preload_effect(7, path)
    mark = log.mark()
    played = time.monotonic()
    a.play_effect(7, None, loop_count=1, publish=True)
    mix.pump.wait_tone("b", EFFECT.frequency)
    finished = log.wait_for("effect_finished", lambda sound_id: sound_id == 7, after=mark)
    assert 1.8 <= finished.at - played <= 3.5, f"two plays of 1 s took {finished.at - played:.2f} s"

    # Forever: pause, resume, move, volumes, stop (not reported as finished).
    mark = log.mark()
    a.play_effect(7, None, loop_count=-1, gain=100, publish=True)
    mix.pump.wait_tone("b", EFFECT.frequency)
    a.pause_effect(7)
    mix.pump.wait_silence("b", "the paused effect")
    paused_at = a.get_effect_current_position(7)
    mix.pump.collect(300)
    assert abs(a.get_effect_current_position(7) - paused_at) <= 20, "the position holds while paused"
    expect_error(-2, lambda: a.resume_effect(8))
    a.resume_effect(7)
    mix.pump.wait_tone("b", EFFECT.frequency, "the resumed effect")
    a.set_volume_of_effect(7, 40)
    assert a.get_volume_of_effect(7) == 40
    a.set_effects_volume(60)
    assert a.get_effects_volume() == 60
    a.pause_all_effects()
    mix.pump.wait_silence("b", "all effects paused")
    a.resume_all_effects()
    mix.pump.wait_tone("b", EFFECT.frequency, "all effects resumed")
    a.stop_effect(7)
    mix.pump.wait_silence("b", "the stopped effect")
    expect_error(-2, lambda: a.stop_effect(7))
    expect_error(-2, lambda: a.get_effect_current_position(7))
    assert not log.all("effect_finished", mark), "a stopped effect is not reported as finished"

    # Unloaded: no path for the id any more.
    a.unload_effect(7)
    expect_error(-2, lambda: a.play_effect(7, None))
    expect_error(-2, lambda: a.unload_effect(7))


def test_set_effect_position_moves_a_playing_effect(mix, media):
    a = mix.a
    mix.pump.tone = None
    a.play_effect(9, media.path(STEPS.name), publish=True)  # 440 Hz up to 2 s, 1000 Hz after
    mix.pump.wait_tone("b", 440)
    before = a.get_effect_current_position(9)
    assert 0 <= before < 1200, before
    a.set_effect_position(9, 2500)
    assert poll(lambda: 2400 <= a.get_effect_current_position(9) <= 3500, timeout=1.0), (
        a.get_effect_current_position(9))
    mix.pump.wait_tone("b", 1000, "the effect's audio at 2.5 s", timeout=1.5)
    expect_error(-2, lambda: a.set_effect_position(9, -1))


# --------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------


def test_mixing_and_effect_arguments_are_checked(tmp_path, media):
    e = quiet_engine(tmp_path, "args")
    path = media.path(EFFECT.name)
    try:
        for call, code in (
            (lambda: e.start_audio_mixing(""), -2),
            (lambda: e.start_audio_mixing(None), -2),
            (lambda: e.start_audio_mixing(path, cycle=0), -2),
            (lambda: e.start_audio_mixing(path, cycle=-2), -2),
            (lambda: e.start_audio_mixing(path, start_pos=-1), -2),
            (e.stop_audio_mixing, -8),
            (e.pause_audio_mixing, -8),
            (e.resume_audio_mixing, -8),
            (e.get_audio_mixing_duration, -8),
            (e.get_audio_mixing_current_position, -8),
            (lambda: e.adjust_audio_mixing_volume(101), -2),
            (lambda: e.adjust_audio_mixing_volume(-1), -2),
            (lambda: e.adjust_audio_mixing_playout_volume(101), -2),
            (lambda: e.adjust_audio_mixing_publish_volume(-1), -2),
            (lambda: e.set_audio_mixing_pitch(13), -2),
            (lambda: e.set_audio_mixing_pitch(-13), -2),
            (lambda: e.set_audio_mixing_playback_speed(49), -2),
            (lambda: e.set_audio_mixing_playback_speed(401), -2),
            (lambda: e.preload_effect(1, None), -2),
            (lambda: e.preload_effect(1, path, start_pos=-1), -2),
            (lambda: e.preload_effect(1, media.bad("missing")), -1),
            (lambda: e.preload_effect(1, media.bad("random_bytes")), -1),
            (lambda: e.play_effect(1, None), -2),  # nothing preloaded for the id
            (lambda: e.play_effect(1, path, pitch=0.4), -2),
            (lambda: e.play_effect(1, path, pitch=2.1), -2),
            (lambda: e.play_effect(1, path, pan=-1.1), -2),
            (lambda: e.play_effect(1, path, pan=1.1), -2),
            (lambda: e.play_effect(1, path, gain=101), -2),
            (lambda: e.play_effect(1, path, gain=-1), -2),
            (lambda: e.play_effect(1, path, loop_count=-2), -2),
            (lambda: e.play_effect(1, path, start_pos=-1), -2),
            (lambda: e.stop_effect(1), -2),
            (lambda: e.pause_effect(1), -2),
            (lambda: e.resume_effect(1), -2),
            (lambda: e.unload_effect(1), -2),
            (lambda: e.set_effects_volume(101), -2),
            (lambda: e.set_volume_of_effect(1, 50), -2),
            (lambda: e.get_volume_of_effect(1), -2),
            (lambda: e.set_effect_position(1, 0), -2),
            (lambda: e.get_effect_current_position(1), -2),
            (lambda: e.get_effect_duration(None), -2),
            (lambda: e.get_effect_duration(media.bad("missing")), -1),
            (lambda: e.get_effect_duration(media.bad("text_as_mp4")), -1),
        ):
            expect_error(code, call)
        assert e.get_effects_volume() == 100
        assert e.get_audio_mixing_playout_volume() == 100 and e.get_audio_mixing_publish_volume() == 100
        for pitch in (-12, 0, 12):
            e.set_audio_mixing_pitch(pitch)
        for speed in (50, 100, 400):
            e.set_audio_mixing_playback_speed(speed)
        e.stop_all_effects()
        e.pause_all_effects()
        e.resume_all_effects()
        e.unload_all_effects()

        # At most 16 effects held.
        for sound_id in range(16):
            e.preload_effect(100 + sound_id, path)
        expect_error(-5, lambda: e.preload_effect(200, path))
        expect_error(-5, lambda: e.play_effect(200, path))
        e.unload_effect(100)
        e.preload_effect(200, path)
        e.unload_all_effects()
        expect_error(-2, lambda: e.play_effect(200, None))
    finally:
        e.release()
    expect_error(-7, lambda: e.start_audio_mixing(path))
    expect_error(-7, lambda: e.play_effect(1, path))
    expect_error(-7, e.get_effects_volume)
