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
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

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


def create_case(code: int, **fields) -> Callable[[Ctx], None]:
    return lambda ctx: expect_create_fails(ctx.tmp, code, **fields)


def case_create_null(ctx: Ctx) -> None:
    assert _ffi.agoraish_engine_create(None) is None
    assert _ffi.agoraish_get_last_error() == EINVAL


def case_create_struct_size(ctx: Ctx) -> None:
    full = ctypes.sizeof(_ffi.EngineConfig)
    for size in (0, 4, 8, full - 8, full - 1):
        expect_create_fails(ctx.tmp, EINVAL, struct_size=size)
    handle, error = create(ctx.tmp, struct_size=full + 64)  # a newer, larger struct is read up to what is known
    assert handle and error == 0


def case_create_handler_struct_size(ctx: Ctx) -> None:
    size_0_1 = _ffi.AGORAISH_EVENT_HANDLER_SIZE_0_1
    # Too small, or not a whole number of fields (a size no header produces).
    for size in (0, 8, size_0_1 - 1, size_0_1 + 4, ctypes.sizeof(_ffi.EventHandlerTable) - 1):
        table = _ffi.EventHandlerTable()
        table.struct_size = size
        config = make_config(ctx.tmp)
        config.event_handler = ctypes.pointer(table)
        handle, error = create(ctx.tmp, config)
        assert handle is None and error == EINVAL, size
    # The 0.1 table, anything between, the full 0.2 table and a newer, larger one
    # (all callbacks NULL) are accepted.
    for size in (size_0_1, size_0_1 + 8, ctypes.sizeof(_ffi.EventHandlerTable) - 8,
                 ctypes.sizeof(_ffi.EventHandlerTable), ctypes.sizeof(_ffi.EventHandlerTable) + 64):
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
        self.cond = threading.Condition()
        self.callback = _ffi.ConnectionStateChangedCallback(self._on_state)
        self.table = _ffi.EventHandlerTable(struct_size=ctypes.sizeof(_ffi.EventHandlerTable),
                                            on_connection_state_changed=self.callback)

    def _on_state(self, engine, user_data, state, reason) -> None:
        with self.cond:
            self.states.append(state)
            self.cond.notify_all()

    def wait(self, state: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: state in self.states, TIMEOUT), (state, self.states)
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
    new_server(ctx, struct_size=full + 64)  # a newer, larger struct is read up to what is known


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

    handle_call: for functions taking an engine or a server handle, a call
        with otherwise valid arguments, used for the handle checks.
    stale: what that call returns for a released handle, and for a handle of
        the right type that was never issued (the table cannot tell the two apart).
    cases: (parameter name, label, case).
    """

    cases: List[Tuple[str, str, Callable[[Ctx], None]]]
    handle_call: Optional[Callable[[Optional[int]], int]] = None
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


ROWS: Dict[str, Row] = {
    "agoraish_get_version": Row([("build", "NULL or a pointer", case_version)]),
    "agoraish_get_error_description": Row([
        ("code", "every header code, unknown codes", case_error_descriptions),
        ("code", "descriptions are distinct", case_error_descriptions_distinct),
    ]),
    "agoraish_get_last_error": Row([("", "per thread, reset on success", case_last_error)]),
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
        handle_call=lambda h: _ffi.agoraish_engine_release(h, 1),
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
        handle_call=lambda h: _ffi.agoraish_engine_set_parameters(h, b'{"rtc.log_size": 256}'),
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
        handle_call=lambda h: get_parameter(h, b"rtc.log_file", 4096)[0],
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
        handle_call=lambda h: _ffi.agoraish_engine_set_log_file(h, b"/tmp/agoraish-never-opened.log"),
    ),
    "agoraish_engine_set_log_filter": Row(
        value_rows("filter", _ffi.agoraish_engine_set_log_filter, (0x10, 0x1000, 0x0810 | 0x080F, 0xFFFFFFFF),
                   (0, 1, 0x080F, 0x0800), label=hex),
        handle_call=lambda h: _ffi.agoraish_engine_set_log_filter(h, 0x0F),
    ),
    "agoraish_engine_set_log_level": Row(
        value_rows("level", _ffi.agoraish_engine_set_log_level, (3, 5, 16, -1, 0x080F, -(2**31)), (0, 1, 2, 4, 8)),
        handle_call=lambda h: _ffi.agoraish_engine_set_log_level(h, 1),
    ),
    "agoraish_engine_set_log_file_size": Row(
        value_rows("size_kb", _ffi.agoraish_engine_set_log_file_size, (0, 20481, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF),
                   (1, 127, 128, 20480)),
        handle_call=lambda h: _ffi.agoraish_engine_set_log_file_size(h, 256),
    ),
    "agoraish_engine_set_channel_profile": Row(
        [
            ("profile", "unknown values", all_rc(EINVAL, on_engine(_ffi.agoraish_engine_set_channel_profile),
                                                 (2, 3, -1, 100, 2**31 - 1, -(2**31)))),
            ("profile", "valid 0 and 1", all_rc(0, on_engine(_ffi.agoraish_engine_set_channel_profile), (0, 1, 0))),
            ("profile", "joining or connected: -5", case_profile_refused_while_in_a_channel),
        ],
        handle_call=lambda h: _ffi.agoraish_engine_set_channel_profile(h, 0),
    ),
    "agoraish_engine_set_client_role": Row(
        [
            ("role", "unknown values", all_rc(EINVAL, on_engine(_ffi.agoraish_engine_set_client_role),
                                              (0, 3, -1, 4, 2**31 - 1, -(2**31)))),
            ("role", "valid 1 and 2 before joining", all_rc(0, on_engine(_ffi.agoraish_engine_set_client_role),
                                                            (2, 1, 1))),
            ("role", "joining -5, connected 0", case_role_while_joining_and_connected),
        ],
        handle_call=lambda h: _ffi.agoraish_engine_set_client_role(h, 1),
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
        handle_call=lambda h: join(h, b"handle-check"),
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
        handle_call=lambda h: join_account(h, b"handle-check", b"acct"),
    ),
    "agoraish_engine_register_local_user_account": Row(
        [
            ("app_id", "NULL, empty, another app, not UTF-8", case_register_app_ids),
            ("user_account", "NULL, empty, 256 bytes: -134; not UTF-8: -2", case_register_accounts),
        ],
        handle_call=lambda h: _ffi.agoraish_engine_register_local_user_account(h, b"bad-input-app", b"acct"),
    ),
    "agoraish_engine_get_user_info_by_user_account": Row(
        [
            ("user_account", "NULL", rc_is(EINVAL, lambda ctx: user_info_by_account(ctx.engine, None)[0])),
            ("user_account", "not UTF-8", rc_is(EINVAL, lambda ctx: user_info_by_account(ctx.engine, b"\xff")[0])),
            ("user_account", "unknown: -2, info untouched", case_user_info_unknown_account),
            ("info", "NULL", rc_is(EINVAL, lambda ctx: user_info_by_account(ctx.engine, b"nobody", False)[0])),
            ("info", "known account, NULL info", case_user_info_known_account),
        ],
        handle_call=lambda h: user_info_by_account(h, b"nobody")[0],
    ),
    "agoraish_engine_get_user_info_by_uid": Row(
        [
            ("uid", "unknown uids", all_rc(EINVAL, lambda ctx, uid: user_info_by_uid(ctx.engine, uid)[0],
                                           (0, 1, 2**32 - 1))),
            ("info", "NULL", rc_is(EINVAL, lambda ctx: user_info_by_uid(ctx.engine, 1, False)[0])),
            ("info", "known uid, NULL info", case_user_info_known_account),
        ],
        handle_call=lambda h: user_info_by_uid(h, 1)[0],
    ),
    "agoraish_engine_leave_channel": Row(
        [("", "not joined -18, joining, connected, twice", case_leave)],
        handle_call=lambda h: _ffi.agoraish_engine_leave_channel(h),
    ),
    "agoraish_engine_renew_token": Row(
        [
            ("token", "not in a channel: -113", case_renew_not_joined),
            ("token", "NULL, empty, not UTF-8: -2", case_renew_empty),
        ],
        handle_call=renew(b"007abc"),
    ),
    "agoraish_engine_switch_channel": Row(
        [
            ("channel", "not connected: -113", case_switch_not_connected),
            ("channel", "not audience in live broadcasting: -5", case_switch_not_audience),
            ("channel", "bad names -102, NULL -2, valid", case_switch_channel_names),
            ("token", "not UTF-8", case_switch_channel_names),
        ],
        handle_call=lambda h: switch(h, b"other"),
    ),
    "agoraish_engine_get_call_id": Row(
        [
            ("buf", "before any call: -113", case_call_id_before_any_call),
            ("buf", "size query, too small -6, exact", case_call_id_buffer),
            ("len", "NULL", rc_is(EINVAL, lambda ctx: call_id(ctx.engine, 64, with_len=False)[0])),
        ],
        handle_call=lambda h: call_id(h, 128)[0],
    ),
    "agoraish_engine_get_connection_state": Row(
        [("", "DISCONNECTED, CONNECTING, CONNECTED", case_connection_states)],
        handle_call=lambda h: _ffi.agoraish_engine_get_connection_state(h),
    ),
    "agoraish_engine_set_audio_profile": Row(
        [("profile", "-1, 7 and huge: -2; 0..6", case_audio_profiles)],
        handle_call=lambda h: _ffi.agoraish_engine_set_audio_profile(h, 0),
    ),
    "agoraish_engine_set_external_audio_source": Row(
        [
            ("sample_rate", "unsupported rates: -2; 8k..48k", case_audio_source_formats),
            ("channels", "0, 3, -1: -2", case_audio_source_formats),
            ("enabled", "0 stops and ignores the format", case_audio_source_formats),
        ],
        handle_call=lambda h: _ffi.agoraish_engine_set_external_audio_source(h, 1, 48000, 1),
    ),
    "agoraish_engine_push_external_audio_frame": Row(
        [
            ("samples", "NULL: -2; no source: -3", case_audio_push),
            ("samples_per_channel", "-1, 48001: -2; 0 ok; queued count", case_audio_push),
        ],
        handle_call=lambda h: _ffi.agoraish_engine_push_external_audio_frame(h, i16(10), 10),
    ),
    "agoraish_engine_set_external_audio_sink": Row(
        [
            ("sample_rate", "unsupported rates: -2", case_audio_sink_formats),
            ("channels", "0, 5: -2", case_audio_sink_formats),
            ("enabled", "0 stops", case_audio_sink_formats),
        ],
        handle_call=lambda h: _ffi.agoraish_engine_set_external_audio_sink(h, 1, 48000, 1),
    ),
    "agoraish_engine_pull_playback_audio_frame": Row(
        [
            ("samples", "NULL: -2; no sink: -3; silence", case_audio_pull),
            ("samples_per_channel", "0, -1, 48001: -2", case_audio_pull),
        ],
        handle_call=lambda h: _ffi.agoraish_engine_pull_playback_audio_frame(h, i16(160), 160),
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
        handle_call=lambda h: _ffi.agoraish_server_start(h),
    ),
    "agoraish_server_stop": Row(
        [("", "not running, twice", case_server_stop_when_not_running)],
        handle_call=lambda h: _ffi.agoraish_server_stop(h),
    ),
    "agoraish_server_release": Row(
        [("", "twice", case_server_release_twice)],
        handle_call=lambda h: _ffi.agoraish_server_release(h),
        stale=0,  # idempotent like engine release
    ),
    "agoraish_server_get_url": Row(
        [
            ("buf", "not running: -3", case_server_url_not_running),
            ("buf", "size query, too small -6, exact", case_server_url_buffer),
            ("len", "NULL", case_server_url_buffer),
        ],
        handle_call=lambda h: server_url(h)[0],
    ),
    "agoraish_server_get_http_port": Row(
        [("", "not running -3, disabled 0, free port", case_server_http_port)],
        handle_call=lambda h: _ffi.agoraish_server_get_http_port(h),
    ),
}

ENGINE_FUNCTIONS = sorted(n for n, f in HEADER_FUNCTIONS.items() if f.params and f.params[0].ctype == "agoraish_engine_t *")
SERVER_FUNCTIONS = sorted(n for n, f in HEADER_FUNCTIONS.items() if f.params and f.params[0].ctype == "agoraish_server_t *")
HANDLE_TYPES = ("agoraish_engine_t *", "agoraish_server_t *")
CASES = [(name, param, label, case) for name, row in ROWS.items() for param, label, case in row.cases]


def test_table_covers_every_function():
    assert set(ROWS) == set(HEADER_FUNCTIONS), "add a row to ROWS for every header function"
    for name, decl in HEADER_FUNCTIONS.items():
        row = ROWS[name]
        covered = {param for param, _, _ in row.cases}
        wanted = {p.name for p in decl.params if p.ctype not in HANDLE_TYPES} or {""}
        assert wanted <= covered, f"{name}: no case for parameter(s) {sorted(wanted - covered)}"
        if name in ENGINE_FUNCTIONS or name in SERVER_FUNCTIONS:
            assert row.handle_call is not None, f"{name}: no handle_call"
    assert len(ENGINE_FUNCTIONS) + len(SERVER_FUNCTIONS) >= 23


@pytest.fixture(scope="module", autouse=True)
def module_server():
    """An embedded server for the engines of this module (its URL is their default)."""
    config = server_config()
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


@pytest.mark.parametrize("name,param,label,case", CASES, ids=[f"{n}:{p or '-'}:{lbl}" for n, p, lbl, _ in CASES])
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
    call = row.handle_call
    assert call is not None
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
