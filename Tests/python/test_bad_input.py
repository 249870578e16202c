"""Bad input at the C ABI, function by function, through the raw ctypes declarations.

The table ROWS has one row per function of include/agoraish.h; a function
added to the header without a row (or a parameter without a case) fails
`test_table_covers_every_function`. Each row lists cases, each tagged with the
parameter it exercises. Engine functions also get the handle checks: NULL,
stale, another type, garbage and never-issued handles.
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import pytest

import abi_header
from agoraish import _ffi

HEADER_FUNCTIONS = abi_header.functions()
ERROR_CODES = abi_header.enum_members("agoraish_error_code")

# Forged handles (layout: tag in bits 63..56, generation in 55..32, slot + 1 in 31..0).
WRONG_TYPE = (0x02 << 56) | (1 << 32) | 1  # a well-formed handle of a type that is not an engine
GARBAGE = 0xDEADBEEF  # tag byte 0: not a handle of any type
NEVER_ISSUED = (0x01 << 56) | (1 << 32) | 0xFFFFFFF0  # an engine handle for a slot never used

EINVAL, EREFUSED, ESMALL, ENOINIT, EAPPID, EFAILED = -2, -5, -6, -7, -101, -1


@dataclass
class Ctx:
    """What a case gets: a live engine handle (released after the case) and a scratch directory."""

    engine: int
    tmp: Path


def make_config(tmp: Path, **fields) -> _ffi.EngineConfig:
    config = _ffi.EngineConfig()
    config.struct_size = ctypes.sizeof(_ffi.EngineConfig)
    config.app_id = b"bad-input-app"
    config.log_file = str(tmp / "bad-input.log").encode()
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
    for size in (0, 8, ctypes.sizeof(_ffi.EventHandlerTable) - 1):
        table = _ffi.EventHandlerTable()
        table.struct_size = size
        config = make_config(ctx.tmp)
        config.event_handler = ctypes.pointer(table)
        handle, error = create(ctx.tmp, config)
        assert handle is None and error == EINVAL, size
    table = _ffi.EventHandlerTable()
    table.struct_size = ctypes.sizeof(_ffi.EventHandlerTable)  # all callbacks NULL: fine
    config = make_config(ctx.tmp)
    config.event_handler = ctypes.pointer(table)
    handle, error = create(ctx.tmp, config)
    assert handle and error == 0


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
# The table
# --------------------------------------------------------------------------


@dataclass
class Row:
    """Bad-input cases of one function.

    handle_call: for functions taking an engine, a call with otherwise valid
        arguments, used for the handle checks.
    stale: what that call returns for a released handle, and for an engine
        handle that was never issued (the table cannot tell the two apart).
    cases: (parameter name, label, case).
    """

    cases: List[Tuple[str, str, Callable[[Ctx], None]]]
    handle_call: Optional[Callable[[Optional[int]], int]] = None
    stale: int = ENOINIT


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
        [
            ("filter", f"0x{v:x}", rc_is(EINVAL, lambda ctx, v=v: _ffi.agoraish_engine_set_log_filter(ctx.engine, v)))
            for v in (0x10, 0x1000, 0x0810 | 0x080F, 0xFFFFFFFF)
        ] + [
            ("filter", f"valid 0x{v:x}", rc_is(0, lambda ctx, v=v: _ffi.agoraish_engine_set_log_filter(ctx.engine, v)))
            for v in (0, 1, 0x080F, 0x0800)
        ],
        handle_call=lambda h: _ffi.agoraish_engine_set_log_filter(h, 0x0F),
    ),
    "agoraish_engine_set_log_level": Row(
        [
            ("level", str(v), rc_is(EINVAL, lambda ctx, v=v: _ffi.agoraish_engine_set_log_level(ctx.engine, v)))
            for v in (3, 5, 16, -1, 0x080F, -(2**31))
        ] + [
            ("level", f"valid {v}", rc_is(0, lambda ctx, v=v: _ffi.agoraish_engine_set_log_level(ctx.engine, v)))
            for v in (0, 1, 2, 4, 8)
        ],
        handle_call=lambda h: _ffi.agoraish_engine_set_log_level(h, 1),
    ),
    "agoraish_engine_set_log_file_size": Row(
        [
            ("size_kb", str(v), rc_is(EINVAL, lambda ctx, v=v: _ffi.agoraish_engine_set_log_file_size(ctx.engine, v)))
            for v in (0, 20481, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)
        ] + [
            ("size_kb", f"valid {v}", rc_is(0, lambda ctx, v=v: _ffi.agoraish_engine_set_log_file_size(ctx.engine, v)))
            for v in (1, 127, 128, 20480)
        ],
        handle_call=lambda h: _ffi.agoraish_engine_set_log_file_size(h, 256),
    ),
}

ENGINE_FUNCTIONS = sorted(n for n, f in HEADER_FUNCTIONS.items() if f.params and f.params[0].ctype == "agoraish_engine_t *")
CASES = [(name, param, label, case) for name, row in ROWS.items() for param, label, case in row.cases]


def test_table_covers_every_function():
    assert set(ROWS) == set(HEADER_FUNCTIONS), "add a row to ROWS for every header function"
    for name, decl in HEADER_FUNCTIONS.items():
        row = ROWS[name]
        covered = {param for param, _, _ in row.cases}
        wanted = {p.name for p in decl.params if p.ctype != "agoraish_engine_t *"} or {""}
        assert wanted <= covered, f"{name}: no case for parameter(s) {sorted(wanted - covered)}"
        if name in ENGINE_FUNCTIONS:
            assert row.handle_call is not None, f"{name}: no handle_call"


@pytest.fixture
def ctx(tmp_path):
    config = make_config(tmp_path)
    handle = _ffi.agoraish_engine_create(ctypes.byref(config))
    assert handle, _ffi.agoraish_get_last_error()
    yield Ctx(handle, tmp_path)
    assert _ffi.agoraish_engine_release(handle, 1) == 0


@pytest.mark.parametrize("name,param,label,case", CASES, ids=[f"{n}:{p or '-'}:{lbl}" for n, p, lbl, _ in CASES])
def test_case(ctx, name, param, label, case):
    case(ctx)


@pytest.mark.parametrize("name", ENGINE_FUNCTIONS)
def test_bad_handles(tmp_path, name):
    call = ROWS[name].handle_call
    assert call is not None
    assert call(None) == ENOINIT, "NULL"
    assert call(WRONG_TYPE) == EINVAL, "a handle of another type"
    assert call(GARBAGE) == EINVAL, "garbage (tag 0)"
    assert call(NEVER_ISSUED) == ROWS[name].stale, "an engine handle never issued"
    config = make_config(tmp_path)
    handle = _ffi.agoraish_engine_create(ctypes.byref(config))
    assert handle
    assert _ffi.agoraish_engine_release(handle, 1) == 0
    assert call(handle) == ROWS[name].stale, "a released handle"
    # A new engine reusing the slot gets a new generation: the old handle stays stale.
    again = _ffi.agoraish_engine_create(ctypes.byref(config))
    assert again and again != handle
    try:
        assert call(handle) == ROWS[name].stale, "a released handle whose slot was reused"
    finally:
        assert _ffi.agoraish_engine_release(again, 1) == 0


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
