"""Fixtures of the Python tests (pytest). Paths and helpers live in support.py."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator, List, Optional

import pytest

import support  # noqa: F401  (puts the binding on sys.path, picks the library)


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    """A fresh directory for log files."""
    d = tmp_path / "logs"
    d.mkdir()
    return d


@pytest.fixture
def make_engine(log_dir: Path) -> Iterator[Callable[..., "object"]]:
    """Creates engines that log into `log_dir` (unless told otherwise) and releases them after the test."""
    import agoraish

    created: List[agoraish.RtcEngine] = []
    counter = [0]

    def make(handler: Optional[object] = None, *, app_id: str = "test-app", **kwargs: object) -> agoraish.RtcEngine:
        if "log_file" not in kwargs:
            counter[0] += 1
            kwargs["log_file"] = str(log_dir / f"engine{counter[0]}.log")
        engine = agoraish.RtcEngine(app_id, handler, **kwargs)  # type: ignore[arg-type]
        created.append(engine)
        return engine

    yield make
    for engine in created:
        engine.release()


@pytest.fixture
def ffi():
    """The raw ctypes module of the binding."""
    from agoraish import _ffi

    return _ffi


APP_ID = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def channel_server():
    """An embedded channel server on a free loopback port (any app id, no tokens), released after the test."""
    import agoraish

    server = agoraish.ChannelServer(http_port=-1)
    server.start()
    yield server
    server.release()


@pytest.fixture
def make_peer(log_dir: Path):
    """Creates channel peers (peers.LocalPeer, or peers.RemotePeer in a child process); closes them after the test."""
    import peers

    created: List[object] = []

    def make(server_url: str, name: str, *, remote: bool = False, app_id: str = APP_ID):
        cls = peers.RemotePeer if remote else peers.LocalPeer
        peer = cls(app_id, server_url, log_dir / f"{name}.log", name=name)
        created.append(peer)
        return peer

    yield make
    for peer in reversed(created):
        peer.close()  # type: ignore[attr-defined]
