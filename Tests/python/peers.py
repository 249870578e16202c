"""Engines as channel peers for the end-to-end tests: in this process or in another one.

Every peer records its callbacks in an `EventLog` as (name, args) pairs whose
arguments are plain JSON values (enums as ints, `RtcStats` as a dict,
`UserInfo` as [uid, account]), so events of a local engine and of an engine in
a child process (peer_process.py, which prints them as JSON lines) compare the
same way. Tests wait on the log's condition variable, never by polling.

    a = LocalPeer("app", server.url, log_dir / "a.log")
    b = RemotePeer("app", server.url, log_dir / "b.log")
    a.call("join_channel", None, "demo", None, 0)
    b.log.wait("on_join_channel_success")
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import support  # noqa: F401  (sys.path and AGORAISH_LIBRARY)
from support import BINDING, TIMEOUT

import agoraish
from agoraish import AgoraishError, _ffi

HERE = Path(__file__).resolve().parent
PEER_SCRIPT = HERE / "peer_process.py"

#: The callbacks a recording handler implements: every channel callback of
#: EventHandler (the agoraish_event_handler entries up to on_error). The audio
#: callbacks of ABI 0.4 are left out: some are periodic (statistics every 2 s)
#: and would make the exact event lists of the channel tests depend on timing;
#: test_audio_features.py covers them.
_TABLE_CALLBACKS = [name for name, _ in _ffi.EventHandlerTable._fields_ if name.startswith("on_")]
CALLBACKS = sorted(_TABLE_CALLBACKS[: _TABLE_CALLBACKS.index("on_error") + 1])

Event = Tuple[str, list]


def jsonable(value: Any) -> Any:
    """A callback argument as a plain JSON value."""
    if isinstance(value, enum.IntEnum):
        return int(value)
    if isinstance(value, agoraish.UserInfo):
        return [int(value.uid), value.user_account]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


class _Anything:
    """Equal to every value: a placeholder in expected event lists."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    def __repr__(self) -> str:
        return "ANY"


ANY = _Anything()


class Between:
    """Equal to numbers in [low, high]: for elapsed times and counters."""

    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = low, high

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (int, float)) and not isinstance(other, bool) and self.low <= other <= self.high

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __repr__(self) -> str:
        return f"Between({self.low}, {self.high})"


#: An `elapsed` argument: milliseconds since the join call, within a test's time.
ELAPSED = Between(0, 60_000)

#: The fields ABI 0.4 and 0.6 added to RtcStats, as `on_leave_channel` reports
#: them: the rates are 0 there (they cover the 2 s periods of a call in progress).
LEAVE_STATS_AUDIO_FIELDS = {
    "tx_kbitrate": 0, "tx_audio_bytes": ANY, "rx_audio_bytes": ANY, "rx_kbitrate": 0,
    "tx_audio_kbitrate": 0, "rx_audio_kbitrate": 0, "memory_app_usage_kb": ANY, "cpu_app_usage": ANY,
    "tx_video_kbitrate": 0, "rx_video_kbitrate": 0, "gateway_rtt": ANY, "lastmile_delay": ANY,
    "tx_packet_loss_rate": ANY, "rx_packet_loss_rate": ANY,
}


class EventLog:
    """Events in arrival order, with the monotonic time each arrived; waitable."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.events: List[Event] = []
        self.times: List[float] = []
        self._cond = threading.Condition()

    def add(self, name: str, args: list, at: Optional[float] = None) -> None:
        with self._cond:
            self.events.append((name, args))
            self.times.append(time.monotonic() if at is None else at)
            self._cond.notify_all()

    def snapshot(self) -> List[Event]:
        with self._cond:
            return list(self.events)

    def wait_until(self, predicate: Callable[[List[Event]], bool], what: str, timeout: float = TIMEOUT) -> List[Event]:
        """Blocks until `predicate(events)` holds; fails the test after `timeout` seconds."""
        with self._cond:
            ok = self._cond.wait_for(lambda: predicate(self.events), timeout)
            events = list(self.events)
        assert ok, f"{self.name}: waited {timeout}s for {what}; events: {events}"
        return events

    def wait(self, name: str, *args: Any, count: int = 1, timeout: float = TIMEOUT) -> int:
        """Waits for the `count`-th event `name` whose leading arguments equal `args`; returns its index."""
        expected = list(args)

        def matches(event: Event) -> bool:
            return event[0] == name and event[1][: len(expected)] == expected

        def found(events: List[Event]) -> bool:
            return sum(1 for e in events if matches(e)) >= count

        events = self.wait_until(found, f"{count} x {name}{tuple(args)}", timeout)
        seen = 0
        for index, event in enumerate(events):
            if matches(event):
                seen += 1
                if seen == count:
                    return index
        raise AssertionError("unreachable")

    def wait_count(self, total: int, timeout: float = TIMEOUT) -> List[Event]:
        """Waits until at least `total` events have arrived."""
        return self.wait_until(lambda events: len(events) >= total, f"{total} events", timeout)

    def time_of(self, index: int) -> float:
        with self._cond:
            return self.times[index]

    def of(self, *names: str) -> List[Event]:
        """The events with these names, in order."""
        return [e for e in self.snapshot() if e[0] in names]

    def count(self, name: str) -> int:
        return sum(1 for e in self.snapshot() if e[0] == name)

    def since(self, index: int) -> List[Event]:
        return self.snapshot()[index:]


class RecordingHandler(agoraish.EventHandler):
    """Implements every callback by appending (name, jsonable args) to an EventLog."""

    def __init__(self, log: EventLog) -> None:
        self.log = log


def _recorder(name: str) -> Callable[..., None]:
    def record(self: RecordingHandler, *args: Any) -> None:
        self.log.add(name, jsonable(list(args)))

    record.__name__ = name
    return record


for _name in CALLBACKS:
    setattr(RecordingHandler, _name, _recorder(_name))


class LocalPeer:
    """An engine in this process with a recording handler."""

    def __init__(self, app_id: str, server_url: str, log_file: Path, name: str = "local") -> None:
        self.name = name
        self.log = EventLog(name)
        self.engine = agoraish.RtcEngine(app_id, RecordingHandler(self.log), server_url=server_url,
                                         log_file=str(log_file))

    def call(self, method: str, *args: Any) -> Any:
        """Calls an RtcEngine method; AgoraishError propagates."""
        return jsonable(getattr(self.engine, method)(*args))

    def close(self) -> None:
        self.engine.release()


class RemotePeer:
    """An engine in a child process (peer_process.py), driven over its stdin and stdout.

    `call` sends one command and waits for its reply; an error reply raises
    AgoraishError with the code the child saw. Events arrive in `log` as the
    child prints them.
    """

    def __init__(self, app_id: str, server_url: str, log_file: Path, name: str = "remote") -> None:
        self.name = name
        self.log = EventLog(name)
        self._replies: Dict[int, dict] = {}
        self._cond = threading.Condition()
        self._next_id = 0
        self._ended = False
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(BINDING), str(HERE), env.get("PYTHONPATH", "")])
        self._stderr = open(str(log_file) + ".stderr", "w+", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, str(PEER_SCRIPT), app_id, server_url, str(log_file)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True, bufsize=1, env=env,
        )
        self._reader = threading.Thread(target=self._read, name=f"peer-{name}", daemon=True)
        self._reader.start()
        self.call("ping")  # the engine exists once the child answers

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            message = json.loads(line)
            if "event" in message:
                self.log.add(message["event"], message["args"])
            else:
                with self._cond:
                    self._replies[message["id"]] = message
                    self._cond.notify_all()
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def call(self, method: str, *args: Any, timeout: float = TIMEOUT) -> Any:
        with self._cond:
            self._next_id += 1
            ident = self._next_id
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"id": ident, "method": method, "args": list(args)}) + "\n")
        self.process.stdin.flush()
        with self._cond:
            ok = self._cond.wait_for(lambda: ident in self._replies or self._ended, timeout)
            reply = self._replies.pop(ident, None)
        assert ok and reply is not None, f"{self.name}: no reply to {method}{args}; stderr: {self.stderr()}"
        if "error" in reply:
            raise AgoraishError(reply["error"], f"{self.name} {method}")
        return reply.get("result")

    def stderr(self) -> str:
        self._stderr.flush()
        self._stderr.seek(0)
        return self._stderr.read()

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(json.dumps({"id": 0, "method": "exit"}) + "\n")
                self.process.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                self.process.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(TIMEOUT)
        self._stderr.close()


def join_both(first: Any, second: Any, channel: str, first_uid: int = 1, second_uid: int = 2) -> None:
    """`first` joins `channel` as `first_uid`, then `second` as `second_uid`;
    returns once each has seen the other join (a test fails after TIMEOUT)."""
    first.call("join_channel", None, channel, None, first_uid)
    first.log.wait("on_join_channel_success")
    second.call("join_channel", None, channel, None, second_uid)
    second.log.wait("on_user_joined", first_uid)
    first.log.wait("on_user_joined", second_uid)


def expect_events(log: EventLog, expected: Sequence[Event]) -> None:
    """Asserts the whole event list of `log` (ANY and Between match loosely)."""
    got = log.snapshot()
    assert got == list(expected), f"{log.name}:\n  got      {got}\n  expected {list(expected)}"
