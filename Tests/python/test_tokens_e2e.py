"""Tokens end to end: engines against a server with registered apps and certificates.

Tokens come from the agoraish-token CLI (docs/tokens.md), built by
abuse_support.build_token as in the abuse tests; the CLI's own vectors are
test_token_cli.py's business. Here the server checks them on join and renewal,
sends the 30 s expiry notice, and ends sessions whose token expired; apps with
the same channel names never meet.
"""

from __future__ import annotations

import json
import subprocess
import time

import pytest

import agoraish
from abuse_support import APP, OTHER_CERT, TESTING_APP, TOKEN_CLI, token_channel_server
from abuse_support import build_token as token  # token(channel, *, uid=..., account=..., expire=..., ...)
from peers import ANY, ELAPSED, LEAVE_STATS_AUDIO_FIELDS, Between, expect_events
from support import http_get

UNREGISTERED_APP = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
LEAD = 30  # token_will_expire comes this many seconds before the expiry

CONNECTING = ("on_connection_state_changed", [2, 0])
CONNECTED = ("on_connection_state_changed", [3, 1])
LEFT = ("on_connection_state_changed", [1, 5])


def expiry_of(tok: str) -> int:
    """The token's expiry (unix seconds), from `agoraish-token inspect`."""
    out = subprocess.run([str(TOKEN_CLI), "inspect", tok], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    line = next(line for line in out.stdout.splitlines() if line.startswith("expire:"))
    return int(line.split("token expires at ")[1].rstrip(")"))


@pytest.fixture
def token_server():
    """A server where APP checks tokens with CERT and TESTING_APP needs none; nothing else is accepted."""
    with token_channel_server() as server:
        yield server


def failed(reason: int) -> tuple:
    return ("on_connection_state_changed", [5, reason])


def local_leave(user_count: int = 0) -> tuple:
    """on_leave_channel of an engine that never got in (or was put out): nothing sent but the join."""
    return ("on_leave_channel", [{"duration": 0, "tx_bytes": ANY, "rx_bytes": ANY, "tx_packets": ANY,
                                  "rx_packets": ANY, "user_count": user_count, **LEAVE_STATS_AUDIO_FIELDS}])


def leave(peer) -> None:
    before = peer.log.count("on_leave_channel")
    peer.call("leave_channel")
    peer.log.wait("on_connection_state_changed", 1, 5, count=before + 1)


def test_refused_tokens_fail_the_join(token_server, make_peer):
    url = token_server.url
    now = int(time.time())
    cases = {
        "garbage": ("007garbage", 8),
        "empty": ("", 8),
        "none": (None, 8),
        "other channel": (token("elsewhere", uid=5), 8),
        "other uid": (token("vault", uid=6), 8),
        "other certificate": (token("vault", uid=5, cert=OTHER_CERT), 8),
        "expired": (token("vault", uid=5, issue_ts=now - 100, expire=50), 9),
        "expired 006": (token("vault", uid=5, issue_ts=now - 100 - 86400, fmt="006"), 9),
    }
    peers = {name: make_peer(url, name.replace(" ", "-")) for name in cases}
    for name, (tok, _) in cases.items():
        peers[name].call("join_channel", tok, "vault", None, 5)
    for name, (_, reason) in cases.items():
        peer = peers[name]
        peer.log.wait("on_connection_state_changed", 5)
        assert peer.call("get_connection_state") == agoraish.ConnectionState.FAILED
        expected = [CONNECTING, failed(reason)] if reason == 8 else [CONNECTING, ("on_request_token", []), failed(9)]
        expect_events(peer.log, expected)

    # After an expired token, renew_token rejoins; an invalid token needs leave and a new join.
    renewed = peers["expired"]
    renewed.call("renew_token", token("vault", uid=5))
    renewed.log.wait("on_join_channel_success")
    expect_events(renewed.log, [CONNECTING, ("on_request_token", []), failed(9),
                                ("on_connection_state_changed", [4, 12]), CONNECTED,
                                ("on_join_channel_success", ["vault", 5, ELAPSED])])
    invalid = peers["garbage"]
    invalid.call("renew_token", token("vault", uid=5))  # accepted, but FAILED(8) does not rejoin
    leave(invalid)
    invalid.call("join_channel", token("vault", uid=7), "vault", None, 7)
    invalid.log.wait("on_user_joined", 5)
    expect_events(invalid.log, [CONNECTING, failed(8), local_leave(), LEFT, CONNECTING, CONNECTED,
                                ("on_join_channel_success", ["vault", 7, ELAPSED]), ("on_user_joined", [5, ELAPSED])])


def test_good_tokens_join(token_server, make_peer):
    url = token_server.url
    by_uid = make_peer(url, "by-uid")
    by_account = make_peer(url, "by-account", remote=True)
    by_006 = make_peer(url, "by-006")
    wildcard = make_peer(url, "wildcard")
    subscriber = make_peer(url, "subscriber")
    by_uid.call("join_channel", token("club", uid=11), "club", None, 11)
    by_account.call("join_channel_with_user_account", token("club", account="zoe"), "club", "zoe")
    by_006.call("join_channel", token("club", uid=13, fmt="006"), "club", None, 13)
    wildcard.call("join_channel", token("club", uid=0), "club", None, 14)  # uid 0 in a token: any user
    subscriber.call("join_channel", token("club", uid=15, role="subscriber"), "club", None, 15)
    for peer in (by_uid, by_account, by_006, wildcard, subscriber):
        peer.log.wait("on_join_channel_success")
        assert peer.log.of("on_connection_state_changed") == [CONNECTING, CONNECTED], peer.name


def test_unregistered_app_is_refused(token_server, make_peer):
    peer = make_peer(token_server.url, "stranger", app_id=UNREGISTERED_APP)
    peer.call("join_channel", None, "vault", None, 1)
    peer.log.wait("on_connection_state_changed", 5)
    expect_events(peer.log, [CONNECTING, failed(6)])
    with pytest.raises(agoraish.AgoraishError) as error:
        peer.call("register_local_user_account", APP, "someone")  # not this engine's app id
    assert error.value.code == -2


def test_expiry_notice_renewal_and_expiry(token_server, make_peer):
    """Three users at once (the waits overlap):

    early   has more than 30 s left: the notice comes from the server's timer, 30 s before expiry;
    renewer has 6 s left: the notice comes at once; it renews and stays past the old expiry;
    lapser  has 3 s left and does not renew: at expiry it is put out (FAILED 9, onRequestToken),
            then renewing rejoins it.
    A watcher sees the renewer stay and the lapser drop and come back.
    """
    url = token_server.url
    watcher = make_peer(url, "watcher")
    early, renewer, lapser = make_peer(url, "early"), make_peer(url, "renewer"), make_peer(url, "lapser")
    watcher.call("join_channel", token("timed", uid=1), "timed", None, 1)
    watcher.log.wait("on_join_channel_success")

    wall_offset = time.time() - time.monotonic()
    now = int(time.time())
    early_token = token("timed", uid=2, issue_ts=now, expire=LEAD + 3)  # warned at now + 3
    renewer_token = token("timed", uid=3, issue_ts=now - LEAD + 6 - 3, expire=LEAD + 3)  # expires at now + 6
    lapser_token = token("timed", uid=4, issue_ts=now - LEAD, expire=LEAD + 3)  # expires at now + 3
    early.call("join_channel", early_token, "timed", None, 2)
    renewer.call("join_channel", renewer_token, "timed", None, 3)
    lapser.call("join_channel", lapser_token, "timed", None, 4)
    assert expiry_of(early_token) == now + LEAD + 3
    assert expiry_of(renewer_token) == now + 6 and expiry_of(lapser_token) == now + 3

    # The renewer is warned at once and renews; a refused renewal first changes nothing.
    renewer.log.wait("on_token_privilege_will_expire")
    renewer.call("renew_token", "007garbage")
    renewer.log.wait("on_error")
    renewer.call("renew_token", token("timed", uid=3))
    lapser.log.wait("on_token_privilege_will_expire")

    # The early user is warned by the server's timer, not at once: 30 s before expiry.
    index = early.log.wait("on_token_privilege_will_expire")
    warned_at = early.log.time_of(index) + wall_offset
    assert warned_at >= now + 3 - 0.1, f"warned {now + 3 - warned_at:.2f}s before 30 s were left"
    early.call("renew_token", token("timed", uid=2))

    # The lapser's token ends: it is put out, and renewing brings it back.
    lapser.log.wait("on_connection_state_changed", 5, 9)
    watcher.log.wait("on_user_offline", 4, 1)
    assert lapser.call("get_connection_state") == agoraish.ConnectionState.FAILED
    lapser.call("renew_token", token("timed", uid=4))
    lapser.log.wait("on_rejoin_channel_success")
    watcher.log.wait("on_user_joined", 4, count=2)

    # Let the renewer's old expiry pass (wall time on purpose), then everyone leaves.
    remaining = now + 6 + 1.5 - time.time()
    if remaining > 0:
        time.sleep(remaining)
    for peer in (early, renewer, lapser):
        leave(peer)
    watcher.log.wait("on_user_offline", 3, 0)
    leave(watcher)

    joined = lambda uid: ("on_join_channel_success", ["timed", uid, ELAPSED])  # noqa: E731
    stays = lambda n: ("on_leave_channel", [{"duration": ANY, "tx_bytes": ANY, "rx_bytes": ANY,  # noqa: E731
                                             "tx_packets": ANY, "rx_packets": ANY, "user_count": Between(1, n),
                                             **LEAVE_STATS_AUDIO_FIELDS}])
    # The early user's notice is its only token event; user joins and leaves of the others vary in order.
    assert [e for e in early.log.snapshot() if "token" in e[0] or e[0] in ("on_error", "on_connection_lost")] == [
        ("on_token_privilege_will_expire", [early_token])]
    assert early.log.of("on_connection_state_changed") == [CONNECTING, CONNECTED, LEFT]

    assert [e for e in renewer.log.snapshot() if e[0] not in ("on_user_joined", "on_user_offline")] == [
        CONNECTING, CONNECTED, joined(3), ("on_token_privilege_will_expire", [renewer_token]),
        ("on_error", [110, ANY]), stays(4), LEFT]
    assert renewer.log.of("on_error")[0][1][1].startswith("renewToken"), renewer.log.of("on_error")

    # Put out, the lapser reports its own failure alone: the three others are
    # still in the channel, so none of them is reported offline.
    quits = lambda e: e[0] == "on_user_joined" or (e[0] == "on_user_offline" and e[1][1] == 0)  # noqa: E731
    assert [e for e in lapser.log.snapshot() if not quits(e)] == [
        CONNECTING, CONNECTED, joined(4), ("on_token_privilege_will_expire", [lapser_token]),
        ("on_request_token", []), failed(9), ("on_connection_state_changed", [4, 12]),
        ("on_connection_state_changed", [3, 15]),
        ("on_rejoin_channel_success", ["timed", 4, ELAPSED]), stays(4), LEFT]

    # The watcher saw the renewer and the early user stay, and the lapser drop (1) and return.
    assert [e for e in watcher.log.snapshot() if e[0] == "on_user_offline"] == [
        ("on_user_offline", [4, 1]), ("on_user_offline", [2, 0]), ("on_user_offline", [3, 0]),
        ("on_user_offline", [4, 0])]
    assert [e[1][0] for e in watcher.log.of("on_user_joined")].count(4) == 2


def test_apps_with_the_same_channel_name_never_meet(token_server, make_peer):
    url = token_server.url
    a1 = make_peer(url, "a1")
    t1 = make_peer(url, "t1", app_id=TESTING_APP)
    a2 = make_peer(url, "a2")
    t2 = make_peer(url, "t2", app_id=TESTING_APP, remote=True)

    a1.call("join_channel", token("same", uid=1000), "same", None, 1000)
    a1.log.wait("on_join_channel_success")
    t1.call("join_channel", "any token at all", "same", None, 1000)  # the same uid, in the other app
    t1.log.wait("on_join_channel_success")
    a2.call("join_channel", token("same", uid=2000), "same", None, 2000)
    a1.log.wait("on_user_joined", 2000)
    t2.call("join_channel", None, "same", None, 2000)
    t1.log.wait("on_user_joined", 2000)

    code, _, body = http_get(token_server.http_port, "/status")
    assert code == 200
    status = json.loads(body)
    assert [(c["app_id"], c["channel"], sorted(u["uid"] for u in c["users"])) for c in status["channels"]] == [
        (APP, "same", [1000, 2000]), (TESTING_APP, "same", [1000, 2000])]

    for peer in (a2, t2):
        leave(peer)
    # The first users hear of the others leaving before they leave themselves.
    a1.log.wait("on_user_offline", 2000)
    t1.log.wait("on_user_offline", 2000)
    for peer in (a1, t1):
        leave(peer)
    joined = lambda uid: ("on_join_channel_success", ["same", uid, ELAPSED])  # noqa: E731
    stats = lambda n: ("on_leave_channel", [{"duration": ANY, "tx_bytes": ANY, "rx_bytes": ANY,  # noqa: E731
                                             "tx_packets": ANY, "rx_packets": ANY, "user_count": n,
                                             **LEAVE_STATS_AUDIO_FIELDS}])
    for first, second in ((a1, a2), (t1, t2)):
        expect_events(first.log, [CONNECTING, CONNECTED, joined(1000), ("on_user_joined", [2000, ELAPSED]),
                                  ("on_user_offline", [2000, 0]), stats(1), LEFT])
        expect_events(second.log, [CONNECTING, CONNECTED, joined(2000), ("on_user_joined", [1000, ELAPSED]),
                                   stats(2), LEFT])
