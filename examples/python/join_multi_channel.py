#!/usr/bin/env python3
"""join_multi_channel.py — Agora's JoinMultiChannel case in Python: one engine
in two channels at once, each channel with its own events, users and data.

    ChannelMediaOptions(...)   (what each connection publishes and receives)
    -> join_channel_with_options(token, "multi-channel-1", uid, options)   (the engine's own connection)
    -> join_channel_ex(token, RtcConnection("multi-channel-2", uid), options, EventHandlerEx)
       -> a Connection: the `_ex` methods of that connection
    -> on_join_channel_success(connection, uid, elapsed), on_user_joined(connection, ...)
    -> create_data_stream / send_stream_message on each connection
    -> Connection.leave_channel() (leave_channel_ex): on_leave_channel(connection, stats),
       the other channel goes on -> leave_channel -> release

"local" joins "multi-channel-1" with its own connection and, as the same uid,
"multi-channel-2" with a second connection (join_channel_ex), whose events
reach an EventHandlerEx, each with the connection first. "alice" is in the
first channel, "bob" in the second; neither sees the other, nor the other
channel's messages. local sends a message into each channel on a data stream
of that connection; bob answers into his channel, which local's second
connection receives. Then local leaves the second channel only: bob sees it
go, alice still gets local's messages. Audio is off: both connections publish
nothing and leave the audio device alone (ChannelMediaOptions), and alice and
bob disable audio.

Runs from a checkout: it imports bindings/python and, unless
AGORAISH_LIBRARY says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/join_multi_channel.py
"""
import sys
import threading
import time
from typing import Callable, List, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import WAIT_SECONDS, ExampleUser, has_left, is_joined, name_of, run_call, say, sees_nobody, sees_peer

CHANNEL_1 = "multi-channel-1"
CHANNEL_2 = "multi-channel-2"
LOCAL_UID, ALICE_UID, BOB_UID = 1, 2, 3

# Both of local's connections send no audio and leave the device alone.
QUIET = agoraish.ChannelMediaOptions(publish_microphone_track=False, enable_audio_recording_or_playout=False)


# ---- the users' events --------------------------------------------------------------


class User(ExampleUser):
    """A user's (own connection's) events, on its engine's event thread."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.messages: List[Tuple[int, bytes]] = []  # guarded by `changed`: (uid, data)

    def on_stream_message(self, uid: int, stream_id: int, data: bytes, sent_ts: int) -> None:
        say(self.name, f'on_stream_message uid {uid}, stream {stream_id}: "{data.decode("utf-8", "replace")}"')
        with self.changed:
            self.messages.append((uid, data))
            self.changed.notify_all()


class SecondConnection(agoraish.EventHandlerEx):
    """The events of local's second connection: each callback receives the
    connection first (an RtcConnection), on the engine's event thread."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.changed = threading.Condition()
        # Guarded by `changed`.
        self.joined = False
        self.left = False
        self.peers: List[int] = []
        self.messages: List[Tuple[int, bytes]] = []

    def on_join_channel_success(self, connection: agoraish.RtcConnection, uid: int, elapsed: int) -> None:
        say(self.name, f'on_join_channel_success "{connection.channel_id}" (local_uid {connection.local_uid}) '
                       f"uid {uid}, {elapsed} ms")
        with self.changed:
            self.joined = True
            self.changed.notify_all()

    def on_connection_state_changed(self, connection: agoraish.RtcConnection, state: int, reason: int) -> None:
        say(self.name, f'on_connection_state_changed "{connection.channel_id}" {name_of(state)} ({name_of(reason)})')

    def on_user_joined(self, connection: agoraish.RtcConnection, uid: int, elapsed: int) -> None:
        say(self.name, f'on_user_joined "{connection.channel_id}" uid {uid}')
        with self.changed:
            self.peers.append(uid)
            self.changed.notify_all()

    def on_user_offline(self, connection: agoraish.RtcConnection, uid: int, reason: int) -> None:
        say(self.name, f'on_user_offline "{connection.channel_id}" uid {uid}, {name_of(reason)}')
        with self.changed:
            self.peers.remove(uid)
            self.changed.notify_all()

    def on_stream_message(self, connection: agoraish.RtcConnection, uid: int, stream_id: int, data: bytes,
                          sent_ts: int) -> None:
        say(self.name, f'on_stream_message "{connection.channel_id}" uid {uid}, stream {stream_id}: '
                       f'"{data.decode("utf-8", "replace")}"')
        with self.changed:
            self.messages.append((uid, data))
            self.changed.notify_all()

    def on_leave_channel(self, connection: agoraish.RtcConnection, stats: agoraish.RtcStats) -> None:
        say(self.name, f'on_leave_channel "{connection.channel_id}" after {stats.duration} s: '
                       f"sent {stats.tx_bytes} bytes, received {stats.rx_bytes} bytes")
        with self.changed:
            self.left = True
            self.changed.notify_all()

    def wait_until(self, done: Callable[["SecondConnection"], bool], what: str) -> bool:
        with self.changed:
            ok = self.changed.wait_for(lambda: done(self), timeout=WAIT_SECONDS)
        if not ok:
            say(self.name, f"no {what} within {WAIT_SECONDS:g} s")
        return ok


def got(text: bytes) -> Callable[[User], bool]:
    return lambda u: any(data == text for _, data in u.messages)


# ---- the call --------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, alice_engine: agoraish.RtcEngine, bob_engine: agoraish.RtcEngine,
         local: User, alice: User, bob: User, second: SecondConnection) -> bool:
    alice_engine.disable_audio()
    bob_engine.disable_audio()

    # The engine's own connection, in the first channel.
    local_engine.join_channel_with_options(None, CHANNEL_1, LOCAL_UID, QUIET)
    say("local", f'join_channel_with_options("{CHANNEL_1}", uid {LOCAL_UID}, no microphone, no device)')
    alice_engine.join_channel(None, CHANNEL_1, uid=ALICE_UID)
    # A second connection: the same uid, in the second channel.
    key = agoraish.RtcConnection(CHANNEL_2, LOCAL_UID)
    connection = local_engine.join_channel_ex(None, key, QUIET, second)
    say("local", f"join_channel_ex({key}) -> {connection!r}")
    bob_engine.join_channel(None, CHANNEL_2, uid=BOB_UID)
    if not (local.wait_until(is_joined, "join") and second.wait_until(lambda c: c.joined, "join")
            and alice.wait_until(is_joined, "join") and bob.wait_until(is_joined, "join")
            and local.wait_until(sees_peer, "alice") and second.wait_until(lambda c: BOB_UID in c.peers, "bob")
            and alice.wait_until(sees_peer, "local") and bob.wait_until(sees_peer, "local")):
        return False
    separate = local.peer == ALICE_UID and second.peers == [BOB_UID] and alice.peer == bob.peer == LOCAL_UID
    say("local", f"channel 1: {CHANNEL_1} with alice (uid {local.peer}); channel 2: {CHANNEL_2} "
                 f"with bob (uids {second.peers}); state of each: {name_of(local_engine.get_connection_state())}, "
                 f"{name_of(connection.get_connection_state())}")

    # A data stream in each channel, each on its own connection.
    to_alice, to_bob = b"hello, multi-channel-1", b"hello, multi-channel-2"
    stream_1 = local_engine.create_data_stream(reliable=True, ordered=True)
    stream_2 = connection.create_data_stream(sync_with_audio=False, ordered=True)
    say("local", f"create_data_stream: stream {stream_1} on the engine's connection, {stream_2} on the second one")
    local_engine.send_stream_message(stream_1, to_alice)
    connection.send_stream_message(stream_2, to_bob)
    if not (alice.wait_until(got(to_alice), "message") and bob.wait_until(got(to_bob), "message")):
        return False
    answer = b"hi local, this is bob"
    bob_engine.send_stream_message(bob_engine.create_data_stream(reliable=True, ordered=True), answer)
    if not second.wait_until(lambda c: any(data == answer for _, data in c.messages), "answer"):
        return False
    time.sleep(0.2)  # anything sent to the wrong channel would have arrived by now
    with alice.changed, bob.changed, local.changed:
        separate = separate and alice.messages == [(LOCAL_UID, to_alice)] and bob.messages == [(LOCAL_UID, to_bob)]
        separate = separate and local.messages == []

    # Leave the second channel only: bob sees local go, alice does not.
    connection.leave_channel()
    say("local", f"leave_channel of the second connection ({CHANNEL_2})")
    if not (second.wait_until(lambda c: c.left, "leave") and bob.wait_until(sees_nobody, "user offline")):
        return False
    still = b"still here, multi-channel-1"
    local_engine.send_stream_message(stream_1, still)
    if not alice.wait_until(got(still), "message after the other leave"):
        return False
    say("local", f"after leaving {CHANNEL_2}: {name_of(local_engine.get_connection_state())} in {CHANNEL_1}, "
                 f"alice {'still sees' if alice.peer == LOCAL_UID else 'lost'} local")
    ok = separate and alice.peer == LOCAL_UID

    # The end: alice and local leave the first channel, bob his.
    alice_engine.leave_channel()
    if not (alice.wait_until(has_left, "leave") and local.wait_until(sees_nobody, "user offline")):
        return False
    local_engine.leave_channel()
    bob_engine.leave_channel()
    return local.wait_until(has_left, "leave") and bob.wait_until(has_left, "leave") and ok


def main() -> int:
    local, alice, bob = User("local"), User("alice"), User("bob")
    second = SecondConnection("local2")
    return run_call("join_multi_channel", [local, alice, bob],
                    lambda engines: call(*engines, local, alice, bob, second),
                    "done: local was in both channels at once, each with its own users and messages")


if __name__ == "__main__":
    sys.exit(main())
