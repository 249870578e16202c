#!/usr/bin/env python3
"""create_data_stream.py — Agora's CreateDataStream case in Python: short
messages from one user to the others of the channel, beside (or without)
audio and video.

    join_channel -> create_data_stream(reliable=True, ordered=True) -> stream id
    -> send_stream_message(stream_id, data)        (each message, at most 1 KB)
    -> on_stream_message(uid, stream_id, data, sent_ts) on the others
    -> on_stream_message_error(uid, stream_id, code, missed, cached) when some never come
    -> leave_channel (the streams end with the call) -> release

"local" creates a reliable, ordered stream and sends five text messages,
200 ms apart; "remote", a second engine in the same process, prints each one
from on_stream_message with its sender, stream and how long it took, then
answers on a stream of its own. The messages travel on the media path
through the server; a reliable stream has what is lost sent again on each
hop, so each message arrives once and in order. The example also shows one
of the limits (1 KB per message: -114). It checks that remote got the five
messages in order, exactly once, and that local got the answer. Audio is off
on both engines: this call carries data only.

The Python version of examples/c/create_data_stream.c. Runs from a checkout:
it imports bindings/python and, unless AGORAISH_LIBRARY says otherwise, uses
the checkout's dist/lib (`make dist`):

    python3 examples/python/create_data_stream.py
"""
import sys
import time
from typing import List, Tuple

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, meet, part, run_call, say, sleep_until

CHANNEL = "create-data-stream"
MESSAGES = 5
INTERVAL_MS = 200
MAX_MESSAGE_SIZE = 1024  # bytes per message (Agora's limit, AGORAISH_MAX_STREAM_MESSAGE_SIZE)


# ---- one user's events --------------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        # Guarded by `changed`.
        self.messages: List[Tuple[int, int, bytes]] = []  # (uid, stream, data)
        self.errors = 0

    def on_stream_message(self, uid: int, stream_id: int, data: bytes, sent_ts: int) -> None:
        # `data` is a copy; `sent_ts` is the sender's wall clock (ms since 1970).
        took = int(time.time() * 1000) - sent_ts
        say(self.name, f"on_stream_message uid {uid}, stream {stream_id}, {len(data)} bytes, sent {took} ms ago: "
                       f'"{data.decode("utf-8", "replace")}"')
        with self.changed:
            self.messages.append((uid, stream_id, data))
            self.changed.notify_all()

    def on_stream_message_error(self, uid: int, stream_id: int, code: int, missed: int, cached: int) -> None:
        # A reliable stream: a loss not repaired within 5 s.
        say(self.name, f"on_stream_message_error uid {uid}, stream {stream_id}: code {int(code)}, "
                       f"{missed} missed, {cached} cached")
        with self.changed:
            self.errors += 1


# ---- the call ---------------------------------------------------------------------------


def text_of(i: int) -> bytes:
    return f"message {i + 1} of {MESSAGES} from local".encode()


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    # Data only: no microphone, no speaker.
    local_engine.disable_audio()
    remote_engine.disable_audio()

    if not meet(CHANNEL, local_engine, local, remote_engine, remote):
        return False
    local_uid, remote_uid = remote.peer, local.peer

    # local's stream: reliable and ordered (Agora's createDataStream(&id, true, true)).
    stream = local_engine.create_data_stream(reliable=True, ordered=True)
    say("local", f"create_data_stream(reliable, ordered): stream {stream}")

    # A message may hold 1 KB at most.
    big = b"." * (MAX_MESSAGE_SIZE + 1)
    refused = False
    try:
        local_engine.send_stream_message(stream, big)
    except agoraish.AgoraishError as error:
        say("local", f"send_stream_message({len(big)} bytes) = {error.code}")
        refused = error.code == -agoraish.ErrorCode.SIZE_TOO_LARGE

    start = time.monotonic()
    for i in range(MESSAGES):
        local_engine.send_stream_message(stream, text_of(i))
        say("local", f'send_stream_message({stream}, "{text_of(i).decode()}")')
        sleep_until(start, (i + 1) * INTERVAL_MS)
    if not remote.wait_until(lambda u: len(u.messages) >= MESSAGES, "messages"):
        return False

    # remote answers on a stream of its own.
    answer_stream = remote_engine.create_data_stream(reliable=True, ordered=True)
    answer = f"got your {MESSAGES} messages".encode()
    remote_engine.send_stream_message(answer_stream, answer)
    say("remote", f'create_data_stream: stream {answer_stream}; send_stream_message("{answer.decode()}")')
    if not local.wait_until(lambda u: len(u.messages) >= 1, "answer"):
        return False

    if not part(local_engine, local, remote_engine, remote):
        return False

    # The streams ended with the call.
    try:
        local_engine.send_stream_message(stream, b"late")
        say("local", "after leaving: send_stream_message went through")
    except agoraish.AgoraishError as error:
        say("local", f"after leaving: send_stream_message = {error.code}")

    # Each message once, in order, from local on its stream; and the answer.
    with remote.changed:
        got, remote_errors = list(remote.messages), remote.errors
    with local.changed:
        answers, local_errors = list(local.messages), local.errors
    in_order = got == [(local_uid, stream, text_of(i)) for i in range(MESSAGES)]
    say("remote", f"received {len(got)} messages, {'in order' if in_order else 'NOT as sent'}, "
                  f"{remote_errors} errors")
    return (in_order and remote_errors == 0 and local_errors == 0 and refused
            and answers == [(remote_uid, answer_stream, answer)])


def main() -> int:
    local, remote = User("local"), User("remote")
    return run_call("create_data_stream", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: remote got local's messages once and in order, and local got the answer")


if __name__ == "__main__":
    sys.exit(main())
