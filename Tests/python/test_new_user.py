"""What a new user of the Python binding trips on: arrays of the wrong type,
sizes that would allocate before the library refuses them, and Agora's
camelCase callback names that would never be called."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import agoraish


def test_float_audio_is_refused_not_sent_as_noise(make_engine):
    engine = make_engine()
    engine.set_external_audio_source(True, 48000, 1)
    tone = np.sin(np.arange(480) / 10.0)
    with pytest.raises(TypeError, match=r"astype\(numpy.int16\)"):
        engine.push_external_audio_frame(tone)
    with pytest.raises(TypeError):
        engine.push_external_audio_frame(tone.astype(np.float32))
    with pytest.raises(TypeError):
        engine.push_external_audio_frame(np.zeros(480, np.int32))
    # Converted as the message says, it is accepted.
    assert engine.push_external_audio_frame((tone * 32767).round().astype(np.int16)) >= 0


def test_audio_array_columns_are_the_channels(make_engine):
    engine = make_engine()
    engine.set_external_audio_source(True, 48000, 1)
    with pytest.raises(ValueError, match="2 channels"):
        engine.push_external_audio_frame(np.zeros((480, 2), np.int16))
    assert engine.push_external_audio_frame(np.zeros((480, 1), np.int16)) >= 0
    engine.set_external_audio_source(True, 48000, 2)
    assert engine.push_external_audio_frame(np.zeros((480, 2), np.int16)) >= 0
    with pytest.raises(ValueError):
        engine.push_external_audio_frame(np.zeros((480, 2, 1), np.int16))


def test_bytes_and_int16_arrays_still_push(make_engine):
    import array

    engine = make_engine()
    engine.set_external_audio_source(True, 48000, 1)
    assert engine.push_external_audio_frame(bytes(960)) >= 0
    assert engine.push_external_audio_frame(array.array("h", [0] * 480)) >= 0
    assert engine.push_external_audio_frame(np.zeros(480, np.int16)[::2]) >= 0  # not contiguous: copied


@pytest.mark.parametrize("count", [0, -1, 48001, 2**31 - 1, 2**40])
def test_pull_checks_the_count_before_allocating(make_engine, count):
    engine = make_engine()
    engine.set_external_audio_sink(True, 48000, 1)
    start = time.monotonic()
    with pytest.raises(agoraish.AgoraishError) as error:
        engine.pull_playback_audio_frame(count)
    assert error.value.code == -2
    assert time.monotonic() - start < 1.0, "refused before anything was allocated"


def test_push_of_more_than_a_second_is_refused_in_python(make_engine):
    engine = make_engine()
    engine.set_external_audio_source(True, 48000, 1)
    with pytest.raises(agoraish.AgoraishError) as error:
        engine.push_external_audio_frame(np.zeros(48001, np.int16))
    assert error.value.code == -2


def test_float_pictures_are_refused(make_engine):
    engine = make_engine()
    engine.enable_video()
    engine.set_external_video_source(True)
    rgba = np.zeros((32, 32, 4), np.float32)
    with pytest.raises(TypeError, match="uint8"):
        engine.push_external_video_frame(32, 32, rgba, format=agoraish.VideoPixelFormat.RGBA)
    with pytest.raises(TypeError):
        engine.push_external_video_frame(32, 32, np.zeros((32, 32, 3), np.uint8), format=agoraish.VideoPixelFormat.RGBA)
    engine.push_external_video_frame(32, 32, np.zeros((32, 32, 4), np.uint8), format=agoraish.VideoPixelFormat.RGBA)
    engine.push_external_video_frame(32, 32, np.zeros(32 * 32 * 3 // 2, np.uint8))


def test_camel_case_callbacks_warn_once(make_engine):
    class AgoraHabits(agoraish.EventHandler):
        def onJoinChannelSuccess(self, channel, uid, elapsed):
            pass

        def on_user_joind(self, uid, elapsed):
            pass

        def on_user_joined(self, uid, elapsed):
            pass

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make_engine(AgoraHabits())
        make_engine(AgoraHabits())
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 2, messages
    assert any("onJoinChannelSuccess" in m and "'on_join_channel_success'" in m for m in messages)
    assert any("on_user_joind" in m for m in messages)


def test_a_correct_handler_does_not_warn(make_engine):
    class Fine(agoraish.EventHandler):
        def on_join_channel_success(self, channel, uid, elapsed):
            pass

        def helper(self):
            pass

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make_engine(Fine())


def test_a_refused_release_from_a_render_sink_keeps_the_audio_observer(make_engine):
    # A release from inside a render sink is refused (-5) by the library; the
    # binding must not have removed the audio frame observer first.
    from agoraish import engine as engine_module

    class Observer(agoraish.AudioFrameObserver):
        def on_record_audio_frame(self, frame):
            return True

    engine = make_engine()
    engine.register_audio_frame_observer(Observer())
    state = engine_module._THREAD_STATE
    state.video_depth = getattr(state, "video_depth", 0) + 1  # as the video thread is inside a sink
    try:
        assert engine._detach_audio_frame_observer() is False
    finally:
        state.video_depth -= 1
    assert engine._observers.alive, "the observer is still registered"
