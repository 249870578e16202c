"""Browsers in a call: a headless Chromium (browser_support.py) runs the web SDK (/sdk/agoraish.js)
against the embedded server's WebRTC gateway, with native engines in the same channels.

Each test runs one scenario of webrtc_scenarios.py in a process of its own,
inside a network namespace of its own (`unshare -n`, loopback up), so that
Chromium, the server and the engines see only each other; it asserts on the
JSON the scenario prints and shows the scenario's log (steps, page consoles,
Chromium's log) when something fails. The harness's own test needs neither the
server nor the library: Chromium's fake microphone and camera, read by a page
of a local HTTP server.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

import support
from browser_support import chromium_path

pytestmark = pytest.mark.skipif(chromium_path() is None,
                                reason="chromium is not installed: the browser tests need Debian's "
                                       "headless Chromium (scripts/setup.sh installs it)")

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "webrtc_scenarios.py"
#: The longest a scenario process may live, in seconds (each aims at 20 s; it stops itself at 60 s).
PROCESS_TIMEOUT = 90
RESULT_PREFIX = "WEBRTC-RESULT "
#: How far a tone may be from its frequency, in Hz.
TOLERANCE = 15


@dataclass
class Outcome:
    """What a scenario printed: its result (checks, timings, error) and its log."""

    name: str
    result: Dict[str, Any]
    log: str
    outdir: Path

    @property
    def checks(self) -> Dict[str, Any]:
        return self.result.get("checks", {})

    def explain(self) -> str:
        timings = json.dumps(self.result.get("timings", {}), indent=1)
        checks = json.dumps(self.checks, indent=1)[:6000]
        return (f"scenario {self.name} (files in {self.outdir})\n--- error: {self.result.get('error')}\n"
                f"--- checks:\n{checks}\n--- timings:\n{timings}\n--- log (tail):\n{self.log[-12000:]}")


def namespace_command() -> list:
    """unshare for a new network namespace: as root directly, otherwise inside a user namespace."""
    return ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-r", "-n"]


def run_scenario(name: str, outdir: Path) -> Outcome:
    """Runs `webrtc_scenarios.py name outdir` in a new network namespace with loopback up."""
    outdir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["AGORAISH_LIBRARY"] = str(support.library_path())
    env["PYTHONUNBUFFERED"] = "1"
    command = [*namespace_command(), "--", "sh", "-c", 'ip link set lo up && exec "$0" "$@"',
               sys.executable, str(SCENARIOS), name, str(outdir)]
    log_path = outdir / "scenario.log"
    with open(log_path, "wb") as log_file:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log_file, env=env,
                                   start_new_session=True)
        try:
            stdout, _ = process.communicate(timeout=PROCESS_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # Chromium follows: its parent-death signal is SIGKILL
            stdout, _ = process.communicate()
    log = log_path.read_text(errors="replace")
    lines = [line for line in stdout.decode(errors="replace").splitlines() if line.startswith(RESULT_PREFIX)]
    if not lines:
        pytest.fail(f"scenario {name} printed no result (exit {process.returncode}); log:\n{log[-12000:]}"
                    f"\n--- stdout:\n{stdout.decode(errors='replace')[-3000:]}")
    outcome = Outcome(name, json.loads(lines[-1][len(RESULT_PREFIX):]), log, outdir)
    print(f"{name}: timings {json.dumps(outcome.result.get('timings'))}")
    if outcome.result.get("error"):
        pytest.fail(f"scenario {name} failed: {outcome.result['error']}\n{outcome.explain()}", pytrace=False)
    return outcome


@contextlib.contextmanager
def explained(outcome: Outcome) -> Iterator[None]:
    """Adds the scenario's checks, timings and log to an assertion that fails inside."""
    try:
        yield
    except AssertionError as error:
        raise AssertionError(f"{error}\n{outcome.explain()}") from None


@pytest.fixture
def scenario(tmp_path: Path):
    return lambda name: run_scenario(name, tmp_path / name)


def near(measure: Dict[str, Any], hz: float) -> bool:
    return measure is not None and abs(measure["hz"] - hz) <= TOLERANCE


def decoding(progress: Dict[str, Any], mime: str) -> bool:
    """framesDecoded grew between the two reports, the codec is `mime`, few freezes."""
    first, second = progress["first"], progress["second"]
    return (first.get("inbound") and second.get("inbound") and second["mimeType"] == mime
            and second["framesDecoded"] > first["framesDecoded"] > 0 and (second["freezeCount"] or 0) <= 1)


# --------------------------------------------------------------------------
# The harness itself
# --------------------------------------------------------------------------


def test_browser_harness_fake_devices(scenario):
    out = scenario("harness")
    c = out.checks
    with explained(out):
        assert c["netns"] != os.readlink("/proc/self/ns/net"), "the scenario runs in a network namespace of its own"
        assert c["status"] == 200, "navigate() returns the document's HTTP status"
        assert c["helpers"] == "object", "the page helpers are installed before the page's scripts"
        local = c["local"]
        assert local["context"]["state"] == "running"
        assert local["tone"]["ok"] and near(local["tone"], 700), "the fake microphone plays the WAV's 700 Hz"
        assert local["frames"]["frames"] >= 10, "the fake camera delivers pictures"
        assert (local["frames"]["width"], local["frames"]["height"]) == (320, 240), "at the y4m's size"
        loop = c["loopback"]
        assert loop["tracks"] == ["audio", "video"]
        assert loop["tone"]["ok"] and near(loop["tone"], 700), "a remote WebRTC track's tone is found"
        assert decoding(loop["progress"], "video/VP8"), "inbound-rtp of a remote track: decoding, VP8"
        assert loop["recorded"] == 2, "every RTCPeerConnection of the page is recorded"
        assert c["isolated"].endswith(" object"), "a page in its own browser context"
        assert "thrown on purpose" in c["js_error"], "a rejected promise raises JsError with its message"
        assert c["console"], "console messages are collected"


# --------------------------------------------------------------------------
# Browsers and engines through the server
# --------------------------------------------------------------------------


def test_a_native_engine_hears_and_sees_a_browser(scenario):
    out = scenario("browser_to_native")
    c = out.checks
    with explained(out):
        assert near(c["native_heard"], 700), "the engine hears the browser's microphone"
        pictures = c["native_pictures"]
        assert pictures["count"] >= 15
        size = [c["browser_video_size"]["width"], c["browser_video_size"]["height"]]
        assert pictures["last"] == size, "decoded at the size the browser captures"


@pytest.mark.parametrize("codec", ["vp8", "vp9"])
def test_a_browser_hears_and_decodes_a_native_engine(scenario, codec):
    out = scenario(f"native_to_browser_{codec}")
    c = out.checks
    with explained(out):
        assert near(c["browser_heard"], 440), "the page's analyser finds the engine's tone"
        assert decoding(c["browser_video"], f"video/{codec.upper()}")
        assert c["browser_video"]["second"]["frameWidth"] == 320


def test_two_browsers_and_an_engine_all_receive_each_other(scenario):
    out = scenario("two_browsers_and_native")
    c = out.checks
    tones = {1: 440, 31: 700, 32: 900}
    with explained(out):
        for name, others in (("alice", (1, 32)), ("bob", (1, 31))):
            published = {tuple(p) for p in c[f"{name}_published"]}
            assert {(uid, kind) for uid in others for kind in ("audio", "video")} <= published
            for uid in others:
                assert near(c[f"{name}_heard_{uid}"], tones[uid]), f"{name} hears {uid}"
                assert decoding(c[f"{name}_video_{uid}"], "video/VP8"), f"{name} sees {uid}"
        for uid in (31, 32):
            assert near(c[f"native_heard_{uid}"], tones[uid]), f"the engine hears {uid}"
            assert c[f"native_pictures_{uid}"] >= 10, f"the engine sees {uid}"


def test_an_audience_browser_cannot_publish_until_it_becomes_host(scenario):
    out = scenario("live_roles")
    c = out.checks
    with explained(out):
        refused = c["audience_publish"]
        assert not refused["ok"] and refused["error"]["code"] == "INVALID_OPERATION", "an audience cannot publish"
        assert near(c["audience_heard"], 440) and decoding(c["audience_video"], "video/VP8"), "but receives"
        assert c["native_saw_audience"] is False, "an audience member is invisible"
        assert c["set_role_host"]["ok"]
        assert near(c["native_heard_host"], 700) and c["native_pictures_host"] >= 10, "the new host is received"


def test_a_join_with_a_wrong_token_is_rejected(scenario):
    out = scenario("wrong_token")
    c = out.checks
    with explained(out):
        for case in ("forged", "other_channel", "garbage", "none"):
            join = c[f"join_{case}"]
            assert not join["ok"] and join["error"]["code"] == "INVALID_TOKEN", f"{case} token: {join}"
        assert c["native_saw_refused"] is False
        assert c["join_valid"]["ok"], "a valid token joins"


def test_unpublish_and_mute_reach_the_other_side(scenario):
    out = scenario("mute_and_unpublish")
    c = out.checks
    with explained(out):
        assert c["unpublish"]["ok"]
        assert c["native_told"]["event"] in ("user_mute_audio", "remote_audio_state")
        assert c["native_level_after_unpublish"] < -50, "nothing heard from the browser after unpublishing"
        kinds = {(e["uid"], e["kind"]) for e in c["browser_unpublished"]}
        assert (1, "audio") in kinds and (1, "video") not in kinds, "only the audio was unpublished"


def test_stream_messages_cross_between_a_browser_and_an_engine(scenario):
    out = scenario("data_messages")
    c = out.checks
    with explained(out):
        assert all(r["ok"] for r in c["browser_sent"]), "the browser sends five messages"
        assert c["native_got"] == [[71, 1, f"web {i}"] for i in range(5)], "in order, as the browser's stream 1"
        got = [(e["uid"], e["text"]) for e in c["browser_got"]]
        assert got == [(1, f"native {i}") for i in range(5)], "in order, from the engine's uid"
        assert not c["too_large"]["ok"] and c["too_large"]["error"]["code"] == "INVALID_PARAMS"


def test_the_status_page_lists_the_channel_and_its_users(scenario):
    out = scenario("status_page")
    c = out.checks
    with explained(out):
        assert c["listed"] == [1, 71]
        assert c["clients"] == {"1": "native", "71": "web"}, "each user's kind of client (docs/server.md, /status)"
        assert c["listed_after_leave"] == [1]


def test_a_vanished_browser_is_dropped_within_the_drop_timeout(scenario):
    out = scenario("browser_vanishes")
    c = out.checks
    with explained(out):
        offline = c["offline"]
        assert offline["uid"] == 81
        assert offline["reason"] == 1, "USER_OFFLINE_DROPPED, as docs/server.md says for a dropped session"
        assert offline["after_s"] <= c["drop_timeout_ms"] / 1000 + 3, "within the drop timeout (and a margin)"


def test_the_call_page_joins_publishes_and_shows_the_remote_video(scenario):
    out = scenario("call_page")
    c = out.checks
    with explained(out):
        assert near(c["native_heard"], 700) and c["native_pictures"] >= 10
        assert c["page_videos"] >= 2
