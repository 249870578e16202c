"""Helpers shared by the Python tests: paths, the library under test, a recording handler.

Importing this module puts bindings/python of this checkout on sys.path (so the
tests exercise the binding in the tree, not an installed copy) and, when
AGORAISH_LIBRARY is unset, points it at dist/lib/libagoraish.so.0 of this
checkout. The Makefile exports AGORAISH_LIBRARY itself.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import List, Tuple

ROOT = Path(__file__).resolve().parents[2]
BINDING = ROOT / "bindings" / "python"
DIST_LIBRARY = ROOT / "dist" / "lib" / "libagoraish.so.0"
#: The agoraish-server of the debug build (`swift build`), run as a child process by some tests.
SERVER_CLI = ROOT / ".build" / "debug" / "agoraish-server"

if str(BINDING) not in sys.path:
    sys.path.insert(0, str(BINDING))
if not os.environ.get("AGORAISH_LIBRARY") and DIST_LIBRARY.exists():
    os.environ["AGORAISH_LIBRARY"] = str(DIST_LIBRARY)

#: How long any wait for a callback may take before the test fails, in seconds.
TIMEOUT = 10.0


def library_path() -> Path:
    """The library file under test."""
    return Path(os.environ.get("AGORAISH_LIBRARY") or DIST_LIBRARY)


class Recorder:
    """An event handler that records every on_api_call_executed and lets tests wait for them.

    Records (err, api, result) tuples and the thread each arrived on;
    `wait_for(n)` blocks on a condition variable until n events have arrived
    or TIMEOUT passes.
    """

    def __init__(self) -> None:
        self.events: List[Tuple[int, str, str]] = []
        self.threads: List[int] = []
        self._cond = threading.Condition()

    def on_api_call_executed(self, err: int, api: str, result: str) -> None:
        with self._cond:
            self.events.append((err, api, result))
            self.threads.append(threading.get_ident())
            self._cond.notify_all()

    def wait_for(self, count: int, timeout: float = TIMEOUT) -> List[Tuple[int, str, str]]:
        """The first `count` events; fails the test if they do not arrive in time."""
        with self._cond:
            ok = self._cond.wait_for(lambda: len(self.events) >= count, timeout)
            got = list(self.events)
        assert ok, f"waited {timeout}s for {count} events, got {len(got)}: {got}"
        return got[:count]


def http_get(port: int, path: str, method: str = "GET") -> Tuple[int, str, bytes]:
    """(status, content type, body) of an HTTP request to 127.0.0.1:port, bypassing any proxy settings."""
    import urllib.error
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    try:
        with opener.open(request, timeout=TIMEOUT) as reply:
            return reply.status, reply.headers.get("Content-Type", ""), reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read()
