#!/usr/bin/env python3
"""join_channel.py — the JoinChannel lifecycle of Agora's samples, in Python,
against a channel server inside this process:

    RtcEngine(...) -> join_channel -> on_join_channel_success
    -> on_user_joined (a remote user arrives) -> on_user_offline (it leaves)
    -> leave_channel -> on_leave_channel -> release

The "remote" user is a second engine in the same process; on a real
deployment it would be another host pointed at the same server.

Runs from a checkout: it imports bindings/python and, unless
AGORAISH_LIBRARY says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/join_channel.py
"""
import sys
import threading

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish

APP_ID = "0123456789abcdef0123456789abcdef"
CHANNEL = "join-channel"
TIMEOUT = 5.0


class JoinChannelHandler(agoraish.EventHandler):
    """A user's events, on its engine's event thread; the local user's are printed."""

    def __init__(self, name: str, verbose: bool) -> None:
        self.name = name
        self.verbose = verbose
        self.changed = threading.Condition()
        self.uid = 0
        self.joined = False
        self.remote = 0

    def _say(self, text: str) -> None:
        if self.verbose:
            print(f"{self.name}: {text}", flush=True)

    def on_join_channel_success(self, channel: str, uid: int, elapsed: int) -> None:
        self._say(f"on_join_channel_success channel {channel} uid {uid} elapsed {elapsed} ms")
        with self.changed:
            self.uid, self.joined = uid, True
            self.changed.notify_all()

    def on_user_joined(self, uid: int, elapsed: int) -> None:
        self._say(f"on_user_joined uid {uid} elapsed {elapsed} ms")
        with self.changed:
            self.remote = uid
            self.changed.notify_all()

    def on_user_offline(self, uid: int, reason: int) -> None:
        self._say(f"on_user_offline uid {uid} reason {agoraish.UserOfflineReason(reason).name}")
        with self.changed:
            if uid == self.remote:
                self.remote = 0
            self.changed.notify_all()

    def on_leave_channel(self, stats) -> None:
        self._say(f"on_leave_channel duration {stats.duration} s, tx {stats.tx_bytes} bytes, "
                  f"rx {stats.rx_bytes} bytes, users {stats.user_count}")
        with self.changed:
            self.joined = False
            self.changed.notify_all()

    def on_error(self, err: int, msg: str) -> None:
        self._say(f"on_error {err} {msg}")

    def wait(self, predicate, what: str) -> None:
        """Waits up to TIMEOUT for `predicate()` (under the lock)."""
        with self.changed:
            if not self.changed.wait_for(predicate, timeout=TIMEOUT):
                raise TimeoutError(f"{self.name}: no {what} within {TIMEOUT:.0f} s")


def main() -> int:
    local = JoinChannelHandler("local", verbose=True)
    remote = JoinChannelHandler("remote", verbose=False)
    server = agoraish.ChannelServer().start()  # 127.0.0.1, a free port, any app id
    try:
        version, _build = agoraish.get_version()
        print(f"agoraish {version}, channel server at {server.url}")
        # Leaving a `with` block releases the engine (sync=True).
        with agoraish.RtcEngine(APP_ID, local, server_url=server.url) as engine, \
                agoraish.RtcEngine(APP_ID, remote, server_url=server.url) as other:
            print(f'local: join_channel("{CHANNEL}", uid 0)', flush=True)
            engine.join_channel(None, CHANNEL)
            local.wait(lambda: local.joined, "on_join_channel_success")

            other.join_channel(None, CHANNEL)
            remote.wait(lambda: remote.joined, "join of the remote user")
            local.wait(lambda: local.remote == remote.uid, "on_user_joined")

            print("remote: leave_channel", flush=True)
            other.leave_channel()
            remote.wait(lambda: not remote.joined, "leave of the remote user")
            local.wait(lambda: local.remote == 0, "on_user_offline")

            print("local: leave_channel", flush=True)
            engine.leave_channel()
            local.wait(lambda: not local.joined, "on_leave_channel")
        print("released")
    except (agoraish.AgoraishError, TimeoutError) as error:
        print(f"join_channel: {error}", file=sys.stderr)
        return 1
    finally:
        server.release()
    return 0


if __name__ == "__main__":
    sys.exit(main())
