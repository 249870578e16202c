"""Bad input at the C ABI, function by function, through the raw ctypes declarations.

The table ROWS has one row per function of include/agoraish.h; a function
added to the header without a row (or a parameter without a case) fails
`test_table_covers_every_function`. Each row lists cases, each tagged with the
parameter it exercises. Engine and server functions also get the handle
checks: NULL, stale, another type (forged and live), garbage and never-issued
handles.

Engines of the cases talk to an embedded server of this module (never to a
server that happens to run on the default port); cases that need a call in
progress but no answer point the engine at a port where nothing listens.
"""

from __future__ import annotations

import ctypes
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Set, Tuple

import pytest

import abi_header
from agoraish import _ffi

HEADER_FUNCTIONS = abi_header.functions()
ERROR_CODES = abi_header.enum_members("agoraish_error_code")

# Forged handles (layout: tag in bits 63..56, generation in 55..32, slot + 1 in 31..0).
ENGINE_TAG, SERVER_TAG = 0x01, 0x02
GARBAGE = 0xDEADBEEF  # tag byte 0: not a handle of any type


def forged(tag: int, slot: int = 1) -> int:
    return (tag << 56) | (1 << 32) | slot


EINVAL, ENOTREADY, ENOTSUP, EREFUSED, ESMALL, ENOINIT, ESTATE, EBIND, EAPPID, EFAILED = (
    -2, -3, -4, -5, -6, -7, -8, -13, -101, -1)
EJOIN, ELEAVE, ECHANNEL, ENOTIN, EACCOUNT = -17, -18, -102, -113, -134

#: A server URL where nothing listens: a join stays CONNECTING (retrying) for the whole case.
NOWHERE = b"ws://127.0.0.1:1"
ALLOWED_CHANNEL_CHARS = b"abcxyzABCXYZ0189 !#$%&()+-:;<=.>?@[]^_{}|~,"

#: The URL of this module's embedded server (set by the `module_server` fixture).
SERVER_URL: List[bytes] = []


@dataclass
class Ctx:
    """What a case gets: a live engine handle (released after the case) and a scratch directory.

    `keep` holds what must outlive the case's calls (callback objects);
    `engines` and `servers` are released after the case.
    """

    engine: int
    tmp: Path
    keep: List[object] = field(default_factory=list)
    engines: List[int] = field(default_factory=list)
    servers: List[int] = field(default_factory=list)


def make_config(tmp: Path, **fields) -> _ffi.EngineConfig:
    config = _ffi.EngineConfig()
    config.struct_size = ctypes.sizeof(_ffi.EngineConfig)
    config.app_id = b"bad-input-app"
    config.log_file = str(tmp / "bad-input.log").encode()
    config.server_url = SERVER_URL[0] if SERVER_URL else NOWHERE
    for name, value in fields.items():
        setattr(config, name, value)
    return config


def create(tmp: Path, config: Optional[_ffi.EngineConfig] = None, **fields) -> Tuple[Optional[int], int]:
    """(handle or None, agoraish_get_last_error()) for a create call; a handle is released at once."""
    config = config if config is not None else make_config(tmp, **fields)
    handle = _ffi.agoraish_engine_create(ctypes.byref(config))
    error = _ffi.agoraish_get_last_error()
    if handle:
        assert _ffi.agoraish_engine_release(handle, 1) == 0
    return handle, error


def expect_create_fails(tmp: Path, code: int, **fields) -> None:
    handle, error = create(tmp, **fields)
    assert handle is None and error == code, (handle, error)


def get_parameter(engine: int, key, capacity: Optional[int]) -> Tuple[int, int, bytes]:
    """(rc, needed length, buffer contents) for agoraish_engine_get_parameter."""
    length = ctypes.c_size_t(capacity or 0)
    buf = None
    if capacity is not None:
        buf = ctypes.create_string_buffer(b"\xaa" * capacity, capacity)
    rc = _ffi.agoraish_engine_get_parameter(engine, key, buf, ctypes.byref(length))
    return rc, length.value, (buf.raw if buf is not None else b"")


# --------------------------------------------------------------------------
# Cases. Each takes a Ctx and asserts.
# --------------------------------------------------------------------------


def rc_is(expected: int, call: Callable[[Ctx], int]) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        assert call(ctx) == expected

    return case


def set_parameters(json: Optional[bytes]) -> Callable[[Ctx], int]:
    return lambda ctx: _ffi.agoraish_engine_set_parameters(ctx.engine, json)


def case_parameters_size_limit(ctx: Ctx) -> None:
    body = b'{"rtc.log_size": 256}'
    at_limit = body[:-1] + b" " * (65536 - len(body)) + b"}"
    assert len(at_limit) == 65536
    assert _ffi.agoraish_engine_set_parameters(ctx.engine, at_limit) == 0
    assert _ffi.agoraish_engine_set_parameters(ctx.engine, at_limit[:-1] + b" }") == EINVAL


def case_parameters_nothing_applied(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_set_parameters(ctx.engine, b'{"rtc.log_size": 256}') == 0
    assert _ffi.agoraish_engine_set_parameters(ctx.engine, b'{"rtc.log_size": 512, "rtc.bogus": 1}') == EINVAL
    rc, _, raw = get_parameter(ctx.engine, b"rtc.log_size", 64)
    assert rc == 0 and raw.split(b"\0")[0] == b"256"


def case_parameter_missing_dir(ctx: Ctx) -> int:
    path = str(ctx.tmp / "no-such-dir" / "x.log").encode()
    return _ffi.agoraish_engine_set_parameters(ctx.engine, b'{"rtc.log_file": "' + path + b'"}')


def case_buffer_too_small(ctx: Ctx) -> None:
    rc, needed, _ = get_parameter(ctx.engine, b"rtc.app_id", None)  # size query: NULL buf, len 0
    assert rc == ESMALL and needed == len(b'"bad-input-app"') + 1
    rc, needed2, raw = get_parameter(ctx.engine, b"rtc.app_id", needed - 1)
    assert rc == ESMALL and needed2 == needed
    assert raw == b"\xaa" * (needed - 1), "a too-small buffer must not be written"
    rc, needed3, raw = get_parameter(ctx.engine, b"rtc.app_id", needed)
    assert rc == 0 and needed3 == needed and raw == b'"bad-input-app"\0'


def case_get_parameter_null_len(ctx: Ctx) -> int:
    buf = ctypes.create_string_buffer(64)
    return _ffi.agoraish_engine_get_parameter(ctx.engine, b"rtc.log_file", buf, None)


def case_release_sync_values(ctx: Ctx) -> None:
    # Any int is a valid `sync`: zero is asynchronous, anything else synchronous.
    for sync in (0, 1, -1, 2**31 - 1):
        config = make_config(ctx.tmp)
        live = _ffi.agoraish_engine_create(ctypes.byref(config))
        assert live
        assert _ffi.agoraish_engine_release(live, sync) == 0
        assert _ffi.agoraish_engine_release(live, sync) == 0


def case_version(ctx: Ctx) -> None:
    assert _ffi.agoraish_get_version(None) == b"0.1.0"
    build = ctypes.c_int(-12345)
    assert _ffi.agoraish_get_version(ctypes.byref(build)) == b"0.1.0"
    assert build.value >= 1


def case_error_descriptions(ctx: Ctx) -> None:
    unknown = _ffi.agoraish_get_error_description(99999)
    assert unknown == b"unknown error"
    assert _ffi.agoraish_get_error_description(-99999) == b"unknown error"
    for code in (-(2**31), 2**31 - 1, 16, -16, 135):
        assert _ffi.agoraish_get_error_description(code) == b"unknown error", code
    for name, code in ERROR_CODES.items():
        for value in (code, -code):
            text = _ffi.agoraish_get_error_description(value)
            assert text and text != b"unknown error", (name, value)
            text.decode("utf-8")


def case_error_descriptions_distinct(ctx: Ctx) -> None:
    texts = {_ffi.agoraish_get_error_description(code) for code in ERROR_CODES.values()}
    assert len(texts) == len(ERROR_CODES), "two codes share a description"


def case_last_error(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_create(None) is None
    assert _ffi.agoraish_get_last_error() == EINVAL
    assert _ffi.agoraish_get_last_error() == EINVAL, "reading it does not clear it"
    seen: List[int] = []
    t = threading.Thread(target=lambda: seen.append(_ffi.agoraish_get_last_error()))
    t.start()
    t.join(10)
    assert seen == [0], "the last error is per thread"
    handle, error = create(ctx.tmp)
    assert handle and error == 0, "a successful create resets it"


def detail() -> str:
    return _ffi.agoraish_get_last_error_detail().decode()


def case_last_error_detail(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_create(None) is None
    assert detail() == "agoraish_engine_create: the agoraish_engine_config pointer is NULL"
    assert detail() == "agoraish_engine_create: the agoraish_engine_config pointer is NULL", "reading keeps it"
    seen: List[str] = []
    t = threading.Thread(target=lambda: seen.append(detail()))
    t.start()
    t.join(10)
    assert seen == [""], "the detail is per thread"
    # Handles, parameters, struct sizes and server configurations say what is wrong.
    assert _ffi.agoraish_engine_leave_channel(None) == ENOINIT
    assert detail() == "agoraish_engine_leave_channel: the engine handle is NULL"
    assert _ffi.agoraish_engine_set_parameters(ctx.engine, b'{"rtc.log_flie": "x"}') == EINVAL
    assert detail() == 'agoraish_engine_set_parameters: unknown parameter "rtc.log_flie"'
    assert _ffi.agoraish_engine_set_parameters(ctx.engine, b'{"rtc.log_size": 0}') == EINVAL
    assert detail() == 'agoraish_engine_set_parameters: parameter "rtc.log_size": 0 is not a valid value'
    assert _ffi.agoraish_engine_set_parameters(ctx.engine, b"[1]") == EINVAL
    assert detail() == "agoraish_engine_set_parameters: parameters are not a JSON object"
    config = _ffi.DataStreamConfig(struct_size=3)
    stream = ctypes.c_int()
    assert _ffi.agoraish_engine_create_data_stream_with_config(ctx.engine, ctypes.byref(stream),
                                                                ctypes.byref(config)) == EINVAL
    assert detail().startswith("agoraish_engine_create_data_stream_with_config: struct_size 3 is no size "
                               "agoraish_data_stream_config had in an ABI minor"), detail()
    config = server_config(config_json=b'{"limits": {"max_conections": 5}}')
    assert _ffi.agoraish_server_create(ctypes.byref(config)) is None
    assert "max_conections" in detail(), detail()
    # A TLS certificate without its key is refused at create, not found only at start.
    config = server_config(config_json=b'{"tls": {"certificate": "/nonexistent/cert.pem"}}')
    assert _ffi.agoraish_server_create(ctypes.byref(config)) is None
    assert _ffi.agoraish_get_last_error() == EINVAL
    assert "tls.key" in detail(), detail()
    # A call that succeeds clears it.
    assert _ffi.agoraish_engine_set_parameters(ctx.engine, b'{"rtc.log_size": 256}') == 0
    assert detail() == ""


def create_case(code: int, **fields) -> Callable[[Ctx], None]:
    return lambda ctx: expect_create_fails(ctx.tmp, code, **fields)


ROOT = Path(__file__).resolve().parents[2]

#: The struct_size values the library accepts for each versioned struct: its
#: size in every ABI minor that had it (include/abi/struct-sizes.json); any
#: other size is -2.
KNOWN_SIZES: Dict[str, Set[int]] = {}
for _sizes in json.loads((ROOT / "include" / "abi" / "struct-sizes.json").read_text()).values():
    for _struct, _size in _sizes.items():
        KNOWN_SIZES.setdefault(_struct, set()).add(_size)


def size_rc(struct: str, size: int) -> int:
    """What a call returns for `struct` passed with `size` (all else valid)."""
    return 0 if size in KNOWN_SIZES[struct] else EINVAL


def case_create_null(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_create(None) is None
    assert _ffi.agoraish_get_last_error() == EINVAL


def case_create_struct_size(ctx: Ctx) -> None:
    full = ctypes.sizeof(_ffi.EngineConfig)
    for size in (0, 4, 8, full - 8, full - 1):
        expect_create_fails(ctx.tmp, EINVAL, struct_size=size)
    expect_create_fails(ctx.tmp, EINVAL, struct_size=full + 64)  # no header had a larger struct


def case_create_handler_struct_size(ctx: Ctx) -> None:
    size_0_1 = _ffi.AGORAISH_EVENT_HANDLER_SIZE_0_1
    # Sizes no header had: too small, between two minors, or larger.
    full = ctypes.sizeof(_ffi.EventHandlerTable)
    for size in (0, 8, size_0_1 - 1, size_0_1 + 4, size_0_1 + 8, full - 1, full + 64):
        table = _ffi.EventHandlerTable()
        table.struct_size = size
        config = make_config(ctx.tmp)
        config.event_handler = ctypes.pointer(table)
        handle, error = create(ctx.tmp, config)
        assert handle is None and error == EINVAL, size
    # The table of every minor (all callbacks NULL) is accepted.
    for size in sorted(KNOWN_SIZES["agoraish_event_handler"]):
        table = _ffi.EventHandlerTable()
        table.struct_size = size
        config = make_config(ctx.tmp)
        config.event_handler = ctypes.pointer(table)
        handle, error = create(ctx.tmp, config)
        assert handle and error == 0, size


def case_create_app_ids(ctx: Ctx) -> None:
    for app_id in (None, b"", b"has space", b"tab\there", b"\xff\xfe", b"\x7f", b"a" * 129, "\u00e9".encode()):
        expect_create_fails(ctx.tmp, EAPPID, app_id=app_id)
    for app_id in (b"a", b"a" * 128, b"!~"):
        handle, error = create(ctx.tmp, app_id=app_id)
        assert handle and error == 0, app_id


def case_create_server_urls(ctx: Ctx) -> None:
    for url in (b"http://x", b"ws://", b"wss://", b"ws:/x", b"ws://a b", b"ws://\xff", b"ws://h/" + b"p" * 2048):
        expect_create_fails(ctx.tmp, EINVAL, server_url=url)
    for url in (None, b"", b"ws://h", b"wss://h.example:443/path"):
        handle, error = create(ctx.tmp, server_url=url)
        assert handle and error == 0, url


def case_create_log_file(ctx: Ctx) -> None:
    expect_create_fails(ctx.tmp, EFAILED, log_file=str(ctx.tmp / "missing" / "x.log").encode())
    expect_create_fails(ctx.tmp, EINVAL, log_file=b"/tmp/\xff.log")


def case_create_log_file_size(ctx: Ctx) -> None:
    for size in (-2, 20481, 2**31 - 1, -(2**31)):
        expect_create_fails(ctx.tmp, EINVAL, log_file_size_kb=size)
    for size in (0, -1, 1, 128, 20480):
        handle, error = create(ctx.tmp, log_file_size_kb=size)
        assert handle and error == 0, size


def case_create_log_level(ctx: Ctx) -> None:
    for level in (3, 5, 16, -1, 0x080F):
        expect_create_fails(ctx.tmp, EINVAL, log_level=level)
    for level in (0, 1, 2, 4, 8):
        handle, error = create(ctx.tmp, log_level=level)
        assert handle and error == 0, level


def case_create_area_code(ctx: Ctx) -> None:
    for area in (0x40, 0x41, 0x80000000, 0xFFFFFFFE):
        expect_create_fails(ctx.tmp, EINVAL, area_code=area)
    for area in (0, 1, 0x3F, 0xFFFFFFFF):
        handle, error = create(ctx.tmp, area_code=area)
        assert handle and error == 0, area


# --------------------------------------------------------------------------
# Channels
# --------------------------------------------------------------------------

TIMEOUT = 10.0
_CHANNELS = iter(range(1, 1_000_000))


def engine_with(ctx: Ctx, **fields) -> int:
    """Another engine for the case (released after it)."""
    config = make_config(ctx.tmp, log_file=str(ctx.tmp / f"engine{len(ctx.engines)}.log").encode(), **fields)
    handle = _ffi.agoraish_engine_create(ctypes.byref(config))
    assert handle, _ffi.agoraish_get_last_error()
    ctx.engines.append(handle)
    return handle


class StateWatch:
    """Records an engine's connection states; `wait(state)` blocks until that state arrives."""

    def __init__(self) -> None:
        self.states: List[int] = []
        self.history: List[Tuple[int, int]] = []  # (state, reason), for failure messages
        self.cond = threading.Condition()
        self.callback = _ffi.ConnectionStateChangedCallback(self._on_state)
        self.table = _ffi.EventHandlerTable(struct_size=ctypes.sizeof(_ffi.EventHandlerTable),
                                            on_connection_state_changed=self.callback)

    def _on_state(self, engine, user_data, state, reason) -> None:
        with self.cond:
            self.states.append(state)
            self.history.append((state, reason))
            self.cond.notify_all()

    def wait(self, state: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: state in self.states, TIMEOUT), (state, self.history)
            self.states.clear()


WATCHES: Dict[int, StateWatch] = {}


def connected_engine(ctx: Ctx, *, profile: int = 0, role: int = 1, uid: int = 0,
                     account: Optional[bytes] = None) -> int:
    """An engine in a channel of its own on the module server, once CONNECTED has arrived."""
    watch = StateWatch()
    ctx.keep.append(watch)
    handle = engine_with(ctx, event_handler=ctypes.pointer(watch.table))
    WATCHES[handle] = watch
    channel = f"bad-input-{next(_CHANNELS)}".encode()
    assert _ffi.agoraish_engine_set_channel_profile(handle, profile) == 0
    assert _ffi.agoraish_engine_set_client_role(handle, role) == 0
    if account is None:
        assert _ffi.agoraish_engine_join_channel(handle, None, channel, None, uid) == 0
    else:
        assert _ffi.agoraish_engine_join_channel_with_user_account(handle, None, channel, account) == 0
    watch.wait(3)
    return handle


def joining(ctx: Ctx) -> int:
    """The case's engine, joining a server that never answers (CONNECTING throughout)."""
    assert _ffi.agoraish_engine_set_parameters(ctx.engine, b'{"rtc.server_url": "ws://127.0.0.1:1"}') == 0
    assert _ffi.agoraish_engine_join_channel(ctx.engine, None, b"joining", None, 0) == 0
    return ctx.engine


def join(engine: int, channel: Optional[bytes], token: Optional[bytes] = None, info: Optional[bytes] = None,
         uid: int = 0) -> int:
    return _ffi.agoraish_engine_join_channel(engine, token, channel, info, uid)


def join_account(engine: int, channel: Optional[bytes], account: Optional[bytes],
                 token: Optional[bytes] = None) -> int:
    return _ffi.agoraish_engine_join_channel_with_user_account(engine, token, channel, account)


def fresh(call: Callable[[int], int]) -> Callable[[Ctx], int]:
    """Runs `call` on a new engine that points at nowhere: a join it makes stays pending."""
    return lambda ctx: call(engine_with(ctx, server_url=NOWHERE))


def all_rc(expected: int, call: Callable[[Ctx, object], int], values) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        got = {value: call(ctx, value) for value in values}
        assert got == {value: expected for value in values}

    return case


def on_engine(function: Callable[[int, object], int]) -> Callable[[Ctx, object], int]:
    """`function(engine, value)` as a call on the test's engine: for all_rc."""
    return lambda ctx, value: function(ctx.engine, value)


def value_rows(param: str, setter: Callable[[int, object], int], rejected, accepted,
               label: Callable[[object], str] = str) -> list:
    """One row per value of `setter(engine, value)`: -2 for each `rejected` value, 0 for each `accepted` one."""
    call = on_engine(setter)
    return ([(param, label(v), rc_is(EINVAL, lambda ctx, v=v: call(ctx, v))) for v in rejected] +
            [(param, f"valid {label(v)}", rc_is(0, lambda ctx, v=v: call(ctx, v))) for v in accepted])


def case_profile_refused_while_in_a_channel(ctx: Ctx) -> None:
    engine = joining(ctx)
    assert _ffi.agoraish_engine_set_channel_profile(engine, 1) == EREFUSED, "joining"
    connected = connected_engine(ctx)
    assert _ffi.agoraish_engine_set_channel_profile(connected, 1) == EREFUSED, "connected"
    assert _ffi.agoraish_engine_set_channel_profile(connected, 7) == EINVAL, "a bad value is -2 first"
    assert _ffi.agoraish_engine_leave_channel(connected) == 0
    WATCHES[connected].wait(1)
    assert _ffi.agoraish_engine_set_channel_profile(connected, 1) == 0, "after leaving"


def case_role_while_joining_and_connected(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_set_client_role(joining(ctx), 2) == EREFUSED, "joining"
    connected = connected_engine(ctx, profile=1)
    assert _ffi.agoraish_engine_set_client_role(connected, 2) == 0, "connected: asks the server"
    assert _ffi.agoraish_engine_set_client_role(connected, 3) == EINVAL


def case_join_twice(ctx: Ctx) -> None:
    engine = joining(ctx)
    assert join(engine, b"another") == EJOIN
    assert join_account(engine, b"another", b"acct") == EJOIN
    assert join(connected_engine(ctx), b"another") == EJOIN


BAD_CHANNEL_NAMES = [b"", b"a" * 64, b"a" * 200, b"slash/", b"star*", b'quote"', b"apostrophe'", b"back\\slash",
                     b"tab\t", b"new\nline", b"grave`", "caf\u00e9".encode()]


def case_bad_channel_names(call: Callable[[int, bytes], int]) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        got = {name: call(ctx.engine, name) for name in BAD_CHANNEL_NAMES}
        assert got == {name: ECHANNEL for name in BAD_CHANNEL_NAMES}
        assert _ffi.agoraish_engine_get_connection_state(ctx.engine) == 1, "a refused join starts nothing"

    return case


def case_good_channel_names(call: Callable[[int, bytes], int]) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        for name in (b"a", b"a" * 63, ALLOWED_CHANNEL_CHARS):
            engine = engine_with(ctx, server_url=NOWHERE)
            assert call(engine, name) == 0, name
            assert _ffi.agoraish_engine_get_connection_state(engine) == 2, "joining"

    return case


def case_account_lengths(ctx: Ctx) -> None:
    for account, expected in ((None, EACCOUNT), (b"", EACCOUNT), (b"x" * 256, EACCOUNT), (b"x" * 1000, EACCOUNT),
                              (b"x" * 255, 0), ("\u00e9".encode() * 127 + b"x", 0), (b"a", 0), (b"has space", 0)):
        engine = engine_with(ctx, server_url=NOWHERE)
        assert join_account(engine, b"accounts", account) == expected, account


def case_account_checked_after_channel(ctx: Ctx) -> None:
    assert join_account(ctx.engine, b"bad/name", b"") == ECHANNEL
    assert join_account(ctx.engine, None, None) == EINVAL


def case_register_accounts(ctx: Ctx) -> None:
    for account, expected in ((None, EACCOUNT), (b"", EACCOUNT), (b"x" * 256, EACCOUNT), (b"\xff", EINVAL)):
        assert _ffi.agoraish_engine_register_local_user_account(ctx.engine, b"bad-input-app", account) == expected


def case_register_app_ids(ctx: Ctx) -> None:
    for app_id in (None, b"", b"other-app", b"bad-input-app ", b"\xff"):
        assert _ffi.agoraish_engine_register_local_user_account(ctx.engine, app_id, b"acct") == EINVAL, app_id
    assert _ffi.agoraish_engine_register_local_user_account(ctx.engine, b"bad-input-app", b"acct") == 0


def user_info_by_account(engine: int, account: Optional[bytes], with_info: bool = True) -> Tuple[int, _ffi.UserInfo]:
    info = _ffi.UserInfo(uid=12345, user_account=b"untouched")
    rc = _ffi.agoraish_engine_get_user_info_by_user_account(engine, account, ctypes.byref(info) if with_info else None)
    return rc, info


def user_info_by_uid(engine: int, uid: int, with_info: bool = True) -> Tuple[int, _ffi.UserInfo]:
    info = _ffi.UserInfo(uid=12345, user_account=b"untouched")
    rc = _ffi.agoraish_engine_get_user_info_by_uid(engine, uid, ctypes.byref(info) if with_info else None)
    return rc, info


def case_user_info_known_account(ctx: Ctx) -> None:
    engine = connected_engine(ctx, account=b"known-account")
    rc, info = user_info_by_account(engine, b"known-account")
    assert rc == 0 and info.user_account == b"known-account" and info.uid != 0
    assert user_info_by_account(engine, b"known-account", with_info=False)[0] == EINVAL, "NULL info"
    rc, by_uid = user_info_by_uid(engine, info.uid)
    assert rc == 0 and (by_uid.uid, by_uid.user_account) == (info.uid, b"known-account")
    assert user_info_by_uid(engine, info.uid, with_info=False)[0] == EINVAL, "NULL info"


def case_user_info_unknown_account(ctx: Ctx) -> None:
    for account in (b"nobody", b"", b"x" * 300):
        rc, info = user_info_by_account(ctx.engine, account)
        assert rc == EINVAL and (info.uid, info.user_account) == (12345, b"untouched"), account


def case_leave(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_leave_channel(ctx.engine) == ELEAVE, "never joined"
    engine = joining(ctx)
    assert _ffi.agoraish_engine_leave_channel(engine) == 0, "leaving a join in progress"
    assert _ffi.agoraish_engine_leave_channel(engine) == ELEAVE, "left"
    connected = connected_engine(ctx)
    assert _ffi.agoraish_engine_leave_channel(connected) == 0
    assert _ffi.agoraish_engine_leave_channel(connected) == ELEAVE, "leaving (waiting for the answer) or left"


def renew(token: Optional[bytes]) -> Callable[[int], int]:
    return lambda engine: _ffi.agoraish_engine_renew_token(engine, token)


def case_renew_not_joined(ctx: Ctx) -> None:
    assert renew(b"007abc")(ctx.engine) == ENOTIN
    assert renew(b"007abc")(joining(ctx)) == 0, "while joining: the next join carries it"
    assert _ffi.agoraish_engine_leave_channel(ctx.engine) == 0
    assert renew(b"007abc")(ctx.engine) == ENOTIN, "after leaving"


def case_renew_empty(ctx: Ctx) -> None:
    for engine in (ctx.engine, connected_engine(ctx)):
        assert renew(None)(engine) == EINVAL
        assert renew(b"")(engine) == EINVAL
        assert renew(b"\xff")(engine) == EINVAL


def switch(engine: int, channel: Optional[bytes], token: Optional[bytes] = None) -> int:
    return _ffi.agoraish_engine_switch_channel(engine, token, channel)


def case_switch_not_connected(ctx: Ctx) -> None:
    assert switch(ctx.engine, b"other") == ENOTIN, "never joined"
    assert switch(ctx.engine, b"bad/name") == ENOTIN, "not in a channel comes first"
    assert switch(joining(ctx), b"other") == ENOTIN, "joining is not connected"


def case_switch_not_audience(ctx: Ctx) -> None:
    assert switch(connected_engine(ctx, profile=0, role=2), b"other") == EREFUSED, "communication"
    assert switch(connected_engine(ctx, profile=1, role=1), b"other") == EREFUSED, "live broadcaster"


def case_switch_channel_names(ctx: Ctx) -> None:
    audience = connected_engine(ctx, profile=1, role=2)
    for name in (b"", b"a" * 64, b"bad/name"):
        assert switch(audience, name) == ECHANNEL, name
    assert switch(audience, None) == EINVAL
    assert switch(audience, "caf\u00e9".encode("latin-1")) == EINVAL, "not UTF-8"
    assert switch(audience, b"other", token=b"\xff") == EINVAL, "token not UTF-8"
    assert _ffi.agoraish_engine_get_connection_state(audience) == 3, "refused calls change nothing"
    assert switch(audience, b"other") == 0


def preload(engine: int, channel: Optional[bytes], token: Optional[bytes] = None, uid: int = 7) -> int:
    return _ffi.agoraish_engine_preload_channel(engine, token, channel, uid)


def update_preload(engine: int, token: Optional[bytes]) -> int:
    return _ffi.agoraish_engine_update_preload_channel_token(engine, token)


#: A ws:// server URL whose host is not loopback (nothing listens there; nothing is opened).
NOT_LOOPBACK = b"ws://10.99.0.1:7450"


def case_preload_refused_keeps_nothing(ctx: Ctx) -> None:
    assert preload(ctx.engine, None) == EINVAL
    assert preload(ctx.engine, b"chan\xff") == EINVAL, "not UTF-8"
    assert preload(ctx.engine, b"ch", token=b"t" * 2049) == EINVAL
    assert update_preload(ctx.engine, b"token") == ESTATE, "refused preloads keep nothing"
    assert _ffi.agoraish_engine_get_connection_state(ctx.engine) == 1, "a preload is no join"


def case_preload_tokens(ctx: Ctx) -> None:
    for token in (None, b"", b"007abc", b"t" * 2048, "\u00e9".encode() * 1024):
        assert preload(ctx.engine, b"preload", token) == 0, token
    for token in (b"t" * 2049, "\u00e9".encode() * 1024 + b"t", b"t" * 100000, b"tok\xff"):
        assert preload(ctx.engine, b"preload", token) == EINVAL, token[:8]
    assert preload(ctx.engine, b"bad/name", b"t" * 2049) == ECHANNEL, "the channel name is checked first"
    assert preload(ctx.engine, None, b"t" * 2049) == EINVAL


def case_preload_not_loopback(ctx: Ctx) -> None:
    engine = engine_with(ctx, server_url=NOT_LOOPBACK)
    assert preload(engine, b"ch") == EREFUSED
    assert preload(engine, b"ch", b"007abc") == EREFUSED
    assert preload(engine, b"bad/name") == ECHANNEL, "the arguments first"
    assert preload(engine, b"ch", b"t" * 2049) == EINVAL, "the arguments first"
    assert update_preload(engine, b"token") == ESTATE, "nothing preloaded"
    assert _ffi.agoraish_engine_get_connection_state(engine) == 1


def case_preload_in_a_call(ctx: Ctx) -> None:
    audience = connected_engine(ctx, profile=1, role=2)
    assert preload(audience, b"next") == 0
    assert preload(audience, b"bad/name") == ECHANNEL
    assert update_preload(audience, b"token") == 0
    assert _ffi.agoraish_engine_get_connection_state(audience) == 3, "preloading leaves the call alone"


def case_preload_then_join(ctx: Ctx) -> None:
    # The join of a preloaded channel and uid is accepted and connects as any join.
    watch = StateWatch()
    ctx.keep.append(watch)
    engine = engine_with(ctx, event_handler=ctypes.pointer(watch.table))
    channel = f"bad-input-{next(_CHANNELS)}".encode()
    assert preload(engine, channel, uid=77) == 0
    assert join(engine, channel, uid=77) == 0
    watch.wait(3)
    assert preload(engine, channel, uid=77) == 0, "the channel it is in"


def case_update_preload_nothing_preloaded(ctx: Ctx) -> None:
    for token in (None, b"", b"007abc"):
        assert update_preload(ctx.engine, token) == ESTATE, token
    assert update_preload(ctx.engine, b"t" * 2049) == EINVAL, "the token is checked first"
    assert update_preload(ctx.engine, b"\xff") == EINVAL, "not UTF-8"


def case_update_preload_tokens(ctx: Ctx) -> None:
    assert preload(ctx.engine, b"preload-1") == 0
    assert preload(ctx.engine, b"preload-2", uid=8) == 0
    for token in (None, b"", b"007abc", b"t" * 2048):
        assert update_preload(ctx.engine, token) == 0, token
    for token in (b"t" * 2049, b"tok\xff"):
        assert update_preload(ctx.engine, token) == EINVAL, token[:8]


def call_id(engine: int, capacity: Optional[int], with_len: bool = True) -> Tuple[int, int, bytes]:
    length = ctypes.c_size_t(capacity or 0)
    buf = ctypes.create_string_buffer(b"\xaa" * capacity, capacity) if capacity is not None else None
    rc = _ffi.agoraish_engine_get_call_id(engine, buf, ctypes.byref(length) if with_len else None)
    return rc, length.value, (buf.raw if buf is not None else b"")


def case_call_id_before_any_call(ctx: Ctx) -> None:
    assert call_id(ctx.engine, 128)[0] == ENOTIN
    assert call_id(ctx.engine, None)[0] == ENOTIN
    assert call_id(joining(ctx), 128)[0] == ENOTIN, "no answer from a server yet"


def case_call_id_buffer(ctx: Ctx) -> None:
    engine = connected_engine(ctx)
    rc, needed, _ = call_id(engine, None)
    assert rc == ESMALL and needed > 1, "size query"
    rc, needed2, raw = call_id(engine, needed - 1)
    assert rc == ESMALL and needed2 == needed and raw == b"\xaa" * (needed - 1), "too small: nothing written"
    rc, needed3, raw = call_id(engine, needed)
    assert rc == 0 and needed3 == needed and raw.endswith(b"\0") and len(raw.rstrip(b"\0")) == needed - 1
    assert raw.startswith(b"bad-inpu-"), raw  # <first 8 characters of the app id>-<session>-<ms>
    assert _ffi.agoraish_engine_get_call_id(engine, None, None) == EINVAL
    length = ctypes.c_size_t(16)
    assert _ffi.agoraish_engine_get_call_id(engine, None, ctypes.byref(length)) == EINVAL, "NULL buf, nonzero len"


def case_connection_states(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_get_connection_state(ctx.engine) == 1
    engine = joining(ctx)
    assert _ffi.agoraish_engine_get_connection_state(engine) == 2
    assert _ffi.agoraish_engine_leave_channel(engine) == 0
    assert _ffi.agoraish_engine_get_connection_state(engine) == 1
    assert _ffi.agoraish_engine_get_connection_state(connected_engine(ctx)) == 3


# -- the echo test ------------------------------------------------------------

BAD_ECHO_INTERVALS = (0, 1, 11, -1, -(2**31), 2**31 - 1)


def start_echo(engine: int, interval: int = 2) -> int:
    return _ffi.agoraish_engine_start_echo_test(engine, interval)


def case_echo_intervals(ctx: Ctx) -> None:
    got = {interval: start_echo(ctx.engine, interval) for interval in BAD_ECHO_INTERVALS}
    assert got == {interval: EINVAL for interval in BAD_ECHO_INTERVALS}
    assert _ffi.agoraish_engine_get_connection_state(ctx.engine) == 1, "a rejected start connects nothing"
    assert start_echo(ctx.engine, 2) == 0
    got = {interval: start_echo(ctx.engine, interval) for interval in BAD_ECHO_INTERVALS}
    assert got == {interval: EINVAL for interval in BAD_ECHO_INTERVALS}, "checked before the state"
    assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == 0


def case_echo_twice(ctx: Ctx) -> None:
    assert start_echo(ctx.engine, 2) == 0
    assert start_echo(ctx.engine, 2) == EREFUSED, "twice"
    assert start_echo(ctx.engine, 10) == EREFUSED, "another interval"
    assert join(ctx.engine, b"during-echo") == EJOIN, "a join during the test"
    assert join_account(ctx.engine, b"during-echo", b"acct") == EJOIN, "a join with an account during the test"
    assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == 0
    assert start_echo(ctx.engine, 10) == 0, "again after stopping"
    assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == 0


def case_echo_in_a_channel(ctx: Ctx) -> None:
    # Joining or in a channel the test runs beside the call, in a private connection (ABI 0.11).
    for engine, where in ((joining_engine(ctx), "joining"), (connected_engine(ctx), "connected")):
        assert _ffi.agoraish_engine_stop_echo_test(engine) == EREFUSED, f"a call is no echo test ({where})"
        assert start_echo(engine, 1) == EINVAL, f"a bad interval is -2 first ({where})"
        assert start_echo(engine) == 0, where
        assert start_echo(engine) == EREFUSED, f"twice ({where})"
        assert start_probe(engine, probe_config()) == EREFUSED, f"a probe during it ({where})"
        assert _ffi.agoraish_engine_stop_echo_test(engine) == 0, where
        assert _ffi.agoraish_engine_stop_echo_test(engine) == EREFUSED, f"stopped ({where})"


# -- the echo test's configuration (ABI 0.9) --------------------------------------

ECHO_CONFIG_SIZE = ctypes.sizeof(_ffi.EchoTestConfiguration)
LONG_CHANNEL = b"c" * 64
#: Channel names that are not valid (or not UTF-8), and tokens that are not UTF-8.
BAD_CHANNEL_IDS = (b"no/slash", LONG_CHANNEL, b"\x01echo", b"\xff\xfe")
BAD_TOKENS = (b"007\xff",)


def echo_config(interval: int = 2, token: Optional[bytes] = None, channel: Optional[bytes] = None,
                audio: int = 1, video: int = 0, struct_size: Optional[int] = None) -> _ffi.EchoTestConfiguration:
    config = _ffi.EchoTestConfiguration()
    config.struct_size = ECHO_CONFIG_SIZE if struct_size is None else struct_size
    config.enable_audio = audio
    config.enable_video = video
    config.token = token
    config.channel_id = channel
    config.interval_in_seconds = interval
    return config


def start_echo_config(engine: int, config: Optional[_ffi.EchoTestConfiguration]) -> int:
    return _ffi.agoraish_engine_start_echo_test_with_config(engine, None if config is None else ctypes.byref(config))


def bad_echo_configs() -> List[Tuple[str, Optional[_ffi.EchoTestConfiguration], int]]:
    """Every configuration start_echo_test_with_config rejects, whatever the engine is doing: -2, then -4."""
    rows: List[Tuple[str, Optional[_ffi.EchoTestConfiguration], int]] = [("NULL", None, EINVAL)]
    for size in (0, 4, ECHO_CONFIG_SIZE - 4, ECHO_CONFIG_SIZE - 1, ECHO_CONFIG_SIZE + 1, ECHO_CONFIG_SIZE + 8):
        rows.append((f"struct_size {size}", echo_config(struct_size=size), EINVAL))
    for interval in BAD_ECHO_INTERVALS:
        rows.append((f"interval {interval}", echo_config(interval), EINVAL))
    rows.append(("neither audio nor video", echo_config(audio=0, video=0), EINVAL))
    for channel in BAD_CHANNEL_IDS:
        rows.append((f"channel {channel!r}", echo_config(channel=channel), EINVAL))
    for tok in BAD_TOKENS:
        rows.append((f"token {tok!r}", echo_config(token=tok), EINVAL))
    rows.append(("video and a bad interval: -2 first", echo_config(11, video=1), EINVAL))
    rows.append(("video and a bad channel: -2 first", echo_config(channel=b"no/slash", video=1), EINVAL))
    rows.append(("audio and video", echo_config(video=1), ENOTSUP))
    rows.append(("video alone", echo_config(audio=0, video=1), ENOTSUP))
    rows.append(("video as -1, a token and a channel", echo_config(10, b"token", b"echo", video=-1), ENOTSUP))
    return rows


def assert_bad_echo_configs(engine: int, where: str) -> None:
    got = {name: start_echo_config(engine, config) for name, config, _ in bad_echo_configs()}
    assert got == {name: code for name, _, code in bad_echo_configs()}, where


def case_echo_configs(ctx: Ctx) -> None:
    assert_bad_echo_configs(ctx.engine, "in no channel")
    assert _ffi.agoraish_engine_get_connection_state(ctx.engine) == 1, "a rejected start connects nothing"
    assert start_echo_config(ctx.engine, echo_config()) == 0
    assert_bad_echo_configs(ctx.engine, "during a test: checked before the state")
    assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == 0
    assert_bad_echo_configs(connected_engine(ctx), "in a channel")


def case_echo_config_edges(ctx: Ctx) -> None:
    # The server has no certificate: the token is carried, not checked.
    accepted = [
        ("interval 2, NULL strings", echo_config(2)),
        ("interval 10, a token and a channel", echo_config(10, b"007-not-checked", b"bad-input-echo-config")),
        ('"" token and channel (the default name)', echo_config(3, b"", b"")),
        ("a channel of 63 bytes, every allowed character", echo_config(channel=(ALLOWED_CHANNEL_CHARS * 2)[:63])),
        ("enable_audio -1 (nonzero)", echo_config(audio=-1)),
    ]
    for name, config in accepted:
        if config.struct_size > ECHO_CONFIG_SIZE:  # the library reads what it knows, no further
            buffer = (ctypes.c_uint8 * config.struct_size)()
            ctypes.memmove(buffer, ctypes.byref(config), ECHO_CONFIG_SIZE)
            rc = _ffi.agoraish_engine_start_echo_test_with_config(
                ctx.engine, ctypes.cast(buffer, ctypes.POINTER(_ffi.EchoTestConfiguration)))
        else:
            rc = start_echo_config(ctx.engine, config)
        assert rc == 0, name
        assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == 0, name


def case_echo_config_states(ctx: Ctx) -> None:
    assert start_echo_config(ctx.engine, echo_config()) == 0
    assert start_echo_config(ctx.engine, echo_config(10)) == EREFUSED, "twice"
    assert start_echo(ctx.engine, 2) == EREFUSED, "start_echo_test during it"
    assert join(ctx.engine, b"during-echo") == EJOIN, "a join during the test"
    assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == 0
    assert start_echo(ctx.engine, 2) == 0
    assert start_echo_config(ctx.engine, echo_config()) == EREFUSED, "during start_echo_test's test"
    assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == 0
    # Joining or in a channel: beside the call (ABI 0.11).
    for engine, where in ((joining_engine(ctx), "joining"), (connected_engine(ctx), "connected")):
        assert start_echo_config(engine, echo_config()) == 0, where
        assert start_echo_config(engine, echo_config()) == EREFUSED, f"twice ({where})"
        assert _ffi.agoraish_engine_stop_echo_test(engine) == 0, where
    probing = engine_with(ctx)
    assert start_probe(probing, probe_config()) == 0
    assert start_echo_config(probing, echo_config()) == EREFUSED, "during a probe"
    assert stop_probe(probing) == 0


def case_stop_echo_test(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == EREFUSED, "never started"
    assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == EREFUSED, "twice"
    assert start_echo(ctx.engine, 2) == 0
    assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == 0
    assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == EREFUSED, "stopped"


# --------------------------------------------------------------------------
# The embedded server
# --------------------------------------------------------------------------


def server_config(**fields) -> _ffi.ServerConfig:
    config = _ffi.ServerConfig()
    config.struct_size = ctypes.sizeof(_ffi.ServerConfig)
    for name, value in fields.items():
        setattr(config, name, value)
    return config


def new_server(ctx: Ctx, config: Optional[_ffi.ServerConfig] = None, **fields) -> int:
    config = config if config is not None else server_config(**fields)
    handle = _ffi.agoraish_server_create(ctypes.byref(config))
    assert handle, _ffi.agoraish_get_last_error()
    assert _ffi.agoraish_get_last_error() == 0
    ctx.servers.append(handle)
    return handle


def server_create_fails(config: Optional[_ffi.ServerConfig] = None, **fields) -> None:
    config = config if config is not None else server_config(**fields)
    handle = _ffi.agoraish_server_create(ctypes.byref(config))
    error = _ffi.agoraish_get_last_error()
    if handle:
        _ffi.agoraish_server_release(handle)
    assert handle is None and error == EINVAL, (fields, handle, error)


def server_url(server: int, capacity: Optional[int] = 256, with_len: bool = True) -> Tuple[int, int, bytes]:
    length = ctypes.c_size_t(capacity or 0)
    buf = ctypes.create_string_buffer(b"\xaa" * capacity, capacity) if capacity is not None else None
    rc = _ffi.agoraish_server_get_url(server, buf, ctypes.byref(length) if with_len else None)
    return rc, length.value, (buf.raw if buf is not None else b"")


def url_port(server: int) -> int:
    rc, _, raw = server_url(server)
    assert rc == 0, rc
    return int(raw.split(b"\0")[0].rsplit(b":", 1)[1])


def case_server_create_null(ctx: Ctx) -> None:
    assert _ffi.agoraish_server_create(None) is None
    assert _ffi.agoraish_get_last_error() == EINVAL


def case_server_create_struct_size(ctx: Ctx) -> None:
    full = ctypes.sizeof(_ffi.ServerConfig)
    for size in (0, 4, 8, full - 8, full - 1):
        server_create_fails(struct_size=size)
    server_create_fails(struct_size=full + 64)  # no header had a larger struct


def case_server_create_ports(ctx: Ctx) -> None:
    for fields in ({"signaling_port": -1}, {"signaling_port": 65536}, {"signaling_port": -(2**31)},
                   {"http_port": -2}, {"http_port": 65536}, {"http_port": 2**31 - 1}):
        server_create_fails(**fields)
    for fields in ({"signaling_port": 0, "http_port": 0}, {"http_port": -1}, {"signaling_port": 65535}):
        new_server(ctx, **fields)


def case_server_create_config_json(ctx: Ctx) -> None:
    for text in (b"", b"not json", b"{", b"[1]", b'"apps"', b"null", b'{"no_such_key": 1}',
                 b'{"apps": [{"app_id": "short"}]}', b'{"apps": {"app_id": "0123456789abcdef0123456789abcdef"}}',
                 b'{"apps": [{"app_id": "0123456789abcdef0123456789abcdef", "certificate": "xyz"}]}',
                 b'{"limits": {"max_message_bytes": 0}}', b'{"timeouts": {"drop_timeout_ms": "20"}}',
                 b'{"accept_unknown_apps": "yes"}', b'{"listen": {"signaling_port": 70000}}',
                 b'{"listen": {"host": "\xff"}}'):
        server_create_fails(config_json=text)
    for text in (None, b"{}", b'{"timeouts": {"keepalive_ms": 500, "drop_timeout_ms": 3000}}',
                 b'{"apps": [{"app_id": "0123456789abcdef0123456789abcdef"}]}'):
        new_server(ctx, config_json=text)


def case_server_create_host(ctx: Ctx) -> None:
    server_create_fails(host=b"\xff\xfe")
    for host in (None, b"", b"127.0.0.1", b"localhost"):
        server = new_server(ctx, host=host)
        assert _ffi.agoraish_server_start(server) == 0, host
    unresolvable = new_server(ctx, host=b"no-such-host.invalid")
    assert _ffi.agoraish_server_start(unresolvable) == EBIND


def case_server_start_twice(ctx: Ctx) -> None:
    server = new_server(ctx)
    assert _ffi.agoraish_server_start(server) == 0
    assert _ffi.agoraish_server_start(server) == ESTATE
    assert _ffi.agoraish_server_stop(server) == 0
    assert _ffi.agoraish_server_start(server) == 0, "a stopped server starts again"
    assert _ffi.agoraish_server_start(server) == ESTATE


def case_server_port_in_use(ctx: Ctx) -> None:
    first = new_server(ctx)
    assert _ffi.agoraish_server_start(first) == 0
    second = new_server(ctx, signaling_port=url_port(first))
    assert _ffi.agoraish_server_start(second) == EBIND
    assert server_url(second)[0] == ENOTREADY, "it did not start"
    third = new_server(ctx, http_port=url_port(first))
    assert _ffi.agoraish_server_start(third) == EBIND, "the HTTP port is taken"


def case_server_stop_when_not_running(ctx: Ctx) -> None:
    server = new_server(ctx)
    assert _ffi.agoraish_server_stop(server) == 0
    assert _ffi.agoraish_server_start(server) == 0
    assert _ffi.agoraish_server_stop(server) == 0
    assert _ffi.agoraish_server_stop(server) == 0


def case_server_release_twice(ctx: Ctx) -> None:
    server = _ffi.agoraish_server_create(ctypes.byref(server_config()))
    assert server and _ffi.agoraish_server_start(server) == 0
    assert _ffi.agoraish_server_release(server) == 0
    assert _ffi.agoraish_server_release(server) == 0
    assert _ffi.agoraish_server_start(server) == ENOINIT


def case_server_url_not_running(ctx: Ctx) -> None:
    server = new_server(ctx)
    assert server_url(server)[0] == ENOTREADY, "before start"
    assert server_url(server, None)[0] == ENOTREADY
    assert _ffi.agoraish_server_start(server) == 0
    assert _ffi.agoraish_server_stop(server) == 0
    assert server_url(server)[0] == ENOTREADY, "after stop"


def case_server_url_buffer(ctx: Ctx) -> None:
    server = new_server(ctx)
    assert _ffi.agoraish_server_start(server) == 0
    rc, needed, _ = server_url(server, None)
    assert rc == ESMALL and needed > len(b"ws://127.0.0.1:1")
    rc, needed2, raw = server_url(server, needed - 1)
    assert rc == ESMALL and needed2 == needed and raw == b"\xaa" * (needed - 1)
    rc, needed3, raw = server_url(server, needed)
    assert rc == 0 and needed3 == needed and raw.startswith(b"ws://127.0.0.1:") and raw.endswith(b"\0")
    assert server_url(server, with_len=False)[0] == EINVAL
    length = ctypes.c_size_t(16)
    assert _ffi.agoraish_server_get_url(server, None, ctypes.byref(length)) == EINVAL, "NULL buf, nonzero len"


def case_server_http_port(ctx: Ctx) -> None:
    disabled, free = new_server(ctx), new_server(ctx, http_port=-1)
    assert _ffi.agoraish_server_get_http_port(disabled) == ENOTREADY, "before start"
    assert _ffi.agoraish_server_start(disabled) == 0 and _ffi.agoraish_server_start(free) == 0
    assert _ffi.agoraish_server_get_http_port(disabled) == 0, "HTTP disabled"
    port = _ffi.agoraish_server_get_http_port(free)
    assert 0 < port < 65536 and port != url_port(free)
    assert _ffi.agoraish_server_stop(free) == 0
    assert _ffi.agoraish_server_get_http_port(free) == ENOTREADY, "after stop"


# --------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------


@dataclass
class Row:
    """Bad-input cases of one function.

    stale: what a call with a handle returns for a released handle, and for a handle of
        the right type that was never issued (the table cannot tell the two apart).
    cases: (parameter name, label, case).
    """

    cases: List[Tuple[str, str, Callable[[Ctx], None]]]
    stale: int = ENOINIT


# -- audio: external source and sink ---------------------------------------


def i16(n: int):
    return (ctypes.c_int16 * max(1, n))()


def case_audio_profiles(ctx: Ctx) -> None:
    for profile in (-1, 7, 2**31 - 1):
        assert _ffi.agoraish_engine_set_audio_profile(ctx.engine, profile) == EINVAL, profile
    for profile in range(7):
        assert _ffi.agoraish_engine_set_audio_profile(ctx.engine, profile) == 0, profile


def case_audio_source_formats(ctx: Ctx) -> None:
    for rate, channels in ((0, 1), (-1, 1), (22050, 1), (96000, 1), (48000, 0), (48000, 3), (16000, -1)):
        assert _ffi.agoraish_engine_set_external_audio_source(ctx.engine, 1, rate, channels) == EINVAL, (rate, channels)
    for rate in (8000, 16000, 32000, 44100, 48000):
        assert _ffi.agoraish_engine_set_external_audio_source(ctx.engine, 1, rate, 2) == 0, rate
    assert _ffi.agoraish_engine_set_external_audio_source(ctx.engine, 0, 0, 0) == 0, "disabling ignores the format"


def case_audio_push(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_set_external_audio_source(ctx.engine, 0, 0, 0) == 0
    assert _ffi.agoraish_engine_push_external_audio_frame(ctx.engine, i16(10), 10) == ENOTREADY, "no source"
    assert _ffi.agoraish_engine_set_external_audio_source(ctx.engine, 1, 48000, 1) == 0
    assert _ffi.agoraish_engine_push_external_audio_frame(ctx.engine, None, 10) == EINVAL, "NULL samples"
    for count in (-1, 48001, 2**31 - 1):
        assert _ffi.agoraish_engine_push_external_audio_frame(ctx.engine, i16(10), count) == EINVAL, count
    assert _ffi.agoraish_engine_push_external_audio_frame(ctx.engine, None, 0) == 0, "nothing to push is fine"
    assert _ffi.agoraish_engine_push_external_audio_frame(ctx.engine, i16(100), 100) == 100, "queued, under one frame"


def case_audio_sink_formats(ctx: Ctx) -> None:
    for rate, channels in ((0, 1), (11025, 1), (48000, 0), (48000, 5)):
        assert _ffi.agoraish_engine_set_external_audio_sink(ctx.engine, 1, rate, channels) == EINVAL, (rate, channels)
    assert _ffi.agoraish_engine_set_external_audio_sink(ctx.engine, 1, 44100, 2) == 0
    assert _ffi.agoraish_engine_set_external_audio_sink(ctx.engine, 0, 0, 0) == 0


def case_audio_pull(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_set_external_audio_sink(ctx.engine, 0, 0, 0) == 0
    assert _ffi.agoraish_engine_pull_playback_audio_frame(ctx.engine, i16(160), 160) == ENOTREADY, "no sink"
    assert _ffi.agoraish_engine_set_external_audio_sink(ctx.engine, 1, 16000, 1) == 0
    assert _ffi.agoraish_engine_pull_playback_audio_frame(ctx.engine, None, 160) == EINVAL, "NULL samples"
    for count in (0, -1, 48001):
        assert _ffi.agoraish_engine_pull_playback_audio_frame(ctx.engine, i16(160), count) == EINVAL, count
    buffer = i16(160)
    assert _ffi.agoraish_engine_pull_playback_audio_frame(ctx.engine, buffer, 160) == 0
    assert all(s == 0 for s in buffer), "silence when nobody speaks"


# -- audio (ABI 0.4): switches, volumes, raw audio, recording, devices ------

ANY_INTS = (0, 1, -1, 2, 2**31 - 1, -(2**31))


def case_audio_switches(ctx: Ctx) -> None:
    e = ctx.engine
    assert _ffi.agoraish_engine_enable_audio(e) == 0, "on by default: enabling again"
    assert _ffi.agoraish_engine_disable_audio(e) == 0
    assert _ffi.agoraish_engine_disable_audio(e) == 0, "twice"
    assert _ffi.agoraish_engine_enable_audio(e) == 0
    connected = connected_engine(ctx)
    assert _ffi.agoraish_engine_disable_audio(connected) == 0, "in a call"
    assert _ffi.agoraish_engine_enable_audio(connected) == 0, "in a call"


def flag_case(function: Callable[[int, int], int]) -> Callable[[Ctx], None]:
    """A switch taking an int flag: any int is 0, before and in a call."""

    def case(ctx: Ctx) -> None:
        assert {v: function(ctx.engine, v) for v in ANY_INTS} == {v: 0 for v in ANY_INTS}
        connected = connected_engine(ctx)
        assert {v: function(connected, v) for v in ANY_INTS} == {v: 0 for v in ANY_INTS}, "in a call"
        assert function(connected, 0) == 0

    return case


def mute_remote_uids_case(function: Callable[[int, int, int], int]) -> Callable[[Ctx], None]:
    """A per-user mute: uid 0 is -2; users that have not joined (yet) are 0."""

    def case(ctx: Ctx) -> None:
        for mute in (1, 0):
            assert function(ctx.engine, 0, mute) == EINVAL, "uid 0"
            for uid in (1, 12345, 2**32 - 1):  # users that have not joined (yet)
                assert function(ctx.engine, uid, mute) == 0, uid

    return case


case_mute_remote_uids = mute_remote_uids_case(_ffi.agoraish_engine_mute_remote_audio_stream)
case_mute_remote_video_uids = mute_remote_uids_case(_ffi.agoraish_engine_mute_remote_video_stream)


VOLUME_REJECTED = (-1, 401, 1000, 2**31 - 1, -(2**31))
VOLUME_ACCEPTED = (0, 1, 50, 100, 399, 400)


def case_user_volume_uid(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_adjust_user_playback_signal_volume(ctx.engine, 0, 50) == EINVAL, "uid 0"
    for uid in (1, 2**32 - 1):
        assert _ffi.agoraish_engine_adjust_user_playback_signal_volume(ctx.engine, uid, 50) == 0, uid


def case_user_volume_range(ctx: Ctx) -> None:
    for volume in (-1, 101, 400, 2**31 - 1, -(2**31)):
        assert _ffi.agoraish_engine_adjust_user_playback_signal_volume(ctx.engine, 7, volume) == EINVAL, volume
    for volume in (0, 1, 99, 100):
        assert _ffi.agoraish_engine_adjust_user_playback_signal_volume(ctx.engine, 7, volume) == 0, volume


def indication(engine: int, interval: int = 200, smooth: int = 3, report_vad: int = 0) -> int:
    return _ffi.agoraish_engine_enable_audio_volume_indication(engine, interval, smooth, report_vad)


def case_indication_interval(ctx: Ctx) -> None:
    for interval in (1, 9, 60001, 2**31 - 1):
        assert indication(ctx.engine, interval=interval) == EINVAL, interval
    for interval in (-(2**31), -1, 0, 10, 200, 60000):  # <= 0 turns it off
        assert indication(ctx.engine, interval=interval) == 0, interval


def case_indication_smooth(ctx: Ctx) -> None:
    for smooth in (-1, 11, 2**31 - 1, -(2**31)):
        assert indication(ctx.engine, smooth=smooth) == EINVAL, smooth
    for smooth in (0, 3, 10):
        assert indication(ctx.engine, smooth=smooth) == 0, smooth
    assert indication(ctx.engine, interval=0, smooth=11) == EINVAL, "checked also when turning it off"


def case_indication_vad(ctx: Ctx) -> None:
    assert {v: indication(ctx.engine, report_vad=v) for v in ANY_INTS} == {v: 0 for v in ANY_INTS}


def observer_table(size: Optional[int] = None, positions: int = 0xF, **callbacks) -> _ffi.AudioFrameObserverTable:
    table = _ffi.AudioFrameObserverTable(**callbacks)
    table.struct_size = ctypes.sizeof(_ffi.AudioFrameObserverTable) if size is None else size
    table.observed_position = positions
    return table


def register_observer(engine: int, table: Optional[_ffi.AudioFrameObserverTable]) -> int:
    return _ffi.agoraish_engine_register_audio_frame_observer(engine, ctypes.byref(table) if table is not None else None)


def case_observer_null(ctx: Ctx) -> None:
    assert register_observer(ctx.engine, None) == 0, "none registered"
    assert register_observer(ctx.engine, observer_table()) == 0
    assert register_observer(ctx.engine, None) == 0, "removes it"
    assert register_observer(ctx.engine, None) == 0, "twice"


def case_observer_struct_size(ctx: Ctx) -> None:
    full = ctypes.sizeof(_ffi.AudioFrameObserverTable)
    # Too small, or not a whole number of fields (a size no header produces).
    for size in (0, 4, 8, full - 8, full - 1, full + 4):
        assert register_observer(ctx.engine, observer_table(size)) == EINVAL, size
    for size in (full, full + 8, full + 64):  # no header had a larger struct
        assert register_observer(ctx.engine, observer_table(size)) == size_rc("agoraish_audio_frame_observer", size), size
    assert register_observer(ctx.engine, None) == 0


def case_observer_positions(ctx: Ctx) -> None:
    for positions in (0x10, 0x20, 0x1F, -1, 2**31 - 1, -(2**31)):
        assert register_observer(ctx.engine, observer_table(positions=positions)) == EINVAL, hex(positions)
    for positions in (0, 1, 2, 4, 8, 0xF):
        assert register_observer(ctx.engine, observer_table(positions=positions)) == 0, hex(positions)
    assert register_observer(ctx.engine, None) == 0


def case_observer_null_callbacks(ctx: Ctx) -> None:
    # Every position observed, every callback NULL: audio flows as without an observer.
    e = ctx.engine
    assert register_observer(e, observer_table(positions=0xF)) == 0
    assert _ffi.agoraish_engine_set_recording_audio_frame_parameters(e, 48000, 1, 2, 0) == 0
    assert _ffi.agoraish_engine_set_playback_audio_frame_parameters(e, 48000, 1, 2, 0) == 0
    assert _ffi.agoraish_engine_set_external_audio_source(e, 1, 48000, 1) == 0
    assert _ffi.agoraish_engine_set_external_audio_sink(e, 1, 48000, 1) == 0
    for _ in range(5):
        assert _ffi.agoraish_engine_push_external_audio_frame(e, i16(480), 480) >= 0
        assert _ffi.agoraish_engine_pull_playback_audio_frame(e, i16(480), 480) == 0
    assert register_observer(e, None) == 0


RATES_REJECTED = (0, -1, 11025, 22050, 96000, 2**31 - 1)
RATES_ACCEPTED = (8000, 16000, 32000, 44100, 48000)


def tap_case(function: Callable[..., int], param: str, with_mode: bool = True,
             with_samples: bool = True) -> Callable[[Ctx], None]:
    """The range checks of one parameter of a set_*_audio_frame_parameters function."""

    def call(ctx: Ctx, rate: int = 48000, channels: int = 1, mode: int = 0, samples: int = 0) -> int:
        args = [ctx.engine, rate, channels]
        if with_mode:
            args.append(mode)
        if with_samples:
            args.append(samples)
        return function(*args)

    def case(ctx: Ctx) -> None:
        if param == "sample_rate":
            assert {r: call(ctx, rate=r) for r in RATES_REJECTED} == {r: EINVAL for r in RATES_REJECTED}
            assert {r: call(ctx, rate=r) for r in RATES_ACCEPTED} == {r: 0 for r in RATES_ACCEPTED}
        elif param == "channels":
            bad = (0, 3, -1, 2**31 - 1)
            assert {c: call(ctx, channels=c) for c in bad} == {c: EINVAL for c in bad}
            assert call(ctx, channels=1) == 0 and call(ctx, channels=2) == 0
        elif param == "mode":
            bad = (-1, 3, 2**31 - 1)
            assert {m: call(ctx, mode=m) for m in bad} == {m: EINVAL for m in bad}
            assert {m: call(ctx, mode=m) for m in (0, 1, 2)} == {0: 0, 1: 0, 2: 0}
        elif param == "samples_per_call":
            # 0 (10 ms), else sample_rate/100 .. sample_rate.
            for rate, rejected, accepted in ((8000, (-1, 79, 8001), (0, 80, 160, 8000)),
                                             (44100, (440, 44101), (441, 4410, 44100)),
                                             (48000, (1, 479, 48001, 2**31 - 1), (0, 480, 960, 48000))):
                for samples in rejected:
                    assert call(ctx, rate=rate, samples=samples) == EINVAL, (rate, samples)
                for samples in accepted:
                    assert call(ctx, rate=rate, samples=samples) == 0, (rate, samples)
        else:
            raise AssertionError(param)

    return case


def tap_rows(function: Callable[..., int], with_mode: bool = True, with_samples: bool = True) -> list:
    params = ["sample_rate", "channels"] + (["mode"] if with_mode else []) + (["samples_per_call"] if with_samples else [])
    labels = {"sample_rate": "11025, 22050, 96000, 0: -2; 8k..48k", "channels": "0, 3, -1: -2; 1, 2",
              "mode": "-1, 3: -2; 0..2", "samples_per_call": "below 10 ms, above 1 s: -2; 0, 10 ms..1 s"}
    return [(p, labels[p], tap_case(function, p, with_mode, with_samples)) for p in params]


def recording_config(ctx: Ctx, name: str = "rec.wav", **fields) -> _ffi.AudioRecordingConfig:
    config = _ffi.AudioRecordingConfig()
    config.struct_size = ctypes.sizeof(_ffi.AudioRecordingConfig)
    config.file_path = str(ctx.tmp / name).encode()
    config.sample_rate = 32000
    config.position = 0
    config.quality = 1
    for key, value in fields.items():
        setattr(config, key, value)
    return config


def start_recording(engine: int, config: Optional[_ffi.AudioRecordingConfig]) -> int:
    return _ffi.agoraish_engine_start_audio_recording(engine, ctypes.byref(config) if config is not None else None)


def case_recording_null(ctx: Ctx) -> None:
    assert start_recording(ctx.engine, None) == EINVAL


def case_recording_struct_size(ctx: Ctx) -> None:
    full = ctypes.sizeof(_ffi.AudioRecordingConfig)
    for size in (0, 4, 8, full - 8, full - 4, full - 1):
        assert start_recording(ctx.engine, recording_config(ctx, struct_size=size)) == EINVAL, size
    assert start_recording(ctx.engine, recording_config(ctx, struct_size=full + 64)) == EINVAL, "no header's size"
    assert start_recording(ctx.engine, recording_config(ctx, struct_size=full)) == 0
    assert _ffi.agoraish_engine_stop_audio_recording(ctx.engine) == 0


def case_recording_paths(ctx: Ctx) -> None:
    for path in (None, b"", str(ctx.tmp).encode() + b"/\xff.wav"):
        assert start_recording(ctx.engine, recording_config(ctx, file_path=path)) == EINVAL, path
    for path in (ctx.tmp / "missing" / "x.wav", ctx.tmp):  # cannot be created
        assert start_recording(ctx.engine, recording_config(ctx, file_path=str(path).encode())) == EFAILED, path
    assert not (ctx.tmp / "missing").exists()


def case_recording_values(ctx: Ctx) -> None:
    for fields in ({"sample_rate": 0}, {"sample_rate": 8000}, {"sample_rate": 22050}, {"sample_rate": 96000},
                   {"sample_rate": -1}, {"position": -1}, {"position": 3}, {"quality": -1}, {"quality": 4},
                   {"quality": 2**31 - 1}):
        assert start_recording(ctx.engine, recording_config(ctx, **fields)) == EINVAL, fields
    for fields in ({"sample_rate": 16000}, {"sample_rate": 32000}, {"sample_rate": 44100}, {"sample_rate": 48000},
                   {"position": 0}, {"position": 1}, {"position": 2}, {"quality": 0}, {"quality": 3}):
        assert start_recording(ctx.engine, recording_config(ctx, **fields)) == 0, fields
    assert _ffi.agoraish_engine_stop_audio_recording(ctx.engine) == 0


def case_recording_wav_file(ctx: Ctx) -> None:
    import wave

    path = ctx.tmp / "valid.wav"
    assert start_recording(ctx.engine, recording_config(ctx, "valid.wav", sample_rate=16000)) == 0
    assert path.exists(), "created by the call"
    assert start_recording(ctx.engine, recording_config(ctx, "second.wav", sample_rate=44100)) == 0, "replaces it"
    with wave.open(str(path), "rb") as w:  # the first one was finished
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 16000)
    assert _ffi.agoraish_engine_stop_audio_recording(ctx.engine) == 0
    with wave.open(str(ctx.tmp / "second.wav"), "rb") as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 44100)


def case_stop_recording(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_stop_audio_recording(ctx.engine) == 0, "not recording"
    assert start_recording(ctx.engine, recording_config(ctx)) == 0
    assert _ffi.agoraish_engine_stop_audio_recording(ctx.engine) == 0
    assert _ffi.agoraish_engine_stop_audio_recording(ctx.engine) == 0, "twice"


def case_device_count(ctx: Ctx) -> None:
    for kind in (-1, 2, 100, 2**31 - 1, -(2**31)):
        assert _ffi.agoraish_engine_get_audio_device_count(ctx.engine, kind) == EINVAL, kind
    for kind in (0, 1):
        assert _ffi.agoraish_engine_get_audio_device_count(ctx.engine, kind) >= 0, kind


def get_device(engine: int, kind: int, index: int, with_info: bool = True) -> Tuple[int, _ffi.AudioDeviceInfo]:
    info = _ffi.AudioDeviceInfo(id=b"untouched", name=b"untouched")
    rc = _ffi.agoraish_engine_get_audio_device(engine, kind, index, ctypes.byref(info) if with_info else None)
    return rc, info


def case_device_type(ctx: Ctx) -> None:
    for kind in (-1, 2, 2**31 - 1):
        rc, info = get_device(ctx.engine, kind, 0)
        assert rc == EINVAL and info.id == b"untouched", kind


def case_device_index(ctx: Ctx) -> None:
    for kind in (0, 1):
        count = _ffi.agoraish_engine_get_audio_device_count(ctx.engine, kind)
        assert count >= 0
        for index in (-1, count, count + 1, 2**31 - 1, -(2**31)):
            rc, info = get_device(ctx.engine, kind, index)
            assert rc == EINVAL and info.id == b"untouched", (kind, index)
        for index in range(count):
            rc, info = get_device(ctx.engine, kind, index)
            assert rc == 0 and info.id and info.id != b"untouched", (kind, index)
            assert info.id.decode() and info.name.decode(), "NUL-terminated UTF-8"
        if count:
            assert get_device(ctx.engine, kind, 0)[1].id == b"default", '"default" first'


def case_device_info_null(ctx: Ctx) -> None:
    for kind in (0, 1):
        assert get_device(ctx.engine, kind, 0, with_info=False)[0] == EINVAL


def device_setter_case(setter: Callable[[int, Optional[bytes]], int],
                       getter: Callable[..., int]) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        for device in (None, b"", b"d" * 512, b"d" * 4096, b"caf\xe9"):
            assert setter(ctx.engine, device) == EINVAL, device
            assert device_id(getter, ctx.engine) == (0, b"default"), "a refused id changes nothing"
        for device in (b"d" * 511, b"hw:9,9", b"agoraish-no-such-device", b"default"):
            assert setter(ctx.engine, device) == 0, device
            assert device_id(getter, ctx.engine) == (0, device), "any name is taken, listed or not"

    return case


def device_id(getter: Callable[..., int], engine: int, capacity: int = 1024) -> Tuple[int, bytes]:
    length = ctypes.c_size_t(capacity)
    buf = ctypes.create_string_buffer(capacity)
    rc = getter(engine, buf, ctypes.byref(length))
    return rc, buf.value


def device_getter_buffer_case(getter: Callable[..., int]) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        length = ctypes.c_size_t(0)
        assert getter(ctx.engine, None, ctypes.byref(length)) == ESMALL, "size query"
        assert length.value == len(b"default") + 1
        buf = ctypes.create_string_buffer(b"\xaa" * 7, 7)
        length = ctypes.c_size_t(7)
        assert getter(ctx.engine, buf, ctypes.byref(length)) == ESMALL and length.value == 8
        assert buf.raw == b"\xaa" * 7, "a too-small buffer must not be written"
        assert device_id(getter, ctx.engine, 8) == (0, b"default"), "exact size"
        length = ctypes.c_size_t(16)
        assert getter(ctx.engine, None, ctypes.byref(length)) == EINVAL, "NULL buf, nonzero len"

    return case


def device_getter_len_case(getter: Callable[..., int]) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        buf = ctypes.create_string_buffer(64)
        assert getter(ctx.engine, buf, None) == EINVAL
        assert getter(ctx.engine, None, None) == EINVAL

    return case


def interval_case(start: Callable[[int, int], int], stop: Callable[[int], int]) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        for interval in (-(2**31), -1, 0, 1, 9, 60001, 2**31 - 1):
            assert start(ctx.engine, interval) == EINVAL, interval
        for interval in (10, 100, 60000):
            assert start(ctx.engine, interval) == 0, interval
        assert stop(ctx.engine) == 0

    return case


def stop_case(start: Callable[[int], int], stop: Callable[[int], int]) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        assert stop(ctx.engine) == 0, "not running"
        assert start(ctx.engine) == 0
        assert stop(ctx.engine) == 0
        assert stop(ctx.engine) == 0, "twice"

    return case


def write_wav(path: Path, rate: int = 16000, channels: int = 1, width: int = 2, frames: int = 1600) -> bytes:
    import wave

    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(b"\0" * width * channels * frames)
    return str(path).encode()


def case_playback_test_paths(ctx: Ctx) -> None:
    e, tmp = ctx.engine, ctx.tmp
    (tmp / "junk.wav").write_bytes(b"RIFF\x04\0\0\0WAVEjunk")
    (tmp / "text.wav").write_text("not a wav file")
    rejected = [None, b"", str(tmp / "none.wav").encode(), str(tmp).encode(), str(tmp / "junk.wav").encode(),
                str(tmp / "text.wav").encode(), b"/tmp/\xff.wav",
                write_wav(tmp / "8bit.wav", width=1), write_wav(tmp / "24bit.wav", width=3),
                write_wav(tmp / "96k.wav", rate=96000), write_wav(tmp / "7k.wav", rate=7000),
                write_wav(tmp / "3ch.wav", channels=3)]
    for path in rejected:
        assert _ffi.agoraish_engine_start_playback_device_test(e, path) == EINVAL, path
    accepted = [write_wav(tmp / "mono16k.wav"), write_wav(tmp / "stereo48k.wav", rate=48000, channels=2),
                write_wav(tmp / "8k.wav", rate=8000), write_wav(tmp / "44k.wav", rate=44100)]
    for path in accepted:
        assert _ffi.agoraish_engine_start_playback_device_test(e, path) == 0, path
    assert _ffi.agoraish_engine_stop_playback_device_test(e) == 0


def playback_test_start(ctx_tmp: List[Path]) -> Callable[[int], int]:
    def start(engine: int) -> int:
        return _ffi.agoraish_engine_start_playback_device_test(engine, write_wav(ctx_tmp[0] / "loop.wav"))

    return start


def case_stop_playback_test(ctx: Ctx) -> None:
    stop_case(playback_test_start([ctx.tmp]), _ffi.agoraish_engine_stop_playback_device_test)(ctx)


# -- video (ABI 0.5) --------------------------------------------------------

INT_MAX, INT_MIN = 2**31 - 1, -(2**31)
I420, BGRA, NV21, RGBA, NV12 = (_ffi.AGORAISH_VIDEO_PIXEL_I420, _ffi.AGORAISH_VIDEO_PIXEL_BGRA,
                                _ffi.AGORAISH_VIDEO_PIXEL_NV21, _ffi.AGORAISH_VIDEO_PIXEL_RGBA,
                                _ffi.AGORAISH_VIDEO_PIXEL_NV12)
PIXEL_FORMATS = (I420, BGRA, NV21, RGBA, NV12)
#: One zeroed buffer every plane of the cases points at: large enough for any
#: size and stride they pass (at most 4 x 4096 bytes x 64 rows).
PLANES = (ctypes.c_uint8 * (1 << 20))()


def encoder_config(size: Optional[int] = None, **fields) -> _ffi.VideoEncoderConfiguration:
    config = _ffi.VideoEncoderConfiguration(width=320, height=240, frame_rate=15, bitrate=0, min_bitrate=-1,
                                            codec_type=_ffi.AGORAISH_VIDEO_CODEC_VP8)
    config.struct_size = ctypes.sizeof(_ffi.VideoEncoderConfiguration) if size is None else size
    for key, value in fields.items():
        setattr(config, key, value)
    return config


def set_encoder(engine: int, config: Optional[_ffi.VideoEncoderConfiguration]) -> int:
    return _ffi.agoraish_engine_set_video_encoder_configuration(
        engine, ctypes.byref(config) if config is not None else None)


def default_strides(fmt: int, width: int) -> Tuple[int, int, int]:
    """The tight row lengths of each plane a format uses (0 for planes it does not use)."""
    if fmt in (BGRA, RGBA):
        return (4 * width, 0, 0)
    if fmt in (NV12, NV21):
        return (width, width, 0)
    return (width, width // 2, width // 2)


def video_frame(width: int = 32, height: int = 16, fmt: int = I420, size: Optional[int] = None,
                **fields) -> _ffi.ExternalVideoFrame:
    """A picture whose planes all point into PLANES, with the format's tight strides unless given."""
    frame = _ffi.ExternalVideoFrame()
    frame.struct_size = ctypes.sizeof(_ffi.ExternalVideoFrame) if size is None else size
    frame.format = fmt
    frame.width, frame.height = width, height
    address = ctypes.addressof(PLANES)
    frame.y_buffer = frame.u_buffer = frame.v_buffer = address
    frame.y_stride, frame.u_stride, frame.v_stride = default_strides(fmt, width)
    frame.timestamp = 0
    for key, value in fields.items():
        setattr(frame, key, value)
    return frame


def push_video(engine: int, frame: Optional[_ffi.ExternalVideoFrame]) -> int:
    return _ffi.agoraish_engine_push_external_video_frame(engine, ctypes.byref(frame) if frame is not None else None)


def canvas(uid: int = 1, on_frame=None, size: Optional[int] = None, user_data: Optional[int] = None,
           **fields) -> _ffi.VideoCanvas:
    table = _ffi.VideoCanvas(uid=uid, user_data=user_data, **fields)
    if on_frame is not None:
        table.on_frame = on_frame
    table.struct_size = ctypes.sizeof(_ffi.VideoCanvas) if size is None else size
    return table


def setup_video(engine: int, table: Optional[_ffi.VideoCanvas]) -> int:
    return _ffi.agoraish_engine_setup_remote_video(engine, ctypes.byref(table) if table is not None else None)


def video_source(ctx: Ctx) -> int:
    """The case's engine with the external video source on."""
    assert _ffi.agoraish_engine_set_external_video_source(ctx.engine, 1) == 0
    return ctx.engine


def case_video_switches(ctx: Ctx) -> None:
    e = ctx.engine
    assert _ffi.agoraish_engine_disable_video(e) == 0, "off by default: disabling again"
    assert _ffi.agoraish_engine_enable_video(e) == 0
    assert _ffi.agoraish_engine_enable_video(e) == 0, "twice"
    assert _ffi.agoraish_engine_disable_video(e) == 0
    assert _ffi.agoraish_engine_disable_video(e) == 0, "twice"
    connected = connected_engine(ctx)
    assert _ffi.agoraish_engine_enable_video(connected) == 0, "in a call"
    assert _ffi.agoraish_engine_disable_video(connected) == 0, "in a call"


def case_encoder_null(ctx: Ctx) -> None:
    assert set_encoder(ctx.engine, None) == EINVAL


#: The size of agoraish_video_encoder_configuration in ABI 0.5 (without orientation, degradation and mirror mode).
ENCODER_SIZE_0_5 = _ffi.VideoEncoderConfiguration.orientation_mode.offset


def case_encoder_struct_size(ctx: Ctx) -> None:
    full = ctypes.sizeof(_ffi.VideoEncoderConfiguration)
    # Too small, or not a whole number of fields (a size no header produces).
    for size in (0, 4, 8, ENCODER_SIZE_0_5 - 4, ENCODER_SIZE_0_5 - 1, full - 1, full + 2):
        assert set_encoder(ctx.engine, encoder_config(size)) == EINVAL, size
    # The ABI 0.5 and 0.6 structs; a size between them or larger is no header's.
    for size in (ENCODER_SIZE_0_5, ENCODER_SIZE_0_5 + 4, full, full + 4, full + 64):
        assert set_encoder(ctx.engine, encoder_config(size)) == size_rc("agoraish_video_encoder_configuration", size), size


def case_encoder_0_5_struct(ctx: Ctx) -> None:
    # Fields past struct_size are not read: values there that would be -2 are ignored.
    bad = {"orientation_mode": 7, "degradation_preference": -1, "mirror_mode": INT_MAX}
    assert set_encoder(ctx.engine, encoder_config(**bad)) == EINVAL, "read in a 0.6 struct"
    assert set_encoder(ctx.engine, encoder_config(ENCODER_SIZE_0_5, **bad)) == 0, "past a 0.5 struct"


def encoder_field_case(name: str, rejected, accepted) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        got = {v: set_encoder(ctx.engine, encoder_config(**{name: v})) for v in (*rejected, *accepted)}
        assert got == {**{v: EINVAL for v in rejected}, **{v: 0 for v in accepted}}, name

    return case


SIZES_REJECTED = (0, 2, 14, 15, 17, 4095, 4097, 4098, -2, -16, INT_MAX, INT_MIN)
SIZES_ACCEPTED = (16, 18, 320, 1920, 4096)


def case_push_null(ctx: Ctx) -> None:
    assert push_video(ctx.engine, None) == EINVAL, "NULL without a source"
    assert push_video(video_source(ctx), None) == EINVAL, "NULL with a source"


def case_push_without_source(ctx: Ctx) -> None:
    e = ctx.engine
    for fmt in PIXEL_FORMATS:
        assert push_video(e, video_frame(fmt=fmt)) == ENOTREADY, ("never enabled", fmt)
    assert _ffi.agoraish_engine_enable_video(e) == 0
    assert push_video(e, video_frame()) == ENOTREADY, "video on, no source"
    assert _ffi.agoraish_engine_set_external_video_source(e, 1) == 0
    assert push_video(e, video_frame()) == 0
    assert _ffi.agoraish_engine_set_external_video_source(e, 0) == 0
    assert push_video(e, video_frame()) == ENOTREADY, "source turned off"
    connected = connected_engine(ctx)
    assert _ffi.agoraish_engine_enable_video(connected) == 0
    assert push_video(connected, video_frame()) == ENOTREADY, "in a call, no source"


#: The size of agoraish_external_video_frame in ABI 0.5 (without rotation).
FRAME_SIZE_0_5 = _ffi.ExternalVideoFrame.rotation.offset


def case_push_struct_size(ctx: Ctx) -> None:
    e = video_source(ctx)
    full = ctypes.sizeof(_ffi.ExternalVideoFrame)
    for size in (0, 4, 8, FRAME_SIZE_0_5 - 8, FRAME_SIZE_0_5 - 1, full - 1, full + 4):
        assert push_video(e, video_frame(size=size)) == EINVAL, size
    for size in (FRAME_SIZE_0_5, full, full + 8, full + 64):
        assert push_video(e, video_frame(size=size)) == size_rc("agoraish_external_video_frame", size), size


def case_push_rotation(ctx: Ctx) -> None:
    e = video_source(ctx)
    for rotation in (-90, 1, 45, 89, 360, 450, INT_MAX, INT_MIN):
        for fmt in PIXEL_FORMATS:
            assert push_video(e, video_frame(fmt=fmt, rotation=rotation)) == EINVAL, (fmt, rotation)
        assert push_video(e, video_frame(size=FRAME_SIZE_0_5, rotation=rotation)) == 0, ("not read in 0.5", rotation)
    for rotation in (0, 90, 180, 270):
        for fmt in PIXEL_FORMATS:
            assert push_video(e, video_frame(width=64, height=16, fmt=fmt, rotation=rotation)) == 0, (fmt, rotation)
    connected = connected_engine(ctx)
    assert _ffi.agoraish_engine_enable_video(connected) == 0
    assert _ffi.agoraish_engine_set_external_video_source(connected, 1) == 0
    for n, rotation in enumerate((0, 90, 180, 270, 90)):  # sizes turn: a new size for the encoder each time
        assert push_video(connected, video_frame(width=64, height=32, rotation=rotation, timestamp=66 * n)) == 0
    assert push_video(connected, video_frame(rotation=45)) == EINVAL


def case_push_formats(ctx: Ctx) -> None:
    e = video_source(ctx)
    for fmt in (0, 5, 6, 7, 9, 16, -1, INT_MAX, INT_MIN):
        assert push_video(e, video_frame(fmt=fmt, y_stride=128, u_stride=128, v_stride=128)) == EINVAL, fmt
    for fmt in PIXEL_FORMATS:
        assert push_video(e, video_frame(fmt=fmt)) == 0, fmt


def case_push_sizes(ctx: Ctx) -> None:
    e = video_source(ctx)
    for fmt in PIXEL_FORMATS:
        for width in SIZES_REJECTED:
            strides = default_strides(fmt, 4096)  # wide enough for any width: only the width is wrong
            frame = video_frame(width=width, fmt=fmt, y_stride=strides[0], u_stride=strides[1], v_stride=strides[2])
            assert push_video(e, frame) == EINVAL, (fmt, "width", width)
        for height in SIZES_REJECTED:
            assert push_video(e, video_frame(height=height, fmt=fmt)) == EINVAL, (fmt, "height", height)
        for width in SIZES_ACCEPTED:
            assert push_video(e, video_frame(width=width, fmt=fmt)) == 0, (fmt, "width", width)
        for height in (16, 18, 64):
            assert push_video(e, video_frame(height=height, fmt=fmt)) == 0, (fmt, "height", height)
    assert push_video(e, video_frame(width=16, height=4096)) == 0, "the tallest I420 picture"


def case_push_strides(ctx: Ctx) -> None:
    e = video_source(ctx)
    w = 32
    rejected = [
        (I420, "y_stride", w - 1), (I420, "y_stride", 0), (I420, "y_stride", -w), (I420, "y_stride", INT_MIN),
        (I420, "u_stride", w // 2 - 1), (I420, "u_stride", -1), (I420, "v_stride", w // 2 - 1), (I420, "v_stride", -1),
        (NV12, "y_stride", w - 1), (NV12, "u_stride", w - 1), (NV12, "u_stride", w // 2),
        (NV21, "u_stride", w - 1), (NV21, "u_stride", INT_MIN),
        (BGRA, "y_stride", 4 * w - 1), (BGRA, "y_stride", w), (RGBA, "y_stride", 4 * w - 1), (RGBA, "y_stride", -1),
    ]
    for fmt, name, value in rejected:
        assert push_video(e, video_frame(fmt=fmt, **{name: value})) == EINVAL, (fmt, name, value)
    accepted = [
        (I420, "y_stride", w + 1), (I420, "y_stride", 4096), (I420, "u_stride", w // 2 + 1), (I420, "v_stride", 4096),
        (NV12, "u_stride", w + 2), (NV21, "y_stride", 4096),
        (BGRA, "y_stride", 4 * w + 4), (RGBA, "y_stride", 4096),
        # Strides of planes a format does not use are not read.
        (NV12, "v_stride", -1), (NV21, "v_stride", INT_MIN), (BGRA, "u_stride", -1), (RGBA, "v_stride", INT_MIN),
    ]
    for fmt, name, value in accepted:
        assert push_video(e, video_frame(fmt=fmt, **{name: value})) == 0, (fmt, name, value)


def case_push_planes(ctx: Ctx) -> None:
    e = video_source(ctx)
    for fmt in PIXEL_FORMATS:
        assert push_video(e, video_frame(fmt=fmt, y_buffer=None)) == EINVAL, (fmt, "y_buffer")
    assert push_video(e, video_frame(fmt=I420, u_buffer=None)) == EINVAL, "I420 without U"
    assert push_video(e, video_frame(fmt=I420, v_buffer=None)) == EINVAL, "I420 without V"
    assert push_video(e, video_frame(fmt=I420, u_buffer=None, v_buffer=None)) == EINVAL, "I420 with Y only"
    for fmt in (NV12, NV21):
        assert push_video(e, video_frame(fmt=fmt, u_buffer=None)) == EINVAL, (fmt, "without its chroma plane")
        assert push_video(e, video_frame(fmt=fmt, v_buffer=None)) == 0, (fmt, "v_buffer is unused")
    for fmt in (BGRA, RGBA):
        assert push_video(e, video_frame(fmt=fmt, u_buffer=None, v_buffer=None)) == 0, (fmt, "one plane")


def case_push_timestamps(ctx: Ctx) -> None:
    e = video_source(ctx)
    for stamp in (0, 1, -1, 2**63 - 1, -(2**63), 0):  # any origin; outside a call nothing is encoded
        assert push_video(e, video_frame(timestamp=stamp)) == 0, stamp


def case_push_in_a_call(ctx: Ctx) -> None:
    connected = connected_engine(ctx)
    assert _ffi.agoraish_engine_enable_video(connected) == 0
    assert _ffi.agoraish_engine_set_external_video_source(connected, 1) == 0
    assert set_encoder(connected, encoder_config(width=64, height=64, frame_rate=30, bitrate=100)) == 0
    for n, fmt in enumerate(PIXEL_FORMATS * 2):
        assert push_video(connected, video_frame(width=64, height=32, fmt=fmt, timestamp=33 * n)) == 0, fmt
    # A picture larger than the configuration is scaled down to fit it.
    assert push_video(connected, video_frame(width=128, height=64, timestamp=400)) == 0
    assert push_video(connected, video_frame(width=32, height=32, timestamp=400)) == 0, "the same timestamp again"
    assert push_video(connected, video_frame(width=32, height=32, timestamp=100)) == 0, "a timestamp going back"
    assert push_video(connected, None) == EINVAL
    assert push_video(connected, video_frame(fmt=9)) == EINVAL


#: A child process: one engine in a call pushes pictures with extreme timestamps
#: (the first of a call is the origin of the RTP clock). It prints the codes.
_TIMESTAMP_CHILD = r"""
import ctypes, sys, time
from agoraish import _ffi
server_config = _ffi.ServerConfig(struct_size=ctypes.sizeof(_ffi.ServerConfig))
server = _ffi.agoraish_server_create(ctypes.byref(server_config))
assert server and _ffi.agoraish_server_start(server) == 0
url = ctypes.create_string_buffer(256)
length = ctypes.c_size_t(256)
assert _ffi.agoraish_server_get_url(server, url, ctypes.byref(length)) == 0
config = _ffi.EngineConfig(struct_size=ctypes.sizeof(_ffi.EngineConfig), app_id=b"bad-input-app",
                           server_url=url.value, log_file=sys.argv[1].encode())
engine = _ffi.agoraish_engine_create(ctypes.byref(config))
assert engine
assert _ffi.agoraish_engine_join_channel(engine, None, b"timestamps", None, 0) == 0
deadline = time.monotonic() + 10
while _ffi.agoraish_engine_get_connection_state(engine) != 3 and time.monotonic() < deadline:
    time.sleep(0.02)
assert _ffi.agoraish_engine_get_connection_state(engine) == 3
time.sleep(0.5)  # the media path binds
assert _ffi.agoraish_engine_enable_video(engine) == 0
assert _ffi.agoraish_engine_set_external_video_source(engine, 1) == 0
planes = (ctypes.c_uint8 * (32 * 16 * 2))()
address = ctypes.addressof(planes)
for stamp in [int(s) for s in sys.argv[2:]]:
    frame = _ffi.ExternalVideoFrame(struct_size=ctypes.sizeof(_ffi.ExternalVideoFrame), format=1, width=32, height=16,
                                    y_buffer=address, u_buffer=address, v_buffer=address, y_stride=32, u_stride=16,
                                    v_stride=16, timestamp=stamp)
    print(stamp, _ffi.agoraish_engine_push_external_video_frame(engine, ctypes.byref(frame)), flush=True)
assert _ffi.agoraish_engine_release(engine, 1) == 0
assert _ffi.agoraish_server_release(server) == 0
"""


def case_push_extreme_timestamps_in_a_call(ctx: Ctx) -> None:
    import os
    import subprocess
    import sys

    from support import BINDING

    env = dict(os.environ, PYTHONPATH=str(BINDING))
    for stamps in (("0", str(2**63 - 1)), (str(-(2**63)), "0"), ("0", str(2**62))):
        out = subprocess.run([sys.executable, "-c", _TIMESTAMP_CHILD, str(ctx.tmp / "child.log"), *stamps],
                             capture_output=True, text=True, timeout=60, env=env)
        assert out.returncode == 0, (stamps, out.returncode, out.stdout, out.stderr[-2000:])
        codes = [int(line.split()[1]) for line in out.stdout.split("\n") if line.strip()]
        assert len(codes) == len(stamps) and all(code in (0, EINVAL) for code in codes), (stamps, out.stdout)


#: Library bugs a case shows, by case: the case is expected to fail (strictly:
#: it fails the run once the library is fixed, so that the mark goes).
KNOWN_BUGS: Dict[Callable[[Ctx], None], str] = {}


def case_canvas_null(ctx: Ctx) -> None:
    assert setup_video(ctx.engine, None) == EINVAL


#: The size of agoraish_video_canvas in ABI 0.5 (without render mode, mirror mode and view size).
CANVAS_SIZE_0_5 = _ffi.VideoCanvas.render_mode.offset


def canvas_struct_size_case(setup: Callable[[int, Optional[_ffi.VideoCanvas]], int]) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        callback = _ffi.FrameCallback(lambda *args: None)
        ctx.keep.append(callback)
        full = ctypes.sizeof(_ffi.VideoCanvas)
        for size in (0, 4, 8, 16, CANVAS_SIZE_0_5 - 1, full - 1, full + 4):
            assert setup(ctx.engine, canvas(size=size)) == EINVAL, ("unbind", size)
            assert setup(ctx.engine, canvas(on_frame=callback, size=size)) == EINVAL, ("bind", size)
        # The ABI 0.5 canvas, one with the modes but no view size, the full one, a newer one.
        for size in (CANVAS_SIZE_0_5, CANVAS_SIZE_0_5 + 8, full, full + 8, full + 64):
            rc = size_rc("agoraish_video_canvas", size)
            assert setup(ctx.engine, canvas(on_frame=callback, size=size)) == rc, ("bind", size)
            assert setup(ctx.engine, canvas(size=size)) == rc, ("unbind", size)
        # Fields past a 0.5 struct are not read: values there that would be -2 are ignored.
        bad = {"render_mode": 9, "mirror_mode": -1, "view_width": 1, "view_height": 0}
        assert setup(ctx.engine, canvas(on_frame=callback, **bad)) == EINVAL, "read in a 0.6 struct"
        assert setup(ctx.engine, canvas(on_frame=callback, size=CANVAS_SIZE_0_5, **bad)) == 0, "past a 0.5 struct"
        assert setup(ctx.engine, canvas()) == 0

    return case


case_canvas_struct_size = canvas_struct_size_case(lambda e, c: setup_video(e, c))


def case_canvas_uids(ctx: Ctx) -> None:
    callback = _ffi.FrameCallback(lambda *args: None)
    ctx.keep.append(callback)
    e = ctx.engine
    assert setup_video(e, canvas(uid=0, on_frame=callback)) == EINVAL, "bind uid 0"
    assert setup_video(e, canvas(uid=0)) == EINVAL, "unbind uid 0"
    for uid in (1, 12345, 2**32 - 1):  # users not (yet) in a call
        assert setup_video(e, canvas(uid=uid)) == 0, ("unbind, never bound", uid)
        assert setup_video(e, canvas(uid=uid, on_frame=callback)) == 0, ("bind", uid)
        assert setup_video(e, canvas(uid=uid, on_frame=callback, user_data=0xDEADBEEF)) == 0, ("bind again", uid)
        assert setup_video(e, canvas(uid=uid)) == 0, ("unbind", uid)
        assert setup_video(e, canvas(uid=uid)) == 0, ("unbind twice", uid)
    connected = connected_engine(ctx)
    assert setup_video(connected, canvas(uid=0, on_frame=callback)) == EINVAL, "uid 0 in a call"
    assert setup_video(connected, canvas(uid=7, on_frame=callback)) == 0, "in a call"
    assert setup_video(connected, canvas(uid=7)) == 0, "in a call"


# -- video (ABI 0.6) --------------------------------------------------------

RENDER_MODES_REJECTED = (-1, 5, 6, 100, INT_MAX, INT_MIN)
MIRROR_MODES_REJECTED = (-1, 3, 4, INT_MAX, INT_MIN)


def setup_local(engine: int, table: Optional[_ffi.VideoCanvas]) -> int:
    return _ffi.agoraish_engine_setup_local_video(engine, ctypes.byref(table) if table is not None else None)


def canvas_modes_case(setup: Callable[[int, Optional[_ffi.VideoCanvas]], int]) -> Callable[[Ctx], None]:
    """Render modes 0 (HIDDEN) and 1..4, mirror modes 0..2; others -2 when binding, ignored when unbinding."""

    def case(ctx: Ctx) -> None:
        callback = _ffi.FrameCallback(lambda *args: None)
        ctx.keep.append(callback)
        for mode in RENDER_MODES_REJECTED:
            assert setup(ctx.engine, canvas(on_frame=callback, render_mode=mode)) == EINVAL, ("render_mode", mode)
            assert setup(ctx.engine, canvas(render_mode=mode)) == 0, ("unbinding ignores render_mode", mode)
        for mode in MIRROR_MODES_REJECTED:
            assert setup(ctx.engine, canvas(on_frame=callback, mirror_mode=mode)) == EINVAL, ("mirror_mode", mode)
            assert setup(ctx.engine, canvas(mirror_mode=mode)) == 0, ("unbinding ignores mirror_mode", mode)
        for render_mode in (0, 1, 2, 3, 4):
            for mirror_mode in (0, 1, 2):
                table = canvas(on_frame=callback, render_mode=render_mode, mirror_mode=mirror_mode)
                assert setup(ctx.engine, table) == 0, (render_mode, mirror_mode)
        assert setup(ctx.engine, canvas()) == 0

    return case


VIEW_SIZES_REJECTED = ((0, 2), (2, 0), (-2, 2), (2, -2), (4097, 2), (2, 4097), (4098, 4098), (INT_MAX, 2),
                       (2, INT_MIN), (-1, -1))
VIEW_SIZES_ACCEPTED = ((0, 0), (2, 2), (4096, 4096), (640, 360), (360, 640), (3, 5), (4096, 2))


def canvas_view_case(setup: Callable[[int, Optional[_ffi.VideoCanvas]], int],
                     rejected=VIEW_SIZES_REJECTED, accepted=VIEW_SIZES_ACCEPTED) -> Callable[[Ctx], None]:
    """View sizes: 0 x 0 or both 2..4096; others -2 when binding."""

    def case(ctx: Ctx) -> None:
        callback = _ffi.FrameCallback(lambda *args: None)
        ctx.keep.append(callback)
        got = {size: setup(ctx.engine, canvas(on_frame=callback, view_width=size[0], view_height=size[1]))
               for size in (*rejected, *accepted)}
        assert got == {**{size: EINVAL for size in rejected}, **{size: 0 for size in accepted}}
        assert setup(ctx.engine, canvas(view_width=-5, view_height=9000)) == 0, "unbinding ignores the view size"

    return case


VIEW_SIDES_OF_1 = ((1, 1), (1, 2), (2, 1), (1, 4096))

case_canvas_modes = canvas_modes_case(setup_video)
case_canvas_view_sizes = canvas_view_case(setup_video)
case_canvas_view_size_1 = canvas_view_case(setup_video, rejected=VIEW_SIDES_OF_1, accepted=())
case_local_canvas_struct_size = canvas_struct_size_case(setup_local)
case_local_canvas_modes = canvas_modes_case(setup_local)
case_local_canvas_view_sizes = canvas_view_case(setup_local)
case_local_canvas_view_size_1 = canvas_view_case(setup_local, rejected=VIEW_SIDES_OF_1, accepted=())


def case_local_canvas_null(ctx: Ctx) -> None:
    assert setup_local(ctx.engine, None) == EINVAL


def case_local_canvas_uid_ignored(ctx: Ctx) -> None:
    callback = _ffi.FrameCallback(lambda *args: None)
    ctx.keep.append(callback)
    e = ctx.engine
    for uid in (0, 1, 2**32 - 1):
        assert setup_local(e, canvas(uid=uid)) == 0, ("unbind, never bound", uid)
        assert setup_local(e, canvas(uid=uid, on_frame=callback)) == 0, ("bind", uid)
        assert setup_local(e, canvas(uid=uid, on_frame=callback, user_data=0xDEADBEEF)) == 0, ("bind again", uid)
        assert setup_local(e, canvas(uid=uid)) == 0, ("unbind", uid)
        assert setup_local(e, canvas(uid=uid)) == 0, ("unbind twice", uid)
    connected = connected_engine(ctx)
    assert setup_local(connected, canvas(uid=0, on_frame=callback)) == 0, "in a call"
    assert setup_local(connected, canvas(uid=0)) == 0, "in a call"


def case_preview_switches(ctx: Ctx) -> None:
    e = ctx.engine
    assert _ffi.agoraish_engine_stop_preview(e) == 0, "not started"
    assert _ffi.agoraish_engine_start_preview(e) == 0, "video off, no canvas"
    assert _ffi.agoraish_engine_start_preview(e) == 0, "twice"
    assert _ffi.agoraish_engine_stop_preview(e) == 0
    assert _ffi.agoraish_engine_stop_preview(e) == 0, "twice"
    assert _ffi.agoraish_engine_enable_video(e) == 0
    assert _ffi.agoraish_engine_start_preview(e) == 0, "video on, no source and no camera (reported as an event)"
    assert _ffi.agoraish_engine_set_external_video_source(e, 1) == 0
    assert _ffi.agoraish_engine_start_preview(e) == 0, "with an external source"
    connected = connected_engine(ctx)
    assert _ffi.agoraish_engine_start_preview(connected) == 0, "in a call"
    assert _ffi.agoraish_engine_stop_preview(connected) == 0, "in a call"


def render_mode_case(call: Callable[[int, int, int], int], bind: Callable[[Ctx, object], int],
                     param: str) -> Callable[[Ctx], None]:
    """set_*_render_mode: unknown modes -2 (bound or not), -3 without a canvas, 0 with one."""

    def case(ctx: Ctx) -> None:
        e = ctx.engine
        rejected = RENDER_MODES_REJECTED + (0,) if param == "render_mode" else MIRROR_MODES_REJECTED
        accepted = (1, 2, 3, 4) if param == "render_mode" else (0, 1, 2)

        def set_mode(value: int) -> int:
            return call(e, value, 0) if param == "render_mode" else call(e, 1, value)

        for value in rejected:
            assert set_mode(value) == EINVAL, ("no canvas", value)
        for value in accepted:
            assert set_mode(value) == ENOTREADY, ("no canvas", value)
        callback = _ffi.FrameCallback(lambda *args: None)
        ctx.keep.append(callback)
        assert bind(ctx, callback) == 0
        for value in rejected:
            assert set_mode(value) == EINVAL, ("bound", value)
        for value in accepted:
            assert set_mode(value) == 0, ("bound", value)
        assert bind(ctx, None) == 0
        assert set_mode(accepted[0]) == ENOTREADY, "unbound again"

    return case


def _bind_local(ctx: Ctx, callback) -> int:
    return setup_local(ctx.engine, canvas(on_frame=callback) if callback is not None else canvas())


def _bind_remote_7(ctx: Ctx, callback) -> int:
    return setup_video(ctx.engine, canvas(uid=7, on_frame=callback) if callback is not None else canvas(uid=7))


def _local_render_mode(e: int, render_mode: int, mirror_mode: int) -> int:
    return _ffi.agoraish_engine_set_local_render_mode(e, render_mode, mirror_mode)


def _remote_render_mode_7(e: int, render_mode: int, mirror_mode: int) -> int:
    return _ffi.agoraish_engine_set_remote_render_mode(e, 7, render_mode, mirror_mode)


def case_remote_render_mode_uids(ctx: Ctx) -> None:
    callback = _ffi.FrameCallback(lambda *args: None)
    ctx.keep.append(callback)
    e = ctx.engine
    assert _ffi.agoraish_engine_set_remote_render_mode(e, 0, 1, 0) == EINVAL, "uid 0"
    assert _ffi.agoraish_engine_set_remote_render_mode(e, 0, 9, 9) == EINVAL, "uid 0, bad modes"
    assert setup_local(e, canvas(on_frame=callback)) == 0
    assert _ffi.agoraish_engine_set_remote_render_mode(e, 0, 1, 0) == EINVAL, "uid 0 is not the local canvas"
    for uid in (1, 12345, 2**32 - 1):
        assert _ffi.agoraish_engine_set_remote_render_mode(e, uid, 2, 1) == ENOTREADY, ("not bound", uid)
        assert setup_video(e, canvas(uid=uid, on_frame=callback)) == 0
        assert _ffi.agoraish_engine_set_remote_render_mode(e, uid, 2, 1) == 0, ("bound", uid)
        assert setup_video(e, canvas(uid=uid)) == 0
        assert _ffi.agoraish_engine_set_remote_render_mode(e, uid, 2, 1) == ENOTREADY, ("unbound", uid)


def video_observer_table(size: Optional[int] = None, positions: int = 7, **callbacks) -> _ffi.VideoFrameObserverTable:
    table = _ffi.VideoFrameObserverTable(**callbacks)
    table.struct_size = ctypes.sizeof(_ffi.VideoFrameObserverTable) if size is None else size
    table.observed_position = positions
    return table


def register_video_observer(engine: int, table: Optional[_ffi.VideoFrameObserverTable]) -> int:
    return _ffi.agoraish_engine_register_video_frame_observer(
        engine, ctypes.byref(table) if table is not None else None)


def case_video_observer_null(ctx: Ctx) -> None:
    assert register_video_observer(ctx.engine, None) == 0, "none registered"
    assert register_video_observer(ctx.engine, video_observer_table()) == 0
    assert register_video_observer(ctx.engine, None) == 0, "removes it"
    assert register_video_observer(ctx.engine, None) == 0, "twice"


def case_video_observer_struct_size(ctx: Ctx) -> None:
    full = ctypes.sizeof(_ffi.VideoFrameObserverTable)
    # Too small (the struct is new in ABI 0.6: every field is needed), or splitting a field.
    for size in (0, 4, 8, full - 8, full - 1, full + 4):
        assert register_video_observer(ctx.engine, video_observer_table(size)) == EINVAL, size
    for size in (full, full + 8, full + 64):
        assert register_video_observer(ctx.engine, video_observer_table(size)) == size_rc(
            "agoraish_video_frame_observer", size), size
    assert register_video_observer(ctx.engine, None) == 0


def case_video_observer_positions(ctx: Ctx) -> None:
    for positions in (8, 0x10, 0xF, -1, INT_MAX, INT_MIN):
        assert register_video_observer(ctx.engine, video_observer_table(positions=positions)) == EINVAL, hex(positions)
    for positions in range(8):  # 0 is POST_CAPTURER | PRE_RENDERER
        assert register_video_observer(ctx.engine, video_observer_table(positions=positions)) == 0, positions
    assert register_video_observer(ctx.engine, None) == 0


def case_video_observer_null_callbacks(ctx: Ctx) -> None:
    # Every position observed, every callback NULL: pictures flow as without an observer.
    e = ctx.engine
    assert register_video_observer(e, video_observer_table(positions=7)) == 0
    assert _ffi.agoraish_engine_enable_video(e) == 0
    assert _ffi.agoraish_engine_set_external_video_source(e, 1) == 0
    for n in range(3):
        assert push_video(e, video_frame(timestamp=66 * n)) == 0
    assert register_video_observer(e, None) == 0


#: Stream types: the high and low streams and the simulcast layers 4..9 (ABI 0.12); anything else -2.
REJECTED_STREAM_TYPES = (-1, 2, 3, 10, 11, INT_MAX, INT_MIN)
ACCEPTED_STREAM_TYPES = (1, 0, 4, 5, 6, 7, 8, 9, 1, 0)


def stream_type_values_case(call: Callable[[int, int], int]) -> Callable[[Ctx], None]:
    """A stream type: 0 (high), 1 (low) and 4..9 (simulcast layers); anything else -2, before and in a call."""

    def case(ctx: Ctx) -> None:
        for engine in (ctx.engine, connected_engine(ctx)):
            for value in REJECTED_STREAM_TYPES:
                assert call(engine, value) == EINVAL, value
            for value in ACCEPTED_STREAM_TYPES:
                assert call(engine, value) == 0, value

    return case


def case_stream_type_uids(ctx: Ctx) -> None:
    e = ctx.engine
    for stream_type in (0, 1, 4, 9):
        assert _ffi.agoraish_engine_set_remote_video_stream_type(e, 0, stream_type) == EINVAL, "uid 0"
        for uid in (1, 12345, 2**32 - 1):  # users that have not joined (yet)
            assert _ffi.agoraish_engine_set_remote_video_stream_type(e, uid, stream_type) == 0, uid
    assert _ffi.agoraish_engine_set_remote_video_stream_type(e, 0, 10) == EINVAL, "uid 0 and a bad type"


# -- simulcast (ABI 0.12) -----------------------------------------------------

SIMULCAST_SIZE = ctypes.sizeof(_ffi.SimulcastConfig)
L1, L2, L3, L4, L5, L6, LOW = range(_ffi.AGORAISH_STREAM_LAYER_COUNT_MAX)


def simulcast_config(layers: Optional[Dict[int, Tuple[int, int, int, int]]] = None, struct_size: Optional[int] = None,
                     publish_fallback_enable: int = 0) -> _ffi.SimulcastConfig:
    """A simulcast configuration with `layers` {index: (width, height, framerate, enable)}, the others zero."""
    config = _ffi.SimulcastConfig()
    config.struct_size = SIMULCAST_SIZE if struct_size is None else struct_size
    config.publish_fallback_enable = publish_fallback_enable
    for index, (width, height, framerate, enable) in (layers or {}).items():
        entry = config.configs[index]
        entry.width, entry.height, entry.framerate, entry.enable = width, height, framerate, enable
    return config


THREE_LAYERS = {L1: (480, 270, 15, 1), L2: (320, 180, 15, 1), LOW: (160, 90, 15, 1)}
#: Configurations every set_simulcast_config(_ex) refuses with -2.
BAD_SIMULCAST: List[Tuple[str, Optional[_ffi.SimulcastConfig]]] = [
    ("NULL", None),
    ("four enabled", simulcast_config({**THREE_LAYERS, L3: (240, 136, 15, 1)})),
    ("all seven enabled", simulcast_config({i: (160, 90, 15, 1) for i in range(7)})),
    ("four enabled by -1, INT_MIN, 2 and 1", simulcast_config(
        {L1: (480, 270, 15, -1), L2: (320, 180, 15, INT_MIN), L3: (240, 136, 15, 2), L4: (160, 90, 15, 1)})),
    *((f"width {w}", simulcast_config({L1: (w, 270, 15, 1)})) for w in (0, 15, 3841, -480, INT_MAX, INT_MIN)),
    *((f"height {h}", simulcast_config({L2: (320, h, 15, 1)})) for h in (0, 15, 2161, -180, INT_MAX, INT_MIN)),
    *((f"framerate {f}", simulcast_config({LOW: (160, 90, f, 1)})) for f in (0, 61, -1, INT_MAX, INT_MIN)),
    ("enable 2 with width 15", simulcast_config({L6: (15, 90, 15, 2)})),
    ("a bad entry beside good ones", simulcast_config({**THREE_LAYERS, L2: (320, 180, 61, 1)})),
]
#: Configurations set_simulcast_config(_ex) accepts; the last enables nothing.
GOOD_SIMULCAST: List[Tuple[str, _ffi.SimulcastConfig]] = [
    ("LAYER_1, LAYER_2 and STREAM_LOW", simulcast_config(THREE_LAYERS)),
    ("16x16 at 1 fps", simulcast_config({L1: (16, 16, 1, 1)})),
    ("3840x2160 at 60 fps", simulcast_config({L6: (3840, 2160, 60, 1)})),
    ("odd sizes (rounded down)", simulcast_config({L3: (17, 17, 15, 1), L4: (641, 359, 15, 1)})),
    ("enable -1 and INT_MIN", simulcast_config({L4: (320, 180, 15, -1), L5: (160, 90, 15, INT_MIN)})),
    ("entries not enabled are not read", simulcast_config(
        {L1: (480, 270, 15, 1), L2: (-1, INT_MAX, 0, 0), L4: (3841, 2161, 61, 0), L5: (INT_MIN, INT_MIN, INT_MIN, 0),
         L6: (0, 0, 0, 0), LOW: (160, 90, 15, 1)})),
    ("publish_fallback_enable 1", simulcast_config({LOW: (160, 90, 15, 1)}, publish_fallback_enable=1)),
    ("publish_fallback_enable INT_MIN", simulcast_config({LOW: (160, 90, 15, 1)}, publish_fallback_enable=INT_MIN)),
    ("nothing enabled", simulcast_config()),
]


def assert_simulcast_rows(set_config: Callable[[Optional[_ffi.SimulcastConfig]], int]) -> None:
    got = {label: set_config(config) for label, config in BAD_SIMULCAST}
    assert got == {label: EINVAL for label, _ in BAD_SIMULCAST}
    got = {label: set_config(config) for label, config in GOOD_SIMULCAST}
    assert got == {label: 0 for label, _ in GOOD_SIMULCAST}


def case_simulcast_configs(ctx: Ctx) -> None:
    for engine in (ctx.engine, connected_engine(ctx)):
        assert_simulcast_rows(lambda config: _ffi.agoraish_engine_set_simulcast_config(engine, ref(config)))


def case_simulcast_struct_sizes(ctx: Ctx) -> None:
    for size in (0, 4, 8, SIMULCAST_SIZE - 1, SIMULCAST_SIZE + 1, SIMULCAST_SIZE + 4, SIMULCAST_SIZE + 8, 2**32 - 1):
        config = simulcast_config(THREE_LAYERS, struct_size=size)
        assert _ffi.agoraish_engine_set_simulcast_config(ctx.engine, ctypes.byref(config)) == size_rc(
            "agoraish_simulcast_config", size), size
    assert size_rc("agoraish_simulcast_config", SIMULCAST_SIZE) == 0


# -- fallback and priority (ABI 0.7) -----------------------------------------


def fallback_option_case(call: Callable[[int, int], int], accepted: Tuple[int, ...],
                         default: int) -> Callable[[Ctx], None]:
    """A fallback option: the `accepted` STREAM_FALLBACK_OPTIONS are 0, anything
    else -2, before and in a call; ends on `default`."""

    def case(ctx: Ctx) -> None:
        rejected = tuple(v for v in (-1, 0, 1, 2, 3, INT_MAX, INT_MIN) if v not in accepted)
        for engine in (ctx.engine, connected_engine(ctx)):
            for value in rejected:
                assert call(engine, value) == EINVAL, value
            for value in accepted + accepted:  # each twice
                assert call(engine, value) == 0, value
            assert call(engine, default) == 0, "back to the default"

    return case


case_publish_fallback_options = fallback_option_case(
    _ffi.agoraish_engine_set_local_publish_fallback_option,
    (_ffi.AGORAISH_STREAM_FALLBACK_OPTION_DISABLED, _ffi.AGORAISH_STREAM_FALLBACK_OPTION_AUDIO_ONLY),
    _ffi.AGORAISH_STREAM_FALLBACK_OPTION_DISABLED,
)
case_subscribe_fallback_options = fallback_option_case(
    _ffi.agoraish_engine_set_remote_subscribe_fallback_option,
    (_ffi.AGORAISH_STREAM_FALLBACK_OPTION_DISABLED, _ffi.AGORAISH_STREAM_FALLBACK_OPTION_VIDEO_STREAM_LOW,
     _ffi.AGORAISH_STREAM_FALLBACK_OPTION_AUDIO_ONLY),
    _ffi.AGORAISH_STREAM_FALLBACK_OPTION_VIDEO_STREAM_LOW,
)

PRIORITIES = (_ffi.AGORAISH_PRIORITY_HIGH, _ffi.AGORAISH_PRIORITY_NORMAL)


def case_priority_uids(ctx: Ctx) -> None:
    e = ctx.engine
    for priority in PRIORITIES:
        assert _ffi.agoraish_engine_set_remote_user_priority(e, 0, priority) == EINVAL, "uid 0"
        for uid in (1, 12345, 2**32 - 1):  # users that have not joined (yet)
            assert _ffi.agoraish_engine_set_remote_user_priority(e, uid, priority) == 0, uid
    assert _ffi.agoraish_engine_set_remote_user_priority(e, 0, 7) == EINVAL, "uid 0 and a bad priority"


def case_priority_values(ctx: Ctx) -> None:
    # HIGH (50) and NORMAL (100) only, before and in a call.
    for engine in (ctx.engine, connected_engine(ctx)):
        for value in (0, 1, 49, 51, 99, 101, -1, -50, INT_MAX, INT_MIN):
            assert _ffi.agoraish_engine_set_remote_user_priority(engine, 4242, value) == EINVAL, value
        for value in PRIORITIES + PRIORITIES:
            assert _ffi.agoraish_engine_set_remote_user_priority(engine, 4242, value) == 0, value


# -- the last-mile test and probe (ABI 0.7) ----------------------------------
#
# Like the echo test rows, these start real probes and tests against the
# module's server, and stop them long before a probe would report.

PROBE_CONFIG_SIZE = ctypes.sizeof(_ffi.LastmileProbeConfig)
#: ABI 0.7's size: without token and channel_id (20; not a multiple of 0.9's alignment).
PROBE_CONFIG_SIZE_0_7 = _ffi.AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7
#: Bitrates outside 100000..5000000 bps (the last one is UINT_MAX).
BAD_PROBE_BITRATES = (0, 99_999, 5_000_001, 2**32 - 1)


def probe_config(uplink: int = 1, uplink_bps: int = 1_000_000, downlink: int = 1, downlink_bps: int = 1_000_000,
                 struct_size: Optional[int] = None, token: Optional[bytes] = None,
                 channel: Optional[bytes] = None) -> _ffi.LastmileProbeConfig:
    config = _ffi.LastmileProbeConfig()
    config.struct_size = PROBE_CONFIG_SIZE if struct_size is None else struct_size
    config.probe_uplink = uplink
    config.probe_downlink = downlink
    config.expected_uplink_bitrate = uplink_bps
    config.expected_downlink_bitrate = downlink_bps
    config.token = token
    config.channel_id = channel
    return config


def start_probe(engine: int, config: Optional[_ffi.LastmileProbeConfig]) -> int:
    return _ffi.agoraish_engine_start_lastmile_probe_test(engine, None if config is None else ctypes.byref(config))


def stop_probe(engine: int) -> int:
    return _ffi.agoraish_engine_stop_lastmile_probe_test(engine)


def enable_lastmile(engine: int) -> int:
    return _ffi.agoraish_engine_enable_lastmile_test(engine)


def disable_lastmile(engine: int) -> int:
    return _ffi.agoraish_engine_disable_lastmile_test(engine)


def bad_probe_configs() -> List[Tuple[str, Optional[_ffi.LastmileProbeConfig]]]:
    """Every config start_lastmile_probe_test rejects with -2, whatever the engine is doing."""
    rows: List[Tuple[str, Optional[_ffi.LastmileProbeConfig]]] = [("NULL", None)]
    token_at = _ffi.LastmileProbeConfig.token.offset
    channel_at = _ffi.LastmileProbeConfig.channel_id.offset
    for size in (0, 4, PROBE_CONFIG_SIZE - 4, PROBE_CONFIG_SIZE - 1, PROBE_CONFIG_SIZE + 1,
                 PROBE_CONFIG_SIZE_0_7 - 4, PROBE_CONFIG_SIZE_0_7 - 1, PROBE_CONFIG_SIZE_0_7 + 1,
                 token_at, token_at + 4, channel_at, channel_at + 4, PROBE_CONFIG_SIZE + 8):
        rows.append((f"struct_size {size}", probe_config(struct_size=size)))
    # ABI 0.9: the probe's channel and token.
    for channel in BAD_CHANNEL_IDS:
        rows.append((f"channel {channel!r}", probe_config(token=b"token", channel=channel)))
    for tok in BAD_TOKENS:
        rows.append((f"token {tok!r}", probe_config(token=tok, channel=b"probe")))
    rows.append(("no direction", probe_config(0, 1_000_000, 0, 1_000_000)))
    rows.append(("no direction, no bitrates", probe_config(0, 0, 0, 0)))
    rows.append(("uplink probed with -1 (nonzero) at 0 bps", probe_config(-1, 0, 0, 0)))
    for bps in BAD_PROBE_BITRATES:
        rows.append((f"uplink at {bps} bps", probe_config(1, bps, 0, 1_000_000)))
        rows.append((f"downlink at {bps} bps", probe_config(0, 1_000_000, 1, bps)))
        rows.append((f"both, the uplink at {bps} bps", probe_config(1, bps, 1, 1_000_000)))
        rows.append((f"both, the downlink at {bps} bps", probe_config(1, 1_000_000, 1, bps)))
    return rows


def joining_engine(ctx: Ctx) -> int:
    """Another engine, joining a server that never answers (CONNECTING throughout)."""
    engine = engine_with(ctx, server_url=NOWHERE)
    assert join(engine, b"joining") == 0
    return engine


def assert_bad_probe_configs(engine: int, where: str) -> None:
    got = {name: start_probe(engine, config) for name, config in bad_probe_configs()}
    assert got == {name: EINVAL for name in got}, where


def case_probe_configs(ctx: Ctx) -> None:
    assert_bad_probe_configs(ctx.engine, "in no channel")
    assert _ffi.agoraish_engine_get_connection_state(ctx.engine) == 1, "a rejected start connects nothing"
    assert start_probe(ctx.engine, probe_config()) == 0
    assert_bad_probe_configs(ctx.engine, "during a probe: checked before the state")
    assert stop_probe(ctx.engine) == 0
    assert enable_lastmile(ctx.engine) == 0
    assert_bad_probe_configs(ctx.engine, "during the last-mile test")
    assert disable_lastmile(ctx.engine) == 0
    assert_bad_probe_configs(connected_engine(ctx), "in a channel")


def case_probe_edges(ctx: Ctx) -> None:
    # The edges of the range, each direction alone and both; a direction not
    # probed may carry any bitrate.
    accepted = [
        ("uplink 100000, downlink not probed at UINT_MAX", probe_config(1, 100_000, 0, 2**32 - 1)),
        ("uplink 5000000, downlink not probed at 0", probe_config(1, 5_000_000, 0, 0)),
        ("downlink 100000, uplink not probed at 0", probe_config(0, 0, 1, 100_000)),
        ("downlink 5000000, uplink not probed at 99999", probe_config(0, 99_999, 1, 5_000_000)),
        ("both, 100000 and 5000000", probe_config(1, 100_000, 1, 5_000_000)),
        ("nonzero flags other than 1", probe_config(-1, 1_000_000, 7, 1_000_000)),
        # ABI 0.9: a token and a channel (the server has no certificate: carried, not checked), "" for both;
        # the sizes of real headers, with a bad channel past them (not read).
        ("a token and a channel", probe_config(token=b"007-not-checked", channel=b"bad-input-probe")),
        ('"" token and channel', probe_config(token=b"", channel=b"")),
        ("the 0.7 struct_size (20)", probe_config(struct_size=PROBE_CONFIG_SIZE_0_7, channel=b"no/slash")),
    ]
    for name, config in accepted:
        if config.struct_size > PROBE_CONFIG_SIZE:  # the library reads what it knows, no further
            buffer = (ctypes.c_uint8 * config.struct_size)()
            ctypes.memmove(buffer, ctypes.byref(config), PROBE_CONFIG_SIZE)
            rc = _ffi.agoraish_engine_start_lastmile_probe_test(
                ctx.engine, ctypes.cast(buffer, ctypes.POINTER(_ffi.LastmileProbeConfig)))
        else:
            rc = start_probe(ctx.engine, config)
        assert rc == 0, name
        assert stop_probe(ctx.engine) == 0, name


def case_probe_twice(ctx: Ctx) -> None:
    assert start_probe(ctx.engine, probe_config()) == 0
    assert start_probe(ctx.engine, probe_config()) == EREFUSED, "twice"
    assert start_probe(ctx.engine, probe_config(1, 500_000, 0, 0)) == EREFUSED, "another config"
    assert enable_lastmile(ctx.engine) == EREFUSED, "the quality test during a probe"
    assert start_echo(ctx.engine, 2) == EREFUSED, "an echo test during a probe"
    assert join(ctx.engine, b"after-probe") == 0, "a join ends the probe"
    assert stop_probe(ctx.engine) == EREFUSED, "ended by the join"
    assert start_probe(ctx.engine, probe_config()) == 0, "in the channel: beside the call (ABI 0.11)"
    assert start_probe(ctx.engine, probe_config()) == EREFUSED, "twice in the channel"
    assert stop_probe(ctx.engine) == 0


def case_probe_states(ctx: Ctx) -> None:
    assert start_echo(ctx.engine, 2) == 0
    assert start_probe(ctx.engine, probe_config()) == EREFUSED, "during an echo test"
    assert_bad_probe_configs(ctx.engine, "during an echo test: -2 first")
    assert _ffi.agoraish_engine_stop_echo_test(ctx.engine) == 0
    # Joining or in a channel: beside the call (ABI 0.11).
    for engine, where in ((joining_engine(ctx), "joining"), (connected_engine(ctx), "connected")):
        assert start_probe(engine, None) == EINVAL, f"NULL is -2 first ({where})"
        assert start_probe(engine, probe_config()) == 0, where
        assert start_probe(engine, probe_config()) == EREFUSED, f"twice ({where})"
        assert start_echo(engine, 2) == EREFUSED, f"an echo test during it ({where})"
        assert stop_probe(engine) == 0, where


def case_stop_probe(ctx: Ctx) -> None:
    assert stop_probe(ctx.engine) == EREFUSED, "never started"
    assert stop_probe(ctx.engine) == EREFUSED, "twice"
    assert start_probe(ctx.engine, probe_config()) == 0
    assert stop_probe(ctx.engine) == 0
    assert stop_probe(ctx.engine) == EREFUSED, "stopped"
    assert enable_lastmile(ctx.engine) == 0
    assert stop_probe(ctx.engine) == EREFUSED, "the last-mile test is no probe"
    assert disable_lastmile(ctx.engine) == 0
    assert stop_probe(connected_engine(ctx)) == EREFUSED, "a call is no probe"


def case_enable_lastmile(ctx: Ctx) -> None:
    assert enable_lastmile(ctx.engine) == 0
    assert enable_lastmile(ctx.engine) == EREFUSED, "twice"
    assert start_probe(ctx.engine, probe_config()) == EREFUSED, "a probe during the test"
    assert start_echo(ctx.engine, 2) == EREFUSED, "an echo test during the test"
    assert join(ctx.engine, b"after-lastmile-test") == 0, "a join ends the test"
    assert disable_lastmile(ctx.engine) == EREFUSED, "ended by the join"
    assert enable_lastmile(ctx.engine) == EREFUSED, "in the channel"
    other = engine_with(ctx)
    assert start_echo(other, 2) == 0
    assert enable_lastmile(other) == EREFUSED, "during an echo test"
    assert _ffi.agoraish_engine_stop_echo_test(other) == 0
    assert enable_lastmile(joining_engine(ctx)) == EREFUSED, "joining"
    assert enable_lastmile(connected_engine(ctx)) == EREFUSED, "connected"


def case_disable_lastmile(ctx: Ctx) -> None:
    assert disable_lastmile(ctx.engine) == EREFUSED, "never enabled"
    assert disable_lastmile(ctx.engine) == EREFUSED, "twice"
    assert enable_lastmile(ctx.engine) == 0
    assert disable_lastmile(ctx.engine) == 0
    assert disable_lastmile(ctx.engine) == EREFUSED, "disabled"
    assert start_probe(ctx.engine, probe_config()) == 0
    assert disable_lastmile(ctx.engine) == EREFUSED, "a probe is not the last-mile test"
    assert stop_probe(ctx.engine) == 0
    assert disable_lastmile(connected_engine(ctx)) == EREFUSED, "a call is no last-mile test"


# -- data streams, metadata, encryption, the packet observer (ABI 0.8) ------

SIZE_MAX = 2**64 - 1
STREAM_CONFIG_SIZE = ctypes.sizeof(_ffi.DataStreamConfig)
ENCRYPTION_CONFIG_SIZE = ctypes.sizeof(_ffi.EncryptionConfig)
METADATA_OBSERVER_SIZE = ctypes.sizeof(_ffi.MetadataObserverTable)
PACKET_OBSERVER_SIZE = ctypes.sizeof(_ffi.PacketObserverTable)
KEY = b"0123456789abcdef0123456789abcdef"
SALT = bytes(range(1, 33))
#: A buffer larger than any length the cases pass with it.
MESSAGE = ctypes.create_string_buffer(b"m" * 2048, 2048)


def create_stream(engine: int, reliable: int = 1, ordered: int = 1, with_id: bool = True) -> Tuple[int, int]:
    """(rc, stream id) of agoraish_engine_create_data_stream."""
    stream_id = ctypes.c_int(-1)
    rc = _ffi.agoraish_engine_create_data_stream(engine, ctypes.byref(stream_id) if with_id else None, reliable,
                                                 ordered)
    return rc, stream_id.value


def stream_config(sync_with_audio: int = 0, ordered: int = 1,
                  struct_size: Optional[int] = None) -> _ffi.DataStreamConfig:
    config = _ffi.DataStreamConfig()
    config.struct_size = STREAM_CONFIG_SIZE if struct_size is None else struct_size
    config.sync_with_audio = sync_with_audio
    config.ordered = ordered
    return config


def create_stream_with_config(engine: int, config: Optional[_ffi.DataStreamConfig],
                              with_id: bool = True) -> Tuple[int, int]:
    """(rc, stream id) of agoraish_engine_create_data_stream_with_config; a larger struct_size is passed in a
    buffer of that size."""
    stream_id = ctypes.c_int(-1)
    pointer = None
    if config is not None:
        buffer = (ctypes.c_uint8 * max(config.struct_size, STREAM_CONFIG_SIZE))()
        ctypes.memmove(buffer, ctypes.byref(config), STREAM_CONFIG_SIZE)
        pointer = ctypes.cast(buffer, ctypes.POINTER(_ffi.DataStreamConfig))
    rc = _ffi.agoraish_engine_create_data_stream_with_config(engine, ctypes.byref(stream_id) if with_id else None,
                                                             pointer)
    return rc, stream_id.value


def send_message(engine: int, stream_id: int, length: int, data: object = MESSAGE) -> int:
    return _ffi.agoraish_engine_send_stream_message(engine, stream_id, data, length)


def send_metadata(engine: int, length: int, data: object = MESSAGE) -> int:
    return _ffi.agoraish_engine_send_audio_metadata(engine, data, length)


def fill_streams(engine: int) -> List[int]:
    """Creates the five streams an engine may have; returns their ids."""
    ids = []
    for i in range(_ffi.AGORAISH_MAX_DATA_STREAMS):
        rc, stream_id = create_stream(engine, i % 2, i // 2 % 2)
        assert rc == 0, i
        ids.append(stream_id)
    return ids


def in_call(ctx: Ctx, **fields) -> int:
    """A connected engine: in a call for the data calls (which do not wait for the media path)."""
    return connected_engine(ctx, **fields)


def case_create_stream_null_id(ctx: Ctx) -> None:
    for engine in (ctx.engine, in_call(ctx)):
        assert create_stream(engine, with_id=False)[0] == EINVAL
        assert len(set(fill_streams(engine))) == 5, "a rejected call takes no stream"


def case_stream_flags(ctx: Ctx) -> None:
    # Any int is a flag: five streams of every kind, each with a new id in 1..255.
    for flags in ((0, 0), (1, 1), (-1, 7), (INT_MAX, INT_MIN), (INT_MIN, 0), (0, INT_MAX)):
        engine = engine_with(ctx)
        ids = []
        for _ in range(5):
            rc, stream_id = create_stream(engine, *flags)
            assert rc == 0, flags
            ids.append(stream_id)
        assert len(set(ids)) == 5 and all(1 <= i <= 255 for i in ids), (flags, ids)


def case_stream_limit(ctx: Ctx) -> None:
    # Five at most, outside and in a call, either function; a sixth is -116
    # and leaves the stream id alone; leaving the call ends the streams.
    for engine in (ctx.engine, in_call(ctx)):
        fill_streams(engine)
        stream_id = ctypes.c_int(4242)
        assert _ffi.agoraish_engine_create_data_stream(engine, ctypes.byref(stream_id), 1, 1) == -116
        assert stream_id.value == 4242, "a refused create writes no id"
        assert create_stream_with_config(engine, stream_config())[0] == -116
        assert create_stream(engine, 0, 0)[0] == -116, "still"
    engine = in_call(ctx)
    fill_streams(engine)
    assert _ffi.agoraish_engine_leave_channel(engine) == 0
    WATCHES[engine].wait(1)
    assert len(set(fill_streams(engine))) == 5, "the call's streams ended with it"


def case_stream_config_null(ctx: Ctx) -> None:
    assert create_stream_with_config(ctx.engine, None)[0] == EINVAL
    assert create_stream_with_config(ctx.engine, stream_config(), with_id=False)[0] == EINVAL, "NULL stream_id"
    assert len(set(fill_streams(ctx.engine))) == 5, "the rejected calls took no stream"


def case_stream_config_struct_size(ctx: Ctx) -> None:
    for size in (0, 4, 8, STREAM_CONFIG_SIZE - 1, STREAM_CONFIG_SIZE + 1, STREAM_CONFIG_SIZE + 2):
        assert create_stream_with_config(ctx.engine, stream_config(struct_size=size))[0] == EINVAL, size
    for size in (STREAM_CONFIG_SIZE + 4, STREAM_CONFIG_SIZE + 20):  # no header had a larger struct
        assert create_stream_with_config(ctx.engine, stream_config(struct_size=size))[0] == EINVAL, size
    rc, stream_id = create_stream_with_config(ctx.engine, stream_config(struct_size=STREAM_CONFIG_SIZE))
    assert rc == 0 and 1 <= stream_id <= 255


def case_stream_config_values(ctx: Ctx) -> None:
    for values in ((0, 0), (1, 1), (-1, INT_MAX), (INT_MIN, 7)):
        engine = engine_with(ctx)
        for _ in range(5):
            assert create_stream_with_config(engine, stream_config(*values))[0] == 0, values


def case_send_stream_ids(ctx: Ctx) -> None:
    engine = in_call(ctx)
    rc, stream_id = create_stream(engine)
    assert rc == 0
    unknown = [s for s in (0, -1, 256, 255, 254, 1, 2, INT_MAX, INT_MIN) if s != stream_id]
    got = {s: send_message(engine, s, 4) for s in unknown}
    assert got == {s: EINVAL for s in unknown}, "unknown streams in a call"
    assert send_message(engine, stream_id, 4) == 0
    # Outside a call every stream is refused the same way (known or not).
    rc, outside = create_stream(ctx.engine)
    got = {s: send_message(ctx.engine, s, 4) for s in (outside, 0, -1, 256, INT_MAX, INT_MIN)}
    assert got == {s: ENOTIN for s in got}, "outside a call"


def case_send_stream_data_null(ctx: Ctx) -> None:
    engine = in_call(ctx)
    rc, stream_id = create_stream(engine)
    for e in (ctx.engine, engine):
        for length in (0, 1, 1024, 1025, SIZE_MAX):
            assert send_message(e, stream_id, length, None) == EINVAL, length


def case_send_stream_lengths(ctx: Ctx) -> None:
    # The length is checked before anything else: 0 is -2, above 1024 -114
    # (no copy is made, whatever the length says), in a call or not.
    engine = in_call(ctx)
    rc, stream_id = create_stream(engine)
    assert rc == 0
    for e in (ctx.engine, engine):
        assert send_message(e, stream_id, 0) == EINVAL
        for length in (1025, 2048, 2**31, 2**63 - 1):
            assert send_message(e, stream_id, length) == -114, length
    assert send_message(ctx.engine, stream_id, 1) == ENOTIN
    assert send_message(ctx.engine, stream_id, 1024) == ENOTIN
    assert send_message(engine, stream_id, 1) == 0
    assert send_message(engine, stream_id, 1024) == 0


def case_send_stream_huge_length(ctx: Ctx) -> None:
    # SIZE_MAX is above the 1024 bytes of a message: -114. It must not be read or crash.
    engine = in_call(ctx)
    rc, stream_id = create_stream(engine)
    for e in (ctx.engine, engine):
        for length in (SIZE_MAX, SIZE_MAX - 1023, 2**63):
            assert send_message(e, stream_id, length) == -114, length




def case_send_stream_rate_limits(ctx: Ctx) -> None:
    # Within a second: 30 messages, and 6144 bytes; each engine its own count.
    engine = in_call(ctx)
    rc, stream_id = create_stream(engine, 0, 0)
    for i in range(30):
        assert send_message(engine, stream_id, 1) == 0, i
    assert send_message(engine, stream_id, 1) == -115, "the 31st message"
    assert send_message(engine, stream_id, 0) == EINVAL, "-2 before -115"
    assert send_message(engine, stream_id, 1025) == -114, "-114 before -115"
    other = in_call(ctx)
    rc, stream_id = create_stream(other)
    for i in range(6):
        assert send_message(other, stream_id, 1024) == 0, i
    assert send_message(other, stream_id, 1) == -115, "past 6144 bytes"


def case_send_stream_audience(ctx: Ctx) -> None:
    engine = in_call(ctx, profile=1, role=2)
    rc, stream_id = create_stream(engine)
    assert rc == 0
    assert send_message(engine, stream_id, 4) == EREFUSED, "an audience member of a live broadcast"
    assert send_metadata(engine, 4) == EREFUSED
    assert send_message(engine, stream_id, 1025) == -114, "the length first"


def case_audio_metadata_data_null(ctx: Ctx) -> None:
    for engine in (ctx.engine, in_call(ctx)):
        for length in (0, 1, 1024, SIZE_MAX):
            assert send_metadata(engine, length, None) == EINVAL, length


def case_audio_metadata_lengths(ctx: Ctx) -> None:
    engine = in_call(ctx)
    for e in (ctx.engine, engine):
        for length in (0, 1025, 2**31, 2**63, SIZE_MAX):
            assert send_metadata(e, length) == EINVAL, length
    assert send_metadata(ctx.engine, 1) == ENOTIN
    assert send_metadata(ctx.engine, 1024) == ENOTIN
    assert send_metadata(engine, 1) == 0
    assert send_metadata(engine, 1024) == 0


def metadata_observer(ctx: Ctx, struct_size: Optional[int] = None, max_size: Optional[int] = None,
                      with_callbacks: bool = True) -> _ffi.MetadataObserverTable:
    """An observer table; `max_size` None leaves get_max_metadata_size NULL."""
    observer = _ffi.MetadataObserverTable()
    observer.struct_size = METADATA_OBSERVER_SIZE if struct_size is None else struct_size
    if max_size is not None:
        callback = _ffi.GetMaxMetadataSizeCallback(lambda engine, user_data: max_size)
        ctx.keep.append(callback)
        observer.get_max_metadata_size = callback
    if with_callbacks:
        ready = _ffi.ReadyToSendMetadataCallback(lambda engine, user_data, metadata: 0)
        received = _ffi.MetadataReceivedCallback(lambda engine, user_data, metadata: None)
        ctx.keep += [ready, received]
        observer.on_ready_to_send_metadata = ready
        observer.on_metadata_received = received
    return observer


def register_metadata(engine: int, observer: Optional[_ffi.MetadataObserverTable], kind: int = 0) -> int:
    """Registers `observer`, passed in a buffer of its struct_size when that is larger."""
    pointer = None
    if observer is not None:
        buffer = (ctypes.c_uint8 * max(observer.struct_size, METADATA_OBSERVER_SIZE))()
        ctypes.memmove(buffer, ctypes.byref(observer), METADATA_OBSERVER_SIZE)
        pointer = ctypes.cast(buffer, ctypes.POINTER(_ffi.MetadataObserverTable))
    return _ffi.agoraish_engine_register_media_metadata_observer(engine, pointer, kind)


def case_metadata_observer_null(ctx: Ctx) -> None:
    assert register_metadata(ctx.engine, None) == 0, "none registered"
    assert register_metadata(ctx.engine, None) == 0, "twice"
    assert register_metadata(ctx.engine, metadata_observer(ctx)) == 0
    assert register_metadata(ctx.engine, None) == 0, "removes it"


def case_metadata_observer_struct_size(ctx: Ctx) -> None:
    for size in (0, 4, 8, 16, 24, 32, METADATA_OBSERVER_SIZE - 4, METADATA_OBSERVER_SIZE - 1,
                 METADATA_OBSERVER_SIZE + 1, METADATA_OBSERVER_SIZE + 4):
        assert register_metadata(ctx.engine, metadata_observer(ctx, struct_size=size)) == EINVAL, size
    for size in (METADATA_OBSERVER_SIZE, METADATA_OBSERVER_SIZE + 8, METADATA_OBSERVER_SIZE + 64):
        assert register_metadata(ctx.engine, metadata_observer(ctx, struct_size=size)) == size_rc(
            "agoraish_metadata_observer", size), size


def case_metadata_observer_max_size(ctx: Ctx) -> None:
    for max_size in (0, -1, 1025, 4096, INT_MAX, INT_MIN):
        assert register_metadata(ctx.engine, metadata_observer(ctx, max_size=max_size)) == EINVAL, max_size
    for max_size in (1, 512, 1024):
        assert register_metadata(ctx.engine, metadata_observer(ctx, max_size=max_size)) == 0, max_size
    assert register_metadata(ctx.engine, metadata_observer(ctx)) == 0, "NULL get_max_metadata_size: the maximum"


def case_metadata_observer_null_callbacks(ctx: Ctx) -> None:
    for engine in (ctx.engine, in_call(ctx)):
        assert register_metadata(engine, metadata_observer(ctx, with_callbacks=False)) == 0
        assert register_metadata(engine, metadata_observer(ctx, max_size=1, with_callbacks=False)) == 0


def case_metadata_types(ctx: Ctx) -> None:
    # VIDEO (0) only; the type is checked first, also for NULL.
    for kind in (_ffi.AGORAISH_METADATA_TYPE_UNKNOWN, 1, 2, INT_MAX, INT_MIN):
        assert register_metadata(ctx.engine, metadata_observer(ctx), kind) == EINVAL, kind
        assert register_metadata(ctx.engine, None, kind) == EINVAL, ("NULL", kind)
    assert register_metadata(ctx.engine, metadata_observer(ctx), _ffi.AGORAISH_METADATA_TYPE_VIDEO) == 0


def encryption_config(mode: int = _ffi.AGORAISH_ENCRYPTION_MODE_AES_128_GCM2, key: Optional[bytes] = KEY,
                      salt: bytes = SALT, struct_size: Optional[int] = None) -> _ffi.EncryptionConfig:
    config = _ffi.EncryptionConfig()
    config.struct_size = ENCRYPTION_CONFIG_SIZE if struct_size is None else struct_size
    config.encryption_mode = mode
    config.encryption_key = key
    ctypes.memmove(config.encryption_kdf_salt, salt, 32)
    return config


def enable_encryption(engine: int, enabled: int, config: Optional[_ffi.EncryptionConfig]) -> int:
    """agoraish_engine_enable_encryption; a larger struct_size is passed in a buffer of that size."""
    pointer = None
    if config is not None:
        buffer = (ctypes.c_uint8 * max(config.struct_size, ENCRYPTION_CONFIG_SIZE))()
        ctypes.memmove(buffer, ctypes.byref(config), ENCRYPTION_CONFIG_SIZE)
        pointer = ctypes.cast(buffer, ctypes.POINTER(_ffi.EncryptionConfig))
    return _ffi.agoraish_engine_enable_encryption(engine, enabled, pointer)


def case_encryption_config_null(ctx: Ctx) -> None:
    for enabled in (1, -1, INT_MAX, INT_MIN):
        assert enable_encryption(ctx.engine, enabled, None) == EINVAL, enabled
    assert enable_encryption(ctx.engine, 0, None) == 0, "turning it off reads no config"
    bad = encryption_config(mode=0, key=None, struct_size=0)
    assert enable_encryption(ctx.engine, 0, bad) == 0, "not even a bad one"


def case_encryption_enabled_values(ctx: Ctx) -> None:
    for engine in (ctx.engine, in_call(ctx)):
        for enabled in (1, -1, 2, INT_MAX, INT_MIN):
            assert enable_encryption(engine, enabled, encryption_config()) == 0, enabled
        assert enable_encryption(engine, 0, encryption_config()) == 0


def case_encryption_struct_size(ctx: Ctx) -> None:
    for size in (0, 4, 8, 16, ENCRYPTION_CONFIG_SIZE - 8, ENCRYPTION_CONFIG_SIZE - 1, ENCRYPTION_CONFIG_SIZE + 1,
                 ENCRYPTION_CONFIG_SIZE + 4):
        assert enable_encryption(ctx.engine, 1, encryption_config(struct_size=size)) == EINVAL, size
    for size in (ENCRYPTION_CONFIG_SIZE, ENCRYPTION_CONFIG_SIZE + 8, ENCRYPTION_CONFIG_SIZE + 64):
        assert enable_encryption(ctx.engine, 1, encryption_config(struct_size=size)) == size_rc(
            "agoraish_encryption_config", size), size


def case_encryption_modes(ctx: Ctx) -> None:
    for mode in (0, _ffi.AGORAISH_ENCRYPTION_MODE_END, -1, 10, INT_MAX, INT_MIN):
        assert enable_encryption(ctx.engine, 1, encryption_config(mode=mode)) == EINVAL, mode
    for mode in range(_ffi.AGORAISH_ENCRYPTION_MODE_AES_128_XTS, _ffi.AGORAISH_ENCRYPTION_MODE_END):
        assert enable_encryption(ctx.engine, 1, encryption_config(mode=mode)) == 0, mode


def case_encryption_keys(ctx: Ctx) -> None:
    for mode in (_ffi.AGORAISH_ENCRYPTION_MODE_AES_128_XTS, _ffi.AGORAISH_ENCRYPTION_MODE_AES_256_GCM2):
        for key in (None, b"", b"k" * 129, b"k" * 4096, b"\xff\xfe not UTF-8"):
            assert enable_encryption(ctx.engine, 1, encryption_config(mode=mode, key=key)) == EINVAL, (mode, key)
        for key in (b"k", b"k" * 128, "clé".encode()):
            assert enable_encryption(ctx.engine, 1, encryption_config(mode=mode, key=key)) == 0, (mode, key)


def case_encryption_salts(ctx: Ctx) -> None:
    zero = bytes(32)
    for mode in (_ffi.AGORAISH_ENCRYPTION_MODE_AES_128_GCM2, _ffi.AGORAISH_ENCRYPTION_MODE_AES_256_GCM2):
        assert enable_encryption(ctx.engine, 1, encryption_config(mode=mode, salt=zero)) == EINVAL, mode
        for salt in (bytes(31) + b"\x01", b"\x80" + bytes(31), b"\xff" * 32, SALT):
            assert enable_encryption(ctx.engine, 1, encryption_config(mode=mode, salt=salt)) == 0, (mode, salt)
    for mode in range(_ffi.AGORAISH_ENCRYPTION_MODE_AES_128_XTS, _ffi.AGORAISH_ENCRYPTION_MODE_AES_128_GCM2):
        assert enable_encryption(ctx.engine, 1, encryption_config(mode=mode, salt=zero)) == 0, ("ignored", mode)


def set_secret(engine: int, secret: Optional[bytes]) -> int:
    return _ffi.agoraish_engine_set_encryption_secret(engine, secret)


def set_mode(engine: int, mode: Optional[bytes]) -> int:
    return _ffi.agoraish_engine_set_encryption_mode(engine, mode)


def case_encryption_secrets(ctx: Ctx) -> None:
    for engine in (ctx.engine, in_call(ctx)):
        for secret in (b"s" * 129, b"s" * 4096, b"\xff not UTF-8"):
            assert set_secret(engine, secret) == EINVAL, secret
        for secret in (b"s", b"s" * 128, None, b"", b"secret", b""):
            assert set_secret(engine, secret) == 0, secret


ENCRYPTION_MODE_NAMES = (b"aes-128-xts", b"aes-128-ecb", b"aes-256-xts", b"sm4-128-ecb", b"aes-128-gcm",
                         b"aes-256-gcm")


def case_encryption_mode_names(ctx: Ctx) -> None:
    rejected = (b"aes-128-gcm-2", b"aes-256-gcm-2", b"aes-128-gcm2", b"AES-128-XTS", b"aes-128-xts ",
                b" aes-128-xts", b"aes", b"x" * 4096, b"\xff")
    for engine in (ctx.engine, in_call(ctx)):
        got = {name: set_mode(engine, name) for name in rejected}
        assert got == {name: EINVAL for name in rejected}
        for name in (*ENCRYPTION_MODE_NAMES, None, b""):
            assert set_mode(engine, name) == 0, name
        # With a secret set, each name applies to it at once.
        assert set_secret(engine, b"secret") == 0
        for name in ENCRYPTION_MODE_NAMES:
            assert set_mode(engine, name) == 0, ("with a secret", name)
        assert set_mode(engine, b"aes-128-gcm-2") == EINVAL, "with a secret"
        assert set_secret(engine, None) == 0


def packet_observer(ctx: Ctx, struct_size: Optional[int] = None,
                    with_callbacks: bool = True) -> _ffi.PacketObserverTable:
    observer = _ffi.PacketObserverTable()
    observer.struct_size = PACKET_OBSERVER_SIZE if struct_size is None else struct_size
    if with_callbacks:
        callback = _ffi.SendAudioPacketCallback(lambda engine, user_data, packet: 1)
        ctx.keep.append(callback)
        for name in ("on_send_audio_packet", "on_send_video_packet", "on_receive_audio_packet",
                     "on_receive_video_packet"):
            setattr(observer, name, callback)
    return observer


def register_packet(engine: int, observer: Optional[_ffi.PacketObserverTable]) -> int:
    """Registers `observer`, passed in a buffer of its struct_size when that is larger."""
    pointer = None
    if observer is not None:
        buffer = (ctypes.c_uint8 * max(observer.struct_size, PACKET_OBSERVER_SIZE))()
        ctypes.memmove(buffer, ctypes.byref(observer), PACKET_OBSERVER_SIZE)
        pointer = ctypes.cast(buffer, ctypes.POINTER(_ffi.PacketObserverTable))
    return _ffi.agoraish_engine_register_packet_observer(engine, pointer)


def case_packet_observer_null(ctx: Ctx) -> None:
    assert register_packet(ctx.engine, None) == 0, "none registered"
    assert register_packet(ctx.engine, None) == 0, "twice"
    assert register_packet(ctx.engine, packet_observer(ctx)) == 0
    assert register_packet(ctx.engine, None) == 0, "removes it"


def case_packet_observer_struct_size(ctx: Ctx) -> None:
    for size in (0, 4, 8, 16, 40, PACKET_OBSERVER_SIZE - 4, PACKET_OBSERVER_SIZE - 1, PACKET_OBSERVER_SIZE + 1,
                 PACKET_OBSERVER_SIZE + 4):
        assert register_packet(ctx.engine, packet_observer(ctx, struct_size=size)) == EINVAL, size
    for size in (PACKET_OBSERVER_SIZE, PACKET_OBSERVER_SIZE + 8, PACKET_OBSERVER_SIZE + 64):
        assert register_packet(ctx.engine, packet_observer(ctx, struct_size=size)) == size_rc(
            "agoraish_packet_observer", size), size


def case_packet_observer_null_callbacks(ctx: Ctx) -> None:
    for engine in (ctx.engine, in_call(ctx)):
        assert register_packet(engine, packet_observer(ctx, with_callbacks=False)) == 0
        assert register_packet(engine, packet_observer(ctx)) == 0, "replaced"
        assert register_packet(engine, None) == 0


def snapshot(engine: int, uid: int, path: Optional[bytes]) -> int:
    return _ffi.agoraish_engine_take_snapshot(engine, uid, path)


def in_call_engine(ctx: Ctx) -> int:
    """A connected engine whose media path is up (take_snapshot is -113 until then)."""
    import time

    connected = connected_engine(ctx)
    probe = str(ctx.tmp / "probe.png").encode()
    deadline = time.monotonic() + TIMEOUT
    while snapshot(connected, 4242, probe) == ENOTIN and time.monotonic() < deadline:
        time.sleep(0.02)
    assert snapshot(connected, 4242, probe) == 0, "the media path did not come up"
    return connected


def case_snapshot_paths(ctx: Ctx) -> None:
    tmp = str(ctx.tmp).encode()
    rejected = [None, b"", b"x", tmp + b"/a.bmp", tmp + b"/a.gif", tmp + b"/a.jpg.txt", tmp + b"/jpg", tmp + b"/a.",
                tmp + b"/\xff.jpg", b"/" + b"a" * 4093 + b".png"]
    for path in rejected:
        assert snapshot(ctx.engine, 0, path) == EINVAL, ("outside a call", path)
    for path in (tmp + b"/a.jpg", tmp + b"/a.jpeg", tmp + b"/a.png", tmp + b"/A.JPG", tmp + b"/b.PNG"):
        assert snapshot(ctx.engine, 0, path) == ENOTIN, ("outside a call", path)
    connected = in_call_engine(ctx)
    for path in rejected:
        assert snapshot(connected, 0, path) == EINVAL, ("in a call", path)
    for path in (tmp + b"/a.jpg", tmp + b"/a.jpeg", tmp + b"/a.png", tmp + b"/A.JPG", b"/" + b"a" * 4091 + b".png"):
        assert snapshot(connected, 1, path) == 0, ("in a call", path[:40])


def case_snapshot_uids(ctx: Ctx) -> None:
    assert snapshot(ctx.engine, 0, str(ctx.tmp / "a.jpg").encode()) == ENOTIN, "outside a call"
    connected = in_call_engine(ctx)
    for uid in (0, 1, 12345, 2**32 - 1):  # the local picture, users not (yet) in the call
        assert snapshot(connected, uid, str(ctx.tmp / f"{uid}.jpg").encode()) == 0, uid


def case_snapshot_queue_limit(ctx: Ctx) -> None:
    connected = in_call_engine(ctx)  # no picture flows: the snapshots wait
    for n in range(8):
        assert snapshot(connected, 77, str(ctx.tmp / f"q{n}.png").encode()) == 0, n
    assert snapshot(connected, 77, str(ctx.tmp / "q8.png").encode()) == -12, "a ninth one of the same user"
    assert snapshot(connected, 78, str(ctx.tmp / "other.png").encode()) == 0, "another user has its own queue"
    assert snapshot(connected, 77, str(ctx.tmp / "bad.bmp").encode()) == EINVAL, "-2 is checked first"


def png_bytes(width: int, height: int, rgba: bytes = b"\xff\x00\x00\xff") -> bytes:
    """An 8-bit RGBA PNG of one colour, written with the standard library."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\0" + rgba * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def watermark_options(size: Optional[int] = None, **fields) -> _ffi.WatermarkOptions:
    options = _ffi.WatermarkOptions(visible_in_preview=1, landscape_x=0, landscape_y=0, landscape_width=64,
                                    landscape_height=64, portrait_x=0, portrait_y=0, portrait_width=64,
                                    portrait_height=64)
    options.struct_size = ctypes.sizeof(_ffi.WatermarkOptions) if size is None else size
    for key, value in fields.items():
        setattr(options, key, value)
    return options


def watermark(engine: int, path: Optional[bytes], options: Optional[_ffi.WatermarkOptions]) -> int:
    return _ffi.agoraish_engine_add_video_watermark(engine, path, ctypes.byref(options) if options is not None
                                                    else None)


def good_png(ctx: Ctx, name: str = "mark.png", width: int = 32, height: int = 32) -> bytes:
    path = ctx.tmp / name
    path.write_bytes(png_bytes(width, height))
    return str(path).encode()


def case_watermark_paths(ctx: Ctx) -> None:
    tmp = ctx.tmp
    png = png_bytes(32, 32)
    (tmp / "text.png").write_text("not a PNG")
    (tmp / "truncated.png").write_bytes(png[:60])
    (tmp / "empty.png").write_bytes(b"")
    (tmp / "signature-only.png").write_bytes(png[:8])
    (tmp / "corrupt.png").write_bytes(png[:40] + bytes(len(png) - 40))
    (tmp / "wide.png").write_bytes(png_bytes(4097, 1))
    (tmp / "tall.png").write_bytes(png_bytes(1, 4097))
    rejected = [None, b"", str(tmp / "none.png").encode(), str(tmp).encode(), b"/tmp/\xff.png",
                b"/" + b"a" * 4096 + b".png"] + [
        str(tmp / name).encode() for name in ("text.png", "truncated.png", "empty.png", "signature-only.png",
                                               "corrupt.png", "wide.png", "tall.png")]
    for path in rejected:
        assert watermark(ctx.engine, path, watermark_options()) == EINVAL, path[-40:] if path else path
    (tmp / "largest.png").write_bytes(png_bytes(4096, 1))
    (tmp / "not-named-png.dat").write_bytes(png)
    for path in (good_png(ctx), good_png(ctx, "one.png", 1, 1), str(tmp / "largest.png").encode(),
                 str(tmp / "not-named-png.dat").encode()):
        assert watermark(ctx.engine, path, watermark_options()) == 0, path
    assert _ffi.agoraish_engine_clear_video_watermarks(ctx.engine) == 0


def case_watermark_options_null(ctx: Ctx) -> None:
    assert watermark(ctx.engine, good_png(ctx), None) == EINVAL


def case_watermark_struct_size(ctx: Ctx) -> None:
    path = good_png(ctx)
    full = ctypes.sizeof(_ffi.WatermarkOptions)
    for size in (0, 4, 8, full - 4, full - 1, full + 2):  # new in ABI 0.6: every field is needed
        assert watermark(ctx.engine, path, watermark_options(size)) == EINVAL, size
    for size in (full, full + 4, full + 64):
        assert watermark(ctx.engine, path, watermark_options(size)) == size_rc("agoraish_watermark_options", size), size


def case_watermark_rectangles(ctx: Ctx) -> None:
    path = good_png(ctx)
    rejected, accepted = [], []
    for side in ("landscape", "portrait"):
        for axis in ("x", "y"):
            rejected += [{f"{side}_{axis}": v} for v in (-1, 4097, INT_MAX, INT_MIN)]
            accepted += [{f"{side}_{axis}": v} for v in (0, 100, 4096)]
        for extent in ("width", "height"):
            rejected += [{f"{side}_{extent}": v} for v in (0, -1, 4097, INT_MAX, INT_MIN)]
            accepted += [{f"{side}_{extent}": v} for v in (1, 33, 4096)]
    for fields in rejected:
        assert watermark(ctx.engine, path, watermark_options(**fields)) == EINVAL, fields
    for fields in accepted:
        assert watermark(ctx.engine, path, watermark_options(**fields)) == 0, fields
    for flag in ANY_INTS:
        assert watermark(ctx.engine, path, watermark_options(visible_in_preview=flag)) == 0, flag


def case_clear_watermarks(ctx: Ctx) -> None:
    e = ctx.engine
    assert _ffi.agoraish_engine_clear_video_watermarks(e) == 0, "none added"
    assert watermark(e, good_png(ctx), watermark_options()) == 0
    assert _ffi.agoraish_engine_clear_video_watermarks(e) == 0
    assert _ffi.agoraish_engine_clear_video_watermarks(e) == 0, "twice"
    connected = connected_engine(ctx)
    assert watermark(connected, good_png(ctx), watermark_options()) == 0, "in a call"
    assert _ffi.agoraish_engine_clear_video_watermarks(connected) == 0, "in a call"


def video_device(engine: int, index: int, with_info: bool = True) -> Tuple[int, _ffi.VideoDeviceInfo]:
    info = _ffi.VideoDeviceInfo(id=b"untouched", name=b"untouched", format_count=-5)
    rc = _ffi.agoraish_engine_get_video_device(engine, index, ctypes.byref(info) if with_info else None)
    return rc, info


def case_video_device_count(ctx: Ctx) -> None:
    count = _ffi.agoraish_engine_get_video_device_count(ctx.engine)
    assert count >= 0
    assert _ffi.agoraish_engine_get_video_device_count(ctx.engine) == count, "the same twice"


def case_video_device_index(ctx: Ctx) -> None:
    count = _ffi.agoraish_engine_get_video_device_count(ctx.engine)
    assert count >= 0
    for index in (-1, count, count + 1, INT_MAX, INT_MIN):
        rc, info = video_device(ctx.engine, index)
        assert rc == EINVAL and info.id == b"untouched" and info.format_count == -5, index
    for index in range(count):
        rc, info = video_device(ctx.engine, index)
        assert rc == 0 and info.id.startswith(b"/dev/") and 0 <= info.format_count <= _ffi.AGORAISH_MAX_VIDEO_FORMATS
        info.name.decode()


def case_video_device_info_null(ctx: Ctx) -> None:
    for index in (0, -1):
        assert video_device(ctx.engine, index, with_info=False)[0] == EINVAL, index


def current_video_device(engine: int, capacity: Optional[int] = 1024) -> Tuple[int, int, bytes]:
    length = ctypes.c_size_t(capacity or 0)
    buf = ctypes.create_string_buffer(b"\xaa" * capacity, capacity) if capacity else None
    rc = _ffi.agoraish_engine_get_current_video_device(engine, buf, ctypes.byref(length))
    return rc, length.value, (buf.raw if buf is not None else b"")


def case_set_video_device(ctx: Ctx) -> None:
    e = ctx.engine
    first = current_video_device(e)
    for device in (None, b"", b"d" * 512, b"d" * 4096, b"caf\xe9"):
        assert _ffi.agoraish_engine_set_video_device(e, device) == EINVAL, device
        assert current_video_device(e)[0] == first[0], "a refused id changes nothing"
    for device in (b"d" * 511, b"/dev/video99", b"agoraish-no-such-camera"):
        assert _ffi.agoraish_engine_set_video_device(e, device) == 0, device
        rc, _, raw = current_video_device(e)
        assert rc == 0 and raw.split(b"\0")[0] == device, "any id is taken, listed or not"


def case_current_video_device_none(ctx: Ctx) -> None:
    if _ffi.agoraish_engine_get_video_device_count(ctx.engine) > 0:
        pytest.skip("this machine has a camera")
    assert current_video_device(ctx.engine)[0] == ENOTREADY, "no camera, none chosen"
    assert current_video_device(ctx.engine, None)[0] == ENOTREADY, "no camera: size query"


def case_current_video_device_buffer(ctx: Ctx) -> None:
    e = ctx.engine
    assert _ffi.agoraish_engine_set_video_device(e, b"/dev/video42") == 0
    rc, needed, _ = current_video_device(e, None)
    assert rc == ESMALL and needed == len(b"/dev/video42") + 1, "size query"
    rc, needed2, raw = current_video_device(e, needed - 1)
    assert rc == ESMALL and needed2 == needed and raw == b"\xaa" * (needed - 1), "a too-small buffer is not written"
    rc, needed3, raw = current_video_device(e, needed)
    assert rc == 0 and needed3 == needed and raw == b"/dev/video42\0", "exact size"
    length = ctypes.c_size_t(16)
    assert _ffi.agoraish_engine_get_current_video_device(e, None, ctypes.byref(length)) == EINVAL, "NULL buf, len 16"


def case_current_video_device_len_null(ctx: Ctx) -> None:
    buf = ctypes.create_string_buffer(64)
    assert _ffi.agoraish_engine_get_current_video_device(ctx.engine, buf, None) == EINVAL, "no camera"
    assert _ffi.agoraish_engine_set_video_device(ctx.engine, b"/dev/video42") == 0
    assert _ffi.agoraish_engine_get_current_video_device(ctx.engine, buf, None) == EINVAL, "one chosen"
    assert _ffi.agoraish_engine_get_current_video_device(ctx.engine, None, None) == EINVAL


def capturer_config(size: Optional[int] = None, **fields) -> _ffi.CameraCapturerConfiguration:
    config = _ffi.CameraCapturerConfiguration(preference=0, capture_width=640, capture_height=480)
    config.struct_size = ctypes.sizeof(_ffi.CameraCapturerConfiguration) if size is None else size
    for key, value in fields.items():
        setattr(config, key, value)
    return config


def set_capturer(engine: int, config: Optional[_ffi.CameraCapturerConfiguration]) -> int:
    return _ffi.agoraish_engine_set_camera_capturer_configuration(
        engine, ctypes.byref(config) if config is not None else None)


def case_capturer_null(ctx: Ctx) -> None:
    assert set_capturer(ctx.engine, None) == EINVAL


def case_capturer_struct_size(ctx: Ctx) -> None:
    full = ctypes.sizeof(_ffi.CameraCapturerConfiguration)
    for size in (0, 4, 8, full - 4, full - 1, full + 2):  # new in ABI 0.6: every field is needed
        assert set_capturer(ctx.engine, capturer_config(size)) == EINVAL, size
    for size in (full, full + 4, full + 64):
        assert set_capturer(ctx.engine, capturer_config(size)) == size_rc(
            "agoraish_camera_capturer_configuration", size), size


def capturer_field_case(name: str, rejected, accepted) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        got = {v: set_capturer(ctx.engine, capturer_config(**{name: v})) for v in (*rejected, *accepted)}
        assert got == {**{v: EINVAL for v in rejected}, **{v: 0 for v in accepted}}, name
        if name != "preference":
            for preference in (0, 1, 2, 3):  # the size is checked whatever the preference
                config = capturer_config(**{"preference": preference, name: rejected[0]})
                assert set_capturer(ctx.engine, config) == EINVAL, preference

    return case


def case_switch_camera(ctx: Ctx) -> None:
    count = _ffi.agoraish_engine_get_video_device_count(ctx.engine)
    expected = ENOTSUP if count < 2 else 0
    assert _ffi.agoraish_engine_switch_camera(ctx.engine) == expected
    assert _ffi.agoraish_engine_switch_camera(ctx.engine) == expected, "twice"


# -- connections: several channels per engine (ABI 0.11) --------------------------

CONNECTION_SIZE = ctypes.sizeof(_ffi.RtcConnection)
OPTIONS_SIZE = ctypes.sizeof(_ffi.ChannelMediaOptions)
HANDLER_EX_SIZE = ctypes.sizeof(_ffi.EventHandlerEx)


def connection(channel: Optional[bytes] = b"bad-input-ex", uid: int = 5,
               struct_size: Optional[int] = None) -> _ffi.RtcConnection:
    return _ffi.RtcConnection(struct_size=CONNECTION_SIZE if struct_size is None else struct_size,
                              channel_id=channel, local_uid=uid)


def ref(struct: Optional[object]):
    return ctypes.byref(struct) if struct is not None else None


#: Connections every `_ex` function refuses with -2: malformed ones, and (last)
#: one the engine does not have (leave_channel_ex: -18).
BAD_CONNECTIONS: List[Tuple[str, Optional[_ffi.RtcConnection]]] = [
    ("NULL", None),
    ("struct_size 0", connection(struct_size=0)),
    ("struct_size 4", connection(struct_size=4)),
    ("struct_size one byte short", connection(struct_size=CONNECTION_SIZE - 1)),
    ("struct_size 8 bytes long", connection(struct_size=CONNECTION_SIZE + 8)),
    ("struct_size UINT32_MAX", connection(struct_size=2**32 - 1)),
    ("channel_id NULL", connection(None)),
    ("channel_id not UTF-8", connection(b"bad-\xff")),
    ("unknown", connection(b"bad-input-nowhere")),
]


def options(struct_size: Optional[int] = None, token: Optional[bytes] = None, **fields) -> _ffi.ChannelMediaOptions:
    """Media options: each field given is set with its has_ flag (names starting with "raw_" without it)."""
    o = _ffi.ChannelMediaOptions()
    o.struct_size = OPTIONS_SIZE if struct_size is None else struct_size
    for name, value in fields.items():
        if name.startswith("raw_"):
            setattr(o, name[4:], value)
        else:
            setattr(o, "has_" + name, 1)
            setattr(o, name, value)
    o.token = token
    return o


def join_ex(engine: int, c: Optional[_ffi.RtcConnection], o: Optional[_ffi.ChannelMediaOptions] = None,
            token: Optional[bytes] = None, handler: Optional[_ffi.EventHandlerEx] = None,
            user_data: Optional[int] = None) -> int:
    return _ffi.agoraish_engine_join_channel_ex(engine, token, ref(c), ref(o), ref(handler), user_data)


def join_with_options(engine: int, o: Optional[_ffi.ChannelMediaOptions], channel: Optional[bytes] = b"bad-input",
                      uid: int = 5, token: Optional[bytes] = None) -> int:
    return _ffi.agoraish_engine_join_channel_with_options(engine, token, channel, uid, ref(o))


def update_options(engine: int, o: Optional[_ffi.ChannelMediaOptions]) -> int:
    return _ffi.agoraish_engine_update_channel_media_options(engine, ref(o))


#: (label, options, join_channel_with_options and join_channel_ex, update_channel_media_options outside a call):
#: the rows of Tests/c/bad_input.c, and the custom video track fields.
OPTION_ROWS: List[Tuple[str, Optional[_ffi.ChannelMediaOptions], int, int]] = [
    ("NULL", None, EINVAL, EINVAL),
    ("struct_size 0", options(0), EINVAL, EINVAL),
    ("struct_size 4", options(4), EINVAL, EINVAL),
    ("struct_size one byte short", options(OPTIONS_SIZE - 1), EINVAL, EINVAL),
    ("struct_size 8 bytes long", options(OPTIONS_SIZE + 8), EINVAL, EINVAL),
    ("client_role_type 0", options(client_role_type=0), EINVAL, EINVAL),
    ("client_role_type 3", options(client_role_type=3), EINVAL, EINVAL),
    ("client_role_type INT_MIN", options(client_role_type=INT_MIN), EINVAL, EINVAL),
    ("channel_profile 2", options(channel_profile=2), EINVAL, EINVAL),
    ("channel_profile -1", options(channel_profile=-1), EINVAL, EINVAL),
    ("publish_custom_audio_track without an id", options(publish_custom_audio_track=1), EINVAL, EINVAL),
    ("publish_custom_audio_track_id 99 (unknown)",
     options(publish_custom_audio_track=1, publish_custom_audio_track_id=99), EINVAL, EINVAL),
    ("publish_custom_audio_track_id 0", options(publish_custom_audio_track=1, publish_custom_audio_track_id=0),
     EINVAL, EINVAL),
    ("publish_custom_audio_track_id -1", options(publish_custom_audio_track=1, publish_custom_audio_track_id=-1),
     EINVAL, EINVAL),
    ("publish_custom_video_track without an id", options(publish_custom_video_track=1), EINVAL, EINVAL),
    ("publish_custom_video_track, custom_video_track_id 99 (unknown)",
     options(publish_custom_video_track=1, custom_video_track_id=99), EINVAL, EINVAL),
    ("publish_encoded_video_track without an id", options(publish_encoded_video_track=1), EINVAL, EINVAL),
    ("publish_encoded_video_track, custom_video_track_id -1",
     options(publish_encoded_video_track=1, custom_video_track_id=-1), EINVAL, EINVAL),
    ("token not UTF-8", options(token=b"bad-\xff"), EINVAL, EINVAL),
    ("a token outside a call", options(token=b"a-token"), 0, ENOTIN),
    ("values without their has_ flags", options(raw_client_role_type=99, raw_channel_profile=99,
                                                raw_publish_custom_audio_track=1, raw_publish_custom_audio_track_id=99,
                                                raw_publish_camera_track=1, raw_publish_custom_video_track=1,
                                                raw_custom_video_track_id=99), 0, 0),
]


def case_options_join_with_options(ctx: Ctx) -> None:
    for label, o, join_rc, _ in OPTION_ROWS:
        engine = engine_with(ctx, server_url=NOWHERE) if join_rc == 0 else ctx.engine
        assert join_with_options(engine, o) == join_rc, label
    assert _ffi.agoraish_engine_get_connection_state(ctx.engine) == 1, "a refused join connects nothing"


def case_options_join_ex(ctx: Ctx) -> None:
    for label, o, join_rc, _ in OPTION_ROWS[1:]:  # NULL options are the defaults for join_channel_ex
        c = connection(f"bad-input-{next(_CHANNELS)}".encode())
        assert join_ex(ctx.engine, c, o) == join_rc, label
        if join_rc == 0:
            assert _ffi.agoraish_engine_leave_channel_ex(ctx.engine, ref(c)) == 0, label
    assert join_ex(ctx.engine, connection(), None) == 0, "NULL: the defaults"
    assert join_ex(ctx.engine, connection(b"camera"), options(publish_camera_track=1, publish_custom_video_track=1)) \
        == EINVAL, "the camera and a custom video track: one video track per connection"


def case_options_update(ctx: Ctx) -> None:
    for label, o, _, update_rc in OPTION_ROWS:
        assert update_options(ctx.engine, o) == update_rc, label


def case_options_update_in_a_call(ctx: Ctx) -> None:
    engine = connected_engine(ctx)
    assert update_options(engine, options(channel_profile=1)) == EREFUSED, "channel_profile in a call"
    assert update_options(engine, options(token=b"renewed")) == 0, "a token in a call renews it"
    assert update_options(engine, options(client_role_type=3)) == EINVAL, "a bad value is -2 in a call too"


def custom_tracks(engine: int) -> Tuple[int, int, int]:
    """(custom audio track, custom video track, custom encoded video track) of `engine`."""
    audio, raw, encoded = ctypes.c_int32(), ctypes.c_int32(), ctypes.c_int32()
    assert _ffi.agoraish_engine_create_custom_audio_track(engine, 0, ctypes.byref(audio)) == 0
    assert _ffi.agoraish_engine_create_custom_video_track(engine, ctypes.byref(raw)) == 0
    assert _ffi.agoraish_engine_create_custom_encoded_video_track(engine, ctypes.byref(encoded)) == 0
    return audio.value, raw.value, encoded.value


def case_options_tracks(ctx: Ctx) -> None:
    audio, raw, encoded = custom_tracks(ctx.engine)  # audio and video tracks are numbered apart
    assert update_options(ctx.engine, options(publish_custom_video_track=1, custom_video_track_id=encoded)) \
        == EINVAL, "an encoded track as a custom video track"
    assert update_options(ctx.engine, options(publish_encoded_video_track=1, custom_video_track_id=raw)) \
        == EINVAL, "a custom video track as an encoded one"
    assert update_options(ctx.engine, options(publish_camera_track=1, publish_custom_video_track=1,
                                              custom_video_track_id=raw)) == EINVAL, "the camera and a custom track"
    for o in (options(publish_custom_audio_track=1, publish_custom_audio_track_id=audio),
              options(publish_custom_video_track=1, custom_video_track_id=raw),
              options(publish_custom_video_track=0),
              options(publish_encoded_video_track=1, custom_video_track_id=encoded),
              options(publish_encoded_video_track=0)):
        assert update_options(ctx.engine, o) == 0
    c = connection(b"tracks")
    assert join_ex(ctx.engine, c, options(publish_encoded_video_track=1, custom_video_track_id=encoded)) == 0
    assert _ffi.agoraish_engine_update_channel_media_options_ex(
        ctx.engine, ref(options(publish_custom_video_track=1, custom_video_track_id=encoded)), ref(c)) == EINVAL
    assert _ffi.agoraish_engine_update_channel_media_options_ex(
        ctx.engine, ref(options(publish_custom_video_track=1, custom_video_track_id=raw)), ref(c)) == 0


def case_join_with_options_channels(ctx: Ctx) -> None:
    assert join_with_options(ctx.engine, options(), channel=None) == EINVAL, "NULL"
    assert join_with_options(ctx.engine, options(), channel=b"caf\xe9") == EINVAL, "not UTF-8"
    for name in (b"", b"c" * 64, b"no/slash", b"\x01x"):
        assert join_with_options(ctx.engine, options(), channel=name) == ECHANNEL, name
    assert join_with_options(ctx.engine, options(), channel=(ALLOWED_CHANNEL_CHARS * 2)[:63]) == 0
    assert join_with_options(ctx.engine, options(), channel=b"again") == EJOIN, "already joining"
    assert join(ctx.engine, b"again") == EJOIN


def case_join_with_options_tokens(ctx: Ctx) -> None:
    assert join_with_options(ctx.engine, options(), token=b"007\xff") == EINVAL
    for token in (None, b"", b"a-token"):
        assert join_with_options(engine_with(ctx, server_url=NOWHERE), options(), token=token) == 0, token


def case_join_with_options_uids(ctx: Ctx) -> None:
    for uid in (0, 1, 2**32 - 1):
        assert join_with_options(engine_with(ctx, server_url=NOWHERE), options(), uid=uid) == 0, uid


def case_join_ex_connections(ctx: Ctx) -> None:
    for label, c in BAD_CONNECTIONS[:-1]:
        assert join_ex(ctx.engine, c) == EINVAL, label
    for name in (b"", b"c" * 64, b"no/slash"):
        assert join_ex(ctx.engine, connection(name)) == ECHANNEL, name
    for uid in (0, 1, 2**32 - 1):
        assert join_ex(ctx.engine, connection(b"uids", uid)) == 0, uid
    assert join_ex(ctx.engine, connection(b"uids", 1)) == EJOIN, "twice"
    assert join(ctx.engine, b"own", uid=3) == 0
    assert join_ex(ctx.engine, connection(b"own", 3)) == EJOIN, "the engine's own connection"
    assert join_ex(ctx.engine, connection(b"own", 4)) == 0, "its channel as another uid"


def case_join_ex_limit(ctx: Ctx) -> None:
    for i in range(_ffi.AGORAISH_MAX_CONNECTIONS):
        assert join_ex(ctx.engine, connection(f"limit-{i}".encode())) == 0, i
    assert join_ex(ctx.engine, connection(b"limit-more")) == EREFUSED, "one more than AGORAISH_MAX_CONNECTIONS"
    assert _ffi.agoraish_engine_leave_channel_ex(ctx.engine, ref(connection(b"limit-0"))) == 0
    assert join_ex(ctx.engine, connection(b"limit-more")) == 0, "after a leave"


def case_join_ex_tokens(ctx: Ctx) -> None:
    assert join_ex(ctx.engine, connection(), token=b"007\xff") == EINVAL
    for i, token in enumerate((None, b"", b"a-token")):
        assert join_ex(ctx.engine, connection(f"token-{i}".encode()), token=token) == 0, token


def handler_ex(ctx: Ctx, struct_size: Optional[int] = None, seen: Optional[List[Tuple[int, int]]] = None):
    table = _ffi.EventHandlerEx()
    table.struct_size = HANDLER_EX_SIZE if struct_size is None else struct_size
    if seen is not None:
        callback = _ffi.CALLBACKS["agoraish_event_handler_ex"]
        ctype = next(t for n, t, _ in callback if n == "on_connection_state_changed")
        thunk = ctype(lambda engine, user_data, c, state, reason: seen.append((user_data or 0, state)))
        ctx.keep.append(thunk)
        table.on_connection_state_changed = thunk
    return table


def case_join_ex_handlers(ctx: Ctx) -> None:
    for size in (0, 4, 8, HANDLER_EX_SIZE - 1, HANDLER_EX_SIZE + 4):
        assert join_ex(ctx.engine, connection(), handler=handler_ex(ctx, size)) == EINVAL, size
    for size in sorted(KNOWN_SIZES.get("agoraish_event_handler_ex", {HANDLER_EX_SIZE})):
        assert join_ex(ctx.engine, connection(f"handler-{size}".encode()), handler=handler_ex(ctx, size)) == 0, size
    assert join_ex(ctx.engine, connection(b"no-handler"), handler=None, user_data=0x1234) == 0


def case_join_ex_user_data(ctx: Ctx) -> None:
    import time

    seen: List[Tuple[int, int]] = []
    assert join_ex(ctx.engine, connection(), handler=handler_ex(ctx, seen=seen), user_data=0xABCD) == 0
    deadline = time.monotonic() + TIMEOUT
    while not any(state == 3 for _, state in seen) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert seen and all(user_data == 0xABCD for user_data, _ in seen), seen
    assert any(state == 3 for _, state in seen), seen


def case_leave_ex(ctx: Ctx) -> None:
    for label, c in BAD_CONNECTIONS[:-1]:
        assert _ffi.agoraish_engine_leave_channel_ex(ctx.engine, ref(c)) == EINVAL, label
    assert _ffi.agoraish_engine_leave_channel_ex(ctx.engine, ref(BAD_CONNECTIONS[-1][1])) == ELEAVE, "unknown"
    c = connection()
    assert join_ex(ctx.engine, c) == 0
    assert _ffi.agoraish_engine_leave_channel_ex(ctx.engine, ref(c)) == 0
    assert _ffi.agoraish_engine_leave_channel_ex(ctx.engine, ref(c)) == ELEAVE, "twice"
    assert join_ex(ctx.engine, c) == 0, "joined again"
    assert _ffi.agoraish_engine_leave_channel_ex(ctx.engine, ref(c)) == 0


def joined_ex(ctx: Ctx, connected: bool = True) -> _ffi.RtcConnection:
    """A connection of the case's engine (on the module server), CONNECTED unless told otherwise."""
    import time

    c = connection(f"bad-input-ex-{next(_CHANNELS)}".encode())
    o = options(publish_microphone_track=0, enable_audio_recording_or_playout=0)
    assert join_ex(ctx.engine, c, o) == 0
    deadline = time.monotonic() + TIMEOUT
    while connected and _ffi.agoraish_engine_get_connection_state_ex(ctx.engine, ref(c)) != 3:
        assert time.monotonic() < deadline, "the connection did not connect"
        time.sleep(0.01)
    return c


def ex_connection_case(call: Callable[[int, object], int]) -> Callable[[Ctx], None]:
    """An `_ex` function with valid arguments but the connection: -2 for each bad or unknown one."""

    def case(ctx: Ctx) -> None:
        got = {label: call(ctx.engine, ref(c)) for label, c in BAD_CONNECTIONS}
        assert got == {label: EINVAL for label, _ in BAD_CONNECTIONS}
        c = connection()
        assert join_ex(ctx.engine, c) == 0
        assert _ffi.agoraish_engine_leave_channel_ex(ctx.engine, ref(c)) == 0
        assert call(ctx.engine, ref(c)) == EINVAL, "a left connection"

    return case


def ex_values_case(call: Callable[[int, object, object], int], rejected, accepted,
                   code: int = EINVAL) -> Callable[[Ctx], None]:
    """An `_ex` function on a connection in a call: `code` for each rejected value, 0 for each accepted one."""

    def case(ctx: Ctx) -> None:
        c = ref(joined_ex(ctx))
        assert {v: call(ctx.engine, v, c) for v in rejected} == {v: code for v in rejected}
        assert {v: call(ctx.engine, v, c) for v in accepted} == {v: 0 for v in accepted}

    return case


def call_id_ex(engine: int, capacity: Optional[int], c, with_len: bool = True) -> Tuple[int, int]:
    length = ctypes.c_size_t(capacity or 0)
    buf = ctypes.create_string_buffer(capacity) if capacity is not None else None
    rc = _ffi.agoraish_engine_get_call_id_ex(engine, buf, ctypes.byref(length) if with_len else None, c)
    return rc, length.value


def case_call_id_ex_buffer(ctx: Ctx) -> None:
    c = ref(joined_ex(ctx))
    rc, needed = call_id_ex(ctx.engine, None, c)
    assert rc == ESMALL and needed > 1
    assert call_id_ex(ctx.engine, needed - 1, c) == (ESMALL, needed)
    assert call_id_ex(ctx.engine, needed, c) == (0, needed)


def case_call_id_ex_len(ctx: Ctx) -> None:
    assert call_id_ex(ctx.engine, 64, ref(joined_ex(ctx)), with_len=False)[0] == EINVAL


def case_user_info_ex(ctx: Ctx) -> None:
    c = ref(joined_ex(ctx))
    info = _ffi.UserInfo()
    for uid in (0, 1, 2**32 - 1):
        assert _ffi.agoraish_engine_get_user_info_by_uid_ex(ctx.engine, uid, ctypes.byref(info), c) == EINVAL, uid
    assert _ffi.agoraish_engine_get_user_info_by_uid_ex(ctx.engine, 5, None, c) == EINVAL, "NULL info"


def case_user_info_account_ex(ctx: Ctx) -> None:
    c = ref(joined_ex(ctx))
    info = _ffi.UserInfo()
    for account in (None, b"\xff", b"nobody", b""):
        assert _ffi.agoraish_engine_get_user_info_by_user_account_ex(ctx.engine, account, ctypes.byref(info), c) \
            == EINVAL, account
    assert _ffi.agoraish_engine_get_user_info_by_user_account_ex(ctx.engine, b"nobody", None, c) == EINVAL


def case_setup_remote_video_ex(ctx: Ctx) -> None:
    callback = _ffi.FrameCallback(lambda *args: None)
    ctx.keep.append(callback)
    c = ref(joined_ex(ctx))
    setup = _ffi.agoraish_engine_setup_remote_video_ex
    assert setup(ctx.engine, None, c) == EINVAL, "NULL"
    for size in (0, 4, CANVAS_SIZE_0_5 - 1, ctypes.sizeof(_ffi.VideoCanvas) + 4):
        assert setup(ctx.engine, ctypes.byref(canvas(on_frame=callback, size=size)), c) == EINVAL, size
    assert setup(ctx.engine, ctypes.byref(canvas(uid=0, on_frame=callback)), c) == EINVAL, "uid 0"
    assert setup(ctx.engine, ctypes.byref(canvas(uid=7, on_frame=callback, render_mode=9)), c) == EINVAL
    assert setup(ctx.engine, ctypes.byref(canvas(uid=7, on_frame=callback)), c) == 0
    assert setup(ctx.engine, ctypes.byref(canvas(uid=7)), c) == 0, "unbind"


def case_snapshot_ex(ctx: Ctx) -> None:
    c = ref(joined_ex(ctx, connected=False))
    take = _ffi.agoraish_engine_take_snapshot_ex
    path = str(ctx.tmp / "x.png").encode()
    for bad in (None, b"", str(ctx.tmp / "x.bmp").encode(), b"/tmp/\xff.png"):
        assert take(ctx.engine, 7, bad, c) == EINVAL, bad
    assert take(ctx.engine, 7, path, c) in (ENOTIN, 0)


def case_data_stream_ex(ctx: Ctx) -> None:
    c = ref(joined_ex(ctx))
    create = _ffi.agoraish_engine_create_data_stream_ex
    stream = ctypes.c_int(-1)
    assert create(ctx.engine, None, ctypes.byref(stream_config()), c) == EINVAL, "NULL stream_id"
    assert create(ctx.engine, ctypes.byref(stream), None, c) == EINVAL, "NULL config"
    for size in (0, 3, STREAM_CONFIG_SIZE - 1, STREAM_CONFIG_SIZE + 4):
        assert create(ctx.engine, ctypes.byref(stream), ctypes.byref(stream_config(struct_size=size)), c) \
            == EINVAL, size
    assert stream.value == -1, "a refused call writes no id"
    ids = []
    for i in range(_ffi.AGORAISH_MAX_DATA_STREAMS):
        assert create(ctx.engine, ctypes.byref(stream), ctypes.byref(stream_config(i % 2, i // 2 % 2)), c) == 0
        ids.append(stream.value)
    assert len(set(ids)) == _ffi.AGORAISH_MAX_DATA_STREAMS
    assert create(ctx.engine, ctypes.byref(stream), ctypes.byref(stream_config()), c) == -116, "a sixth stream"


def case_send_stream_ex(ctx: Ctx) -> None:
    c = ref(joined_ex(ctx))
    stream = ctypes.c_int(-1)
    assert _ffi.agoraish_engine_create_data_stream_ex(ctx.engine, ctypes.byref(stream),
                                                      ctypes.byref(stream_config()), c) == 0
    send = _ffi.agoraish_engine_send_stream_message_ex
    for unknown in (0, -1, stream.value + 1, 256):
        assert send(ctx.engine, unknown, MESSAGE, 1, c) == EINVAL, unknown
    assert send(ctx.engine, stream.value, None, 1, c) == EINVAL, "NULL data"
    assert send(ctx.engine, stream.value, MESSAGE, 0, c) == EINVAL, "empty"
    assert send(ctx.engine, stream.value, MESSAGE, 1025, c) == -114, "above 1024 bytes"
    assert send(ctx.engine, stream.value, MESSAGE, SIZE_MAX, c) == -114, "SIZE_MAX (never read)"
    assert send(ctx.engine, stream.value, MESSAGE, 1024, c) == 0


def case_audio_metadata_ex(ctx: Ctx) -> None:
    send = _ffi.agoraish_engine_send_audio_metadata_ex
    c = ref(joined_ex(ctx))
    assert send(ctx.engine, None, 1, c) == EINVAL, "NULL"
    for length in (0, 1025, SIZE_MAX):
        assert send(ctx.engine, MESSAGE, length, c) == EINVAL, length
    for length in (1, 1024):
        assert send(ctx.engine, MESSAGE, length, c) == 0, length


def case_encoder_ex(ctx: Ctx) -> None:
    c = ref(joined_ex(ctx, connected=False))
    set_ex = _ffi.agoraish_engine_set_video_encoder_configuration_ex
    assert set_ex(ctx.engine, None, c) == EINVAL, "NULL"
    for size in (0, 4, ctypes.sizeof(_ffi.VideoEncoderConfiguration) + 4):
        assert set_ex(ctx.engine, ctypes.byref(encoder_config(size)), c) == EINVAL, size
    for fields in ({"width": 15}, {"height": 4098}, {"frame_rate": 0}, {"bitrate": -2}, {"codec_type": 2},
                   {"orientation_mode": 3}, {"degradation_preference": 4}, {"mirror_mode": 3}):
        assert set_ex(ctx.engine, ctypes.byref(encoder_config(**fields)), c) == EINVAL, fields
    assert set_ex(ctx.engine, ctypes.byref(encoder_config()), c) == 0


def case_simulcast_ex(ctx: Ctx) -> None:
    c = ref(joined_ex(ctx, connected=False))
    assert_simulcast_rows(lambda config: _ffi.agoraish_engine_set_simulcast_config_ex(ctx.engine, ref(config), c))
    for size in (0, SIMULCAST_SIZE - 1, SIMULCAST_SIZE + 8):
        config = simulcast_config(THREE_LAYERS, struct_size=size)
        assert _ffi.agoraish_engine_set_simulcast_config_ex(ctx.engine, ctypes.byref(config), c) == EINVAL, size


def case_encryption_ex(ctx: Ctx) -> None:
    c = ref(joined_ex(ctx, connected=False))
    enable = _ffi.agoraish_engine_enable_encryption_ex
    assert enable(ctx.engine, 1, None, c) == EINVAL, "NULL config when enabling"
    assert enable(ctx.engine, 0, None, c) == 0, "not read when disabling"
    for config in (encryption_config(mode=0), encryption_config(mode=-1), encryption_config(key=None),
                   encryption_config(key=b""), encryption_config(key=b"k" * 129), encryption_config(salt=bytes(32)),
                   encryption_config(struct_size=0), encryption_config(struct_size=ENCRYPTION_CONFIG_SIZE - 1)):
        assert enable(ctx.engine, 1, ctypes.byref(config), c) == EINVAL
    for enabled in (1, -1, INT_MAX, INT_MIN):
        assert enable(ctx.engine, enabled, ctypes.byref(encryption_config()), c) == 0, enabled


def _ex(function: Callable[..., int], *args: object) -> Callable[[int, object], int]:
    """`function(engine, *args, connection)`: an `_ex` function with valid arguments, for ex_connection_case."""
    return lambda engine, c: function(engine, *args, c)


def _ex_value(function: Callable[..., int], *before: object) -> Callable[[int, object, object], int]:
    """`function(engine, *before, value, connection)`, for ex_values_case."""
    return lambda engine, value, c: function(engine, *before, value, c)


def _ex_value_first(function: Callable[..., int], *after: object) -> Callable[[int, object, object], int]:
    """`function(engine, value, *after, connection)`, for ex_values_case."""
    return lambda engine, value, c: function(engine, value, *after, c)


_USER_INFO = _ffi.UserInfo()
_STREAM_ID = ctypes.c_int()
_CALL_ID = ctypes.create_string_buffer(128)
_CALL_ID_LEN = ctypes.c_size_t(128)


def _ex_rows(name: str, *rows: Tuple[str, str, Callable[[Ctx], None]]) -> Row:
    """The row of an `_ex` function: its connection case (valid arguments otherwise), then `rows`."""
    return Row([("connection", "NULL, struct_size 0/4/short/long/UINT32_MAX, channel_id NULL or not UTF-8, "
                               "unknown, left: -2", ex_connection_case(EX_CALLS[name]))] + list(rows))


#: Each `_ex` function called with valid arguments but the connection.
EX_CALLS: Dict[str, Callable[[int, object], int]] = {
    "agoraish_engine_update_channel_media_options_ex": lambda e, c: _ffi.agoraish_engine_update_channel_media_options_ex(
        e, ctypes.byref(options()), c),
    "agoraish_engine_get_connection_state_ex": _ex(_ffi.agoraish_engine_get_connection_state_ex),
    "agoraish_engine_get_call_id_ex": lambda e, c: _ffi.agoraish_engine_get_call_id_ex(
        e, _CALL_ID, ctypes.byref(ctypes.c_size_t(128)), c),
    "agoraish_engine_get_user_info_by_uid_ex": _ex(_ffi.agoraish_engine_get_user_info_by_uid_ex, 5,
                                                   ctypes.byref(_USER_INFO)),
    "agoraish_engine_get_user_info_by_user_account_ex": _ex(_ffi.agoraish_engine_get_user_info_by_user_account_ex,
                                                            b"account", ctypes.byref(_USER_INFO)),
    "agoraish_engine_mute_local_audio_stream_ex": _ex(_ffi.agoraish_engine_mute_local_audio_stream_ex, 1),
    "agoraish_engine_mute_remote_audio_stream_ex": _ex(_ffi.agoraish_engine_mute_remote_audio_stream_ex, 5, 1),
    "agoraish_engine_mute_all_remote_audio_streams_ex": _ex(_ffi.agoraish_engine_mute_all_remote_audio_streams_ex, 1),
    "agoraish_engine_adjust_user_playback_signal_volume_ex": _ex(
        _ffi.agoraish_engine_adjust_user_playback_signal_volume_ex, 5, 50),
    "agoraish_engine_mute_remote_video_stream_ex": _ex(_ffi.agoraish_engine_mute_remote_video_stream_ex, 5, 1),
    "agoraish_engine_mute_all_remote_video_streams_ex": _ex(_ffi.agoraish_engine_mute_all_remote_video_streams_ex, 1),
    "agoraish_engine_set_remote_video_stream_type_ex": _ex(_ffi.agoraish_engine_set_remote_video_stream_type_ex, 5, 1),
    "agoraish_engine_setup_remote_video_ex": lambda e, c: _ffi.agoraish_engine_setup_remote_video_ex(
        e, ctypes.byref(canvas(uid=5)), c),
    "agoraish_engine_take_snapshot_ex": _ex(_ffi.agoraish_engine_take_snapshot_ex, 5, b"/tmp/bad-input-ex.png"),
    "agoraish_engine_create_data_stream_ex": lambda e, c: _ffi.agoraish_engine_create_data_stream_ex(
        e, ctypes.byref(_STREAM_ID), ctypes.byref(stream_config()), c),
    "agoraish_engine_send_stream_message_ex": _ex(_ffi.agoraish_engine_send_stream_message_ex, 1, MESSAGE, 1),
    "agoraish_engine_send_audio_metadata_ex": _ex(_ffi.agoraish_engine_send_audio_metadata_ex, MESSAGE, 1),
    "agoraish_engine_enable_encryption_ex": lambda e, c: _ffi.agoraish_engine_enable_encryption_ex(
        e, 1, ctypes.byref(encryption_config()), c),
    "agoraish_engine_set_video_encoder_configuration_ex": lambda e, c: (
        _ffi.agoraish_engine_set_video_encoder_configuration_ex(e, ctypes.byref(encoder_config()), c)),
    "agoraish_engine_enable_dual_stream_mode_ex": _ex(_ffi.agoraish_engine_enable_dual_stream_mode_ex, 1),
    "agoraish_engine_set_simulcast_config_ex": lambda e, c: _ffi.agoraish_engine_set_simulcast_config_ex(
        e, ctypes.byref(simulcast_config(THREE_LAYERS)), c),
    "agoraish_engine_mute_local_video_stream_ex": _ex(_ffi.agoraish_engine_mute_local_video_stream_ex, 1),
    "agoraish_engine_set_remote_default_video_stream_type_ex": _ex(
        _ffi.agoraish_engine_set_remote_default_video_stream_type_ex, 1),
}


def case_update_options_ex(ctx: Ctx) -> None:
    c = ref(joined_ex(ctx))
    update = _ffi.agoraish_engine_update_channel_media_options_ex
    for label, o, _, update_rc in OPTION_ROWS:
        if o is not None and o.token is not None and update_rc == ENOTIN:
            continue  # in a call a token renews the connection's token
        assert update(ctx.engine, ref(o), c) == update_rc, label
    assert update(ctx.engine, ref(options(publish_camera_track=1, publish_encoded_video_track=1)), c) == EINVAL, \
        "the camera and an encoded track"
    assert update(ctx.engine, ref(options(channel_profile=1)), c) == EREFUSED, "channel_profile in a call"
    assert update(ctx.engine, ref(options(token=b"renewed")), c) == 0


def case_connection_state_ex(ctx: Ctx) -> None:
    c = ref(joined_ex(ctx, connected=False))
    assert _ffi.agoraish_engine_get_connection_state_ex(ctx.engine, c) in (2, 3)
    assert _ffi.agoraish_engine_get_connection_state_ex(ctx.engine, ref(joined_ex(ctx))) == 3


# -- custom audio tracks (ABI 0.11) ------------------------------------------------


def new_audio_track(engine: int, track_type: int = 0) -> Tuple[int, int]:
    track = ctypes.c_int32(-1)
    rc = _ffi.agoraish_engine_create_custom_audio_track(engine, track_type, ctypes.byref(track))
    return rc, track.value


def case_audio_track_types(ctx: Ctx) -> None:
    for track_type in (-1, 2, INT_MAX, INT_MIN):
        assert new_audio_track(ctx.engine, track_type) == (EINVAL, -1), track_type
    for track_type in (0, 1):
        rc, track = new_audio_track(ctx.engine, track_type)
        assert rc == 0 and track >= 1, track_type


def case_audio_track_ids(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_create_custom_audio_track(ctx.engine, 0, None) == EINVAL, "NULL track_id"
    tracks = [new_audio_track(ctx.engine, i % 2) for i in range(_ffi.AGORAISH_MAX_CUSTOM_AUDIO_TRACKS)]
    assert all(rc == 0 for rc, _ in tracks) and len({t for _, t in tracks}) == len(tracks)
    assert new_audio_track(ctx.engine) == (EREFUSED, -1), "one more than AGORAISH_MAX_CUSTOM_AUDIO_TRACKS"
    assert _ffi.agoraish_engine_destroy_custom_audio_track(ctx.engine, tracks[0][1]) == 0
    assert new_audio_track(ctx.engine)[0] == 0, "after a destroy"


UNKNOWN_TRACKS = (0, -1, 1, 99, INT_MAX, INT_MIN)


def case_destroy_audio_track(ctx: Ctx) -> None:
    for track in UNKNOWN_TRACKS:
        assert _ffi.agoraish_engine_destroy_custom_audio_track(ctx.engine, track) == EINVAL, track
    rc, track = new_audio_track(ctx.engine)
    assert _ffi.agoraish_engine_destroy_custom_audio_track(ctx.engine, track) == 0
    assert _ffi.agoraish_engine_destroy_custom_audio_track(ctx.engine, track) == EINVAL, "twice"


def case_audio_track_volume(ctx: Ctx) -> None:
    adjust = _ffi.agoraish_engine_adjust_custom_audio_publish_volume
    for track in UNKNOWN_TRACKS:
        assert adjust(ctx.engine, track, 50) == EINVAL, track
    _, track = new_audio_track(ctx.engine)
    for volume in (-1, 101, INT_MAX, INT_MIN):
        assert adjust(ctx.engine, track, volume) == EINVAL, volume
    for volume in (0, 1, 100):
        assert adjust(ctx.engine, track, volume) == 0, volume


PCM = (ctypes.c_int16 * (2 * 48000))()

#: (label, samples NULL, samples_per_channel, sample_rate, channels, expected): the rows of Tests/c/bad_input.c.
TRACK_PUSH_ROWS = [
    ("NULL samples", True, 480, 48000, 1, EINVAL),
    ("NULL samples, none", True, 0, 48000, 1, 0),
    ("0 samples", False, 0, 48000, 1, 0),
    ("-1 samples", False, -1, 48000, 1, EINVAL),
    ("INT_MIN samples", False, INT_MIN, 48000, 1, EINVAL),
    ("one second and one sample", False, 48001, 48000, 1, EINVAL),
    ("one second", False, 48000, 48000, 2, 0),
    ("rate 0", False, 80, 0, 1, EINVAL),
    ("rate 7999", False, 80, 7999, 1, EINVAL),
    ("rate 22050", False, 220, 22050, 1, EINVAL),
    ("rate 96000", False, 960, 96000, 1, EINVAL),
    ("rate -48000", False, 480, -48000, 1, EINVAL),
    ("channels 0", False, 480, 48000, 0, EINVAL),
    ("channels 3", False, 480, 48000, 3, EINVAL),
    ("channels -1", False, 480, 48000, -1, EINVAL),
    ("8 kHz mono", False, 80, 8000, 1, 0),
    ("16 kHz stereo", False, 160, 16000, 2, 0),
    ("32 kHz mono", False, 320, 32000, 1, 0),
    ("44.1 kHz stereo", False, 441, 44100, 2, 0),
]


def track_push_case(params: Set[str]) -> Callable[[Ctx], None]:
    """The rows of TRACK_PUSH_ROWS that exercise one of `params`, and the valid ones, on a new track."""

    def case(ctx: Ctx) -> None:
        _, track = new_audio_track(ctx.engine)
        push = _ffi.agoraish_engine_push_external_audio_frame_by_id
        for label, null, count, rate, channels, expected in TRACK_PUSH_ROWS:
            exercised = {"samples"} if null else set()
            exercised |= {"samples_per_channel"} if count not in (0, 480, 80, 160, 320, 441, 220, 960) else set()
            exercised |= {"sample_rate"} if rate not in (8000, 16000, 32000, 44100, 48000) else set()
            exercised |= {"channels"} if channels not in (1, 2) else set()
            if expected == 0 or exercised & params:
                assert push(ctx.engine, track, None if null else PCM, count, rate, channels) == expected, label

    return case


def case_push_audio_track_ids(ctx: Ctx) -> None:
    push = _ffi.agoraish_engine_push_external_audio_frame_by_id
    for track in UNKNOWN_TRACKS:
        assert push(ctx.engine, track, PCM, 480, 48000, 1) == EINVAL, track
    _, track = new_audio_track(ctx.engine)
    assert _ffi.agoraish_engine_destroy_custom_audio_track(ctx.engine, track) == 0
    assert push(ctx.engine, track, PCM, 480, 48000, 1) == EINVAL, "a destroyed track"


# -- custom video tracks and encoded video (ABI 0.11) ------------------------------


def new_video_track(engine: int, encoded: bool = False) -> Tuple[int, int]:
    track = ctypes.c_int32(-1)
    create = (_ffi.agoraish_engine_create_custom_encoded_video_track if encoded
              else _ffi.agoraish_engine_create_custom_video_track)
    return create(engine, ctypes.byref(track)), track.value


def video_track_ids_case(encoded: bool) -> Callable[[Ctx], None]:
    """NULL track_id: -2; AGORAISH_MAX_CUSTOM_VIDEO_TRACKS (raw and encoded together), then -5 for either kind."""

    def case(ctx: Ctx) -> None:
        create = (_ffi.agoraish_engine_create_custom_encoded_video_track if encoded
                  else _ffi.agoraish_engine_create_custom_video_track)
        assert create(ctx.engine, None) == EINVAL, "NULL track_id"
        tracks = [new_video_track(ctx.engine, (i % 2 == 0) == encoded) for i in range(_ffi.AGORAISH_MAX_CUSTOM_VIDEO_TRACKS)]
        assert all(rc == 0 and t >= 1 for rc, t in tracks) and len({t for _, t in tracks}) == len(tracks), tracks
        assert new_video_track(ctx.engine, encoded) == (EREFUSED, -1), "one more"
        assert new_video_track(ctx.engine, not encoded) == (EREFUSED, -1), "one more of the other kind"
        rc, audio = new_audio_track(ctx.engine)
        assert rc == 0, "audio tracks are counted apart"
        assert _ffi.agoraish_engine_destroy_custom_video_track(ctx.engine, tracks[0][1]) == 0
        assert new_video_track(ctx.engine, encoded)[0] == 0, "after a destroy"

    return case


def case_destroy_video_track(ctx: Ctx) -> None:
    destroy = _ffi.agoraish_engine_destroy_custom_video_track
    for track in UNKNOWN_TRACKS:
        assert destroy(ctx.engine, track) == EINVAL, track
    audio, raw, encoded = custom_tracks(ctx.engine)
    for track in (raw, encoded):
        assert destroy(ctx.engine, track) == 0, track
        assert destroy(ctx.engine, track) == EINVAL, ("twice", track)
    assert _ffi.agoraish_engine_destroy_custom_audio_track(ctx.engine, audio) == 0, "the audio track is apart"


def push_frame_by_id(engine: int, frame: Optional[_ffi.ExternalVideoFrame], track: int) -> int:
    return _ffi.agoraish_engine_push_external_video_frame_by_id(engine, ref(frame), track)


def case_push_video_track_frames(ctx: Ctx) -> None:
    _, raw = new_video_track(ctx.engine)
    assert push_frame_by_id(ctx.engine, None, raw) == EINVAL, "NULL"
    full = ctypes.sizeof(_ffi.ExternalVideoFrame)
    for size in (0, 4, FRAME_SIZE_0_5 - 1, full - 1, full + 4):
        assert push_frame_by_id(ctx.engine, video_frame(size=size), raw) == EINVAL, size
    for fields in ({"width": 15}, {"height": 4098}, {"format": 99}, {"rotation": 45}, {"y_stride": 8},
                   {"y_buffer": None}):
        assert push_frame_by_id(ctx.engine, video_frame(**fields), raw) == EINVAL, fields
    for fmt in PIXEL_FORMATS:
        assert push_frame_by_id(ctx.engine, video_frame(fmt=fmt), raw) == 0, ("no publisher: dropped", fmt)
    assert push_frame_by_id(ctx.engine, video_frame(rotation=90), raw) == 0


def case_push_video_track_ids(ctx: Ctx) -> None:
    for track in UNKNOWN_TRACKS:
        assert push_frame_by_id(ctx.engine, video_frame(), track) == EINVAL, track
    audio, raw, encoded = custom_tracks(ctx.engine)
    assert push_frame_by_id(ctx.engine, video_frame(), encoded) == EINVAL, "an encoded track"
    assert push_frame_by_id(ctx.engine, video_frame(), raw) == 0
    assert _ffi.agoraish_engine_destroy_custom_video_track(ctx.engine, raw) == 0
    assert push_frame_by_id(ctx.engine, video_frame(), raw) == EINVAL, "a destroyed track"


ENCODED_INFO_SIZE = ctypes.sizeof(_ffi.EncodedVideoFrameInfo)
ENCODED = (ctypes.c_uint8 * (_ffi.AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES + 1))()


def encoded_info(struct_size: Optional[int] = None, **fields) -> _ffi.EncodedVideoFrameInfo:
    info = _ffi.EncodedVideoFrameInfo(codec_type=_ffi.AGORAISH_VIDEO_CODEC_VP8, width=160, height=120,
                                      frame_type=_ffi.AGORAISH_VIDEO_FRAME_TYPE_KEY_FRAME, capture_time_ms=0)
    info.struct_size = ENCODED_INFO_SIZE if struct_size is None else struct_size
    for key, value in fields.items():
        setattr(info, key, value)
    return info


def push_encoded(engine: int, track: int, length: int = 100, info: Optional[_ffi.EncodedVideoFrameInfo] = None,
                 data: object = ENCODED) -> int:
    info = encoded_info() if info is None else info
    return _ffi.agoraish_engine_push_external_encoded_video_frame(engine, data, length, ctypes.byref(info), track)


def case_push_encoded_data(ctx: Ctx) -> None:
    _, track = new_video_track(ctx.engine, encoded=True)
    assert push_encoded(ctx.engine, track, data=None) == EINVAL, "NULL"
    assert push_encoded(ctx.engine, track, 0) == EINVAL, "empty"
    assert push_encoded(ctx.engine, track, _ffi.AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES + 1) == EINVAL, "too large"
    assert push_encoded(ctx.engine, track, SIZE_MAX) == EINVAL, "SIZE_MAX (never read)"
    for length in (1, 100, _ffi.AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES):
        assert push_encoded(ctx.engine, track, length) == 0, ("outside a call: sent by none", length)


def case_push_encoded_info(ctx: Ctx) -> None:
    _, track = new_video_track(ctx.engine, encoded=True)
    assert _ffi.agoraish_engine_push_external_encoded_video_frame(ctx.engine, ENCODED, 100, None, track) == EINVAL
    for size in (0, 4, ENCODED_INFO_SIZE - 1, ENCODED_INFO_SIZE + 8):
        assert push_encoded(ctx.engine, track, info=encoded_info(size)) == EINVAL, size
    for fields in ({"codec_type": 0}, {"codec_type": 2}, {"codec_type": -1}, {"frame_type": 0},
                   {"frame_type": 5}, {"frame_type": -1}, {"width": -1}, {"width": 16385}, {"height": -1},
                   {"height": 16385}, {"rotation": 45}, {"rotation": 360}, {"rotation": -90}):
        assert push_encoded(ctx.engine, track, info=encoded_info(**fields)) == EINVAL, fields
    for fields in ({}, {"codec_type": _ffi.AGORAISH_VIDEO_CODEC_VP9}, {"width": 0, "height": 0},
                   {"width": 16384, "height": 16384}, {"frame_type": _ffi.AGORAISH_VIDEO_FRAME_TYPE_DELTA_FRAME},
                   {"rotation": 270}, {"capture_time_ms": -(2**63)}, {"capture_time_ms": 2**63 - 1},
                   {"uid": 2**32 - 1}):
        assert push_encoded(ctx.engine, track, info=encoded_info(**fields)) == 0, fields


def case_push_encoded_tracks(ctx: Ctx) -> None:
    for track in UNKNOWN_TRACKS:
        assert push_encoded(ctx.engine, track) == EINVAL, track
    audio, raw, encoded = custom_tracks(ctx.engine)
    assert push_encoded(ctx.engine, raw) == EINVAL, "a custom (raw) video track"
    assert push_encoded(ctx.engine, encoded) == 0
    assert _ffi.agoraish_engine_destroy_custom_video_track(ctx.engine, encoded) == 0
    assert push_encoded(ctx.engine, encoded) == EINVAL, "a destroyed track"


def case_push_encoded_in_a_call(ctx: Ctx) -> None:
    _, track = new_video_track(ctx.engine, encoded=True)
    c = joined_ex(ctx, connected=False)
    o = options(publish_microphone_track=0, enable_audio_recording_or_playout=0, publish_encoded_video_track=1,
                custom_video_track_id=track)
    assert _ffi.agoraish_engine_update_channel_media_options_ex(ctx.engine, ref(o), ref(c)) == 0
    import time

    deadline = time.monotonic() + TIMEOUT
    while _ffi.agoraish_engine_get_connection_state_ex(ctx.engine, ref(c)) != 3:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert push_encoded(ctx.engine, track, 0) == EINVAL, "empty, in a call"
    # CONNECTED comes with the join's answer; the media path opens just after it.
    while push_encoded(ctx.engine, track) == 0:
        assert time.monotonic() < deadline, "no connection sent the frame"
        time.sleep(0.01)
    assert push_encoded(ctx.engine, track) == 1, "sent by the one connection publishing it"


ENCODED_OBSERVER_SIZE = ctypes.sizeof(_ffi.VideoEncodedFrameObserverTable)


def encoded_observer(ctx: Ctx, struct_size: Optional[int] = None,
                     with_callback: bool = True) -> _ffi.VideoEncodedFrameObserverTable:
    observer = _ffi.VideoEncodedFrameObserverTable()
    observer.struct_size = ENCODED_OBSERVER_SIZE if struct_size is None else struct_size
    if with_callback:
        callback = _ffi.EncodedVideoFrameReceivedCallback(lambda *args: None)
        ctx.keep.append(callback)
        observer.on_encoded_video_frame_received = callback
    return observer


def register_encoded(engine: int, observer: Optional[_ffi.VideoEncodedFrameObserverTable]) -> int:
    """Registers `observer`, passed in a buffer of its struct_size when that is larger."""
    pointer = None
    if observer is not None:
        buffer = (ctypes.c_uint8 * max(observer.struct_size, ENCODED_OBSERVER_SIZE))()
        ctypes.memmove(buffer, ctypes.byref(observer), ENCODED_OBSERVER_SIZE)
        pointer = ctypes.cast(buffer, ctypes.POINTER(_ffi.VideoEncodedFrameObserverTable))
    return _ffi.agoraish_engine_register_video_encoded_frame_observer(engine, pointer)


def case_encoded_observer_null(ctx: Ctx) -> None:
    assert register_encoded(ctx.engine, None) == 0, "none registered"
    assert register_encoded(ctx.engine, None) == 0, "twice"
    assert register_encoded(ctx.engine, encoded_observer(ctx)) == 0
    assert register_encoded(ctx.engine, None) == 0, "removes it"


def case_encoded_observer_struct_size(ctx: Ctx) -> None:
    for size in (0, 4, 8, 12, ENCODED_OBSERVER_SIZE - 1, ENCODED_OBSERVER_SIZE + 1, ENCODED_OBSERVER_SIZE + 4):
        assert register_encoded(ctx.engine, encoded_observer(ctx, struct_size=size)) == EINVAL, size
    for size in (ENCODED_OBSERVER_SIZE, ENCODED_OBSERVER_SIZE + 8, ENCODED_OBSERVER_SIZE + 64):
        assert register_encoded(ctx.engine, encoded_observer(ctx, struct_size=size)) == size_rc(
            "agoraish_video_encoded_frame_observer", size), size


def case_encoded_observer_null_callback(ctx: Ctx) -> None:
    for engine in (ctx.engine, in_call(ctx)):
        assert register_encoded(engine, encoded_observer(ctx, with_callback=False)) == 0
        assert register_encoded(engine, encoded_observer(ctx)) == 0, "replaced"
        assert register_encoded(engine, None) == 0


# -- the media player (ABI 0.13) ---------------------------------------------------

ETOOOFTEN = -12
INT64_MAX, INT64_MIN = 2**63 - 1, -(2**63)
UINT32_MAX = 2**32 - 1
IDLE, OPEN_COMPLETED, PLAYING, PAUSED, STOPPED, FAILED = (
    _ffi.AGORAISH_PLAYER_STATE_IDLE, _ffi.AGORAISH_PLAYER_STATE_OPEN_COMPLETED, _ffi.AGORAISH_PLAYER_STATE_PLAYING,
    _ffi.AGORAISH_PLAYER_STATE_PAUSED, _ffi.AGORAISH_PLAYER_STATE_STOPPED, _ffi.AGORAISH_PLAYER_STATE_FAILED)

#: Player and recorder ids an engine with none never issued (ids start at 1), and sound ids never used.
UNKNOWN_IDS = (0, -1, 1, 17, 99, INT_MAX, INT_MIN)


def silence(ctx: Ctx, seconds: float = 10.0) -> bytes:
    """The path of a WAV of `seconds` of silence (8 kHz mono) in the case's scratch directory
    (written once: a player may be reading it)."""
    path = ctx.tmp / f"silence-{seconds}.wav"
    if not path.exists():
        write_wav(path, rate=8000, frames=int(8000 * seconds))
    return str(path).encode()


def missing(ctx: Ctx) -> bytes:
    return str(ctx.tmp / "missing.wav").encode()


def unreadable(ctx: Ctx) -> List[bytes]:
    """Paths that cannot be opened or decoded: missing, a directory, a truncated WAV header, text."""
    (ctx.tmp / "junk.wav").write_bytes(b"RIFF\x04\0\0\0WAVEjunk")
    (ctx.tmp / "text.wav").write_text("not a media file\n" * 64)
    return [missing(ctx), str(ctx.tmp).encode(), str(ctx.tmp / "junk.wav").encode(),
            str(ctx.tmp / "text.wav").encode()]


def bad_paths(ctx: Ctx) -> List[Optional[bytes]]:
    """Paths (or URLs) every function taking one refuses with -2: NULL, empty, not UTF-8."""
    return [None, b"", str(ctx.tmp).encode() + b"/\xff.wav"]


#: A path of 4096 bytes (players and music take 1..4095).
TOO_LONG_PATH = b"/" + b"a" * 4095


def wait_until(condition: Callable[[], bool], what: str) -> None:
    import time

    deadline = time.monotonic() + TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


def new_player(engine: int) -> Tuple[int, int]:
    player = ctypes.c_int(-1)
    return _ffi.agoraish_engine_create_media_player(engine, ctypes.byref(player)), player.value


def idle_player(ctx: Ctx, engine: Optional[int] = None) -> int:
    """A new player (of the case's engine unless given) with nothing opened."""
    rc, player = new_player(ctx.engine if engine is None else engine)
    assert rc == 0 and player >= 1, (rc, player)
    return player


def player_state(engine: int, player: int) -> int:
    state = ctypes.c_int(-99)
    assert _ffi.agoraish_media_player_get_state(engine, player, ctypes.byref(state)) == 0
    return state.value


def wait_player_state(engine: int, player: int, wanted: int) -> None:
    seen: List[int] = []

    def reached() -> bool:
        seen.append(player_state(engine, player))
        assert seen[-1] != FAILED or wanted == FAILED, ("the source failed", seen[:5], len(seen))
        return seen[-1] == wanted

    wait_until(reached, f"state {wanted}, last {seen[-1:]}")


def opened_player(ctx: Ctx) -> int:
    """A player of the case's engine with 10 s of silence opened (OPEN_COMPLETED)."""
    player = idle_player(ctx)
    assert _ffi.agoraish_media_player_open(ctx.engine, player, silence(ctx), 0) == 0
    wait_player_state(ctx.engine, player, OPEN_COMPLETED)
    return player


def playing_player(ctx: Ctx) -> int:
    player = opened_player(ctx)
    assert _ffi.agoraish_media_player_play(ctx.engine, player) == 0
    return player


def versioned(struct: object, size: Optional[int] = None):
    """A pointer to a copy of `struct` with struct_size `size` (default: its own size), in a
    buffer at least that large (up to 64 KiB), as a host of a newer header would pass it."""
    full = ctypes.sizeof(struct)
    struct.struct_size = full if size is None else size
    buffer = (ctypes.c_uint8 * max(full, min(size or 0, 1 << 16)))()
    ctypes.memmove(buffer, ctypes.byref(struct), full)
    return ctypes.cast(buffer, ctypes.POINTER(type(struct)))


def out_value(function: Callable[..., int], *args: object, ctype=ctypes.c_int64) -> Tuple[int, int]:
    """(rc, value) of a getter writing one value through its last argument."""
    value = ctype(-12345)
    return function(*args, ctypes.byref(value)), value.value


def player_ids_case(call: Callable[[int, int], int]) -> Callable[[Ctx], None]:
    """`call(engine, player_id)` (valid arguments otherwise) with ids never issued, a destroyed
    player's and one only another engine has: -2."""

    def case(ctx: Ctx) -> None:
        e = ctx.engine
        assert {p: call(e, p) for p in UNKNOWN_IDS} == {p: EINVAL for p in UNKNOWN_IDS}, "never issued"
        player = idle_player(ctx)
        assert _ffi.agoraish_engine_destroy_media_player(e, player) == 0
        assert call(e, player) == EINVAL, "a destroyed player"
        other = engine_with(ctx)
        theirs = [idle_player(ctx, other), idle_player(ctx, other)]
        assert call(e, theirs[1]) == EINVAL, "a player of another engine"

    return case


_I64 = ctypes.c_int64()
_I32 = ctypes.c_int()
_STREAM_INFO = _ffi.PlayerStreamInfo(struct_size=ctypes.sizeof(_ffi.PlayerStreamInfo))

#: Each function taking a player id, called with valid arguments but the player id.
PLAYER_CALLS: Dict[str, Callable[[int, int], int]] = {
    "agoraish_engine_destroy_media_player": _ffi.agoraish_engine_destroy_media_player,
    "agoraish_media_player_open": lambda e, p: _ffi.agoraish_media_player_open(e, p, b"/nonexistent/x.wav", 0),
    "agoraish_media_player_play": _ffi.agoraish_media_player_play,
    "agoraish_media_player_pause": _ffi.agoraish_media_player_pause,
    "agoraish_media_player_resume": _ffi.agoraish_media_player_resume,
    "agoraish_media_player_stop": _ffi.agoraish_media_player_stop,
    "agoraish_media_player_seek": lambda e, p: _ffi.agoraish_media_player_seek(e, p, 0),
    "agoraish_media_player_set_loop_count": lambda e, p: _ffi.agoraish_media_player_set_loop_count(e, p, 0),
    "agoraish_media_player_get_duration": lambda e, p: _ffi.agoraish_media_player_get_duration(
        e, p, ctypes.byref(_I64)),
    "agoraish_media_player_get_play_position": lambda e, p: _ffi.agoraish_media_player_get_play_position(
        e, p, ctypes.byref(_I64)),
    "agoraish_media_player_get_state": lambda e, p: _ffi.agoraish_media_player_get_state(e, p, ctypes.byref(_I32)),
    "agoraish_media_player_get_stream_count": lambda e, p: _ffi.agoraish_media_player_get_stream_count(
        e, p, ctypes.byref(_I64)),
    "agoraish_media_player_get_stream_info": lambda e, p: _ffi.agoraish_media_player_get_stream_info(
        e, p, 0, ctypes.byref(_STREAM_INFO)),
    "agoraish_media_player_select_audio_track": lambda e, p: _ffi.agoraish_media_player_select_audio_track(e, p, 0),
    "agoraish_media_player_set_playback_speed": lambda e, p: _ffi.agoraish_media_player_set_playback_speed(e, p, 100),
    "agoraish_media_player_adjust_playout_volume": lambda e, p: _ffi.agoraish_media_player_adjust_playout_volume(
        e, p, 100),
    "agoraish_media_player_get_playout_volume": lambda e, p: _ffi.agoraish_media_player_get_playout_volume(
        e, p, ctypes.byref(_I32)),
    "agoraish_media_player_adjust_publish_signal_volume": lambda e, p: (
        _ffi.agoraish_media_player_adjust_publish_signal_volume(e, p, 100)),
    "agoraish_media_player_get_publish_signal_volume": lambda e, p: (
        _ffi.agoraish_media_player_get_publish_signal_volume(e, p, ctypes.byref(_I32))),
    "agoraish_media_player_mute": lambda e, p: _ffi.agoraish_media_player_mute(e, p, 1),
    "agoraish_media_player_get_mute": lambda e, p: _ffi.agoraish_media_player_get_mute(e, p, ctypes.byref(_I32)),
    "agoraish_media_player_set_view": lambda e, p: _ffi.agoraish_media_player_set_view(e, p, None),
    "agoraish_media_player_set_render_mode": lambda e, p: _ffi.agoraish_media_player_set_render_mode(e, p, 1),
    "agoraish_media_player_register_player_source_observer": lambda e, p: (
        _ffi.agoraish_media_player_register_player_source_observer(e, p, None)),
    "agoraish_media_player_register_audio_frame_observer": lambda e, p: (
        _ffi.agoraish_media_player_register_audio_frame_observer(e, p, None)),
    "agoraish_media_player_register_video_frame_observer": lambda e, p: (
        _ffi.agoraish_media_player_register_video_frame_observer(e, p, None)),
}


def _player_rows(name: str, *rows: Tuple[str, str, Callable[[Ctx], None]]) -> Row:
    """The row of a function taking a player id: its id case (valid arguments otherwise), then `rows`."""
    return Row([("player_id", "never issued, destroyed, another engine's: -2",
                 player_ids_case(PLAYER_CALLS[name]))] + list(rows))


class PlayerWatch:
    """A player source observer recording (state, reason) pairs; `wait` blocks until one arrives."""

    def __init__(self) -> None:
        self.states: List[Tuple[int, int]] = []
        self.cond = threading.Condition()
        self.callback = _ffi.PlayerSourceStateChangedCallback(self._on_state)
        self.table = _ffi.MediaPlayerObserverTable(struct_size=ctypes.sizeof(_ffi.MediaPlayerObserverTable),
                                                   on_player_source_state_changed=self.callback)

    def _on_state(self, engine, user_data, player_id, state, reason) -> None:
        with self.cond:
            self.states.append((state, reason))
            self.cond.notify_all()

    def wait(self, state: int, reason: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: (state, reason) in self.states, TIMEOUT), ((state, reason), self.states)


def case_create_player_ids(ctx: Ctx) -> None:
    e = ctx.engine
    assert _ffi.agoraish_engine_create_media_player(e, None) == EINVAL, "NULL player_id"
    players = [new_player(e) for _ in range(_ffi.AGORAISH_MAX_MEDIA_PLAYERS)]
    assert all(rc == 0 and p >= 1 for rc, p in players) and len({p for _, p in players}) == len(players), players
    assert new_player(e) == (EREFUSED, -1), "one more than AGORAISH_MAX_MEDIA_PLAYERS"
    assert _ffi.agoraish_engine_create_media_player(e, None) == EINVAL, "NULL player_id, at the limit"
    assert _ffi.agoraish_engine_destroy_media_player(e, players[0][1]) == 0
    rc, again = new_player(e)
    assert rc == 0 and again >= 1 and again not in {p for _, p in players[1:]}, ("after a destroy", rc, again)


def case_destroy_player(ctx: Ctx) -> None:
    e, destroy = ctx.engine, _ffi.agoraish_engine_destroy_media_player
    for player in (idle_player(ctx), opened_player(ctx), playing_player(ctx)):
        assert destroy(e, player) == 0, player
        assert destroy(e, player) == EINVAL, ("twice", player)


def player_open(engine: int, player: int, url: Optional[bytes], start_pos: int = 0) -> int:
    return _ffi.agoraish_media_player_open(engine, player, url, start_pos)


def case_open_urls(ctx: Ctx) -> None:
    e, player = ctx.engine, idle_player(ctx)
    for url in bad_paths(ctx) + [TOO_LONG_PATH]:
        assert player_open(e, player, url) == EINVAL, url if url is None else url[:16]
    assert player_state(e, player) == IDLE, "refused opens change nothing"
    for url in (b"x", b"/" + b"a" * 4094, missing(ctx)):  # 1 and 4095 bytes: opened (and failing) on its thread
        assert player_open(e, player, url) == 0, url[:16]
    assert player_open(e, player, silence(ctx)) == 0, "opening again replaces the source"
    wait_player_state(e, player, OPEN_COMPLETED)


def case_open_missing_file(ctx: Ctx) -> None:
    e, player, watch = ctx.engine, idle_player(ctx), PlayerWatch()
    ctx.keep.append(watch)
    assert _ffi.agoraish_media_player_register_player_source_observer(e, player, ctypes.byref(watch.table)) == 0
    assert player_open(e, player, missing(ctx)) == 0
    watch.wait(FAILED, _ffi.AGORAISH_PLAYER_REASON_URL_NOT_FOUND)
    assert player_state(e, player) == FAILED


def case_open_start_pos(ctx: Ctx) -> None:
    e, player = ctx.engine, idle_player(ctx)
    for pos in (-1, -1000, INT_MIN, INT64_MIN):
        assert player_open(e, player, silence(ctx), pos) == EINVAL, pos
    assert player_state(e, player) == IDLE, "refused opens change nothing"
    for pos in (1, 5000, INT64_MAX, 0):  # past the end: at the end
        assert player_open(e, player, silence(ctx), pos) == 0, pos
    wait_player_state(e, player, OPEN_COMPLETED)


def case_play_states(ctx: Ctx) -> None:
    e, play = ctx.engine, _ffi.agoraish_media_player_play
    assert play(e, idle_player(ctx)) == ESTATE, "nothing opened"
    failed = idle_player(ctx)
    assert player_open(e, failed, missing(ctx)) == 0
    wait_player_state(e, failed, FAILED)
    assert play(e, failed) == ESTATE, "the open failed"
    player = opened_player(ctx)
    assert play(e, player) == 0
    assert play(e, player) == 0, "playing"
    assert _ffi.agoraish_media_player_stop(e, player) == 0
    assert play(e, player) == ESTATE, "stopped: the source is closed"


def case_pause_states(ctx: Ctx) -> None:
    e, pause = ctx.engine, _ffi.agoraish_media_player_pause
    assert pause(e, idle_player(ctx)) == ESTATE, "nothing opened"
    player = opened_player(ctx)
    assert pause(e, player) == ESTATE, "opened, not playing"
    assert _ffi.agoraish_media_player_play(e, player) == 0
    assert pause(e, player) == 0
    assert pause(e, player) == ESTATE, "paused"
    assert _ffi.agoraish_media_player_stop(e, player) == 0
    assert pause(e, player) == ESTATE, "stopped"


def case_resume_states(ctx: Ctx) -> None:
    e, resume = ctx.engine, _ffi.agoraish_media_player_resume
    assert resume(e, idle_player(ctx)) == ESTATE, "nothing opened"
    player = opened_player(ctx)
    assert resume(e, player) == ESTATE, "opened, not paused"
    assert _ffi.agoraish_media_player_play(e, player) == 0
    assert resume(e, player) == ESTATE, "playing"
    assert _ffi.agoraish_media_player_pause(e, player) == 0
    assert resume(e, player) == 0
    assert resume(e, player) == ESTATE, "playing again"


def case_stop_states(ctx: Ctx) -> None:
    e, stop = ctx.engine, _ffi.agoraish_media_player_stop
    player = idle_player(ctx)
    assert stop(e, player) == 0, "nothing opened"
    assert stop(e, player) == 0, "twice"
    player = playing_player(ctx)
    assert stop(e, player) == 0
    assert stop(e, player) == 0, "twice"
    assert player_state(e, player) == STOPPED


def case_seek_nothing_opened(ctx: Ctx) -> None:
    e, player = ctx.engine, idle_player(ctx)
    assert _ffi.agoraish_media_player_seek(e, player, 0) == ESTATE
    assert _ffi.agoraish_media_player_stop(e, player) == 0
    assert _ffi.agoraish_media_player_seek(e, player, 0) == ESTATE, "stopped"


def case_seek_positions(ctx: Ctx) -> None:
    e, player = ctx.engine, opened_player(ctx)
    for position in (-1, INT_MIN, INT64_MIN):
        assert _ffi.agoraish_media_player_seek(e, player, position) == EINVAL, position
    for position in (0, 500, 9999, INT64_MAX):  # past the end: at the end
        assert _ffi.agoraish_media_player_seek(e, player, position) == 0, position


def case_loop_counts(ctx: Ctx) -> None:
    e, player = ctx.engine, idle_player(ctx)
    for count in (-2, -3, INT_MIN):
        assert _ffi.agoraish_media_player_set_loop_count(e, player, count) == EINVAL, count
    for count in (-1, 0, 1, INT_MAX):
        assert _ffi.agoraish_media_player_set_loop_count(e, player, count) == 0, count


def position_getter_case(getter: Callable[..., int], expected: Callable[[int], bool]) -> Callable[[Ctx], None]:
    """get_duration / get_play_position: nothing opened (or stopped) -8; NULL -2; opened 0 with a plausible value."""

    def case(ctx: Ctx) -> None:
        e = ctx.engine
        idle = idle_player(ctx)
        assert out_value(getter, e, idle)[0] == ESTATE, "nothing opened"
        failed = idle_player(ctx)
        assert player_open(e, failed, missing(ctx)) == 0
        wait_player_state(e, failed, FAILED)
        assert out_value(getter, e, failed)[0] == ESTATE, "the open failed"
        player = opened_player(ctx)
        assert getter(e, player, None) == EINVAL, "NULL"
        rc, value = out_value(getter, e, player)
        assert rc == 0 and expected(value), (rc, value)
        assert _ffi.agoraish_media_player_play(e, player) == 0
        rc, value = out_value(getter, e, player)
        assert rc == 0 and expected(value), ("playing", rc, value)
        assert _ffi.agoraish_media_player_stop(e, player) == 0
        assert out_value(getter, e, player)[0] == ESTATE, "stopped: the source is closed"

    return case


case_get_duration = position_getter_case(_ffi.agoraish_media_player_get_duration, lambda ms: 9950 <= ms <= 10050)
case_get_play_position = position_getter_case(_ffi.agoraish_media_player_get_play_position,
                                              lambda ms: 0 <= ms <= 10000)


def case_get_state(ctx: Ctx) -> None:
    e, get = ctx.engine, _ffi.agoraish_media_player_get_state
    player = idle_player(ctx)
    assert get(e, player, None) == EINVAL, "NULL"
    assert out_value(get, e, player, ctype=ctypes.c_int) == (0, IDLE)
    player = opened_player(ctx)
    assert get(e, player, None) == EINVAL, "NULL, opened"
    assert out_value(get, e, player, ctype=ctypes.c_int) == (0, OPEN_COMPLETED)
    assert _ffi.agoraish_media_player_play(e, player) == 0
    assert out_value(get, e, player, ctype=ctypes.c_int) == (0, PLAYING)
    assert _ffi.agoraish_media_player_pause(e, player) == 0
    assert out_value(get, e, player, ctype=ctypes.c_int) == (0, PAUSED)
    assert _ffi.agoraish_media_player_stop(e, player) == 0
    assert out_value(get, e, player, ctype=ctypes.c_int) == (0, STOPPED)


def case_get_stream_count(ctx: Ctx) -> None:
    e, get = ctx.engine, _ffi.agoraish_media_player_get_stream_count
    assert out_value(get, e, idle_player(ctx))[0] == ESTATE, "nothing opened"
    player = opened_player(ctx)
    assert get(e, player, None) == EINVAL, "NULL"
    assert out_value(get, e, player) == (0, 1), "one audio stream"
    assert _ffi.agoraish_media_player_stop(e, player) == 0
    assert out_value(get, e, player)[0] == ESTATE, "stopped"


STREAM_INFO_SIZE = ctypes.sizeof(_ffi.PlayerStreamInfo)


def stream_info(engine: int, player: int, index: int = 0,
                size: Optional[int] = None) -> Tuple[int, Optional[_ffi.PlayerStreamInfo]]:
    """(rc, the info written) of get_stream_info with an info of struct_size `size` (None: a NULL info)."""
    if size is None:
        return _ffi.agoraish_media_player_get_stream_info(engine, player, index, None), None
    pointer = versioned(_ffi.PlayerStreamInfo(), size)
    rc = _ffi.agoraish_media_player_get_stream_info(engine, player, index, pointer)
    return rc, pointer.contents


def case_stream_info_indexes(ctx: Ctx) -> None:
    e = ctx.engine
    assert stream_info(e, idle_player(ctx), 0, STREAM_INFO_SIZE)[0] == ESTATE, "nothing opened"
    player = opened_player(ctx)
    for index in (-1, 1, 2, INT_MAX, INT64_MAX, INT64_MIN):
        assert stream_info(e, player, index, STREAM_INFO_SIZE)[0] == EINVAL, index
    rc, info = stream_info(e, player, 0, STREAM_INFO_SIZE)
    assert rc == 0 and info.stream_type == _ffi.AGORAISH_MEDIA_STREAM_TYPE_AUDIO, rc
    assert (info.stream_index, info.audio_sample_rate, info.audio_channels) == (0, 8000, 1)


def case_stream_info_struct(ctx: Ctx) -> None:
    e, player = ctx.engine, opened_player(ctx)
    assert stream_info(e, player, 0, None)[0] == EINVAL, "NULL"
    for size in (0, 4, 8, STREAM_INFO_SIZE - 8, STREAM_INFO_SIZE - 1, STREAM_INFO_SIZE + 4, UINT32_MAX):
        assert stream_info(e, player, 0, size)[0] == EINVAL, size
    for size in (STREAM_INFO_SIZE, STREAM_INFO_SIZE + 8, STREAM_INFO_SIZE + 64):
        assert stream_info(e, player, 0, size)[0] == size_rc("agoraish_player_stream_info", size), size


def case_select_audio_track(ctx: Ctx) -> None:
    e, select = ctx.engine, _ffi.agoraish_media_player_select_audio_track
    assert select(e, idle_player(ctx), 0) == ESTATE, "nothing opened"
    player = opened_player(ctx)
    for index in (-1, 1, 2, INT_MAX, INT_MIN):  # no such stream
        assert select(e, player, index) == EINVAL, index
    assert select(e, player, 0) == 0, "the audio stream"


def player_values_case(setter: Callable[[int, int, int], int], rejected, accepted,
                       getter: Optional[Callable[..., int]] = None) -> Callable[[Ctx], None]:
    """`setter(engine, player, value)`: -2 for each rejected value (and a getter, if any, keeps its
    value), 0 for each accepted one (which the getter then reports)."""

    def case(ctx: Ctx) -> None:
        e, player = ctx.engine, idle_player(ctx)
        before = out_value(getter, e, player, ctype=ctypes.c_int) if getter else None
        assert {v: setter(e, player, v) for v in rejected} == {v: EINVAL for v in rejected}
        if getter:
            assert out_value(getter, e, player, ctype=ctypes.c_int) == before, "refused values change nothing"
        for value in accepted:
            assert setter(e, player, value) == 0, value
            if getter:
                assert out_value(getter, e, player, ctype=ctypes.c_int) == (0, value), value

    return case


SPEEDS_REJECTED = (29, 401, 0, -1, -100, INT_MAX, INT_MIN)
SPEEDS_ACCEPTED = (30, 100, 200, 400)


def player_getter_case(getter: Callable[..., int], default: int) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        e, player = ctx.engine, idle_player(ctx)
        assert getter(e, player, None) == EINVAL, "NULL"
        assert out_value(getter, e, player, ctype=ctypes.c_int) == (0, default)
        player = playing_player(ctx)
        assert getter(e, player, None) == EINVAL, "NULL, playing"
        assert out_value(getter, e, player, ctype=ctypes.c_int) == (0, default), "playing"

    return case


def case_player_mute(ctx: Ctx) -> None:
    e, player = ctx.engine, idle_player(ctx)
    for muted in ANY_INTS:
        assert _ffi.agoraish_media_player_mute(e, player, muted) == 0, muted
        rc, value = out_value(_ffi.agoraish_media_player_get_mute, e, player, ctype=ctypes.c_int)
        assert rc == 0 and bool(value) == bool(muted), (muted, value)
    player = playing_player(ctx)
    assert _ffi.agoraish_media_player_mute(e, player, 1) == 0, "playing"
    assert _ffi.agoraish_media_player_mute(e, player, 0) == 0, "playing"


def set_view(engine: int, player: int, table: Optional[_ffi.VideoCanvas]) -> int:
    return _ffi.agoraish_media_player_set_view(engine, player, ref(table))


def case_player_view_null(ctx: Ctx) -> None:
    callback = _ffi.FrameCallback(lambda *args: None)
    ctx.keep.append(callback)
    e, player = ctx.engine, idle_player(ctx)
    assert set_view(e, player, None) == 0, "nothing bound"
    assert set_view(e, player, canvas()) == 0, "a NULL on_frame, nothing bound"
    assert set_view(e, player, canvas(on_frame=callback)) == 0
    assert set_view(e, player, None) == 0, "unbinds"
    assert set_view(e, player, None) == 0, "twice"
    player = playing_player(ctx)
    assert set_view(e, player, canvas(on_frame=callback)) == 0, "playing"
    assert set_view(e, player, canvas()) == 0, "a NULL on_frame unbinds, playing"


def case_player_view_struct_size(ctx: Ctx) -> None:
    callback = _ffi.FrameCallback(lambda *args: None)
    ctx.keep.append(callback)
    e, player = ctx.engine, idle_player(ctx)
    full = ctypes.sizeof(_ffi.VideoCanvas)
    for size in (0, 4, 8, 16, CANVAS_SIZE_0_5 - 1, full - 1, full + 4, UINT32_MAX):
        assert set_view(e, player, canvas(size=size)) == EINVAL, ("unbind", size)
        assert set_view(e, player, canvas(on_frame=callback, size=size)) == EINVAL, ("bind", size)
    for size in (CANVAS_SIZE_0_5, CANVAS_SIZE_0_5 + 8, full, full + 8, full + 64):
        rc = size_rc("agoraish_video_canvas", size)
        assert set_view(e, player, canvas(on_frame=callback, size=size)) == rc, ("bind", size)
        assert set_view(e, player, canvas(size=size)) == rc, ("unbind", size)
    # Fields past a 0.5 struct are not read: values there that would be -2 are ignored.
    bad = {"render_mode": 9, "view_width": 1, "view_height": 0}
    assert set_view(e, player, canvas(on_frame=callback, **bad)) == EINVAL, "read in a 0.6 struct"
    assert set_view(e, player, canvas(on_frame=callback, size=CANVAS_SIZE_0_5, **bad)) == 0, "past a 0.5 struct"


def case_player_view_modes(ctx: Ctx) -> None:
    callback = _ffi.FrameCallback(lambda *args: None)
    ctx.keep.append(callback)
    e, player = ctx.engine, idle_player(ctx)
    for mode in RENDER_MODES_REJECTED:
        assert set_view(e, player, canvas(on_frame=callback, render_mode=mode)) == EINVAL, ("render_mode", mode)
    for render_mode in (0, 1, 2, 3, 4):
        for mirror_mode in (0, 1, 2):
            table = canvas(on_frame=callback, render_mode=render_mode, mirror_mode=mirror_mode)
            assert set_view(e, player, table) == 0, (render_mode, mirror_mode)


def case_player_view_mirror_modes(ctx: Ctx) -> None:
    callback = _ffi.FrameCallback(lambda *args: None)
    ctx.keep.append(callback)
    e, player = ctx.engine, idle_player(ctx)
    got = {mode: set_view(e, player, canvas(on_frame=callback, mirror_mode=mode)) for mode in MIRROR_MODES_REJECTED}
    assert got == {mode: EINVAL for mode in MIRROR_MODES_REJECTED}, "VIDEO_MIRROR_MODE is 0..2"


def case_player_view_sizes(ctx: Ctx) -> None:
    callback = _ffi.FrameCallback(lambda *args: None)
    ctx.keep.append(callback)
    e, player = ctx.engine, idle_player(ctx)
    rejected, accepted = VIEW_SIZES_REJECTED + VIEW_SIDES_OF_1, VIEW_SIZES_ACCEPTED
    got = {size: set_view(e, player, canvas(on_frame=callback, view_width=size[0], view_height=size[1]))
           for size in (*rejected, *accepted)}
    assert got == {**{size: EINVAL for size in rejected}, **{size: 0 for size in accepted}}


def case_player_render_modes(ctx: Ctx) -> None:
    callback = _ffi.FrameCallback(lambda *args: None)
    ctx.keep.append(callback)
    e, player = ctx.engine, idle_player(ctx)
    set_mode = _ffi.agoraish_media_player_set_render_mode
    rejected = RENDER_MODES_REJECTED + (0,)
    for where in ("no canvas", "bound"):
        assert {m: set_mode(e, player, m) for m in rejected} == {m: EINVAL for m in rejected}, where
        assert {m: set_mode(e, player, m) for m in (1, 2, 3, 4)} == {m: 0 for m in (1, 2, 3, 4)}, where
        assert set_view(e, player, canvas(on_frame=callback)) == 0


def observer_struct_case(register: Callable[[int, int, object], int], struct_type, c_name: str,
                         target: Callable[[Ctx], int]) -> Callable[[Ctx], None]:
    """struct_size: too small, splitting a field or larger than any header's: -2; each minor's: 0."""

    def case(ctx: Ctx) -> None:
        e, t = ctx.engine, target(ctx)
        full = ctypes.sizeof(struct_type)
        for size in (0, 4, 8, full - 8, full - 1, full + 4, UINT32_MAX):
            assert register(e, t, versioned(struct_type(), size)) == EINVAL, size
        for size in (full, full + 8, full + 64):
            assert register(e, t, versioned(struct_type(), size)) == size_rc(c_name, size), size
        assert register(e, t, None) == 0

    return case


def observer_null_case(register: Callable[[int, int, object], int], struct_type,
                       target: Callable[[Ctx], int]) -> Callable[[Ctx], None]:
    """NULL: removes (also when none); every callback NULL; replaced by one with every callback."""

    def case(ctx: Ctx) -> None:
        e, t = ctx.engine, target(ctx)
        assert register(e, t, None) == 0, "none registered"
        assert register(e, t, None) == 0, "twice"
        assert register(e, t, versioned(struct_type())) == 0, "every callback NULL"
        table = struct_type()
        for name, ctype in struct_type._fields_:
            if name not in ("struct_size", "user_data"):
                callback = ctype(lambda *args: None)
                ctx.keep.append(callback)
                setattr(table, name, callback)
        assert register(e, t, versioned(table)) == 0, "replaced"
        assert register(e, t, None) == 0, "removes it"
        assert register(e, t, None) == 0, "twice"

    return case


def _source_observer(e: int, p: int, o) -> int:
    return _ffi.agoraish_media_player_register_player_source_observer(e, p, o)


def _audio_observer(e: int, p: int, o) -> int:
    return _ffi.agoraish_media_player_register_audio_frame_observer(e, p, o)


def _video_observer(e: int, p: int, o) -> int:
    return _ffi.agoraish_media_player_register_video_frame_observer(e, p, o)


# -- audio mixing (ABI 0.13) ------------------------------------------------------------

MIX_PLAYING, MIX_PAUSED, MIX_STOPPED, MIX_FAILED = (
    _ffi.AGORAISH_AUDIO_MIXING_STATE_PLAYING, _ffi.AGORAISH_AUDIO_MIXING_STATE_PAUSED,
    _ffi.AGORAISH_AUDIO_MIXING_STATE_STOPPED, _ffi.AGORAISH_AUDIO_MIXING_STATE_FAILED)
MIX_OK, MIX_CAN_NOT_OPEN, MIX_TOO_FREQUENT, MIX_ALL_LOOPS, MIX_BY_USER, MIX_PAUSED_BY_USER, MIX_RESUMED = (
    0, 701, 702, 723, 724, 725, 726)


class MediaWatch:
    """An event handler recording audio mixing states and finished effects."""

    def __init__(self) -> None:
        self.mixing: List[Tuple[int, int]] = []
        self.finished: List[int] = []
        self.cond = threading.Condition()
        self.on_mixing = _ffi.AudioMixingStateChangedCallback(self._on_mixing)
        self.on_finished = _ffi.AudioEffectFinishedCallback(self._on_finished)
        self.table = _ffi.EventHandlerTable(struct_size=ctypes.sizeof(_ffi.EventHandlerTable),
                                            on_audio_mixing_state_changed=self.on_mixing,
                                            on_audio_effect_finished=self.on_finished)

    def _on_mixing(self, engine, user_data, state, reason) -> None:
        with self.cond:
            self.mixing.append((state, reason))
            self.cond.notify_all()

    def _on_finished(self, engine, user_data, sound_id) -> None:
        with self.cond:
            self.finished.append(sound_id)
            self.cond.notify_all()

    def wait(self, state: int, reason: int) -> None:
        """Until (state, reason) arrives; it and those before it are then forgotten."""
        with self.cond:
            assert self.cond.wait_for(lambda: (state, reason) in self.mixing, TIMEOUT), ((state, reason), self.mixing)
            del self.mixing[:self.mixing.index((state, reason)) + 1]

    def wait_finished(self, sound_id: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: sound_id in self.finished, TIMEOUT), (sound_id, self.finished)


def watched_engine(ctx: Ctx) -> Tuple[int, MediaWatch]:
    """Another engine for the case, with a MediaWatch as its event handler."""
    watch = MediaWatch()
    ctx.keep.append(watch)
    return engine_with(ctx, event_handler=ctypes.pointer(watch.table)), watch


def start_mixing(engine: int, path: Optional[bytes], loopback: int = 0, cycle: int = 1, start_pos: int = 0) -> int:
    return _ffi.agoraish_engine_start_audio_mixing(engine, path, loopback, cycle, start_pos)


def spaced_start(engine: int, path: Optional[bytes], **fields) -> int:
    """start_mixing once the 100 ms since the previous start have passed (-12 before)."""
    import time

    time.sleep(0.11)
    return start_mixing(engine, path, **fields)


def case_mixing_paths(ctx: Ctx) -> None:
    e = ctx.engine
    for path in bad_paths(ctx) + [TOO_LONG_PATH]:
        assert start_mixing(e, path) == EINVAL, path if path is None else path[:16]
    assert _ffi.agoraish_engine_stop_audio_mixing(e) == ESTATE, "refused starts start nothing"
    engine, watch = watched_engine(ctx)
    for path in unreadable(ctx):
        assert spaced_start(engine, path) == 0, path
        watch.wait(MIX_FAILED, MIX_CAN_NOT_OPEN)
    assert spaced_start(engine, silence(ctx)) == 0
    watch.wait(MIX_PLAYING, MIX_OK)


def case_mixing_too_often(ctx: Ctx) -> None:
    engine, watch = watched_engine(ctx)
    assert start_mixing(engine, silence(ctx)) == 0
    assert start_mixing(engine, silence(ctx)) == ETOOOFTEN
    watch.wait(MIX_FAILED, MIX_TOO_FREQUENT)
    assert spaced_start(engine, silence(ctx)) == 0, "100 ms later"
    watch.wait(MIX_PLAYING, MIX_OK)


def mixing_values_case(field: str, rejected, accepted) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        e, path = ctx.engine, silence(ctx)
        assert {v: start_mixing(e, path, **{field: v}) for v in rejected} == {v: EINVAL for v in rejected}
        assert _ffi.agoraish_engine_stop_audio_mixing(e) == ESTATE, "refused starts start nothing"
        for value in accepted:
            assert spaced_start(e, path, **{field: value}) == 0, value
        assert _ffi.agoraish_engine_stop_audio_mixing(e) == 0

    return case


def case_stop_mixing(ctx: Ctx) -> None:
    engine, watch = watched_engine(ctx)
    stop = _ffi.agoraish_engine_stop_audio_mixing
    assert stop(engine) == ESTATE, "never started"
    assert start_mixing(engine, silence(ctx)) == 0
    assert stop(engine) == 0
    watch.wait(MIX_STOPPED, MIX_BY_USER)
    assert stop(engine) == ESTATE, "stopped"
    assert spaced_start(engine, silence(ctx, 0.05)) == 0
    watch.wait(MIX_STOPPED, MIX_ALL_LOOPS)
    assert stop(engine) == ESTATE, "it ended on its own"
    assert spaced_start(engine, missing(ctx)) == 0
    watch.wait(MIX_FAILED, MIX_CAN_NOT_OPEN)
    assert stop(engine) == ESTATE, "it failed"


def case_pause_mixing(ctx: Ctx) -> None:
    engine, watch = watched_engine(ctx)
    pause = _ffi.agoraish_engine_pause_audio_mixing
    assert pause(engine) == ESTATE, "never started"
    assert start_mixing(engine, silence(ctx)) == 0
    watch.wait(MIX_PLAYING, MIX_OK)
    assert pause(engine) == 0
    watch.wait(MIX_PAUSED, MIX_PAUSED_BY_USER)
    assert pause(engine) == ESTATE, "paused"
    assert _ffi.agoraish_engine_stop_audio_mixing(engine) == 0
    assert pause(engine) == ESTATE, "stopped"


def case_resume_mixing(ctx: Ctx) -> None:
    engine, watch = watched_engine(ctx)
    resume = _ffi.agoraish_engine_resume_audio_mixing
    assert resume(engine) == ESTATE, "never started"
    assert start_mixing(engine, silence(ctx)) == 0
    watch.wait(MIX_PLAYING, MIX_OK)
    assert resume(engine) == ESTATE, "playing"
    assert _ffi.agoraish_engine_pause_audio_mixing(engine) == 0
    watch.wait(MIX_PAUSED, MIX_PAUSED_BY_USER)
    assert resume(engine) == 0
    watch.wait(MIX_PLAYING, MIX_RESUMED)
    assert resume(engine) == ESTATE, "playing again"
    assert _ffi.agoraish_engine_stop_audio_mixing(engine) == 0
    assert resume(engine) == ESTATE, "stopped"


MIXING_VOLUMES_REJECTED = (-1, 101, 400, INT_MAX, INT_MIN)
MIXING_VOLUMES_ACCEPTED = (0, 1, 50, 100)


def mixing_volume_case(adjust: Callable[[int, int], int], playout: bool, publish: bool) -> Callable[[Ctx], None]:
    """-2 out of 0..100 (nothing changes); else the getters of what it sets report it, the other keeps its value."""

    def case(ctx: Ctx) -> None:
        e = ctx.engine

        def volumes() -> Tuple[int, int]:
            return (_ffi.agoraish_engine_get_audio_mixing_playout_volume(e),
                    _ffi.agoraish_engine_get_audio_mixing_publish_volume(e))

        before = volumes()
        assert {v: adjust(e, v) for v in MIXING_VOLUMES_REJECTED} == {v: EINVAL for v in MIXING_VOLUMES_REJECTED}
        assert volumes() == before, "refused values change nothing"
        for volume in MIXING_VOLUMES_ACCEPTED:
            assert adjust(e, volume) == 0, volume
            expected = (volume if playout else before[0], volume if publish else before[1])
            assert volumes() == expected, volume
        assert start_mixing(e, silence(ctx)) == 0
        assert adjust(e, 101) == EINVAL and adjust(e, 30) == 0, "with music"

    return case


def mixing_volume_getter_case(getter: Callable[[int], int]) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        e = ctx.engine
        assert 0 <= getter(e) <= 100
        assert start_mixing(e, silence(ctx)) == 0
        assert 0 <= getter(e) <= 100, "with music"

    return case


def mixing_time_case(getter: Callable[[int], int], expected: Callable[[int], bool]) -> Callable[[Ctx], None]:
    """get_audio_mixing_duration / _current_position: -8 with nothing opened; the time with music."""

    def case(ctx: Ctx) -> None:
        engine, watch = watched_engine(ctx)
        assert getter(engine) == ESTATE, "never started"
        assert start_mixing(engine, silence(ctx)) == 0
        watch.wait(MIX_PLAYING, MIX_OK)
        value = getter(engine)
        assert expected(value), value
        assert _ffi.agoraish_engine_pause_audio_mixing(engine) == 0
        watch.wait(MIX_PAUSED, MIX_PAUSED_BY_USER)
        value = getter(engine)
        assert expected(value), ("paused", value)
        assert _ffi.agoraish_engine_stop_audio_mixing(engine) == 0
        assert getter(engine) == ESTATE, "stopped"
        assert spaced_start(engine, missing(ctx)) == 0
        watch.wait(MIX_FAILED, MIX_CAN_NOT_OPEN)
        assert getter(engine) == ESTATE, "it failed"

    return case


def case_mixing_position(ctx: Ctx) -> None:
    engine, watch = watched_engine(ctx)
    set_position = _ffi.agoraish_engine_set_audio_mixing_position
    assert set_position(engine, 0) == ESTATE, "never started"
    assert start_mixing(engine, silence(ctx)) == 0
    watch.wait(MIX_PLAYING, MIX_OK)
    for position in (-1, -1000, INT_MIN):
        assert set_position(engine, position) == EINVAL, position
    for position in (0, 500, 9999, INT_MAX):  # past the end: at the end
        assert set_position(engine, position) == 0, position
    engine, watch = watched_engine(ctx)
    assert start_mixing(engine, silence(ctx)) == 0
    watch.wait(MIX_PLAYING, MIX_OK)
    assert _ffi.agoraish_engine_stop_audio_mixing(engine) == 0
    assert set_position(engine, 0) == ESTATE, "stopped"


def mixing_setting_case(setter: Callable[[int, int], int], rejected, accepted) -> Callable[[Ctx], None]:
    """A setting of the music: -2 out of range, 0 in range; without and with music."""

    def case(ctx: Ctx) -> None:
        e = ctx.engine
        for where in ("no music", "with music"):
            assert {v: setter(e, v) for v in rejected} == {v: EINVAL for v in rejected}, where
            assert {v: setter(e, v) for v in accepted} == {v: 0 for v in accepted}, where
            if where == "no music":
                assert start_mixing(e, silence(ctx)) == 0

    return case


# -- audio effects (ABI 0.13) -----------------------------------------------------------


def preload_sound(engine: int, sound_id: int, path: Optional[bytes], start_pos: int = 0) -> int:
    return _ffi.agoraish_engine_preload_effect(engine, sound_id, path, start_pos)


def play_effect(engine: int, sound_id: int, path: Optional[bytes], loop_count: int = 0, pitch: float = 1.0,
                pan: float = 0.0, gain: int = 100, publish: int = 0, start_pos: int = 0) -> int:
    return _ffi.agoraish_engine_play_effect(engine, sound_id, path, loop_count, pitch, pan, gain, publish, start_pos)


def effect_playing(engine: int, sound_id: int) -> bool:
    """Whether `sound_id` plays (the effect calls that need one playing take it)."""
    return _ffi.agoraish_engine_get_volume_of_effect(engine, sound_id) != EINVAL


def case_preload_paths(ctx: Ctx) -> None:
    e = ctx.engine
    for path in bad_paths(ctx):
        assert preload_sound(e, 1, path) == EINVAL, path
    for path in unreadable(ctx):
        assert preload_sound(e, 1, path) == EFAILED, path
    assert _ffi.agoraish_engine_unload_effect(e, 1) == EINVAL, "refused preloads keep nothing"
    assert preload_sound(e, 1, silence(ctx)) == 0
    assert preload_sound(e, 1, silence(ctx, 0.05)) == 0, "again, another file"


def case_preload_start_pos(ctx: Ctx) -> None:
    e = ctx.engine
    for pos in (-1, -1000, INT_MIN):
        assert preload_sound(e, 1, silence(ctx), pos) == EINVAL, pos
    assert _ffi.agoraish_engine_unload_effect(e, 1) == EINVAL, "refused preloads keep nothing"
    for pos in (0, 1, 5000, INT_MAX):
        assert preload_sound(e, 1, silence(ctx), pos) == 0, pos


def case_preload_sound_ids(ctx: Ctx) -> None:
    e = ctx.engine
    assert {s: preload_sound(e, s, silence(ctx)) for s in ANY_INTS} == {s: 0 for s in ANY_INTS}
    assert {s: _ffi.agoraish_engine_unload_effect(e, s) for s in ANY_INTS} == {s: 0 for s in ANY_INTS}


def case_effects_limit(ctx: Ctx) -> None:
    e, path = ctx.engine, silence(ctx)
    held = list(range(100, 100 + _ffi.AGORAISH_MAX_AUDIO_EFFECTS))
    assert {s: preload_sound(e, s, path) for s in held} == {s: 0 for s in held}
    assert preload_sound(e, 1, path) == EREFUSED, "one more than AGORAISH_MAX_AUDIO_EFFECTS"
    assert play_effect(e, 1, path) == EREFUSED, "one more, played"
    assert preload_sound(e, held[0], path) == 0, "a held id again"
    assert play_effect(e, held[0], None) == 0, "a held id, played"
    assert _ffi.agoraish_engine_unload_effect(e, held[1]) == 0
    assert play_effect(e, 1, path, loop_count=-1) == 0, "after an unload"
    assert preload_sound(e, 2, path) == EREFUSED, "playing effects count"
    assert _ffi.agoraish_engine_stop_effect(e, 1) == 0
    assert preload_sound(e, 2, path) == 0, "after a stop"


def case_play_effect_paths(ctx: Ctx) -> None:
    e = ctx.engine
    for path in (None, b""):
        assert play_effect(e, 5, path) == EINVAL, ("no path for an id not preloaded", path)
    assert play_effect(e, 5, str(ctx.tmp).encode() + b"/\xff.wav") == EINVAL, "not UTF-8"
    assert not effect_playing(e, 5), "refused plays play nothing"
    assert preload_sound(e, 5, silence(ctx)) == 0
    for path in (None, b"", silence(ctx)):
        assert play_effect(e, 5, path) == 0, ("preloaded", path)
        assert effect_playing(e, 5)
    assert _ffi.agoraish_engine_stop_all_effects(e) == 0
    # A file that fails to open ends the effect without on_audio_effect_finished.
    engine, watch = watched_engine(ctx)
    for sound_id, path in enumerate(unreadable(ctx), start=10):
        assert play_effect(engine, sound_id, path) == 0, path
        wait_until(lambda: not effect_playing(engine, sound_id), f"effect {sound_id} to end")
    assert play_effect(engine, 20, silence(ctx, 0.05)) == 0
    watch.wait_finished(20)
    assert watch.finished == [20], "only the effect that played reports"


def effect_values_case(field: str, rejected, accepted) -> Callable[[Ctx], None]:
    """play_effect with one argument out of range (-2, nothing plays), then in range (0)."""

    def case(ctx: Ctx) -> None:
        e, path = ctx.engine, silence(ctx)
        got = {repr(v): play_effect(e, 1, path, **{field: v}) for v in rejected}
        assert got == {repr(v): EINVAL for v in rejected}
        assert not effect_playing(e, 1), "refused plays play nothing"
        for value in accepted:
            assert play_effect(e, 1, path, **{field: value}) == 0, value
        assert _ffi.agoraish_engine_stop_all_effects(e) == 0

    return case


NAN, INF = float("nan"), float("inf")


def case_play_effect_sound_ids(ctx: Ctx) -> None:
    e, path = ctx.engine, silence(ctx)
    assert {s: play_effect(e, s, path) for s in ANY_INTS} == {s: 0 for s in ANY_INTS}
    assert all(effect_playing(e, s) for s in ANY_INTS)
    assert play_effect(e, 0, path) == 0, "playing: restarted"
    assert _ffi.agoraish_engine_stop_all_effects(e) == 0


def playing_effect(ctx: Ctx, sound_id: int = 1) -> int:
    """`sound_id` playing 10 s of silence on the case's engine (forever)."""
    assert play_effect(ctx.engine, sound_id, silence(ctx), loop_count=-1) == 0
    return sound_id


def effect_ids_case(call: Callable[[int, int], int], playing: bool = True,
                    preloaded: bool = True) -> Callable[[Ctx], None]:
    """`call(engine, sound_id)`: -2 for ids never used, one stopped and one unloaded, (with
    `preloaded`) one only preloaded: not playing; (with `playing`) not negative for one playing."""

    def case(ctx: Ctx) -> None:
        e = ctx.engine
        assert {s: call(e, s) for s in UNKNOWN_IDS} == {s: EINVAL for s in UNKNOWN_IDS}, "never used"
        if preloaded:
            assert preload_sound(e, 7, silence(ctx)) == 0
            assert call(e, 7) == EINVAL, "preloaded, not playing"
        sound_id = playing_effect(ctx)
        if playing:
            assert call(e, sound_id) >= 0, "playing"
        assert _ffi.agoraish_engine_stop_all_effects(e) == 0
        assert call(e, sound_id) == EINVAL, "stopped"
        assert preload_sound(e, 8, silence(ctx)) == 0
        assert play_effect(e, 8, None) == 0
        assert _ffi.agoraish_engine_unload_effect(e, 8) == 0
        assert call(e, 8) == EINVAL, "unloaded"

    return case


def case_resume_effect(ctx: Ctx) -> None:
    e, resume = ctx.engine, _ffi.agoraish_engine_resume_effect
    sound_id = playing_effect(ctx)
    assert resume(e, sound_id) == EINVAL, "playing, not paused"
    assert _ffi.agoraish_engine_pause_effect(e, sound_id) == 0
    assert resume(e, sound_id) == 0, "paused"
    assert resume(e, sound_id) == EINVAL, "playing again"


def case_pause_effect(ctx: Ctx) -> None:
    e, pause = ctx.engine, _ffi.agoraish_engine_pause_effect
    sound_id = playing_effect(ctx)
    assert pause(e, sound_id) == 0, "playing"
    assert pause(e, sound_id) == EINVAL, "paused: not playing"
    assert _ffi.agoraish_engine_resume_effect(e, sound_id) == 0
    assert pause(e, sound_id) == 0, "playing again"


def case_unload_effect(ctx: Ctx) -> None:
    e, unload = ctx.engine, _ffi.agoraish_engine_unload_effect
    assert {s: unload(e, s) for s in UNKNOWN_IDS} == {s: EINVAL for s in UNKNOWN_IDS}, "never used"
    assert preload_sound(e, 7, silence(ctx)) == 0
    assert unload(e, 7) == 0, "preloaded"
    assert unload(e, 7) == EINVAL, "twice"
    assert play_effect(e, 7, None) == EINVAL, "forgotten"
    sound_id = playing_effect(ctx)
    assert unload(e, sound_id) == 0, "playing, not preloaded"
    assert unload(e, sound_id) == EINVAL, "twice"
    assert not effect_playing(e, sound_id), "stopped"
    assert preload_sound(e, 8, silence(ctx)) == 0
    assert play_effect(e, 8, None, loop_count=-1) == 0
    assert unload(e, 8) == 0, "preloaded and playing"
    assert not effect_playing(e, 8) and unload(e, 8) == EINVAL


def all_effects_case(call: Callable[[int], int]) -> Callable[[Ctx], None]:
    """stop/pause/resume/unload_all_effects: 0 with none, twice, with some playing and preloaded."""

    def case(ctx: Ctx) -> None:
        e = ctx.engine
        assert call(e) == 0, "none"
        assert call(e) == 0, "twice"
        assert preload_sound(e, 7, silence(ctx)) == 0
        playing_effect(ctx, 1)
        playing_effect(ctx, 2)
        assert call(e) == 0, "some"
        assert call(e) == 0, "twice"

    return case


def case_stop_all_effects(ctx: Ctx) -> None:
    all_effects_case(_ffi.agoraish_engine_stop_all_effects)(ctx)
    assert not effect_playing(ctx.engine, 1) and _ffi.agoraish_engine_stop_effect(ctx.engine, 1) == EINVAL
    assert play_effect(ctx.engine, 7, None) == 0, "preloads are kept"


def case_unload_all_effects(ctx: Ctx) -> None:
    all_effects_case(_ffi.agoraish_engine_unload_all_effects)(ctx)
    assert not effect_playing(ctx.engine, 1), "stopped"
    assert _ffi.agoraish_engine_unload_effect(ctx.engine, 7) == EINVAL, "preloads forgotten"
    assert play_effect(ctx.engine, 7, None) == EINVAL, "preloads forgotten"


def case_effects_volume(ctx: Ctx) -> None:
    e = ctx.engine
    before = _ffi.agoraish_engine_get_effects_volume(e)
    assert 0 <= before <= 100
    rejected = MIXING_VOLUMES_REJECTED
    assert {v: _ffi.agoraish_engine_set_effects_volume(e, v) for v in rejected} == {v: EINVAL for v in rejected}
    assert _ffi.agoraish_engine_get_effects_volume(e) == before, "refused values change nothing"
    for volume in MIXING_VOLUMES_ACCEPTED:
        assert _ffi.agoraish_engine_set_effects_volume(e, volume) == 0, volume
        assert _ffi.agoraish_engine_get_effects_volume(e) == volume, volume


def case_get_effects_volume(ctx: Ctx) -> None:
    e = ctx.engine
    assert 0 <= _ffi.agoraish_engine_get_effects_volume(e) <= 100
    playing_effect(ctx)
    assert 0 <= _ffi.agoraish_engine_get_effects_volume(e) <= 100, "an effect playing"


def case_volume_of_effect(ctx: Ctx) -> None:
    e, sound_id = ctx.engine, playing_effect(ctx)
    set_volume, get_volume = _ffi.agoraish_engine_set_volume_of_effect, _ffi.agoraish_engine_get_volume_of_effect
    before = get_volume(e, sound_id)
    assert 0 <= before <= 100
    rejected = MIXING_VOLUMES_REJECTED
    assert {v: set_volume(e, sound_id, v) for v in rejected} == {v: EINVAL for v in rejected}
    assert get_volume(e, sound_id) == before, "refused values change nothing"
    for volume in MIXING_VOLUMES_ACCEPTED:
        assert set_volume(e, sound_id, volume) == 0, volume
        assert get_volume(e, sound_id) == volume, volume


def case_effect_duration(ctx: Ctx) -> None:
    e, duration = ctx.engine, _ffi.agoraish_engine_get_effect_duration
    for path in bad_paths(ctx):
        assert duration(e, path) == EINVAL, path
    for path in unreadable(ctx):
        assert duration(e, path) == EFAILED, path
    assert 9950 <= duration(e, silence(ctx)) <= 10050
    assert 0 <= duration(e, silence(ctx, 0.05)) <= 100


def case_effect_position(ctx: Ctx) -> None:
    e, sound_id = ctx.engine, playing_effect(ctx)
    set_position = _ffi.agoraish_engine_set_effect_position
    for pos in (-1, -1000, INT_MIN):
        assert set_position(e, sound_id, pos) == EINVAL, pos
    for pos in (0, 500, 9999, INT_MAX):  # past the end: at the end (the effect loops)
        assert set_position(e, sound_id, pos) == 0, pos


def case_effect_current_position(ctx: Ctx) -> None:
    e, sound_id = ctx.engine, playing_effect(ctx)
    assert 0 <= _ffi.agoraish_engine_get_effect_current_position(e, sound_id) <= 10000


# -- the media recorder (ABI 0.13) ------------------------------------------------------

RECORDER_INFO_SIZE = ctypes.sizeof(_ffi.RecorderStreamInfo)
RECORDER_CONFIG_SIZE = ctypes.sizeof(_ffi.MediaRecorderConfiguration)


def recorder_info(channel: Optional[bytes] = b"bad-input-rec", uid: int = 0, type: int = 0,
                  struct_size: Optional[int] = None) -> _ffi.RecorderStreamInfo:
    return _ffi.RecorderStreamInfo(struct_size=RECORDER_INFO_SIZE if struct_size is None else struct_size,
                                   channel_id=channel, uid=uid, type=type)


def new_recorder(engine: int, info: Optional[_ffi.RecorderStreamInfo] = None) -> Tuple[int, int]:
    recorder = ctypes.c_int(-1)
    info = recorder_info() if info is None else info
    rc = _ffi.agoraish_engine_create_media_recorder(engine, ctypes.byref(info), ctypes.byref(recorder))
    return rc, recorder.value


def recorder(ctx: Ctx, engine: Optional[int] = None) -> int:
    """A new recorder of the local user (of the case's engine unless given)."""
    rc, recorder_id = new_recorder(ctx.engine if engine is None else engine)
    assert rc == 0 and recorder_id >= 1, (rc, recorder_id)
    return recorder_id


def recorder_config(ctx: Ctx, name: str = "rec.mp4", struct_size: Optional[int] = None,
                    **fields) -> _ffi.MediaRecorderConfiguration:
    """A configuration writing `name` in the case's scratch directory (zero fields: the defaults)."""
    config = _ffi.MediaRecorderConfiguration(storage_path=str(ctx.tmp / name).encode())
    config.struct_size = RECORDER_CONFIG_SIZE if struct_size is None else struct_size
    for key, value in fields.items():
        setattr(config, key, value)
    return config


def start_media_recording(engine: int, recorder_id: int, config: Optional[_ffi.MediaRecorderConfiguration]) -> int:
    return _ffi.agoraish_media_recorder_start_recording(engine, recorder_id, ref(config))


def recorder_ids_case(call: Callable[[Ctx, int, int], int]) -> Callable[[Ctx], None]:
    """`call(ctx, engine, recorder_id)` (valid arguments otherwise) with ids never issued, a destroyed
    recorder's and one only another engine has: -2."""

    def case(ctx: Ctx) -> None:
        e = ctx.engine
        assert {r: call(ctx, e, r) for r in UNKNOWN_IDS} == {r: EINVAL for r in UNKNOWN_IDS}, "never issued"
        recorder_id = recorder(ctx)
        assert _ffi.agoraish_engine_destroy_media_recorder(e, recorder_id) == 0
        assert call(ctx, e, recorder_id) == EINVAL, "a destroyed recorder"
        other = engine_with(ctx)
        theirs = [recorder(ctx, other), recorder(ctx, other)]
        assert call(ctx, e, theirs[1]) == EINVAL, "a recorder of another engine"

    return case


#: Each function taking a recorder id, called with valid arguments but the recorder id.
RECORDER_CALLS: Dict[str, Callable[[Ctx, int, int], int]] = {
    "agoraish_media_recorder_set_observer": lambda ctx, e, r: _ffi.agoraish_media_recorder_set_observer(e, r, None),
    "agoraish_media_recorder_start_recording": lambda ctx, e, r: start_media_recording(e, r, recorder_config(ctx)),
    "agoraish_media_recorder_stop_recording": lambda ctx, e, r: _ffi.agoraish_media_recorder_stop_recording(e, r),
    "agoraish_engine_destroy_media_recorder": lambda ctx, e, r: _ffi.agoraish_engine_destroy_media_recorder(e, r),
}


def case_create_recorder_info(ctx: Ctx) -> None:
    e = ctx.engine
    recorder_id = ctypes.c_int(-1)
    assert _ffi.agoraish_engine_create_media_recorder(e, None, ctypes.byref(recorder_id)) == EINVAL, "NULL"
    for size in (0, 4, 8, RECORDER_INFO_SIZE - 8, RECORDER_INFO_SIZE - 1, RECORDER_INFO_SIZE + 4, UINT32_MAX):
        pointer = versioned(recorder_info(), size)
        assert _ffi.agoraish_engine_create_media_recorder(e, pointer, ctypes.byref(recorder_id)) == EINVAL, size
    for size in (RECORDER_INFO_SIZE, RECORDER_INFO_SIZE + 8, RECORDER_INFO_SIZE + 64):
        pointer = versioned(recorder_info(), size)
        rc = _ffi.agoraish_engine_create_media_recorder(e, pointer, ctypes.byref(recorder_id))
        assert rc == size_rc("agoraish_recorder_stream_info", size), size
        if rc == 0:
            assert _ffi.agoraish_engine_destroy_media_recorder(e, recorder_id.value) == 0
    assert recorder_id.value >= 1


def case_create_recorder_channels(ctx: Ctx) -> None:
    e = ctx.engine
    for channel in [None, b"bad-\xff", *BAD_CHANNEL_NAMES]:
        assert new_recorder(e, recorder_info(channel)) == (EINVAL, -1), channel
    for channel in (b"a", b"a" * 63, ALLOWED_CHANNEL_CHARS):
        rc, recorder_id = new_recorder(e, recorder_info(channel))
        assert rc == 0, channel
        assert _ffi.agoraish_engine_destroy_media_recorder(e, recorder_id) == 0


def case_create_recorder_types(ctx: Ctx) -> None:
    e = ctx.engine
    assert new_recorder(e, recorder_info(type=1)) == (ENOTSUP, -1), "PREVIEW"
    for kind in (-1, 2, 3, INT_MAX, INT_MIN):  # no RECORDER_STREAM_TYPE
        assert new_recorder(e, recorder_info(type=kind)) == (EINVAL, -1), kind
    assert new_recorder(e, recorder_info(type=0))[0] == 0, "RTC"


def case_create_recorder_uids(ctx: Ctx) -> None:
    e = ctx.engine
    for uid in (0, 1, 12345, UINT32_MAX):
        rc, recorder_id = new_recorder(e, recorder_info(uid=uid))
        assert rc == 0 and recorder_id >= 1, uid


def case_create_recorder_ids(ctx: Ctx) -> None:
    e = ctx.engine
    assert _ffi.agoraish_engine_create_media_recorder(e, ctypes.byref(recorder_info()), None) == EINVAL, "NULL"
    recorders = [new_recorder(e) for _ in range(_ffi.AGORAISH_MAX_MEDIA_RECORDERS)]
    assert all(rc == 0 and r >= 1 for rc, r in recorders) and len({r for _, r in recorders}) == len(recorders)
    assert new_recorder(e) == (EREFUSED, -1), "one more than AGORAISH_MAX_MEDIA_RECORDERS"
    assert _ffi.agoraish_engine_destroy_media_recorder(e, recorders[0][1]) == 0
    rc, again = new_recorder(e)
    assert rc == 0 and again >= 1 and again not in {r for _, r in recorders[1:]}, ("after a destroy", rc, again)


def _recorder_observer(e: int, r: int, o) -> int:
    return _ffi.agoraish_media_recorder_set_observer(e, r, o)


class RecorderWatch:
    """A recorder observer recording (state, reason) pairs."""

    def __init__(self) -> None:
        self.states: List[Tuple[int, int]] = []
        self.cond = threading.Condition()
        self.callback = _ffi.RecorderStateChangedCallback(self._on_state)
        self.table = _ffi.MediaRecorderObserverTable(struct_size=ctypes.sizeof(_ffi.MediaRecorderObserverTable),
                                                     on_recorder_state_changed=self.callback)

    def _on_state(self, engine, user_data, recorder_id, channel_id, uid, state, reason) -> None:
        with self.cond:
            self.states.append((state, reason))
            self.cond.notify_all()

    def wait(self, state: int, reason: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: (state, reason) in self.states, TIMEOUT), ((state, reason), self.states)


def case_start_recording_config(ctx: Ctx) -> None:
    e, recorder_id = ctx.engine, recorder(ctx)
    assert start_media_recording(e, recorder_id, None) == EINVAL, "NULL"
    for size in (0, 4, 8, RECORDER_CONFIG_SIZE - 8, RECORDER_CONFIG_SIZE - 1, RECORDER_CONFIG_SIZE + 4, UINT32_MAX):
        pointer = versioned(recorder_config(ctx), size)
        assert _ffi.agoraish_media_recorder_start_recording(e, recorder_id, pointer) == EINVAL, size
    assert _ffi.agoraish_media_recorder_stop_recording(e, recorder_id) == ESTATE, "refused starts record nothing"
    for size in (RECORDER_CONFIG_SIZE, RECORDER_CONFIG_SIZE + 8, RECORDER_CONFIG_SIZE + 64):
        pointer = versioned(recorder_config(ctx), size)
        rc = _ffi.agoraish_media_recorder_start_recording(e, recorder_id, pointer)
        assert rc == size_rc("agoraish_media_recorder_configuration", size), size
        if rc == 0:
            assert _ffi.agoraish_media_recorder_stop_recording(e, recorder_id) == 0


def case_start_recording_paths(ctx: Ctx) -> None:
    e, recorder_id, watch = ctx.engine, recorder(ctx), RecorderWatch()
    ctx.keep.append(watch)
    for path in bad_paths(ctx):
        assert start_media_recording(e, recorder_id, recorder_config(ctx, storage_path=path)) == EINVAL, path
    assert _ffi.agoraish_media_recorder_stop_recording(e, recorder_id) == ESTATE, "refused starts record nothing"
    assert _ffi.agoraish_media_recorder_set_observer(e, recorder_id, ctypes.byref(watch.table)) == 0
    cannot_write = str(ctx.tmp / "missing" / "rec.mp4").encode()
    assert start_media_recording(e, recorder_id, recorder_config(ctx, storage_path=cannot_write)) == 0
    watch.wait(_ffi.AGORAISH_RECORDER_STATE_ERROR, _ffi.AGORAISH_RECORDER_REASON_WRITE_FAILED)
    assert _ffi.agoraish_media_recorder_stop_recording(e, recorder_id) == ESTATE, "nothing is recorded"
    assert start_media_recording(e, recorder_id, recorder_config(ctx)) == 0
    assert (ctx.tmp / "rec.mp4").exists(), "created by the call"
    watch.wait(_ffi.AGORAISH_RECORDER_STATE_START, _ffi.AGORAISH_RECORDER_REASON_NONE)
    assert _ffi.agoraish_media_recorder_stop_recording(e, recorder_id) == 0


#: (field, rejected (-2), accepted): the other fields valid (zero: the defaults).
RECORDER_FIELDS: List[Tuple[str, Tuple[int, ...], Tuple[int, ...]]] = [
    ("stream_type", (-1, 4, 7, INT_MAX, INT_MIN), (0, 1, 2, 3)),
    ("max_duration_ms", (-1, -120000, INT_MIN), (0, 1000, 120000, INT_MAX)),
    ("recorder_info_update_interval", (-1, 1, 999, 10001, INT_MAX, INT_MIN), (0, 1000, 5000, 10000)),
    ("width", (-2, 2, 14, 15, 17, 639, 4097, 4098, INT_MAX, INT_MIN), (16, 18, 640, 4096)),
    ("height", (-2, 2, 14, 15, 17, 359, 4097, 4098, INT_MAX, INT_MIN), (16, 18, 360, 4096)),
    ("fps", (-1, 61, 120, INT_MAX, INT_MIN), (0, 1, 30, 60)),
    ("sample_rate", (-1, 8000, 11025, 22050, 96000, INT_MAX), (0, 16000, 32000, 44100, 48000)),
    ("channel_num", (-1, 3, 8, INT_MAX, INT_MIN), (0, 1, 2)),
]


def recorder_field_case(field: str, rejected, accepted) -> Callable[[Ctx], None]:
    def case(ctx: Ctx) -> None:
        e, recorder_id = ctx.engine, recorder(ctx)
        # A size is given with its other side valid.
        other = {"width": {"height": 720}, "height": {"width": 1280}}.get(field, {})
        for value in rejected:
            config = recorder_config(ctx, **{field: value}, **other)
            assert start_media_recording(e, recorder_id, config) == EINVAL, value
        assert _ffi.agoraish_media_recorder_stop_recording(e, recorder_id) == ESTATE, "refused starts record nothing"
        for value in accepted:
            assert start_media_recording(e, recorder_id, recorder_config(ctx, **{field: value}, **other)) == 0, value
            assert _ffi.agoraish_media_recorder_stop_recording(e, recorder_id) == 0, value

    return case


def case_recorder_containers(ctx: Ctx) -> None:
    e, recorder_id = ctx.engine, recorder(ctx)
    for container in (-1, 2, 3, INT_MAX, INT_MIN):
        config = recorder_config(ctx, container_format=container)
        assert start_media_recording(e, recorder_id, config) == ENOTSUP, container
    for container in (0, 1):  # 0 means MP4
        assert start_media_recording(e, recorder_id, recorder_config(ctx, container_format=container)) == 0, container
        assert _ffi.agoraish_media_recorder_stop_recording(e, recorder_id) == 0


def case_start_recording_twice(ctx: Ctx) -> None:
    e, recorder_id = ctx.engine, recorder(ctx)
    assert start_media_recording(e, recorder_id, recorder_config(ctx)) == 0
    assert start_media_recording(e, recorder_id, recorder_config(ctx, "other.mp4")) == ESTATE, "already recording"
    assert _ffi.agoraish_media_recorder_stop_recording(e, recorder_id) == 0
    assert start_media_recording(e, recorder_id, recorder_config(ctx, "other.mp4")) == 0, "again after a stop"
    assert _ffi.agoraish_media_recorder_stop_recording(e, recorder_id) == 0


def case_stop_recording_states(ctx: Ctx) -> None:
    e, recorder_id = ctx.engine, recorder(ctx)
    stop = _ffi.agoraish_media_recorder_stop_recording
    assert stop(e, recorder_id) == ESTATE, "never started"
    assert start_media_recording(e, recorder_id, recorder_config(ctx)) == 0
    assert stop(e, recorder_id) == 0
    assert stop(e, recorder_id) == ESTATE, "twice"


def case_destroy_recorder(ctx: Ctx) -> None:
    e, destroy = ctx.engine, _ffi.agoraish_engine_destroy_media_recorder
    recorder_id = recorder(ctx)
    assert destroy(e, recorder_id) == 0
    assert destroy(e, recorder_id) == EINVAL, "twice"
    recorder_id = recorder(ctx)
    assert start_media_recording(e, recorder_id, recorder_config(ctx)) == 0
    assert destroy(e, recorder_id) == 0, "recording"
    assert destroy(e, recorder_id) == EINVAL, "twice"


# -- voice processing and voice effects (ABI 0.14) --------------------------------------

SCENARIOS = tuple(abi_header.enum_members("agoraish_audio_scenario").values())
BEAUTIFIERS = tuple(abi_header.enum_members("agoraish_voice_beautifier_preset").values())
AUDIO_EFFECTS = tuple(abi_header.enum_members("agoraish_audio_effect_preset").values())
CONVERSIONS = tuple(abi_header.enum_members("agoraish_voice_conversion_preset").values())
HEADPHONE_PRESETS = tuple(abi_header.enum_members("agoraish_headphone_equalizer_preset").values())
SINGING, KTV = _ffi.AGORAISH_SINGING_BEAUTIFIER, _ffi.AGORAISH_ROOM_ACOUSTICS_KTV
VOICE_3D, SURROUND = _ffi.AGORAISH_ROOM_ACOUSTICS_3D_VOICE, _ffi.AGORAISH_ROOM_ACOUSTICS_VIRTUAL_SURROUND_SOUND
PITCH_CORRECTION = _ffi.AGORAISH_PITCH_CORRECTION
#: Numbers that are no preset: beside OFF, next to members (after the last of a group, in a
#: gap), and each family's members for the others.
NOT_PRESETS = (1, -1, 0x100, INT_MAX, INT_MIN, 0x01000000, 0x02000000, 0x03000000, 0x04000000)
NOT_BEAUTIFIERS = NOT_PRESETS + (0x01010101, 0x01010400, 0x01020200, 0x01030900, 0x01040200, 0x01050100,
                                 KTV, _ffi.AGORAISH_VOICE_CHANGER_NEUTRAL)
NOT_AUDIO_EFFECTS = NOT_PRESETS + (0x02010A00, 0x02010C00, 0x02010E00, 0x02020800, 0x02030300, 0x02040200,
                                   0x02050100, SINGING, _ffi.AGORAISH_VOICE_CHANGER_NEUTRAL)
NOT_CONVERSIONS = NOT_PRESETS + (0x03010500, 0x03020C00, 0x03030100, SINGING, KTV,
                                 _ffi.AGORAISH_VOICE_CHANGER_EFFECT_UNCLE)
NOT_HEADPHONE_PRESETS = NOT_PRESETS + (0x04000003, 0x04000100, 0x05000001, SINGING)


def voice_values_case(setter: Callable[[int, object], int], rejected, accepted) -> Callable[[Ctx], None]:
    """`setter(engine, value)`: -2 for each rejected value, 0 for each accepted one; outside and in a call."""

    def case(ctx: Ctx) -> None:
        for where, e in (("in no call", ctx.engine), ("in a call", connected_engine(ctx))):
            assert {repr(v): setter(e, v) for v in rejected} == {repr(v): EINVAL for v in rejected}, where
            assert {repr(v): setter(e, v) for v in accepted} == {repr(v): 0 for v in accepted}, where

    return case


def case_ains_enabled(ctx: Ctx) -> None:
    set_ains = _ffi.agoraish_engine_set_ains_mode
    assert {v: set_ains(ctx.engine, v, 0) for v in ANY_INTS} == {v: 0 for v in ANY_INTS}
    assert {v: set_ains(ctx.engine, v, 3) for v in ANY_INTS if v} == {v: EINVAL for v in ANY_INTS if v}, "mode 3"


def case_ains_mode_when_disabled(ctx: Ctx) -> None:
    # "mode ... (checked even when disabling)".
    modes = (3, -1, INT_MAX, INT_MIN)
    assert {m: _ffi.agoraish_engine_set_ains_mode(ctx.engine, 0, m) for m in modes} == {m: EINVAL for m in modes}
    assert _ffi.agoraish_engine_set_ains_mode(ctx.engine, 0, 2) == 0


def case_track_processing_ids(ctx: Ctx) -> None:
    enable = _ffi.agoraish_engine_enable_custom_audio_track_processing
    e = ctx.engine
    assert {t: enable(e, t, 1) for t in UNKNOWN_TRACKS} == {t: EINVAL for t in UNKNOWN_TRACKS}, "never created"
    rc, theirs = new_audio_track(engine_with(ctx))
    assert rc == 0 and enable(e, theirs, 1) == EINVAL, "a track of another engine"
    rc, direct = new_audio_track(e, _ffi.AGORAISH_AUDIO_TRACK_DIRECT)
    assert rc == 0
    assert (enable(e, direct, 1), enable(e, direct, 0)) == (EINVAL, EINVAL), "a direct track"
    rc, mixable = new_audio_track(e, _ffi.AGORAISH_AUDIO_TRACK_MIXABLE)
    assert rc == 0
    assert (enable(e, mixable, 1), enable(e, mixable, 0)) == (0, 0), "a mixable track"
    assert _ffi.agoraish_engine_destroy_custom_audio_track(e, mixable) == 0
    assert enable(e, mixable, 1) == EINVAL, "a destroyed track"


def case_track_processing_enabled(ctx: Ctx) -> None:
    enable = _ffi.agoraish_engine_enable_custom_audio_track_processing
    _, track = new_audio_track(ctx.engine)
    assert {v: enable(ctx.engine, track, v) for v in ANY_INTS} == {v: 0 for v in ANY_INTS}
    assert enable(ctx.engine, track, 1) == 0, "twice"


def beautifier_parameters(e: int, preset: int, param1: int, param2: int) -> int:
    return _ffi.agoraish_engine_set_voice_beautifier_parameters(e, preset, param1, param2)


def effect_parameters(e: int, preset: int, param1: int, param2: int) -> int:
    return _ffi.agoraish_engine_set_audio_effect_parameters(e, preset, param1, param2)


def parameters_case(call: Callable[[int, int, int, int], int], rejected, accepted) -> Callable[[Ctx], None]:
    """`call(engine, preset, param1, param2)` for each (preset, param1, param2): -2 for the rejected, 0 for
    the accepted; outside and in a call."""
    return voice_values_case(lambda e, args: call(e, *args), rejected, accepted)


def other_presets(members, *taking: int) -> Tuple[int, ...]:
    """The members of a preset enum but OFF and those `taking` parameters."""
    return tuple(p for p in members if p and p not in taking)


#: Presets that take no parameters accept (0, 0) only; OFF and other values are -2.
case_beautifier_parameters_other_presets = parameters_case(
    beautifier_parameters,
    [(p, v, 0) for p in other_presets(BEAUTIFIERS, SINGING) for v in (1, -1)] + [(0, 0, 0), (0, 1, 1)],
    [(p, 0, 0) for p in other_presets(BEAUTIFIERS, SINGING)] + [(SINGING, 1, 1)])
case_effect_parameters_other_presets = parameters_case(
    effect_parameters,
    [(p, 0, v) for p in other_presets(AUDIO_EFFECTS, VOICE_3D, PITCH_CORRECTION) for v in (1, -1)] + [(0, 0, 0)],
    [(p, 0, 0) for p in other_presets(AUDIO_EFFECTS, VOICE_3D, PITCH_CORRECTION)] + [(VOICE_3D, 10, 0)])
#: Virtual surround takes no parameters.
case_surround_param1 = parameters_case(
    effect_parameters, [(SURROUND, v, 0) for v in (-1, 1, 10, 60, 61, INT_MAX, INT_MIN)], [(SURROUND, 0, 0)])
#: param2 of 3D voice is 0.
case_effect_param2_unused = parameters_case(
    effect_parameters, [(VOICE_3D, 10, v) for v in ANY_INTS if v], [(VOICE_3D, 10, 0)])


def case_reverb_values(ctx: Ctx) -> None:
    # (key, values out of its range, values in it): the ranges of agoraish_audio_reverb_type.
    ranges = ((0, (-21, 11), (-20, 0, 10)), (1, (-21, 11), (-20, 0, 10)), (2, (-1, 101), (0, 50, 100)),
              (3, (-1, 201), (0, 100, 200)), (4, (-1, 101), (0, 50, 100)))
    reverb = _ffi.agoraish_engine_set_local_voice_reverb
    for where, e in (("in no call", ctx.engine), ("in a call", connected_engine(ctx))):
        for key, rejected, accepted in ranges:
            rejected += (INT_MAX, INT_MIN)
            assert {v: reverb(e, key, v) for v in rejected} == {v: EINVAL for v in rejected}, (where, key)
            assert {v: reverb(e, key, v) for v in accepted} == {v: 0 for v in accepted}, (where, key)


# -- spatial audio (ABI 0.14) ----------------------------------------------------------------

#: The most remote users with a position at once: the spatial audio engine's, and apart from
#: them set_remote_voice_position's.
MAX_POSITIONS = 4096


def vec(x: float = 0.0, y: float = 0.0, z: float = 0.0):
    return (ctypes.c_float * 3)(x, y, z)


FORWARD, RIGHT, UP = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
#: Vectors no call takes: NaN or an infinity in each coordinate.
NOT_FINITE = [(NAN, 0.0, 0.0), (0.0, INF, 0.0), (0.0, 0.0, -INF), (INF, INF, INF)]


def initialized(engine: int) -> int:
    """`engine`, its spatial audio engine initialized."""
    assert _ffi.agoraish_spatial_audio_initialize(engine) == 0
    return engine


def spatial(ctx: Ctx, engine: Optional[int] = None) -> int:
    """The case's engine (or `engine`) with its spatial audio engine initialized."""
    return initialized(ctx.engine if engine is None else engine)


def self_position(e: int, position=(0.0, 0.0, 0.0), forward=FORWARD, right=RIGHT, up=UP) -> int:
    """update_self_position with each vector a tuple or None (NULL)."""
    vectors = [None if v is None else vec(*v) for v in (position, forward, right, up)]
    return _ffi.agoraish_spatial_audio_update_self_position(e, *vectors)


def remote_position(e: int, uid: int = 7, position=(1.0, 2.0, 0.0), forward=None) -> int:
    return _ffi.agoraish_spatial_audio_update_remote_position(
        e, uid, None if position is None else vec(*position), None if forward is None else vec(*forward))


def player_position(e: int, player: int, position=(1.0, 2.0, 0.0), forward=None) -> int:
    return _ffi.agoraish_spatial_audio_update_player_position(
        e, player, None if position is None else vec(*position), None if forward is None else vec(*forward))


#: Each spatial function but initialize and release, called with valid arguments (for -3).
SPATIAL_CALLS: Dict[str, Callable[[int], int]] = {
    "agoraish_spatial_audio_update_self_position": self_position,
    "agoraish_spatial_audio_update_remote_position": remote_position,
    "agoraish_spatial_audio_remove_remote_position": lambda e: _ffi.agoraish_spatial_audio_remove_remote_position(
        e, 7),
    "agoraish_spatial_audio_clear_remote_positions": _ffi.agoraish_spatial_audio_clear_remote_positions,
    "agoraish_spatial_audio_set_audio_recv_range": lambda e: _ffi.agoraish_spatial_audio_set_audio_recv_range(
        e, 50.0),
    "agoraish_spatial_audio_set_distance_unit": lambda e: _ffi.agoraish_spatial_audio_set_distance_unit(e, 1.0),
    "agoraish_spatial_audio_set_max_audio_recv_count": lambda e: (
        _ffi.agoraish_spatial_audio_set_max_audio_recv_count(e, 16)),
    "agoraish_spatial_audio_mute_local_audio_stream": lambda e: (
        _ffi.agoraish_spatial_audio_mute_local_audio_stream(e, 1)),
    "agoraish_spatial_audio_mute_all_remote_audio_streams": lambda e: (
        _ffi.agoraish_spatial_audio_mute_all_remote_audio_streams(e, 1)),
    "agoraish_spatial_audio_mute_remote_audio_stream": lambda e: (
        _ffi.agoraish_spatial_audio_mute_remote_audio_stream(e, 7, 1)),
}


def not_initialized_case(call: Callable[[int], int]) -> Callable[[Ctx], None]:
    """`call(engine)` (valid arguments): -3 before initialize, 0 once initialized, -3 again after release."""

    def case(ctx: Ctx) -> None:
        e = ctx.engine
        assert call(e) == ENOTREADY, "never initialized"
        assert _ffi.agoraish_spatial_audio_release(e) == 0
        assert call(e) == ENOTREADY, "released, never initialized"
        assert call(spatial(ctx)) == 0, "initialized"
        assert _ffi.agoraish_spatial_audio_release(e) == 0
        assert call(e) == ENOTREADY, "released"
        assert call(spatial(ctx)) == 0, "initialized again"

    return case


def case_player_position_not_initialized(ctx: Ctx) -> None:
    player = idle_player(ctx)
    not_initialized_case(lambda e: player_position(e, player))(ctx)


def case_spatial_initialize(ctx: Ctx) -> None:
    init = _ffi.agoraish_spatial_audio_initialize
    assert init(ctx.engine) == 0
    assert init(ctx.engine) == 0, "again while running"
    assert self_position(ctx.engine) == 0
    assert _ffi.agoraish_spatial_audio_release(ctx.engine) == 0
    assert init(ctx.engine) == 0, "after a release"
    connected = connected_engine(ctx)
    assert init(connected) == 0, "in a call"
    assert remote_position(connected) == 0, "in a call"


def case_spatial_release(ctx: Ctx) -> None:
    release = _ffi.agoraish_spatial_audio_release
    assert (release(ctx.engine), release(ctx.engine)) == (0, 0), "never initialized, twice"
    e = spatial(ctx)
    assert remote_position(e) == 0
    assert (release(e), release(e)) == (0, 0), "initialized, twice"
    assert self_position(e) == ENOTREADY, "released"
    connected = spatial(ctx, connected_engine(ctx))
    assert remote_position(connected) == 0
    assert release(connected) == 0, "in a call"


def self_vector_case(index: int) -> Callable[[Ctx], None]:
    """update_self_position's vector `index` (0 position, 1..3 the axes): NULL and non-finite
    values: -2; a zero axis: -2; any finite position and axes of any length but zero: 0."""

    def with_vector(e: int, v) -> int:
        vectors = [(0.0, 0.0, 0.0), FORWARD, RIGHT, UP]
        vectors[index] = v
        return self_position(e, *vectors)

    def case(ctx: Ctx) -> None:
        e = spatial(ctx)
        if index == 0:
            rejected, accepted = [None] + NOT_FINITE, [(0.0, 0.0, 0.0), (-5.0, 3.0, 1e30)]
        else:
            axis = (FORWARD, RIGHT, UP)[index - 1]
            rejected = [None] + NOT_FINITE + [(0.0, 0.0, 0.0), (-0.0, 0.0, -0.0)]
            accepted = [axis, tuple(2.5 * c for c in axis), tuple(1e-3 * c for c in axis)]
        assert {repr(v): with_vector(e, v) for v in rejected} == {repr(v): EINVAL for v in rejected}
        assert {repr(v): with_vector(e, v) for v in accepted} == {repr(v): 0 for v in accepted}

    return case


def case_remote_position_uids(ctx: Ctx) -> None:
    e = spatial(ctx)
    assert remote_position(e, 0) == EINVAL, "uid 0"
    for uid in (1, 12345, UINT32_MAX):  # users that have not joined (yet)
        assert remote_position(e, uid) == 0, uid
        assert remote_position(e, uid, position=(3.0, -1.0, 0.5)) == 0, ("again", uid)


def remote_vector_case(forward: bool) -> Callable[[Ctx], None]:
    """update_remote_position's position or forward: NULL (position only) and non-finite: -2; finite: 0;
    a NULL forward: 0."""

    def case(ctx: Ctx) -> None:
        e = spatial(ctx)
        call = (lambda v: remote_position(e, forward=v)) if forward else (lambda v: remote_position(e, position=v))
        rejected = NOT_FINITE + ([] if forward else [None])
        if forward:  # a zero facing is left out: the header says nothing of it (the listener's axes: -2)
            accepted = [None, FORWARD, (0.0, -2.0, 0.0), (-5.0, 3.0, 1e30)]
        else:
            accepted = [(0.0, 0.0, 0.0), (-5.0, 3.0, 1e30)]
        assert {repr(v): call(v) for v in rejected} == {repr(v): EINVAL for v in rejected}
        assert {repr(v): call(v) for v in accepted} == {repr(v): 0 for v in accepted}

    return case


def case_remote_positions_limit(ctx: Ctx) -> None:
    """4096 users with a position, then -5 for another; those 4096 again: 0; room again after a
    removal and after a clear."""
    e = spatial(ctx)
    codes = [remote_position(e, uid) for uid in range(1, MAX_POSITIONS + 1)]
    assert codes == [0] * MAX_POSITIONS
    assert remote_position(e, MAX_POSITIONS + 1) == EREFUSED, "a 4097th user"
    assert remote_position(e, UINT32_MAX) == EREFUSED, "a 4097th user"
    assert (remote_position(e, 1), remote_position(e, MAX_POSITIONS)) == (0, 0), "users that have a position"
    assert _ffi.agoraish_spatial_audio_remove_remote_position(e, 17) == 0
    assert remote_position(e, MAX_POSITIONS + 1) == 0, "after a removal"
    assert remote_position(e, MAX_POSITIONS + 2) == EREFUSED
    assert _ffi.agoraish_spatial_audio_clear_remote_positions(e) == 0
    assert remote_position(e, MAX_POSITIONS + 2) == 0, "after a clear"


def case_player_position_vectors(ctx: Ctx) -> None:
    e = spatial(ctx)
    player = idle_player(ctx)
    for v in [None] + NOT_FINITE:
        assert player_position(e, player, position=v) == EINVAL, ("position", v)
    for v in NOT_FINITE:
        assert player_position(e, player, forward=v) == EINVAL, ("forward", v)
    accepted = (((0.0, 0.0, 0.0), None), ((-5.0, 3.0, 1e30), FORWARD), ((1.0, 0.0, 0.0), (0.0, -2.0, 0.0)))
    for position, forward in accepted:
        assert player_position(e, player, position, forward) == 0, (position, forward)
    player = playing_player(ctx)
    assert player_position(e, player) == 0, "playing"


def case_remove_remote_position(ctx: Ctx) -> None:
    e, remove = spatial(ctx), _ffi.agoraish_spatial_audio_remove_remote_position
    assert remove(e, 0) == EINVAL, "uid 0"
    for uid in (1, 12345, UINT32_MAX):
        assert remove(e, uid) == 0, ("no position", uid)
        assert remote_position(e, uid) == 0
        assert (remove(e, uid), remove(e, uid)) == (0, 0), ("a position; twice", uid)


def case_clear_remote_positions(ctx: Ctx) -> None:
    e, clear = spatial(ctx), _ffi.agoraish_spatial_audio_clear_remote_positions
    assert (clear(e), clear(e)) == (0, 0), "none, twice"
    assert (remote_position(e, 1), remote_position(e, 2)) == (0, 0)
    assert (clear(e), clear(e)) == (0, 0), "some, twice"
    player = idle_player(ctx)
    assert player_position(e, player) == 0
    assert clear(e) == 0, "a player with a position"


#: Ranges and units: > 0 and finite.
SPATIAL_LENGTHS_REJECTED = (0.0, -0.0, -1.0, -1e-6, -1e30, NAN, INF, -INF)
SPATIAL_LENGTHS_ACCEPTED = (1e-6, 0.5, 1.0, 1000.0, 3.4e38)


def spatial_values_case(setter: Callable[[int, object], int], rejected, accepted) -> Callable[[Ctx], None]:
    """A spatial setting (initialized): -2 for each rejected value, 0 for each accepted one; outside and in a call."""

    def case(ctx: Ctx) -> None:
        for where, e in (("in no call", spatial(ctx)), ("in a call", spatial(ctx, connected_engine(ctx)))):
            assert {repr(v): setter(e, v) for v in rejected} == {repr(v): EINVAL for v in rejected}, where
            assert {repr(v): setter(e, v) for v in accepted} == {repr(v): 0 for v in accepted}, where

    return case


def spatial_flag_case(function: Callable[[int, int], int]) -> Callable[[Ctx], None]:
    """A spatial mute taking an int flag (initialized): any int is 0, outside and in a call."""
    return spatial_values_case(function, (), ANY_INTS)


def case_spatial_mute_remote_uids(ctx: Ctx) -> None:
    e, mute = spatial(ctx), _ffi.agoraish_spatial_audio_mute_remote_audio_stream
    for flag in (1, 0):
        assert mute(e, 0, flag) == EINVAL, "uid 0"
        for uid in (1, 12345, UINT32_MAX):  # users that have not joined (yet)
            assert mute(e, uid, flag) == 0, uid


def case_spatial_mute_remote_flags(ctx: Ctx) -> None:
    mute = _ffi.agoraish_spatial_audio_mute_remote_audio_stream
    spatial_values_case(lambda e, flag: mute(e, 7, flag), (), ANY_INTS)(ctx)


# -- 3.x sound position indication (ABI 0.14) -----------------------------------------------


def voice_position(e: int, uid: int = 7, pan: float = 0.0, gain: float = 100.0) -> int:
    return _ffi.agoraish_engine_set_remote_voice_position(e, uid, pan, gain)


def voice_position_case(field: str, rejected, accepted) -> Callable[[Ctx], None]:
    """set_remote_voice_position with `field` (uid, pan, gain) out of range (-2) and in range (0);
    sound position indication off and on."""

    def case(ctx: Ctx) -> None:
        e = ctx.engine
        for indication in (0, 1):
            assert _ffi.agoraish_engine_enable_sound_position_indication(e, indication) == 0
            got = {repr(v): voice_position(e, **{field: v}) for v in rejected}
            assert got == {repr(v): EINVAL for v in rejected}, indication
            got = {repr(v): voice_position(e, **{field: v}) for v in accepted}
            assert got == {repr(v): 0 for v in accepted}, indication

    return case


def case_voice_positions_limit(ctx: Ctx) -> None:
    # There is no call to forget a voice position: -5 stays (users that have one are still 0).
    e = ctx.engine
    codes = [voice_position(e, uid) for uid in range(1, MAX_POSITIONS + 1)]
    assert codes == [0] * MAX_POSITIONS
    assert voice_position(e, MAX_POSITIONS + 1) == EREFUSED, "a 4097th user"
    assert voice_position(e, UINT32_MAX, pan=1.0) == EREFUSED, "a 4097th user"
    assert (voice_position(e, 1, pan=-1.0), voice_position(e, MAX_POSITIONS, gain=0.0)) == (0, 0), \
        "users that have a position"



ROWS: Dict[str, Row] = {
    "agoraish_get_version": Row([("build", "NULL or a pointer", case_version)]),
    "agoraish_get_error_description": Row([
        ("code", "every header code, unknown codes", case_error_descriptions),
        ("code", "descriptions are distinct", case_error_descriptions_distinct),
    ]),
    "agoraish_get_last_error": Row([("", "per thread, reset on success", case_last_error)]),
    "agoraish_get_last_error_detail": Row([("", "per thread, names what is wrong, cleared by the next call",
                                            case_last_error_detail)]),
    "agoraish_engine_create": Row([
        ("config", "NULL", case_create_null),
        ("config", "struct_size 0 or too small", case_create_struct_size),
        ("config", "event_handler struct_size", case_create_handler_struct_size),
        ("config", "app_id", case_create_app_ids),
        ("config", "server_url", case_create_server_urls),
        ("config", "log_file", case_create_log_file),
        ("config", "log_file_size_kb", case_create_log_file_size),
        ("config", "log_level", case_create_log_level),
        ("config", "area_code", case_create_area_code),
    ]),
    "agoraish_engine_release": Row(
        [("sync", "any int", case_release_sync_values)],
        stale=0,  # release is idempotent: a released (or unknown) engine handle is 0
    ),
    "agoraish_engine_set_parameters": Row(
        [
            ("json", "NULL", rc_is(EINVAL, set_parameters(None))),
            ("json", "empty", rc_is(EINVAL, set_parameters(b""))),
            ("json", "bad JSON", rc_is(EINVAL, set_parameters(b'{"rtc.log_size": '))),
            ("json", "not an object", rc_is(EINVAL, set_parameters(b"[256]"))),
            ("json", "unknown key", rc_is(EINVAL, set_parameters(b'{"rtc.no_such_key": 1}'))),
            ("json", "read-only key", rc_is(EINVAL, set_parameters(b'{"rtc.app_id": "x"}'))),
            ("json", "non-UTF-8", rc_is(EINVAL, set_parameters(b'{"rtc.log_file": "/tmp/\xff.log"}'))),
            ("json", "wrong value type", rc_is(EINVAL, set_parameters(b'{"rtc.log_size": "256"}'))),
            ("json", "log_filter 0x10", rc_is(EINVAL, set_parameters(b'{"rtc.log_filter": 16}'))),
            ("json", "log_filter negative", rc_is(EINVAL, set_parameters(b'{"rtc.log_filter": -1}'))),
            ("json", "log_level 3", rc_is(EINVAL, set_parameters(b'{"rtc.log_level": 3}'))),
            ("json", "log_size 0", rc_is(EINVAL, set_parameters(b'{"rtc.log_size": 0}'))),
            ("json", "log_size 20481", rc_is(EINVAL, set_parameters(b'{"rtc.log_size": 20481}'))),
            ("json", "server_url http", rc_is(EINVAL, set_parameters(b'{"rtc.server_url": "http://x"}'))),
            ("json", "log_file empty", rc_is(EINVAL, set_parameters(b'{"rtc.log_file": ""}'))),
            ("json", "log_file in missing dir", rc_is(EINVAL, case_parameter_missing_dir)),
            ("json", "size limit 65536", case_parameters_size_limit),
            ("json", "nothing applied on error", case_parameters_nothing_applied),
            ("json", "valid", rc_is(0, set_parameters(b'{"rtc.log_size": 256, "rtc.log_level": 1}'))),
        ],
    ),
    "agoraish_engine_get_parameter": Row(
        [
            ("key", "NULL", rc_is(EINVAL, lambda ctx: get_parameter(ctx.engine, None, 64)[0])),
            ("key", "unknown", rc_is(EINVAL, lambda ctx: get_parameter(ctx.engine, b"rtc.nope", 64)[0])),
            ("key", "empty", rc_is(EINVAL, lambda ctx: get_parameter(ctx.engine, b"", 64)[0])),
            ("key", "non-UTF-8", rc_is(EINVAL, lambda ctx: get_parameter(ctx.engine, b"rtc.\xff", 64)[0])),
            ("buf", "too small: -6, size written back", case_buffer_too_small),
            ("len", "NULL", rc_is(EINVAL, case_get_parameter_null_len)),
        ],
    ),
    "agoraish_engine_set_log_file": Row(
        [
            ("path", "NULL", rc_is(EINVAL, lambda ctx: _ffi.agoraish_engine_set_log_file(ctx.engine, None))),
            ("path", "empty", rc_is(EINVAL, lambda ctx: _ffi.agoraish_engine_set_log_file(ctx.engine, b""))),
            ("path", "non-UTF-8", rc_is(EINVAL, lambda ctx: _ffi.agoraish_engine_set_log_file(
                ctx.engine, str(ctx.tmp).encode() + b"/\xff.log"))),
            ("path", "missing directory", rc_is(EINVAL, lambda ctx: _ffi.agoraish_engine_set_log_file(
                ctx.engine, str(ctx.tmp / "missing" / "x.log").encode()))),
            ("path", "a directory", rc_is(EINVAL, lambda ctx: _ffi.agoraish_engine_set_log_file(
                ctx.engine, str(ctx.tmp).encode()))),
            ("path", "4096 bytes", rc_is(EINVAL, lambda ctx: _ffi.agoraish_engine_set_log_file(
                ctx.engine, b"/" + b"a" * 4095))),
            ("path", "valid", rc_is(0, lambda ctx: _ffi.agoraish_engine_set_log_file(
                ctx.engine, str(ctx.tmp / "ok.log").encode()))),
        ],
    ),
    "agoraish_engine_set_log_filter": Row(
        value_rows("filter", _ffi.agoraish_engine_set_log_filter, (0x10, 0x1000, 0x0810 | 0x080F, 0xFFFFFFFF),
                   (0, 1, 0x080F, 0x0800), label=hex),
    ),
    "agoraish_engine_set_log_level": Row(
        value_rows("level", _ffi.agoraish_engine_set_log_level, (3, 5, 16, -1, 0x080F, -(2**31)), (0, 1, 2, 4, 8)),
    ),
    "agoraish_engine_set_log_file_size": Row(
        value_rows("size_kb", _ffi.agoraish_engine_set_log_file_size, (0, 20481, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF),
                   (1, 127, 128, 20480)),
    ),
    "agoraish_engine_set_channel_profile": Row(
        [
            ("profile", "unknown values", all_rc(EINVAL, on_engine(_ffi.agoraish_engine_set_channel_profile),
                                                 (2, 3, -1, 100, 2**31 - 1, -(2**31)))),
            ("profile", "valid 0 and 1", all_rc(0, on_engine(_ffi.agoraish_engine_set_channel_profile), (0, 1, 0))),
            ("profile", "joining or connected: -5", case_profile_refused_while_in_a_channel),
        ],
    ),
    "agoraish_engine_set_client_role": Row(
        [
            ("role", "unknown values", all_rc(EINVAL, on_engine(_ffi.agoraish_engine_set_client_role),
                                              (0, 3, -1, 4, 2**31 - 1, -(2**31)))),
            ("role", "valid 1 and 2 before joining", all_rc(0, on_engine(_ffi.agoraish_engine_set_client_role),
                                                            (2, 1, 1))),
            ("role", "joining -5, connected 0", case_role_while_joining_and_connected),
        ],
    ),
    "agoraish_engine_join_channel": Row(
        [
            ("channel", "NULL", rc_is(EINVAL, lambda ctx: join(ctx.engine, None))),
            ("channel", "not UTF-8", rc_is(EINVAL, lambda ctx: join(ctx.engine, b"caf\xe9"))),
            ("channel", "bad names: -102", case_bad_channel_names(lambda e, name: join(e, name))),
            ("channel", "1, 63 bytes, every allowed character", case_good_channel_names(lambda e, name: join(e, name))),
            ("channel", "already joining or joined: -17", case_join_twice),
            ("token", "not UTF-8", rc_is(EINVAL, lambda ctx: join(ctx.engine, b"ch", token=b"007\xff"))),
            ("token", "NULL and empty", all_rc(0, lambda ctx, token: fresh(lambda e: join(e, b"ch", token=token))(ctx),
                                               (None, b""))),
            ("info", "not UTF-8", rc_is(EINVAL, lambda ctx: join(ctx.engine, b"ch", info=b"\xff"))),
            ("info", "NULL, empty, long", all_rc(0, lambda ctx, info: fresh(lambda e: join(e, b"ch", info=info))(ctx),
                                                 (None, b"", b"i" * 10000))),
            ("uid", "0, 1, 2**32-1", all_rc(0, lambda ctx, uid: fresh(lambda e: join(e, b"ch", uid=uid))(ctx),
                                            (0, 1, 2**32 - 1))),
        ],
    ),
    "agoraish_engine_join_channel_with_user_account": Row(
        [
            ("channel", "NULL", rc_is(EINVAL, lambda ctx: join_account(ctx.engine, None, b"acct"))),
            ("channel", "bad names: -102", case_bad_channel_names(lambda e, name: join_account(e, name, b"acct"))),
            ("channel", "good names", case_good_channel_names(lambda e, name: join_account(e, name, b"acct"))),
            ("channel", "already joining or joined: -17", case_join_twice),
            ("user_account", "NULL, empty, 256 bytes: -134; 255 bytes", case_account_lengths),
            ("user_account", "not UTF-8", rc_is(EINVAL, lambda ctx: join_account(ctx.engine, b"ch", b"\xff"))),
            ("user_account", "checked after the channel", case_account_checked_after_channel),
            ("token", "not UTF-8", rc_is(EINVAL, lambda ctx: join_account(ctx.engine, b"ch", b"acct", b"\xff"))),
            ("token", "NULL", rc_is(0, fresh(lambda e: join_account(e, b"ch", b"acct", None)))),
        ],
    ),
    "agoraish_engine_register_local_user_account": Row(
        [
            ("app_id", "NULL, empty, another app, not UTF-8", case_register_app_ids),
            ("user_account", "NULL, empty, 256 bytes: -134; not UTF-8: -2", case_register_accounts),
        ],
    ),
    "agoraish_engine_get_user_info_by_user_account": Row(
        [
            ("user_account", "NULL", rc_is(EINVAL, lambda ctx: user_info_by_account(ctx.engine, None)[0])),
            ("user_account", "not UTF-8", rc_is(EINVAL, lambda ctx: user_info_by_account(ctx.engine, b"\xff")[0])),
            ("user_account", "unknown: -2, info untouched", case_user_info_unknown_account),
            ("info", "NULL", rc_is(EINVAL, lambda ctx: user_info_by_account(ctx.engine, b"nobody", False)[0])),
            ("info", "known account, NULL info", case_user_info_known_account),
        ],
    ),
    "agoraish_engine_get_user_info_by_uid": Row(
        [
            ("uid", "unknown uids", all_rc(EINVAL, lambda ctx, uid: user_info_by_uid(ctx.engine, uid)[0],
                                           (0, 1, 2**32 - 1))),
            ("info", "NULL", rc_is(EINVAL, lambda ctx: user_info_by_uid(ctx.engine, 1, False)[0])),
            ("info", "known uid, NULL info", case_user_info_known_account),
        ],
    ),
    "agoraish_engine_leave_channel": Row(
        [("", "not joined -18, joining, connected, twice", case_leave)],
    ),
    "agoraish_engine_renew_token": Row(
        [
            ("token", "not in a channel: -113", case_renew_not_joined),
            ("token", "NULL, empty, not UTF-8: -2", case_renew_empty),
        ],
    ),
    "agoraish_engine_switch_channel": Row(
        [
            ("channel", "not connected: -113", case_switch_not_connected),
            ("channel", "not audience in live broadcasting: -5", case_switch_not_audience),
            ("channel", "bad names -102, NULL -2, valid", case_switch_channel_names),
            ("token", "not UTF-8", case_switch_channel_names),
        ],
    ),
    "agoraish_engine_preload_channel": Row(
        [
            ("channel", "NULL, not UTF-8: -2; nothing kept", case_preload_refused_keeps_nothing),
            ("channel", "bad names: -102", case_bad_channel_names(lambda e, name: preload(e, name))),
            ("channel", "good names", all_rc(0, on_engine(lambda e, name: preload(e, name)),
                                             (b"a", b"a" * 63, ALLOWED_CHANNEL_CHARS))),
            ("channel", "in a call: 0, bad name -102", case_preload_in_a_call),
            ("channel", "then joined", case_preload_then_join),
            ("token", "NULL, empty, 2048 bytes; 2049 bytes and not UTF-8: -2", case_preload_tokens),
            ("token", "a ws:// server URL to another host: -5", case_preload_not_loopback),
            ("uid", "0, 1, 2**32-1", all_rc(0, on_engine(lambda e, uid: preload(e, b"ch", uid=uid)),
                                            (0, 1, 2**32 - 1))),
        ],
    ),
    "agoraish_engine_update_preload_channel_token": Row(
        [
            ("token", "nothing preloaded: -8; 2049 bytes, not UTF-8: -2", case_update_preload_nothing_preloaded),
            ("token", "NULL, empty, 2048 bytes after preloads; 2049 bytes: -2", case_update_preload_tokens),
        ],
    ),
    "agoraish_engine_get_call_id": Row(
        [
            ("buf", "before any call: -113", case_call_id_before_any_call),
            ("buf", "size query, too small -6, exact", case_call_id_buffer),
            ("len", "NULL", rc_is(EINVAL, lambda ctx: call_id(ctx.engine, 64, with_len=False)[0])),
        ],
    ),
    "agoraish_engine_get_connection_state": Row(
        [("", "DISCONNECTED, CONNECTING, CONNECTED", case_connection_states)],
    ),
    "agoraish_engine_set_audio_profile": Row(
        [("profile", "-1, 7 and huge: -2; 0..6", case_audio_profiles)],
    ),
    "agoraish_engine_set_external_audio_source": Row(
        [
            ("sample_rate", "unsupported rates: -2; 8k..48k", case_audio_source_formats),
            ("channels", "0, 3, -1: -2", case_audio_source_formats),
            ("enabled", "0 stops and ignores the format", case_audio_source_formats),
        ],
    ),
    "agoraish_engine_push_external_audio_frame": Row(
        [
            ("samples", "NULL: -2; no source: -3", case_audio_push),
            ("samples_per_channel", "-1, 48001: -2; 0 ok; queued count", case_audio_push),
        ],
    ),
    "agoraish_engine_set_external_audio_sink": Row(
        [
            ("sample_rate", "unsupported rates: -2", case_audio_sink_formats),
            ("channels", "0, 5: -2", case_audio_sink_formats),
            ("enabled", "0 stops", case_audio_sink_formats),
        ],
    ),
    "agoraish_engine_pull_playback_audio_frame": Row(
        [
            ("samples", "NULL: -2; no sink: -3; silence", case_audio_pull),
            ("samples_per_channel", "0, -1, 48001: -2", case_audio_pull),
        ],
    ),
    "agoraish_engine_enable_audio": Row(
        [("", "twice, after disable, in a call", case_audio_switches)],
    ),
    "agoraish_engine_disable_audio": Row(
        [("", "twice, after enable, in a call", case_audio_switches)],
    ),
    "agoraish_engine_enable_local_audio": Row(
        [("enabled", "any int, before and in a call", flag_case(_ffi.agoraish_engine_enable_local_audio))],
    ),
    "agoraish_engine_mute_local_audio_stream": Row(
        [("mute", "any int, before and in a call", flag_case(_ffi.agoraish_engine_mute_local_audio_stream))],
    ),
    "agoraish_engine_mute_remote_audio_stream": Row(
        [
            ("uid", "0: -2; users not (yet) joined: 0", case_mute_remote_uids),
            ("mute", "any int, before and in a call",
             flag_case(lambda e, v: _ffi.agoraish_engine_mute_remote_audio_stream(e, 4242, v))),
        ],
    ),
    "agoraish_engine_mute_all_remote_audio_streams": Row(
        [("mute", "any int, before and in a call", flag_case(_ffi.agoraish_engine_mute_all_remote_audio_streams))],
    ),
    "agoraish_engine_set_default_mute_all_remote_audio_streams": Row(
        [("mute", "any int, before and in a call",
          flag_case(_ffi.agoraish_engine_set_default_mute_all_remote_audio_streams))],
    ),
    "agoraish_engine_adjust_recording_signal_volume": Row(
        value_rows("volume", _ffi.agoraish_engine_adjust_recording_signal_volume, VOLUME_REJECTED, VOLUME_ACCEPTED),
    ),
    "agoraish_engine_adjust_playback_signal_volume": Row(
        value_rows("volume", _ffi.agoraish_engine_adjust_playback_signal_volume, VOLUME_REJECTED, VOLUME_ACCEPTED),
    ),
    "agoraish_engine_adjust_user_playback_signal_volume": Row(
        [
            ("uid", "0: -2; any other uid", case_user_volume_uid),
            ("volume", "-1, 101, 400: -2; 0..100", case_user_volume_range),
        ],
    ),
    "agoraish_engine_enable_audio_volume_indication": Row(
        [
            ("interval", "1..9, 60001: -2; <= 0 off, 10..60000", case_indication_interval),
            ("smooth", "-1, 11: -2; 0..10", case_indication_smooth),
            ("report_vad", "any int", case_indication_vad),
        ],
    ),
    "agoraish_engine_register_audio_frame_observer": Row(
        [
            ("observer", "NULL removes (also when none)", case_observer_null),
            ("observer", "struct_size too small or splitting a field: -2; larger: -2", case_observer_struct_size),
            ("observer", "unknown position bits: -2", case_observer_positions),
            ("observer", "NULL callbacks at every position", case_observer_null_callbacks),
        ],
    ),
    "agoraish_engine_set_recording_audio_frame_parameters": Row(
        tap_rows(_ffi.agoraish_engine_set_recording_audio_frame_parameters),
    ),
    "agoraish_engine_set_playback_audio_frame_parameters": Row(
        tap_rows(_ffi.agoraish_engine_set_playback_audio_frame_parameters),
    ),
    "agoraish_engine_set_mixed_audio_frame_parameters": Row(
        tap_rows(_ffi.agoraish_engine_set_mixed_audio_frame_parameters, with_mode=False),
    ),
    "agoraish_engine_set_playback_audio_frame_before_mixing_parameters": Row(
        tap_rows(_ffi.agoraish_engine_set_playback_audio_frame_before_mixing_parameters, with_mode=False,
                 with_samples=False),
    ),
    "agoraish_engine_start_audio_recording": Row(
        [
            ("config", "NULL", case_recording_null),
            ("config", "struct_size 0 or too small: -2; larger: -2", case_recording_struct_size),
            ("config", "file_path NULL, empty, not UTF-8: -2; cannot be created: -1", case_recording_paths),
            ("config", "sample_rate, position, quality out of range: -2", case_recording_values),
            ("config", "a WAV file, finished when replaced or stopped", case_recording_wav_file),
        ],
    ),
    "agoraish_engine_stop_audio_recording": Row(
        [("", "not recording, twice", case_stop_recording)],
    ),
    "agoraish_engine_get_audio_device_count": Row(
        [("type", "-1, 2: -2; 0, 1: a count", case_device_count)],
    ),
    "agoraish_engine_get_audio_device": Row(
        [
            ("type", "-1, 2: -2, info untouched", case_device_type),
            ("index", "-1, count: -2; each listed index", case_device_index),
            ("info", "NULL", case_device_info_null),
        ],
    ),
    "agoraish_engine_set_recording_device": Row(
        [("device_id", "NULL, empty, 512 bytes, not UTF-8: -2; 511 bytes, unlisted names",
          device_setter_case(_ffi.agoraish_engine_set_recording_device, _ffi.agoraish_engine_get_recording_device))],
    ),
    "agoraish_engine_set_playback_device": Row(
        [("device_id", "NULL, empty, 512 bytes, not UTF-8: -2; 511 bytes, unlisted names",
          device_setter_case(_ffi.agoraish_engine_set_playback_device, _ffi.agoraish_engine_get_playback_device))],
    ),
    "agoraish_engine_get_recording_device": Row(
        [
            ("buf", "size query, too small -6, exact, NULL buf with len",
             device_getter_buffer_case(_ffi.agoraish_engine_get_recording_device)),
            ("len", "NULL", device_getter_len_case(_ffi.agoraish_engine_get_recording_device)),
        ],
    ),
    "agoraish_engine_get_playback_device": Row(
        [
            ("buf", "size query, too small -6, exact, NULL buf with len",
             device_getter_buffer_case(_ffi.agoraish_engine_get_playback_device)),
            ("len", "NULL", device_getter_len_case(_ffi.agoraish_engine_get_playback_device)),
        ],
    ),
    "agoraish_engine_start_recording_device_test": Row(
        [("interval", "outside 10..60000: -2",
          interval_case(_ffi.agoraish_engine_start_recording_device_test,
                        _ffi.agoraish_engine_stop_recording_device_test))],
    ),
    "agoraish_engine_stop_recording_device_test": Row(
        [("", "not running, twice",
          stop_case(lambda e: _ffi.agoraish_engine_start_recording_device_test(e, 100),
                    _ffi.agoraish_engine_stop_recording_device_test))],
    ),
    "agoraish_engine_start_playback_device_test": Row(
        [("path", "NULL, missing, not 16-bit PCM WAV, 7 or 96 kHz, 3 channels: -2", case_playback_test_paths)],
    ),
    "agoraish_engine_stop_playback_device_test": Row(
        [("", "not running, twice", case_stop_playback_test)],
    ),
    "agoraish_engine_start_audio_device_loopback_test": Row(
        [("interval", "outside 10..60000: -2",
          interval_case(_ffi.agoraish_engine_start_audio_device_loopback_test,
                        _ffi.agoraish_engine_stop_audio_device_loopback_test))],
    ),
    "agoraish_engine_stop_audio_device_loopback_test": Row(
        [("", "not running, twice",
          stop_case(lambda e: _ffi.agoraish_engine_start_audio_device_loopback_test(e, 100),
                    _ffi.agoraish_engine_stop_audio_device_loopback_test))],
    ),
    "agoraish_engine_enable_video": Row(
        [("", "twice, after disable, in a call", case_video_switches)],
    ),
    "agoraish_engine_disable_video": Row(
        [("", "off by default, twice, in a call", case_video_switches)],
    ),
    "agoraish_engine_set_video_encoder_configuration": Row(
        [
            ("config", "NULL", case_encoder_null),
            ("config", "struct_size 0 or too small or splitting a field: -2; larger: -2", case_encoder_struct_size),
            ("config", "width outside 16..4096 or odd: -2", encoder_field_case("width", SIZES_REJECTED,
                                                                               SIZES_ACCEPTED)),
            ("config", "height outside 16..4096 or odd: -2", encoder_field_case("height", SIZES_REJECTED,
                                                                                SIZES_ACCEPTED)),
            ("config", "frame_rate outside 1..60: -2", encoder_field_case("frame_rate", (0, -1, 61, INT_MAX, INT_MIN),
                                                                          (1, 15, 30, 60))),
            ("config", "bitrate below -1 or above 100000: -2", encoder_field_case(
                "bitrate", (-2, 100001, INT_MAX, INT_MIN), (-1, 0, 1, 600, 100000))),
            ("config", "min_bitrate below -1 or above 100000: -2", encoder_field_case(
                "min_bitrate", (-2, 100001, INT_MAX, INT_MIN), (-1, 1, 100000))),
            ("config", "codec_type other than 0, 1 (VP8) and 5 (VP9): -2", encoder_field_case(
                "codec_type", (-1, 2, 3, 4, 6, 8, INT_MAX, INT_MIN), (0, 1, 5))),
            ("config", "orientation_mode outside 0..2: -2", encoder_field_case(
                "orientation_mode", (-1, 3, INT_MAX, INT_MIN), (0, 1, 2))),
            ("config", "degradation_preference outside 0..3: -2", encoder_field_case(
                "degradation_preference", (-1, 4, INT_MAX, INT_MIN), (0, 1, 2, 3))),
            ("config", "mirror_mode outside 0..2: -2", encoder_field_case(
                "mirror_mode", (-1, 3, INT_MAX, INT_MIN), (0, 1, 2))),
            ("config", "an ABI 0.5 struct: the 0.6 fields are not read", case_encoder_0_5_struct),
        ],
    ),
    "agoraish_engine_set_external_video_source": Row(
        [("enabled", "any int, before and in a call", flag_case(_ffi.agoraish_engine_set_external_video_source))],
    ),
    "agoraish_engine_push_external_video_frame": Row(
        [
            ("frame", "NULL", case_push_null),
            ("frame", "no external source: -3", case_push_without_source),
            ("frame", "struct_size 0 or too small or splitting a field: -2; 0.5 or larger: -2", case_push_struct_size),
            ("frame", "rotation other than 0, 90, 180, 270: -2 (not read in a 0.5 struct)", case_push_rotation),
            ("frame", "unknown formats: -2; I420, BGRA, NV21, RGBA, NV12", case_push_formats),
            ("frame", "width and height outside 16..4096 or odd: -2", case_push_sizes),
            ("frame", "strides shorter than a row: -2; longer; unused planes' strides", case_push_strides),
            ("frame", "NULL planes the format needs: -2; unused planes NULL", case_push_planes),
            ("frame", "any timestamp outside a call", case_push_timestamps),
            ("frame", "every format, sizes, scaling, timestamps in a call", case_push_in_a_call),
            ("frame", "extreme timestamps in a call (child process)", case_push_extreme_timestamps_in_a_call),
        ],
    ),
    "agoraish_engine_setup_remote_video": Row(
        [
            ("canvas", "NULL", case_canvas_null),
            ("canvas", "struct_size 0 or too small or splitting a field: -2; 0.5 or larger: -2",
             case_canvas_struct_size),
            ("canvas", "uid 0: -2; bind, rebind, unbind (twice) any other uid", case_canvas_uids),
            ("canvas", "render_mode outside 0..4, mirror_mode outside 0..2: -2", case_canvas_modes),
            ("canvas", "view size: 0 x 0 or both 2..4096 (odd sides too)", case_canvas_view_sizes),
            ("canvas", "a view side of 1: -2", case_canvas_view_size_1),
        ],
    ),
    "agoraish_engine_enable_local_video": Row(
        [("enabled", "any int, before and in a call", flag_case(_ffi.agoraish_engine_enable_local_video))],
    ),
    "agoraish_engine_mute_local_video_stream": Row(
        [("mute", "any int, before and in a call", flag_case(_ffi.agoraish_engine_mute_local_video_stream))],
    ),
    "agoraish_engine_mute_remote_video_stream": Row(
        [
            ("uid", "0: -2; users not (yet) joined: 0", case_mute_remote_video_uids),
            ("mute", "any int, before and in a call",
             flag_case(lambda e, v: _ffi.agoraish_engine_mute_remote_video_stream(e, 4242, v))),
        ],
    ),
    "agoraish_engine_mute_all_remote_video_streams": Row(
        [("mute", "any int, before and in a call", flag_case(_ffi.agoraish_engine_mute_all_remote_video_streams))],
    ),
    "agoraish_engine_set_default_mute_all_remote_video_streams": Row(
        [("mute", "any int, before and in a call",
          flag_case(_ffi.agoraish_engine_set_default_mute_all_remote_video_streams))],
    ),
    "agoraish_engine_setup_local_video": Row(
        [
            ("canvas", "NULL", case_local_canvas_null),
            ("canvas", "struct_size 0 or too small or splitting a field: -2; 0.5 or larger: -2",
             case_local_canvas_struct_size),
            ("canvas", "uid ignored; bind, rebind, unbind (twice), in a call", case_local_canvas_uid_ignored),
            ("canvas", "render_mode outside 0..4, mirror_mode outside 0..2: -2", case_local_canvas_modes),
            ("canvas", "view size: 0 x 0 or both 2..4096 (odd sides too)", case_local_canvas_view_sizes),
            ("canvas", "a view side of 1: -2", case_local_canvas_view_size_1),
        ],
    ),
    "agoraish_engine_start_preview": Row(
        [("", "twice, video off or on, without a source or canvas, in a call", case_preview_switches)],
    ),
    "agoraish_engine_stop_preview": Row(
        [("", "not started, twice, in a call", case_preview_switches)],
    ),
    "agoraish_engine_set_local_render_mode": Row(
        [
            ("render_mode", "outside 1..4: -2; no local canvas: -3",
             render_mode_case(_local_render_mode, _bind_local, "render_mode")),
            ("mirror_mode", "outside 0..2: -2; no local canvas: -3",
             render_mode_case(_local_render_mode, _bind_local, "mirror_mode")),
        ],
    ),
    "agoraish_engine_set_remote_render_mode": Row(
        [
            ("uid", "0: -2; not bound: -3", case_remote_render_mode_uids),
            ("render_mode", "outside 1..4: -2; no canvas for the uid: -3",
             render_mode_case(_remote_render_mode_7, _bind_remote_7, "render_mode")),
            ("mirror_mode", "outside 0..2: -2; no canvas for the uid: -3",
             render_mode_case(_remote_render_mode_7, _bind_remote_7, "mirror_mode")),
        ],
    ),
    "agoraish_engine_register_video_frame_observer": Row(
        [
            ("observer", "NULL removes (also when none)", case_video_observer_null),
            ("observer", "struct_size too small or splitting a field: -2; larger: -2", case_video_observer_struct_size),
            ("observer", "position bits outside 0..7: -2", case_video_observer_positions),
            ("observer", "NULL callbacks with every position", case_video_observer_null_callbacks),
        ],
    ),
    "agoraish_engine_enable_dual_stream_mode": Row(
        [("enabled", "any int, before and in a call", flag_case(_ffi.agoraish_engine_enable_dual_stream_mode))],
    ),
    "agoraish_engine_set_remote_video_stream_type": Row(
        [
            ("uid", "0: -2; users not (yet) joined: 0", case_stream_type_uids),
            ("stream_type", "other than 0, 1 and 4..9: -2, before and in a call",
             stream_type_values_case(lambda e, v: _ffi.agoraish_engine_set_remote_video_stream_type(e, 4242, v))),
        ],
    ),
    "agoraish_engine_set_remote_default_video_stream_type": Row(
        [("stream_type", "other than 0, 1 and 4..9: -2, before and in a call",
          stream_type_values_case(_ffi.agoraish_engine_set_remote_default_video_stream_type))],
    ),
    "agoraish_engine_set_simulcast_config": Row(
        [
            ("config", "NULL, more than three enabled (any nonzero enable), an enabled entry's size outside "
             "16..3840 x 16..2160 or frame rate outside 1..60: -2; the edges, odd sizes, entries not enabled "
             "holding anything, any publish_fallback_enable: 0; before and in a call", case_simulcast_configs),
            ("config", "struct_size other than ABI 0.12's: -2", case_simulcast_struct_sizes),
        ],
    ),
    "agoraish_engine_start_lastmile_probe_test": Row(
        [
            ("config", "NULL, struct_size 0, too small or splitting a field (also 0.7's and 0.9's), no direction, "
             "a probed bitrate 0, 99999, 5000001 or UINT_MAX, a bad or non-UTF-8 channel_id, a non-UTF-8 token: "
             "-2, also during a test or in a channel", case_probe_configs),
            ("config", "100000 and 5000000, any nonzero flag, a larger struct_size, the 0.7 size (20), 24 and 32 "
             "(fields past them not read), a token and channel, \"\" for both: 0; an unprobed direction's "
             "bitrate is not read", case_probe_edges),
            ("config", "twice -5; the quality test or an echo test during a probe -5; a join ends it; in a channel beside the call",
             case_probe_twice),
            ("config", "during an echo test -5; joining or in a channel: beside the call", case_probe_states),
        ],
    ),
    "agoraish_engine_stop_lastmile_probe_test": Row(
        [("", "not running -5, twice, after a stop, during the last-mile test, in a call", case_stop_probe)],
    ),
    "agoraish_engine_enable_lastmile_test": Row(
        [("", "twice -5; a probe or an echo test during it -5; a join ends it; during an echo test, joining or "
          "in a channel -5", case_enable_lastmile)],
    ),
    "agoraish_engine_disable_lastmile_test": Row(
        [("", "not running -5, twice, after a disable, during a probe, in a call", case_disable_lastmile)],
    ),
    "agoraish_engine_set_local_publish_fallback_option": Row(
        [("option", "DISABLED (0) and AUDIO_ONLY (2); VIDEO_STREAM_LOW (1) and others -2, before and in a call",
          case_publish_fallback_options)],
    ),
    "agoraish_engine_set_remote_subscribe_fallback_option": Row(
        [("option", "0..2; others -2, before and in a call", case_subscribe_fallback_options)],
    ),
    "agoraish_engine_set_remote_user_priority": Row(
        [
            ("uid", "0: -2; users not (yet) joined: 0", case_priority_uids),
            ("priority", "HIGH (50) and NORMAL (100); others -2, before and in a call", case_priority_values),
        ],
    ),
    "agoraish_engine_take_snapshot": Row(
        [
            ("path", "NULL, empty, not .jpg/.jpeg/.png, not UTF-8, over 4096 bytes: -2 (before -113)",
             case_snapshot_paths),
            ("uid", "outside a call -113; any uid in a call", case_snapshot_uids),
            ("uid", "a ninth waiting snapshot of one user: -12", case_snapshot_queue_limit),
        ],
    ),
    "agoraish_engine_add_video_watermark": Row(
        [
            ("png_path", "NULL, missing, a directory, not a PNG, truncated, over 4096 wide or tall: -2",
             case_watermark_paths),
            ("options", "NULL", case_watermark_options_null),
            ("options", "struct_size too small or splitting a field: -2; larger: -2", case_watermark_struct_size),
            ("options", "origins outside 0..4096, sizes outside 1..4096: -2", case_watermark_rectangles),
        ],
    ),
    "agoraish_engine_clear_video_watermarks": Row(
        [("", "none added, twice, in a call", case_clear_watermarks)],
    ),
    "agoraish_engine_get_video_device_count": Row(
        [("", "0 or more, stable", case_video_device_count)],
    ),
    "agoraish_engine_get_video_device": Row(
        [
            ("index", "out of range: -2, info untouched", case_video_device_index),
            ("info", "NULL", case_video_device_info_null),
        ],
    ),
    "agoraish_engine_set_video_device": Row(
        [("device_id", "NULL, empty, 512 bytes, not UTF-8: -2; any other id is taken", case_set_video_device)],
    ),
    "agoraish_engine_get_current_video_device": Row(
        [
            ("buf", "no camera and none chosen: -3", case_current_video_device_none),
            ("buf", "size query, too small -6, exact", case_current_video_device_buffer),
            ("len", "NULL: -2", case_current_video_device_len_null),
        ],
    ),
    "agoraish_engine_set_camera_capturer_configuration": Row(
        [
            ("config", "NULL", case_capturer_null),
            ("config", "struct_size too small or splitting a field: -2; larger: -2", case_capturer_struct_size),
            ("config", "preference outside 0..3: -2",
             capturer_field_case("preference", (-1, 4, INT_MAX, INT_MIN), (0, 1, 2, 3))),
            ("config", "capture_width outside 16..4096: -2",
             capturer_field_case("capture_width", (15, 0, -16, 4097, INT_MAX, INT_MIN), (16, 641, 4096))),
            ("config", "capture_height outside 16..4096: -2",
             capturer_field_case("capture_height", (15, 0, -16, 4097, INT_MAX, INT_MIN), (16, 481, 4096))),
        ],
    ),
    "agoraish_engine_switch_camera": Row(
        [("", "fewer than two cameras: -4", case_switch_camera)],
    ),
    "agoraish_engine_start_echo_test": Row(
        [
            ("interval_in_seconds", "0, 1, 11, -1, INT_MIN, INT_MAX: -2, also during a test", case_echo_intervals),
            ("interval_in_seconds", "twice -5; a join during the test -17", case_echo_twice),
            ("interval_in_seconds", "joining or in a channel: beside the call", case_echo_in_a_channel),
        ],
    ),
    "agoraish_engine_start_echo_test_with_config": Row(
        [
            ("config", "NULL, struct_size 0, too small or splitting a field, intervals 0, 1, 11, -1, INT_MIN, "
             "INT_MAX, no medium, a bad or non-UTF-8 channel_id, a non-UTF-8 token: -2; then video: -4; also "
             "during a test or in a channel", case_echo_configs),
            ("config", "intervals 2 and 10, NULL or \"\" strings, a token and a 63-byte channel, any nonzero "
             "enable_audio, a larger struct_size: 0", case_echo_config_edges),
            ("config", "twice -5, either start during the other's test -5, a join during it -17, during a probe "
             "-5; joining or in a channel beside the call", case_echo_config_states),
        ],
    ),
    "agoraish_engine_stop_echo_test": Row(
        [("", "not running -5, twice, after a stop", case_stop_echo_test)],
    ),
    "agoraish_engine_create_data_stream": Row(
        [
            ("stream_id", "NULL: -2, takes no stream", case_create_stream_null_id),
            ("reliable", "any int: five streams with ids in 1..255", case_stream_flags),
            ("ordered", "any int: five streams with ids in 1..255", case_stream_flags),
            ("reliable", "a sixth stream -116 (id untouched), outside and in a call; leaving ends them",
             case_stream_limit),
        ],
    ),
    "agoraish_engine_create_data_stream_with_config": Row(
        [
            ("stream_id", "NULL: -2", case_stream_config_null),
            ("config", "NULL: -2, takes no stream", case_stream_config_null),
            ("config", "struct_size too small or splitting a field: -2; larger: -2", case_stream_config_struct_size),
            ("config", "any int in sync_with_audio and ordered", case_stream_config_values),
        ],
    ),
    "agoraish_engine_send_stream_message": Row(
        [
            ("stream_id", "unknown in a call: -2; any outside a call: -113", case_send_stream_ids),
            ("data", "NULL: -2, whatever the length", case_send_stream_data_null),
            ("length", "0: -2; 1025 .. 2^63-1: -114 first; 1 and 1024: 0 in a call, -113 outside",
             case_send_stream_lengths),
            ("length", "SIZE_MAX and the top half of size_t: -114, no crash", case_send_stream_huge_length),
            ("length", "31 messages or 6145 bytes in a second: -115", case_send_stream_rate_limits),
            ("stream_id", "an audience member of a live broadcast: -5", case_send_stream_audience),
        ],
    ),
    "agoraish_engine_send_audio_metadata": Row(
        [
            ("data", "NULL: -2, whatever the length", case_audio_metadata_data_null),
            ("length", "0, 1025 .. SIZE_MAX: -2; 1 and 1024: 0 in a call, -113 outside",
             case_audio_metadata_lengths),
        ],
    ),
    "agoraish_engine_register_media_metadata_observer": Row(
        [
            ("observer", "NULL removes (also when none)", case_metadata_observer_null),
            ("observer", "struct_size too small or splitting a field: -2; larger: -2",
             case_metadata_observer_struct_size),
            ("observer", "get_max_metadata_size outside 1..1024: -2; NULL: the maximum",
             case_metadata_observer_max_size),
            ("observer", "NULL callbacks, outside and in a call", case_metadata_observer_null_callbacks),
            ("type", "other than VIDEO (0): -2, also with NULL", case_metadata_types),
        ],
    ),
    "agoraish_engine_enable_encryption": Row(
        [
            ("config", "NULL: -2 when enabling, 0 when disabling (not read)", case_encryption_config_null),
            ("enabled", "any nonzero int enables, outside and in a call", case_encryption_enabled_values),
            ("config", "struct_size too small or splitting a field: -2; larger: -2", case_encryption_struct_size),
            ("config", "mode 0, END (9), -1, 10, INT_MAX, INT_MIN: -2; 1..8: 0", case_encryption_modes),
            ("config", "key NULL, empty, 129 bytes, not UTF-8: -2; 1 and 128 bytes: 0", case_encryption_keys),
            ("config", "an all-zero salt: -2 for the GCM2 modes, ignored by the others", case_encryption_salts),
        ],
    ),
    "agoraish_engine_set_encryption_secret": Row(
        [("secret", "129 bytes, not UTF-8: -2; NULL, empty, 1 and 128 bytes: 0", case_encryption_secrets)],
    ),
    "agoraish_engine_set_encryption_mode": Row(
        [("mode", "the six names, NULL and empty: 0; GCM2, upper case, padded, unknown: -2",
          case_encryption_mode_names)],
    ),
    "agoraish_engine_register_packet_observer": Row(
        [
            ("observer", "NULL removes (also when none)", case_packet_observer_null),
            ("observer", "struct_size too small or splitting a field: -2; larger: -2", case_packet_observer_struct_size),
            ("observer", "NULL callbacks, outside and in a call", case_packet_observer_null_callbacks),
        ],
    ),
    "agoraish_engine_join_channel_with_options": Row(
        [
            ("options", "NULL, struct_size, roles, profiles, track ids, tokens: -2; unflagged values not read",
             case_options_join_with_options),
            ("options", "custom tracks of the wrong kind, the camera with a custom track: -2", case_options_tracks),
            ("channel_id", "NULL, not UTF-8: -2; bad names: -102; already joining: -17",
             case_join_with_options_channels),
            ("token", "not UTF-8: -2; NULL, empty, a token", case_join_with_options_tokens),
            ("uid", "0, 1, 2**32-1", case_join_with_options_uids),
        ],
    ),
    "agoraish_engine_update_channel_media_options": Row(
        [
            ("options", "NULL, struct_size, roles, profiles, track ids: -2; a token outside a call: -113",
             case_options_update),
            ("options", "in a call: channel_profile -5, a token renews", case_options_update_in_a_call),
            ("options", "custom tracks of the wrong kind, the camera with a custom track: -2", case_options_tracks),
        ],
    ),
    "agoraish_engine_join_channel_ex": Row(
        [
            ("connection", "malformed: -2; bad names: -102; uids; twice or the engine's own: -17",
             case_join_ex_connections),
            ("connection", "AGORAISH_MAX_CONNECTIONS, then -5", case_join_ex_limit),
            ("options", "the rows of join_channel_with_options; NULL the defaults; the camera with a custom track: -2",
             case_options_join_ex),
            ("token", "not UTF-8: -2; NULL, empty, a token", case_join_ex_tokens),
            ("handler", "struct_size 0, short or long: -2; each minor's; NULL", case_join_ex_handlers),
            ("user_data", "passed back to every callback", case_join_ex_user_data),
        ],
    ),
    "agoraish_engine_leave_channel_ex": Row(
        [("connection", "malformed: -2; unknown or left: -18; joined again", case_leave_ex)],
    ),
    "agoraish_engine_update_channel_media_options_ex": _ex_rows(
        "agoraish_engine_update_channel_media_options_ex",
        ("options", "the rows of update_channel_media_options; the camera with an encoded track: -2; in a call", case_update_options_ex),
    ),
    "agoraish_engine_get_connection_state_ex": _ex_rows(
        "agoraish_engine_get_connection_state_ex",
        ("connection", "CONNECTING or CONNECTED, then CONNECTED", case_connection_state_ex),
    ),
    "agoraish_engine_get_call_id_ex": _ex_rows(
        "agoraish_engine_get_call_id_ex",
        ("buf", "size query, too small -6, exact", case_call_id_ex_buffer),
        ("len", "NULL", case_call_id_ex_len),
    ),
    "agoraish_engine_get_user_info_by_uid_ex": _ex_rows(
        "agoraish_engine_get_user_info_by_uid_ex",
        ("uid", "unknown uids: -2", case_user_info_ex),
        ("info", "NULL", case_user_info_ex),
    ),
    "agoraish_engine_get_user_info_by_user_account_ex": _ex_rows(
        "agoraish_engine_get_user_info_by_user_account_ex",
        ("user_account", "NULL, not UTF-8, empty, unknown: -2", case_user_info_account_ex),
        ("info", "NULL", case_user_info_account_ex),
    ),
    "agoraish_engine_mute_local_audio_stream_ex": _ex_rows(
        "agoraish_engine_mute_local_audio_stream_ex",
        ("mute", "any int", ex_values_case(_ex_value(_ffi.agoraish_engine_mute_local_audio_stream_ex), (), ANY_INTS)),
    ),
    "agoraish_engine_mute_remote_audio_stream_ex": _ex_rows(
        "agoraish_engine_mute_remote_audio_stream_ex",
        ("uid", "0: -2; users not (yet) joined", ex_values_case(
            _ex_value_first(_ffi.agoraish_engine_mute_remote_audio_stream_ex, 1), (0,), (1, 12345, 2**32 - 1))),
        ("mute", "any int", ex_values_case(
            _ex_value(_ffi.agoraish_engine_mute_remote_audio_stream_ex, 7), (), ANY_INTS)),
    ),
    "agoraish_engine_mute_all_remote_audio_streams_ex": _ex_rows(
        "agoraish_engine_mute_all_remote_audio_streams_ex",
        ("mute", "any int", ex_values_case(
            _ex_value(_ffi.agoraish_engine_mute_all_remote_audio_streams_ex), (), ANY_INTS)),
    ),
    "agoraish_engine_adjust_user_playback_signal_volume_ex": _ex_rows(
        "agoraish_engine_adjust_user_playback_signal_volume_ex",
        ("uid", "0: -2; any other uid", ex_values_case(
            _ex_value_first(_ffi.agoraish_engine_adjust_user_playback_signal_volume_ex, 50), (0,), (1, 2**32 - 1))),
        ("volume", "-1, 101, 400: -2; 0..100", ex_values_case(
            _ex_value(_ffi.agoraish_engine_adjust_user_playback_signal_volume_ex, 7),
            (-1, 101, 400, INT_MAX, INT_MIN), (0, 1, 99, 100))),
    ),
    "agoraish_engine_mute_remote_video_stream_ex": _ex_rows(
        "agoraish_engine_mute_remote_video_stream_ex",
        ("uid", "0: -2; users not (yet) joined", ex_values_case(
            _ex_value_first(_ffi.agoraish_engine_mute_remote_video_stream_ex, 1), (0,), (1, 12345, 2**32 - 1))),
        ("mute", "any int", ex_values_case(
            _ex_value(_ffi.agoraish_engine_mute_remote_video_stream_ex, 7), (), ANY_INTS)),
    ),
    "agoraish_engine_mute_all_remote_video_streams_ex": _ex_rows(
        "agoraish_engine_mute_all_remote_video_streams_ex",
        ("mute", "any int", ex_values_case(
            _ex_value(_ffi.agoraish_engine_mute_all_remote_video_streams_ex), (), ANY_INTS)),
    ),
    "agoraish_engine_set_remote_video_stream_type_ex": _ex_rows(
        "agoraish_engine_set_remote_video_stream_type_ex",
        ("uid", "0: -2; users not (yet) joined", ex_values_case(
            _ex_value_first(_ffi.agoraish_engine_set_remote_video_stream_type_ex, 1), (0,), (1, 12345, 2**32 - 1))),
        ("stream_type", "-1, 2, 3, 10: -2; 0, 1 and 4..9", ex_values_case(
            _ex_value(_ffi.agoraish_engine_set_remote_video_stream_type_ex, 7), REJECTED_STREAM_TYPES,
            ACCEPTED_STREAM_TYPES)),
    ),
    "agoraish_engine_setup_remote_video_ex": _ex_rows(
        "agoraish_engine_setup_remote_video_ex",
        ("canvas", "NULL, struct_size, uid 0, a bad mode: -2; bind, unbind", case_setup_remote_video_ex),
    ),
    "agoraish_engine_take_snapshot_ex": _ex_rows(
        "agoraish_engine_take_snapshot_ex",
        ("path", "NULL, empty, not .png or .jpg, not UTF-8: -2", case_snapshot_ex),
        ("uid", "any uid (0: the local video)", ex_values_case(
            lambda e, uid, c: _ffi.agoraish_engine_take_snapshot_ex(e, uid, b"/tmp/bad-input-ex.bmp", c),
            (0, 1, 2**32 - 1), ())),
    ),
    "agoraish_engine_create_data_stream_ex": _ex_rows(
        "agoraish_engine_create_data_stream_ex",
        ("stream_id", "NULL: -2", case_data_stream_ex),
        ("config", "NULL, struct_size: -2; five streams, then -116", case_data_stream_ex),
    ),
    "agoraish_engine_send_stream_message_ex": _ex_rows(
        "agoraish_engine_send_stream_message_ex",
        ("stream_id", "unknown streams: -2", case_send_stream_ex),
        ("data", "NULL: -2", case_send_stream_ex),
        ("length", "0: -2; 1025 and SIZE_MAX: -114; 1024", case_send_stream_ex),
    ),
    "agoraish_engine_send_audio_metadata_ex": _ex_rows(
        "agoraish_engine_send_audio_metadata_ex",
        ("data", "NULL: -2", case_audio_metadata_ex),
        ("length", "0, 1025, SIZE_MAX: -2; 1, 1024", case_audio_metadata_ex),
    ),
    "agoraish_engine_set_video_encoder_configuration_ex": _ex_rows(
        "agoraish_engine_set_video_encoder_configuration_ex",
        ("config", "NULL, struct_size, each field out of range: -2", case_encoder_ex),
    ),
    "agoraish_engine_enable_dual_stream_mode_ex": _ex_rows(
        "agoraish_engine_enable_dual_stream_mode_ex",
        ("enabled", "any int", ex_values_case(
            _ex_value(_ffi.agoraish_engine_enable_dual_stream_mode_ex), (), ANY_INTS)),
    ),
    "agoraish_engine_set_simulcast_config_ex": _ex_rows(
        "agoraish_engine_set_simulcast_config_ex",
        ("config", "the rows of set_simulcast_config and bad struct_size: -2; the edges: 0", case_simulcast_ex),
    ),
    "agoraish_engine_mute_local_video_stream_ex": _ex_rows(
        "agoraish_engine_mute_local_video_stream_ex",
        ("mute", "any int", ex_values_case(_ex_value(_ffi.agoraish_engine_mute_local_video_stream_ex), (), ANY_INTS)),
    ),
    "agoraish_engine_set_remote_default_video_stream_type_ex": _ex_rows(
        "agoraish_engine_set_remote_default_video_stream_type_ex",
        ("stream_type", "-1, 2, 3, 10: -2; 0, 1 and 4..9", ex_values_case(
            _ex_value(_ffi.agoraish_engine_set_remote_default_video_stream_type_ex), REJECTED_STREAM_TYPES,
            ACCEPTED_STREAM_TYPES)),
    ),
    "agoraish_engine_enable_encryption_ex": _ex_rows(
        "agoraish_engine_enable_encryption_ex",
        ("config", "NULL: -2 when enabling, not read when disabling; bad modes, keys, salts, sizes: -2",
         case_encryption_ex),
        ("enabled", "any nonzero int enables", case_encryption_ex),
    ),
    "agoraish_engine_create_custom_audio_track": Row(
        [
            ("track_type", "-1, 2, INT_MAX, INT_MIN: -2; MIXABLE, DIRECT", case_audio_track_types),
            ("track_id", "NULL: -2; AGORAISH_MAX_CUSTOM_AUDIO_TRACKS, then -5", case_audio_track_ids),
        ],
    ),
    "agoraish_engine_destroy_custom_audio_track": Row(
        [("track_id", "unknown, twice: -2", case_destroy_audio_track)],
    ),
    "agoraish_engine_adjust_custom_audio_publish_volume": Row(
        [
            ("track_id", "unknown: -2", case_audio_track_volume),
            ("volume", "-1, 101, INT_MAX, INT_MIN: -2; 0..100", case_audio_track_volume),
        ],
    ),
    "agoraish_engine_push_external_audio_frame_by_id": Row(
        [
            ("track_id", "unknown, destroyed: -2", case_push_audio_track_ids),
            ("samples", "NULL: -2 (with none: 0)", track_push_case({"samples"})),
            ("samples_per_channel", "-1, INT_MIN, 48001: -2; 0, one second", track_push_case({"samples_per_channel"})),
            ("sample_rate", "0, 7999, 22050, 96000, -48000: -2; the five rates", track_push_case({"sample_rate"})),
            ("channels", "0, 3, -1: -2; 1, 2", track_push_case({"channels"})),
        ],
    ),
    "agoraish_engine_create_custom_video_track": Row(
        [("track_id", "NULL: -2; AGORAISH_MAX_CUSTOM_VIDEO_TRACKS with encoded ones, then -5",
          video_track_ids_case(encoded=False))],
    ),
    "agoraish_engine_create_custom_encoded_video_track": Row(
        [("track_id", "NULL: -2; AGORAISH_MAX_CUSTOM_VIDEO_TRACKS with raw ones, then -5",
          video_track_ids_case(encoded=True))],
    ),
    "agoraish_engine_destroy_custom_video_track": Row(
        [("track_id", "unknown: -2; raw and encoded tracks, twice: -2", case_destroy_video_track)],
    ),
    "agoraish_engine_push_external_video_frame_by_id": Row(
        [
            ("frame", "NULL, struct_size, size, format, rotation, stride, plane: -2; each format",
             case_push_video_track_frames),
            ("track_id", "unknown, encoded, destroyed: -2", case_push_video_track_ids),
        ],
    ),
    "agoraish_engine_push_external_encoded_video_frame": Row(
        [
            ("data", "NULL: -2", case_push_encoded_data),
            ("length", "0, above 4 MiB, SIZE_MAX: -2; 1..4 MiB sent by none outside a call", case_push_encoded_data),
            ("info", "NULL, struct_size, codec, frame type, size, rotation: -2; edges", case_push_encoded_info),
            ("track_id", "unknown, raw, destroyed: -2", case_push_encoded_tracks),
            ("track_id", "in a call: the number of connections that sent it", case_push_encoded_in_a_call),
        ],
    ),
    "agoraish_engine_register_video_encoded_frame_observer": Row(
        [
            ("observer", "NULL removes (also when none)", case_encoded_observer_null),
            ("observer", "struct_size too small or splitting a field: -2; larger: -2",
             case_encoded_observer_struct_size),
            ("observer", "NULL callback, outside and in a call", case_encoded_observer_null_callback),
        ],
    ),
    "agoraish_engine_create_media_player": Row(
        [("player_id", "NULL: -2; AGORAISH_MAX_MEDIA_PLAYERS distinct ids, then -5; after a destroy",
          case_create_player_ids)],
    ),
    "agoraish_engine_destroy_media_player": _player_rows(
        "agoraish_engine_destroy_media_player",
        ("player_id", "idle, opened, playing; twice: -2", case_destroy_player),
    ),
    "agoraish_media_player_open": _player_rows(
        "agoraish_media_player_open",
        ("url", "NULL, empty, not UTF-8, 4096 bytes: -2 (nothing changes); 1 and 4095 bytes; again replaces",
         case_open_urls),
        ("url", "a missing file: 0, then FAILED with URL_NOT_FOUND", case_open_missing_file),
        ("start_pos", "negative: -2 (nothing changes); 0, 1, past the end", case_open_start_pos),
    ),
    "agoraish_media_player_play": _player_rows(
        "agoraish_media_player_play",
        ("player_id", "nothing opened, failed, stopped: -8; opened, playing", case_play_states),
    ),
    "agoraish_media_player_pause": _player_rows(
        "agoraish_media_player_pause",
        ("player_id", "nothing opened, opened, paused, stopped: -8; playing", case_pause_states),
    ),
    "agoraish_media_player_resume": _player_rows(
        "agoraish_media_player_resume",
        ("player_id", "nothing opened, opened, playing: -8; paused", case_resume_states),
    ),
    "agoraish_media_player_stop": _player_rows(
        "agoraish_media_player_stop",
        ("player_id", "nothing opened, playing, twice", case_stop_states),
    ),
    "agoraish_media_player_seek": _player_rows(
        "agoraish_media_player_seek",
        ("player_id", "nothing opened, stopped: -8", case_seek_nothing_opened),
        ("position_ms", "negative: -2; 0, inside, past the end", case_seek_positions),
    ),
    "agoraish_media_player_set_loop_count": _player_rows(
        "agoraish_media_player_set_loop_count",
        ("loop_count", "-2, INT_MIN: -2; -1, 0, 1, INT_MAX", case_loop_counts),
    ),
    "agoraish_media_player_get_duration": _player_rows(
        "agoraish_media_player_get_duration",
        ("duration_ms", "nothing opened, failed, stopped: -8; NULL: -2; the duration", case_get_duration),
    ),
    "agoraish_media_player_get_play_position": _player_rows(
        "agoraish_media_player_get_play_position",
        ("position_ms", "nothing opened, failed, stopped: -8; NULL: -2; the position", case_get_play_position),
    ),
    "agoraish_media_player_get_state": _player_rows(
        "agoraish_media_player_get_state",
        ("state", "NULL: -2; IDLE, OPEN_COMPLETED, PLAYING, PAUSED, STOPPED", case_get_state),
    ),
    "agoraish_media_player_get_stream_count": _player_rows(
        "agoraish_media_player_get_stream_count",
        ("count", "nothing opened, stopped: -8; NULL: -2; one stream", case_get_stream_count),
    ),
    "agoraish_media_player_get_stream_info": _player_rows(
        "agoraish_media_player_get_stream_info",
        ("index", "nothing opened: -8; -1, the count, INT64_MAX/MIN: -2; the audio stream", case_stream_info_indexes),
        ("info", "NULL, struct_size too small, splitting a field, larger: -2; sizeof", case_stream_info_struct),
    ),
    "agoraish_media_player_select_audio_track": _player_rows(
        "agoraish_media_player_select_audio_track",
        ("index", "nothing opened: -8; no such stream: -2; the audio stream", case_select_audio_track),
    ),
    "agoraish_media_player_set_playback_speed": _player_rows(
        "agoraish_media_player_set_playback_speed",
        ("speed", "29, 401, 0, -1: -2; 30..400", player_values_case(
            _ffi.agoraish_media_player_set_playback_speed, SPEEDS_REJECTED, SPEEDS_ACCEPTED)),
    ),
    "agoraish_media_player_adjust_playout_volume": _player_rows(
        "agoraish_media_player_adjust_playout_volume",
        ("volume", "-1, 401: -2 (kept); 0..400 (reported)", player_values_case(
            _ffi.agoraish_media_player_adjust_playout_volume, VOLUME_REJECTED, VOLUME_ACCEPTED,
            _ffi.agoraish_media_player_get_playout_volume)),
    ),
    "agoraish_media_player_get_playout_volume": _player_rows(
        "agoraish_media_player_get_playout_volume",
        ("volume", "NULL: -2; 100", player_getter_case(_ffi.agoraish_media_player_get_playout_volume, 100)),
    ),
    "agoraish_media_player_adjust_publish_signal_volume": _player_rows(
        "agoraish_media_player_adjust_publish_signal_volume",
        ("volume", "-1, 401: -2 (kept); 0..400 (reported)", player_values_case(
            _ffi.agoraish_media_player_adjust_publish_signal_volume, VOLUME_REJECTED, VOLUME_ACCEPTED,
            _ffi.agoraish_media_player_get_publish_signal_volume)),
    ),
    "agoraish_media_player_get_publish_signal_volume": _player_rows(
        "agoraish_media_player_get_publish_signal_volume",
        ("volume", "NULL: -2; 100", player_getter_case(_ffi.agoraish_media_player_get_publish_signal_volume, 100)),
    ),
    "agoraish_media_player_mute": _player_rows(
        "agoraish_media_player_mute",
        ("muted", "any int (reported), playing", case_player_mute),
    ),
    "agoraish_media_player_get_mute": _player_rows(
        "agoraish_media_player_get_mute",
        ("muted", "NULL: -2; not muted", player_getter_case(_ffi.agoraish_media_player_get_mute, 0)),
    ),
    "agoraish_media_player_set_view": _player_rows(
        "agoraish_media_player_set_view",
        ("canvas", "NULL or a NULL on_frame: unbinds (also when none); bind, playing", case_player_view_null),
        ("canvas", "struct_size too small, splitting a field, larger: -2; 0.5 and 0.6 sizes",
         case_player_view_struct_size),
        ("canvas", "unknown render modes: -2; modes 0..4 x mirror modes 0..2", case_player_view_modes),
        ("canvas", "unknown mirror modes: -2", case_player_view_mirror_modes),
        ("canvas", "view sizes: 0 x 0 or 2..4096 each; else -2", case_player_view_sizes),
    ),
    "agoraish_media_player_set_render_mode": _player_rows(
        "agoraish_media_player_set_render_mode",
        ("render_mode", "0, -1, 5, 100: -2; 1..4; without and with a canvas", case_player_render_modes),
    ),
    "agoraish_media_player_register_player_source_observer": _player_rows(
        "agoraish_media_player_register_player_source_observer",
        ("observer", "NULL removes (also when none); NULL callbacks; playing",
         observer_null_case(_source_observer, _ffi.MediaPlayerObserverTable, playing_player)),
        ("observer", "struct_size too small, splitting a field, larger: -2", observer_struct_case(
            _source_observer, _ffi.MediaPlayerObserverTable, "agoraish_media_player_observer", idle_player)),
    ),
    "agoraish_media_player_register_audio_frame_observer": _player_rows(
        "agoraish_media_player_register_audio_frame_observer",
        ("observer", "NULL removes (also when none); NULL callbacks; playing",
         observer_null_case(_audio_observer, _ffi.MediaPlayerAudioFrameObserverTable, playing_player)),
        ("observer", "struct_size too small, splitting a field, larger: -2", observer_struct_case(
            _audio_observer, _ffi.MediaPlayerAudioFrameObserverTable, "agoraish_media_player_audio_frame_observer",
            idle_player)),
    ),
    "agoraish_media_player_register_video_frame_observer": _player_rows(
        "agoraish_media_player_register_video_frame_observer",
        ("observer", "NULL removes (also when none); NULL callbacks; playing",
         observer_null_case(_video_observer, _ffi.MediaPlayerVideoFrameObserverTable, playing_player)),
        ("observer", "struct_size too small, splitting a field, larger: -2", observer_struct_case(
            _video_observer, _ffi.MediaPlayerVideoFrameObserverTable, "agoraish_media_player_video_frame_observer",
            idle_player)),
    ),
    "agoraish_engine_start_audio_mixing": Row(
        [
            ("file_path", "NULL, empty, not UTF-8, 4096 bytes: -2; unreadable: FAILED, CAN_NOT_OPEN",
             case_mixing_paths),
            ("file_path", "within 100 ms of the previous start: -12 (FAILED, TOO_FREQUENT_CALL)",
             case_mixing_too_often),
            ("loopback", "any int", mixing_values_case("loopback", (), ANY_INTS)),
            ("cycle", "0, -2, INT_MIN: -2; 1, 2, -1, INT_MAX", mixing_values_case(
                "cycle", (0, -2, -3, INT_MIN), (1, 2, -1, INT_MAX))),
            ("start_pos", "negative: -2; 0, inside, past the end", mixing_values_case(
                "start_pos", (-1, -1000, INT_MIN), (0, 1000, INT_MAX))),
        ],
    ),
    "agoraish_engine_stop_audio_mixing": Row(
        [("", "never started, stopped, ended, failed: -8; playing", case_stop_mixing)],
    ),
    "agoraish_engine_pause_audio_mixing": Row(
        [("", "never started, paused, stopped: -8; playing", case_pause_mixing)],
    ),
    "agoraish_engine_resume_audio_mixing": Row(
        [("", "never started, playing, stopped: -8; paused", case_resume_mixing)],
    ),
    "agoraish_engine_adjust_audio_mixing_volume": Row(
        [("volume", "-1, 101: -2 (kept); 0..100 (both reported)", mixing_volume_case(
            _ffi.agoraish_engine_adjust_audio_mixing_volume, playout=True, publish=True))],
    ),
    "agoraish_engine_adjust_audio_mixing_playout_volume": Row(
        [("volume", "-1, 101: -2 (kept); 0..100 (reported)", mixing_volume_case(
            _ffi.agoraish_engine_adjust_audio_mixing_playout_volume, playout=True, publish=False))],
    ),
    "agoraish_engine_adjust_audio_mixing_publish_volume": Row(
        [("volume", "-1, 101: -2 (kept); 0..100 (reported)", mixing_volume_case(
            _ffi.agoraish_engine_adjust_audio_mixing_publish_volume, playout=False, publish=True))],
    ),
    "agoraish_engine_get_audio_mixing_playout_volume": Row(
        [("", "0..100, without and with music", mixing_volume_getter_case(
            _ffi.agoraish_engine_get_audio_mixing_playout_volume))],
    ),
    "agoraish_engine_get_audio_mixing_publish_volume": Row(
        [("", "0..100, without and with music", mixing_volume_getter_case(
            _ffi.agoraish_engine_get_audio_mixing_publish_volume))],
    ),
    "agoraish_engine_get_audio_mixing_duration": Row(
        [("", "never started, stopped, failed: -8; the duration", mixing_time_case(
            _ffi.agoraish_engine_get_audio_mixing_duration, lambda ms: 9950 <= ms <= 10050))],
    ),
    "agoraish_engine_get_audio_mixing_current_position": Row(
        [("", "never started, stopped, failed: -8; the position", mixing_time_case(
            _ffi.agoraish_engine_get_audio_mixing_current_position, lambda ms: 0 <= ms <= 10000))],
    ),
    "agoraish_engine_set_audio_mixing_position": Row(
        [("pos_ms", "nothing opened, stopped: -8; negative: -2; inside, past the end", case_mixing_position)],
    ),
    "agoraish_engine_set_audio_mixing_pitch": Row(
        [("pitch", "-13, 13: -2; -12..12; without and with music", mixing_setting_case(
            _ffi.agoraish_engine_set_audio_mixing_pitch, (-13, 13, 100, INT_MAX, INT_MIN), (-12, -1, 0, 1, 12)))],
    ),
    "agoraish_engine_set_audio_mixing_playback_speed": Row(
        [("speed", "49, 401, 0: -2; 50..400; without and with music", mixing_setting_case(
            _ffi.agoraish_engine_set_audio_mixing_playback_speed, (49, 401, 0, -1, INT_MAX, INT_MIN),
            (50, 100, 400)))],
    ),
    "agoraish_engine_preload_effect": Row(
        [
            ("sound_id", "any int", case_preload_sound_ids),
            ("sound_id", "AGORAISH_MAX_AUDIO_EFFECTS held (preloaded or playing), then -5", case_effects_limit),
            ("file_path", "NULL, empty, not UTF-8: -2; missing, a directory, not media: -1; nothing kept",
             case_preload_paths),
            ("start_pos", "negative: -2; 0..INT_MAX", case_preload_start_pos),
        ],
    ),
    "agoraish_engine_play_effect": Row(
        [
            ("sound_id", "any int; playing: restarted", case_play_effect_sound_ids),
            ("sound_id", "AGORAISH_MAX_AUDIO_EFFECTS held, then -5", case_effects_limit),
            ("file_path", "NULL or empty, not preloaded; not UTF-8: -2; preloaded; unreadable: ends, not finished",
             case_play_effect_paths),
            ("loop_count", "-2, INT_MIN: -2; -1, 0, 1, INT_MAX", effect_values_case(
                "loop_count", (-2, -3, INT_MIN), (-1, 0, 1, INT_MAX))),
            ("pitch", "0, 0.49, 2.01, NaN, inf: -2; 0.5..2.0", effect_values_case(
                "pitch", (0.0, 0.49, 2.01, -1.0, NAN, INF, -INF), (0.5, 1.0, 2.0))),
            ("pan", "-1.01, 1.01, NaN, inf: -2; -1.0..1.0", effect_values_case(
                "pan", (-1.01, 1.01, -2.0, 2.0, NAN, INF, -INF), (-1.0, -0.5, 0.0, 1.0))),
            ("gain", "-1, 101: -2; 0..100", effect_values_case("gain", MIXING_VOLUMES_REJECTED, (0, 50, 100))),
            ("publish", "any int", effect_values_case("publish", (), ANY_INTS)),
            ("start_pos", "negative: -2; 0..INT_MAX", effect_values_case(
                "start_pos", (-1, -1000, INT_MIN), (0, 1000, INT_MAX))),
        ],
    ),
    "agoraish_engine_stop_effect": Row(
        [("sound_id", "never used, preloaded only, stopped, unloaded: -2; playing",
          effect_ids_case(_ffi.agoraish_engine_stop_effect))],
    ),
    "agoraish_engine_stop_all_effects": Row(
        [("", "none, twice, some: 0; preloads kept", case_stop_all_effects)],
    ),
    "agoraish_engine_pause_effect": Row(
        [
            ("sound_id", "never used, preloaded only, stopped, unloaded: -2",
             effect_ids_case(_ffi.agoraish_engine_pause_effect, playing=False)),
            ("sound_id", "just played, resumed: 0; paused: -2", case_pause_effect),
        ],
    ),
    "agoraish_engine_pause_all_effects": Row(
        [("", "none, twice, some", all_effects_case(_ffi.agoraish_engine_pause_all_effects))],
    ),
    "agoraish_engine_resume_effect": Row(
        [
            ("sound_id", "never used, preloaded only, stopped, unloaded: -2",
             effect_ids_case(_ffi.agoraish_engine_resume_effect, playing=False)),
            ("sound_id", "just played, resumed: -2; paused", case_resume_effect),
        ],
    ),
    "agoraish_engine_resume_all_effects": Row(
        [("", "none, twice, some", all_effects_case(_ffi.agoraish_engine_resume_all_effects))],
    ),
    "agoraish_engine_unload_effect": Row(
        [("sound_id", "never used, twice: -2; preloaded, playing, both", case_unload_effect)],
    ),
    "agoraish_engine_unload_all_effects": Row(
        [("", "none, twice, some: 0; preloads forgotten", case_unload_all_effects)],
    ),
    "agoraish_engine_set_effects_volume": Row(
        [("volume", "-1, 101: -2 (kept); 0..100 (reported)", case_effects_volume)],
    ),
    "agoraish_engine_get_effects_volume": Row(
        [("", "0..100, an effect playing or not", case_get_effects_volume)],
    ),
    "agoraish_engine_set_volume_of_effect": Row(
        [
            ("sound_id", "never used, stopped, unloaded: -2; playing",
             effect_ids_case(lambda e, s: _ffi.agoraish_engine_set_volume_of_effect(e, s, 50), preloaded=False)),
            ("volume", "-1, 101: -2 (kept); 0..100 (reported)", case_volume_of_effect),
        ],
    ),
    "agoraish_engine_get_volume_of_effect": Row(
        [("sound_id", "never used, stopped, unloaded: -2; playing",
          effect_ids_case(_ffi.agoraish_engine_get_volume_of_effect, preloaded=False))],
    ),
    "agoraish_engine_get_effect_duration": Row(
        [("file_path", "NULL, empty, not UTF-8: -2; missing, a directory, not media: -1; durations",
          case_effect_duration)],
    ),
    "agoraish_engine_set_effect_position": Row(
        [
            ("sound_id", "never used, preloaded only, stopped, unloaded: -2; playing",
             effect_ids_case(lambda e, s: _ffi.agoraish_engine_set_effect_position(e, s, 0))),
            ("pos_ms", "negative: -2; 0, inside, past the end", case_effect_position),
        ],
    ),
    "agoraish_engine_get_effect_current_position": Row(
        [
            ("sound_id", "never used, preloaded only, stopped, unloaded: -2; playing",
             effect_ids_case(_ffi.agoraish_engine_get_effect_current_position)),
            ("sound_id", "playing: the position", case_effect_current_position),
        ],
    ),
    "agoraish_engine_create_media_recorder": Row(
        [
            ("info", "NULL, struct_size too small, splitting a field, larger: -2", case_create_recorder_info),
            ("info", "channel_id NULL, not UTF-8, bad names: -2; good names", case_create_recorder_channels),
            ("info", "type PREVIEW: -4; unknown types: -2; RTC", case_create_recorder_types),
            ("info", "uid 0, remote uids", case_create_recorder_uids),
            ("recorder_id", "NULL: -2; AGORAISH_MAX_MEDIA_RECORDERS distinct ids, then -5; after a destroy",
             case_create_recorder_ids),
        ],
    ),
    "agoraish_media_recorder_set_observer": Row(
        [
            ("recorder_id", "never issued, destroyed, another engine's: -2",
             recorder_ids_case(RECORDER_CALLS["agoraish_media_recorder_set_observer"])),
            ("observer", "NULL removes (also when none); NULL callbacks",
             observer_null_case(_recorder_observer, _ffi.MediaRecorderObserverTable, recorder)),
            ("observer", "struct_size too small, splitting a field, larger: -2", observer_struct_case(
                _recorder_observer, _ffi.MediaRecorderObserverTable, "agoraish_media_recorder_observer", recorder)),
        ],
    ),
    "agoraish_media_recorder_start_recording": Row(
        [
            ("recorder_id", "never issued, destroyed, another engine's: -2",
             recorder_ids_case(RECORDER_CALLS["agoraish_media_recorder_start_recording"])),
            ("recorder_id", "already recording: -8; again after a stop", case_start_recording_twice),
            ("config", "NULL, struct_size too small, splitting a field, larger: -2; nothing recorded",
             case_start_recording_config),
            ("config", "storage_path NULL, empty, not UTF-8: -2; cannot be created: ERROR, WRITE_FAILED",
             case_start_recording_paths),
            ("config", "container_format other than MP4: -4; 0, 1", case_recorder_containers),
        ] + [("config", f"{field} out of range: -2; in range (0: the default)", recorder_field_case(field, bad, good))
             for field, bad, good in RECORDER_FIELDS],
    ),
    "agoraish_media_recorder_stop_recording": Row(
        [
            ("recorder_id", "never issued, destroyed, another engine's: -2",
             recorder_ids_case(RECORDER_CALLS["agoraish_media_recorder_stop_recording"])),
            ("recorder_id", "never started, twice: -8; recording", case_stop_recording_states),
        ],
    ),
    "agoraish_engine_destroy_media_recorder": Row(
        [
            ("recorder_id", "never issued, destroyed, another engine's: -2",
             recorder_ids_case(RECORDER_CALLS["agoraish_engine_destroy_media_recorder"])),
            ("recorder_id", "idle, recording; twice: -2", case_destroy_recorder),
        ],
    ),
    "agoraish_engine_set_audio_scenario": Row(
        [("scenario", "1, 2, 4, 6, 9: -2; 0, 3, 5, 7, 8; outside and in a call", voice_values_case(
            _ffi.agoraish_engine_set_audio_scenario, (1, 2, 4, 6, 9, -1, 10, INT_MAX, INT_MIN), SCENARIOS))],
    ),
    "agoraish_engine_set_ains_mode": Row(
        [
            ("enabled", "any int (mode 0); enabled with mode 3: -2", case_ains_enabled),
            ("mode", "3, -1: -2 (enabled); 0..2; outside and in a call", voice_values_case(
                lambda e, m: _ffi.agoraish_engine_set_ains_mode(e, 1, m), (3, -1, 4, INT_MAX, INT_MIN), (0, 1, 2))),
            ("mode", "disabled: not read (3, -1: 0)", case_ains_mode_when_disabled),
        ],
    ),
    "agoraish_engine_enable_custom_audio_track_processing": Row(
        [
            ("track_id", "never created, another engine's, direct, destroyed: -2; mixable", case_track_processing_ids),
            ("enabled", "any int", case_track_processing_enabled),
        ],
    ),
    "agoraish_engine_set_voice_beautifier_preset": Row(
        [("preset", "unknown numbers, other families' presets: -2; every member, then OFF; outside and in a call",
          voice_values_case(_ffi.agoraish_engine_set_voice_beautifier_preset, NOT_BEAUTIFIERS,
                            BEAUTIFIERS + (0,)))],
    ),
    "agoraish_engine_set_audio_effect_preset": Row(
        [("preset", "unknown numbers, other families' presets: -2; every member, then OFF; outside and in a call",
          voice_values_case(_ffi.agoraish_engine_set_audio_effect_preset, NOT_AUDIO_EFFECTS, AUDIO_EFFECTS + (0,)))],
    ),
    "agoraish_engine_set_voice_conversion_preset": Row(
        [("preset", "unknown numbers, other families' presets: -2; every member, then OFF; outside and in a call",
          voice_values_case(_ffi.agoraish_engine_set_voice_conversion_preset, NOT_CONVERSIONS, CONVERSIONS + (0,)))],
    ),
    "agoraish_engine_set_voice_beautifier_parameters": Row(
        [
            ("preset", "OFF, unknown numbers, other presets with parameters 1, 1: -2", parameters_case(
                beautifier_parameters,
                [(p, 1, 1) for p in (0,) + NOT_BEAUTIFIERS + other_presets(BEAUTIFIERS, SINGING)],
                [(SINGING, 1, 1)])),
            ("preset", "other presets with parameters 0, 0: -2 (only SINGING_BEAUTIFIER takes them)",
             case_beautifier_parameters_other_presets),
            ("param1", "0, 3, -1: -2; 1 male, 2 female", parameters_case(
                beautifier_parameters, [(SINGING, v, 1) for v in (0, 3, -1, INT_MAX, INT_MIN)],
                [(SINGING, v, r) for v in (1, 2) for r in (1, 2, 3)])),
            ("param2", "0, 4, -1: -2; 1..3", parameters_case(
                beautifier_parameters, [(SINGING, 1, v) for v in (0, 4, -1, INT_MAX, INT_MIN)],
                [(SINGING, 2, r) for r in (1, 2, 3)])),
        ],
    ),
    "agoraish_engine_set_audio_effect_parameters": Row(
        [
            ("preset", "OFF, unknown numbers, other presets with parameters 1, 1: -2", parameters_case(
                effect_parameters, [(p, 1, 1) for p in (0,) + NOT_AUDIO_EFFECTS +
                                    other_presets(AUDIO_EFFECTS, VOICE_3D, SURROUND, PITCH_CORRECTION)],
                [(VOICE_3D, 10, 0), (PITCH_CORRECTION, 1, 1)])),
            ("preset", "other presets with parameters 0, 0: -2 (only 3D voice, surround, pitch correction take them)",
             case_effect_parameters_other_presets),
            ("param1", "3D voice: -1, 61: -2; 0..60", parameters_case(
                effect_parameters, [(VOICE_3D, v, 0) for v in (-1, 61, INT_MAX, INT_MIN)],
                [(VOICE_3D, v, 0) for v in (0, 1, 10, 60)])),
            ("param1", "virtual surround: -1, 61: -2; 0..60 as 3D voice", case_surround_param1),
            ("param1", "pitch correction scale: 0, 4, -1: -2; 1..3", parameters_case(
                effect_parameters, [(PITCH_CORRECTION, v, 4) for v in (0, 4, -1, INT_MAX, INT_MIN)],
                [(PITCH_CORRECTION, v, 4) for v in (1, 2, 3)])),
            ("param2", "pitch correction tonic: 0, 13, -1: -2; 1..12", parameters_case(
                effect_parameters, [(PITCH_CORRECTION, 1, v) for v in (0, 13, -1, INT_MAX, INT_MIN)],
                [(PITCH_CORRECTION, 2, v) for v in range(1, 13)])),
            ("param2", "3D voice and virtual surround: unused (any int)", case_effect_param2_unused),
        ],
    ),
    "agoraish_engine_set_local_voice_pitch": Row(
        [("pitch", "0, 0.49, 2.01, NaN, inf: -2; 0.5..2.0; outside and in a call", voice_values_case(
            _ffi.agoraish_engine_set_local_voice_pitch, (0.0, 0.49, 0.4999, 2.01, 2.0001, -1.0, NAN, INF, -INF),
            (0.5, 0.75, 1.0, 2.0)))],
    ),
    "agoraish_engine_set_local_voice_formant": Row(
        [("formant_ratio", "-1.01, 1.01, NaN, inf: -2; -1.0..1.0; outside and in a call", voice_values_case(
            _ffi.agoraish_engine_set_local_voice_formant, (-1.01, 1.01, -2.0, 2.0, NAN, INF, -INF),
            (-1.0, -0.5, 0.0, 0.5, 1.0)))],
    ),
    "agoraish_engine_set_local_voice_equalization": Row(
        [
            ("band_frequency", "-1, 10: -2; 0..9; outside and in a call", voice_values_case(
                lambda e, b: _ffi.agoraish_engine_set_local_voice_equalization(e, b, 3), (-1, 10, INT_MAX, INT_MIN),
                range(10))),
            ("band_gain", "-16, 16: -2; -15..15; outside and in a call", voice_values_case(
                lambda e, g: _ffi.agoraish_engine_set_local_voice_equalization(e, 5, g), (-16, 16, INT_MAX, INT_MIN),
                (-15, -1, 0, 1, 15))),
        ],
    ),
    "agoraish_engine_set_local_voice_reverb": Row(
        [
            ("reverb_key", "-1, 5: -2; 0..4", voice_values_case(
                lambda e, k: _ffi.agoraish_engine_set_local_voice_reverb(e, k, 0), (-1, 5, INT_MAX, INT_MIN),
                range(5))),
            ("value", "each key's range: its edges; one past them: -2; outside and in a call", case_reverb_values),
        ],
    ),
    "agoraish_engine_set_headphone_eq_preset": Row(
        [("preset", "unknown numbers, voice presets: -2; OFF, OVEREAR, INEAR; outside and in a call",
          voice_values_case(_ffi.agoraish_engine_set_headphone_eq_preset, NOT_HEADPHONE_PRESETS,
                            HEADPHONE_PRESETS))],
    ),
    "agoraish_engine_set_headphone_eq_parameters": Row(
        [
            ("low_gain", "-11, 11: -2; -10..10; outside and in a call", voice_values_case(
                lambda e, g: _ffi.agoraish_engine_set_headphone_eq_parameters(e, g, 0), (-11, 11, INT_MAX, INT_MIN),
                (-10, 0, 10))),
            ("high_gain", "-11, 11: -2; -10..10; outside and in a call", voice_values_case(
                lambda e, g: _ffi.agoraish_engine_set_headphone_eq_parameters(e, 0, g), (-11, 11, INT_MAX, INT_MIN),
                (-10, 0, 10))),
        ],
    ),
    "agoraish_spatial_audio_initialize": Row(
        [("", "twice, after a release, in a call: 0", case_spatial_initialize)],
    ),
    "agoraish_spatial_audio_release": Row(
        [("", "never initialized, twice, in a call: 0; then -3", case_spatial_release)],
    ),
    "agoraish_spatial_audio_update_self_position": Row(
        [
            ("", "before initialize, after release: -3",
             not_initialized_case(SPATIAL_CALLS["agoraish_spatial_audio_update_self_position"])),
            ("position", "NULL, NaN, inf: -2; the origin, any finite point", self_vector_case(0)),
            ("axis_forward", "NULL, NaN, inf, zero: -2; any length", self_vector_case(1)),
            ("axis_right", "NULL, NaN, inf, zero: -2; any length", self_vector_case(2)),
            ("axis_up", "NULL, NaN, inf, zero: -2; any length", self_vector_case(3)),
        ],
    ),
    "agoraish_spatial_audio_update_remote_position": Row(
        [
            ("", "before initialize, after release: -3",
             not_initialized_case(SPATIAL_CALLS["agoraish_spatial_audio_update_remote_position"])),
            ("uid", "0: -2; 1, UINT32_MAX, twice", case_remote_position_uids),
            ("uid", "4096 users, then -5; after a removal, a clear", case_remote_positions_limit),
            ("position", "NULL, NaN, inf: -2; the origin, any finite point", remote_vector_case(forward=False)),
            ("forward", "NaN, inf: -2; NULL, any finite vector", remote_vector_case(forward=True)),
        ],
    ),
    "agoraish_spatial_audio_update_player_position": Row(
        [
            ("player_id", "never issued, destroyed, another engine's: -2", player_ids_case(
                lambda e, p: player_position(initialized(e), p))),
            ("", "before initialize, after release: -3", case_player_position_not_initialized),
            ("position", "NULL, NaN, inf: -2; finite points, idle and playing", case_player_position_vectors),
            ("forward", "NaN, inf: -2; NULL, any finite vector", case_player_position_vectors),
        ],
    ),
    "agoraish_spatial_audio_remove_remote_position": Row(
        [
            ("", "before initialize, after release: -3",
             not_initialized_case(SPATIAL_CALLS["agoraish_spatial_audio_remove_remote_position"])),
            ("uid", "0: -2; no position, a position, twice", case_remove_remote_position),
        ],
    ),
    "agoraish_spatial_audio_clear_remote_positions": Row(
        [
            ("", "before initialize, after release: -3",
             not_initialized_case(SPATIAL_CALLS["agoraish_spatial_audio_clear_remote_positions"])),
            ("", "none, some, twice", case_clear_remote_positions),
        ],
    ),
    "agoraish_spatial_audio_set_audio_recv_range": Row(
        [
            ("", "before initialize, after release: -3",
             not_initialized_case(SPATIAL_CALLS["agoraish_spatial_audio_set_audio_recv_range"])),
            ("range", "0, negative, NaN, inf: -2; > 0; outside and in a call", spatial_values_case(
                _ffi.agoraish_spatial_audio_set_audio_recv_range, SPATIAL_LENGTHS_REJECTED, SPATIAL_LENGTHS_ACCEPTED)),
        ],
    ),
    "agoraish_spatial_audio_set_distance_unit": Row(
        [
            ("", "before initialize, after release: -3",
             not_initialized_case(SPATIAL_CALLS["agoraish_spatial_audio_set_distance_unit"])),
            ("unit", "0, negative, NaN, inf: -2; > 0; outside and in a call", spatial_values_case(
                _ffi.agoraish_spatial_audio_set_distance_unit, SPATIAL_LENGTHS_REJECTED, SPATIAL_LENGTHS_ACCEPTED)),
        ],
    ),
    "agoraish_spatial_audio_set_max_audio_recv_count": Row(
        [
            ("", "before initialize, after release: -3",
             not_initialized_case(SPATIAL_CALLS["agoraish_spatial_audio_set_max_audio_recv_count"])),
            ("max_count", "0, 4097, -1: -2; 1..4096; outside and in a call", spatial_values_case(
                _ffi.agoraish_spatial_audio_set_max_audio_recv_count, (0, 4097, -1, INT_MAX, INT_MIN),
                (1, 16, 4096))),
        ],
    ),
    "agoraish_spatial_audio_mute_local_audio_stream": Row(
        [
            ("", "before initialize, after release: -3",
             not_initialized_case(SPATIAL_CALLS["agoraish_spatial_audio_mute_local_audio_stream"])),
            ("mute", "any int; outside and in a call",
             spatial_flag_case(_ffi.agoraish_spatial_audio_mute_local_audio_stream)),
        ],
    ),
    "agoraish_spatial_audio_mute_all_remote_audio_streams": Row(
        [
            ("", "before initialize, after release: -3",
             not_initialized_case(SPATIAL_CALLS["agoraish_spatial_audio_mute_all_remote_audio_streams"])),
            ("mute", "any int; outside and in a call",
             spatial_flag_case(_ffi.agoraish_spatial_audio_mute_all_remote_audio_streams)),
        ],
    ),
    "agoraish_spatial_audio_mute_remote_audio_stream": Row(
        [
            ("", "before initialize, after release: -3",
             not_initialized_case(SPATIAL_CALLS["agoraish_spatial_audio_mute_remote_audio_stream"])),
            ("uid", "0: -2; users that have not joined", case_spatial_mute_remote_uids),
            ("mute", "any int; outside and in a call", case_spatial_mute_remote_flags),
        ],
    ),
    "agoraish_engine_enable_sound_position_indication": Row(
        [("enabled", "any int, before and in a call",
          flag_case(_ffi.agoraish_engine_enable_sound_position_indication))],
    ),
    "agoraish_engine_set_remote_voice_position": Row(
        [
            ("uid", "0: -2; 1, UINT32_MAX; indication off and on", voice_position_case(
                "uid", (0,), (1, 12345, UINT32_MAX))),
            ("uid", "4096 users, then -5", case_voice_positions_limit),
            ("pan", "-1.01, 1.01, NaN, inf: -2; -1.0..1.0", voice_position_case(
                "pan", (-1.01, 1.01, -2.0, 2.0, NAN, INF, -INF), (-1.0, -0.5, 0.0, 0.5, 1.0))),
            ("gain", "-0.1, 100.1, NaN, inf: -2; 0..100", voice_position_case(
                "gain", (-0.1, 100.1, -1.0, 101.0, NAN, INF, -INF), (0.0, 0.1, 50.0, 100.0))),
        ],
    ),
    "agoraish_server_create": Row([
        ("config", "NULL", case_server_create_null),
        ("config", "struct_size 0 or too small", case_server_create_struct_size),
        ("config", "ports out of range", case_server_create_ports),
        ("config", "config_json not JSON or invalid", case_server_create_config_json),
        ("config", "host", case_server_create_host),
    ]),
    "agoraish_server_start": Row(
        [
            ("", "twice: -8", case_server_start_twice),
            ("", "port in use: -13", case_server_port_in_use),
        ],
    ),
    "agoraish_server_stop": Row(
        [("", "not running, twice", case_server_stop_when_not_running)],
    ),
    "agoraish_server_release": Row(
        [("", "twice", case_server_release_twice)],
        stale=0,  # idempotent like engine release
    ),
    "agoraish_server_get_url": Row(
        [
            ("buf", "not running: -3", case_server_url_not_running),
            ("buf", "size query, too small -6, exact", case_server_url_buffer),
            ("len", "NULL", case_server_url_buffer),
        ],
    ),
    "agoraish_server_get_http_port": Row(
        [("", "not running -3, disabled 0, free port", case_server_http_port)],
    ),
}

#: The functions taking a handle first, from the generated table of the header.
ENGINE_FUNCTIONS = sorted(n for n, ps in _ffi.PARAMETERS.items() if ps and ps[0][1] == "engine_handle")
SERVER_FUNCTIONS = sorted(n for n, ps in _ffi.PARAMETERS.items() if ps and ps[0][1] == "server_handle")


def handle_call(name: str) -> Callable[[Optional[int]], int]:
    """`name` called with a given handle and zero / NULL for every other
    argument: the handle is checked before anything else."""
    function = getattr(_ffi, name)
    rest = [0 if kind == "int" else None for _, kind in _ffi.PARAMETERS[name][1:]]
    return lambda handle: function(handle, *rest)
HANDLE_TYPES = ("agoraish_engine_t *", "agoraish_server_t *")
CASES = [
    pytest.param(name, param, label, case, id=f"{name}:{param or '-'}:{label}",
                 marks=[pytest.mark.xfail(reason=KNOWN_BUGS[case], strict=True)] if case in KNOWN_BUGS else [])
    for name, row in ROWS.items() for param, label, case in row.cases
]


def test_table_covers_every_function():
    assert set(ROWS) == set(HEADER_FUNCTIONS), "add a row to ROWS for every header function"
    for name, decl in HEADER_FUNCTIONS.items():
        row = ROWS[name]
        covered = {param for param, _, _ in row.cases}
        wanted = {p.name for p in decl.params if p.ctype not in HANDLE_TYPES} or {""}
        assert wanted <= covered, f"{name}: no case for parameter(s) {sorted(wanted - covered)}"
    assert len(ENGINE_FUNCTIONS) + len(SERVER_FUNCTIONS) >= 23


@pytest.fixture(scope="module", autouse=True)
def module_server():
    """An embedded server for the engines of this module (its URL is their default).

    The cases join channels in quick succession from one address: the join
    rate limit (20 per second by default, docs/server.md) is raised so that
    it never refuses them.
    """
    config = server_config(config_json=b'{"limits": {"joins_per_second_per_address": 100000}}')
    handle = _ffi.agoraish_server_create(ctypes.byref(config))
    assert handle, _ffi.agoraish_get_last_error()
    assert _ffi.agoraish_server_start(handle) == 0
    rc, _, raw = server_url(handle)
    assert rc == 0
    SERVER_URL[:] = [raw.split(b"\0")[0]]
    yield handle
    SERVER_URL.clear()
    assert _ffi.agoraish_server_release(handle) == 0


@pytest.fixture
def ctx(tmp_path):
    config = make_config(tmp_path)
    handle = _ffi.agoraish_engine_create(ctypes.byref(config))
    assert handle, _ffi.agoraish_get_last_error()
    context = Ctx(handle, tmp_path)
    yield context
    for engine in [handle, *context.engines]:
        assert _ffi.agoraish_engine_release(engine, 1) == 0
    for server in context.servers:
        assert _ffi.agoraish_server_release(server) == 0


@pytest.mark.parametrize("name,param,label,case", CASES)
def test_case(ctx, name, param, label, case):
    case(ctx)


class _Kind:
    """How to make, release and forge handles of one type, for the handle checks."""

    def __init__(self, tag: int, other_tag: int, create: Callable[[Path], int], release: Callable[[int], int]):
        self.tag, self.other_tag, self.create, self.release = tag, other_tag, create, release


def _create_engine(tmp: Path) -> int:
    config = make_config(tmp)
    handle = _ffi.agoraish_engine_create(ctypes.byref(config))
    assert handle, _ffi.agoraish_get_last_error()
    return handle


def _create_server(tmp: Path) -> int:
    config = server_config()
    handle = _ffi.agoraish_server_create(ctypes.byref(config))
    assert handle, _ffi.agoraish_get_last_error()
    return handle


ENGINE_KIND = _Kind(ENGINE_TAG, SERVER_TAG, _create_engine, lambda h: _ffi.agoraish_engine_release(h, 1))
SERVER_KIND = _Kind(SERVER_TAG, ENGINE_TAG, _create_server, lambda h: _ffi.agoraish_server_release(h))


@pytest.mark.parametrize("name", ENGINE_FUNCTIONS + SERVER_FUNCTIONS)
def test_bad_handles(tmp_path, name):
    row = ROWS[name]
    call = handle_call(name)
    kind, other = (ENGINE_KIND, SERVER_KIND) if name in ENGINE_FUNCTIONS else (SERVER_KIND, ENGINE_KIND)
    assert call(None) == ENOINIT, "NULL"
    assert call(forged(kind.other_tag)) == EINVAL, "a forged handle of another type"
    assert call(GARBAGE) == EINVAL, "garbage (tag 0)"
    assert call(0xFF << 56 | 1 << 32 | 1) == EINVAL, "an unknown type tag"
    assert call(forged(kind.tag, 0) & ~(0xFFFFFF << 32) | 1) == EINVAL, "generation 0 is never issued"
    assert call(forged(kind.tag, 0xFFFFFFF0)) == row.stale, "a handle never issued"

    # A live handle of the other type is -2 and is left alone.
    live_other = other.create(tmp_path)
    try:
        assert call(live_other) == EINVAL, "a live handle of another type"
    finally:
        assert other.release(live_other) == 0, "the other object is still there to release"

    handle = kind.create(tmp_path)
    assert kind.release(handle) == 0
    assert call(handle) == row.stale, "a released handle"
    # A new object reusing the slot gets a new generation: the old handle stays stale.
    again = kind.create(tmp_path)
    assert again and again != handle
    try:
        assert call(handle) == row.stale, "a released handle whose slot was reused"
    finally:
        assert kind.release(again) == 0


def test_release_from_callback_is_refused(tmp_path):
    # The raw C path of the -5 rule (test_engine covers it through RtcEngine).
    codes: List[int] = []
    done = threading.Event()
    holder: List[int] = []

    @_ffi.ApiCallExecutedCallback
    def on_api(engine, user_data, err, api, result):
        codes.append(_ffi.agoraish_engine_release(engine, 1))
        codes.append(_ffi.agoraish_engine_release(engine, 0))
        codes.append(int(engine == holder[0]))
        done.set()

    table = _ffi.EventHandlerTable(struct_size=ctypes.sizeof(_ffi.EventHandlerTable), on_api_call_executed=on_api)
    config = make_config(tmp_path)
    config.event_handler = ctypes.pointer(table)
    handle = _ffi.agoraish_engine_create(ctypes.byref(config))
    assert handle
    holder.append(handle)
    assert _ffi.agoraish_engine_set_log_filter(handle, 0x0F) == 0
    assert done.wait(10)
    assert codes == [EREFUSED, EREFUSED, 1], "release from its own callback is -5; the callback gets the engine handle"
    assert _ffi.agoraish_engine_release(handle, 1) == 0
