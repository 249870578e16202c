"""Audio between two engines through the embedded server, from Python:
a tone pushed on one side is pulled on the other at its frequency and level."""
import array
import contextlib
import math
import threading
import time

import pytest

import agoraish

APP = "0123456789abcdef0123456789abcdef"


class Joined(agoraish.EventHandler):
    def __init__(self):
        self.joined = threading.Event()

    def on_join_channel_success(self, channel, uid, elapsed):
        self.joined.set()


def tone(freq: float, rate: int, seconds: float, amplitude: int = 8000) -> array.array:
    return array.array("h", (int(amplitude * math.sin(2 * math.pi * freq * i / rate)) for i in range(int(rate * seconds))))


def frequency(samples, rate: int) -> float:
    crossings = sum(1 for a, b in zip(samples, samples[1:]) if (a < 0) != (b < 0))
    return crossings / 2 / (len(samples) / rate)


def level_db(samples, amplitude: int = 8000) -> float:
    rms = math.sqrt(sum(s * s for s in samples) / len(samples))
    return 20 * math.log10(rms / (amplitude / math.sqrt(2)))


@contextlib.contextmanager
def sender_and_receiver(tmp_path, channel: str, send_rate: int, receive_rate: int):
    """Engine a pushes (external source), engine b pulls (external sink), both
    in `channel` on an embedded server, their media transports bound."""
    with agoraish.ChannelServer() as server:
        ha, hb = Joined(), Joined()
        a = agoraish.RtcEngine(APP, ha, server_url=server.url, log_file=str(tmp_path / "a.log"))
        b = agoraish.RtcEngine(APP, hb, server_url=server.url, log_file=str(tmp_path / "b.log"))
        try:
            a.set_external_audio_source(True, send_rate, 1)
            b.set_external_audio_sink(True, receive_rate, 1)
            a.join_channel("", channel, uid=1)
            b.join_channel("", channel, uid=2)
            assert ha.joined.wait(10) and hb.joined.wait(10)
            time.sleep(0.3)  # the media transports bind with STUN
            yield a, b
        finally:
            a.release()
            b.release()


def pull_in_real_time(engine, heard: array.array, count: int, samples: int) -> None:
    """Pulls `count` 10 ms frames of `samples` into `heard`, one every 10 ms (the playout clock)."""
    start = time.monotonic()
    for k in range(count):
        heard.frombytes(engine.pull_playback_audio_frame(samples))
        delay = start + (k + 1) / 100 - time.monotonic()
        if delay > 0:
            time.sleep(delay)


@pytest.mark.parametrize("send_rate,receive_rate", [(16000, 48000), (48000, 44100)])
def test_a_pushed_tone_is_pulled_at_its_frequency_and_level(tmp_path, send_rate, receive_rate):
    with sender_and_receiver(tmp_path, "audio", send_rate, receive_rate) as (a, b):
        pushed = tone(1000, send_rate, 2.0)
        heard = array.array("h")
        chunk_in, chunk_out = send_rate // 100, receive_rate // 100

        def push():
            start = time.monotonic()
            for k in range(0, len(pushed), chunk_in):
                a.push_external_audio_frame(pushed[k:k + chunk_in])
                delay = start + (k + chunk_in) / send_rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)  # real time, as a capture device would

        sender = threading.Thread(target=push)
        sender.start()
        pull_in_real_time(b, heard, 250, chunk_out)
        sender.join()
    loud = [i for i, s in enumerate(heard) if abs(s) > 2000]
    assert loud, "the tone never arrived"
    middle = heard[loud[0] + receive_rate // 5: loud[0] + receive_rate // 5 + receive_rate]
    assert abs(frequency(middle, receive_rate) - 1000) < 25
    assert abs(level_db(middle)) < 1.5


def test_audio_calls_check_their_arguments(tmp_path):
    e = agoraish.RtcEngine(APP, log_file=str(tmp_path / "e.log"))
    try:
        with pytest.raises(agoraish.AgoraishError) as err:
            e.push_external_audio_frame(b"\0\0")
        assert err.value.code == -3  # no external source yet
        with pytest.raises(agoraish.AgoraishError) as err:
            e.pull_playback_audio_frame(160)
        assert err.value.code == -3  # no external sink yet
        for rate, channels in ((22050, 1), (48000, 3), (0, 1)):
            with pytest.raises(agoraish.AgoraishError) as err:
                e.set_external_audio_source(True, rate, channels)
            assert err.value.code == -2
        with pytest.raises(agoraish.AgoraishError) as err:
            e.set_audio_profile(7)
        assert err.value.code == -2
        e.set_audio_profile(agoraish.AudioProfile.MUSIC_HIGH_QUALITY)
        e.set_external_audio_source(True, 48000, 2)
        assert e.push_external_audio_frame(b"\0\0" * 2 * 480, channels=2) == 480  # half of a 20 ms frame waits
        e.set_external_audio_source(False)
        with pytest.raises(agoraish.AgoraishError):
            e.push_external_audio_frame(b"\0\0")
    finally:
        e.release()


def test_a_second_pushed_at_once_is_sent_in_real_time_and_heard_whole(tmp_path):
    # Three seconds of a tone pushed one second at a time: the engine queues
    # what is pushed and sends it at the pace it plays, so the receiver, pulling
    # in real time, hears it without gaps (sent at once, a burst of 50 Opus
    # frames overran the receiver's jitter buffer and left 40 % of it silent).
    rate = 48000
    with sender_and_receiver(tmp_path, "chunks", rate, rate) as (a, b):
        second = tone(1000, rate, 1.0)
        heard = array.array("h")

        def push():
            for k in range(3):
                waiting = a.push_external_audio_frame(second)
                assert waiting >= rate // 2, "a second pushed at once waits to be sent in real time"
                time.sleep(1.0)

        sender = threading.Thread(target=push)
        sender.start()
        pull_in_real_time(b, heard, 400, rate // 100)
        sender.join()
    frames = [heard[i:i + rate // 100] for i in range(0, len(heard), rate // 100)]
    loud = [i for i, f in enumerate(frames) if max(abs(s) for s in f) > 2000]
    assert loud, "the tone never arrived"
    window = frames[loud[0] + 20: loud[0] + 270]  # 2.5 s after the first 200 ms
    silent = sum(1 for f in window if max(abs(s) for s in f) < 2000)
    assert silent <= 5, f"{silent} of {len(window)} 10 ms frames silent"
