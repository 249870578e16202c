"""The Python API of libagoraish: ``RtcEngine``, ``EventHandler``, ``AgoraishError``.

Threads
-------
Every method may be called from any thread; the library releases no lock the
caller holds and ctypes releases the GIL during each call. Event callbacks
(``EventHandler.on_*``) run on the engine's own event thread, one at a time,
in the order the events happened, never on the thread that made the call.

Lifetime
--------
An ``RtcEngine`` owns its C engine and the ctypes callback objects the C
engine calls. ``release()`` (or leaving a ``with`` block) frees the engine.
An engine that is garbage collected without ``release()`` is released then,
and any engine still alive at interpreter exit is released by an ``atexit``
hook, so no callback can reach a finalizing interpreter.

``release(sync=False)`` returns before a callback that is already running has
returned into the library. The callback objects of such an engine are moved
to the module-level set ``_ASYNC_RELEASED`` and kept for the life of the
process (a few hundred bytes per engine), because nothing tells Python when
the library is done with them; the user's handler object is dropped at once.
"""

from __future__ import annotations

import atexit
import ctypes
import enum
import json
import operator
import os
import sys
import threading
import traceback
import types
import weakref
from typing import Any, Callable, List, Mapping, Optional, Set, Tuple, Union

from . import _ffi

__all__ = [
    "AgoraishError",
    "AreaCode",
    "ErrorCode",
    "EventHandler",
    "LogFilter",
    "LogLevel",
    "RtcEngine",
    "get_error_description",
    "get_version",
]

StrPath = Union[str, "os.PathLike[str]"]


# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------


class ErrorCode(enum.IntEnum):
    """Agora's ERROR_CODE_TYPE (``enum agoraish_error_code``). Functions return the negation."""

    OK = _ffi.AGORAISH_ERR_OK
    FAILED = _ffi.AGORAISH_ERR_FAILED
    INVALID_ARGUMENT = _ffi.AGORAISH_ERR_INVALID_ARGUMENT
    NOT_READY = _ffi.AGORAISH_ERR_NOT_READY
    NOT_SUPPORTED = _ffi.AGORAISH_ERR_NOT_SUPPORTED
    REFUSED = _ffi.AGORAISH_ERR_REFUSED
    BUFFER_TOO_SMALL = _ffi.AGORAISH_ERR_BUFFER_TOO_SMALL
    NOT_INITIALIZED = _ffi.AGORAISH_ERR_NOT_INITIALIZED
    INVALID_STATE = _ffi.AGORAISH_ERR_INVALID_STATE
    NO_PERMISSION = _ffi.AGORAISH_ERR_NO_PERMISSION
    TIMEDOUT = _ffi.AGORAISH_ERR_TIMEDOUT
    CANCELED = _ffi.AGORAISH_ERR_CANCELED
    TOO_OFTEN = _ffi.AGORAISH_ERR_TOO_OFTEN
    BIND_SOCKET = _ffi.AGORAISH_ERR_BIND_SOCKET
    NET_DOWN = _ffi.AGORAISH_ERR_NET_DOWN
    NET_NOBUFS = _ffi.AGORAISH_ERR_NET_NOBUFS
    JOIN_CHANNEL_REJECTED = _ffi.AGORAISH_ERR_JOIN_CHANNEL_REJECTED
    LEAVE_CHANNEL_REJECTED = _ffi.AGORAISH_ERR_LEAVE_CHANNEL_REJECTED
    ALREADY_IN_USE = _ffi.AGORAISH_ERR_ALREADY_IN_USE
    ABORTED = _ffi.AGORAISH_ERR_ABORTED
    INIT_NET_ENGINE = _ffi.AGORAISH_ERR_INIT_NET_ENGINE
    RESOURCE_LIMITED = _ffi.AGORAISH_ERR_RESOURCE_LIMITED
    INVALID_APP_ID = _ffi.AGORAISH_ERR_INVALID_APP_ID
    INVALID_CHANNEL_NAME = _ffi.AGORAISH_ERR_INVALID_CHANNEL_NAME
    NO_SERVER_RESOURCES = _ffi.AGORAISH_ERR_NO_SERVER_RESOURCES
    TOKEN_EXPIRED = _ffi.AGORAISH_ERR_TOKEN_EXPIRED
    INVALID_TOKEN = _ffi.AGORAISH_ERR_INVALID_TOKEN
    CONNECTION_INTERRUPTED = _ffi.AGORAISH_ERR_CONNECTION_INTERRUPTED
    CONNECTION_LOST = _ffi.AGORAISH_ERR_CONNECTION_LOST
    NOT_IN_CHANNEL = _ffi.AGORAISH_ERR_NOT_IN_CHANNEL
    SIZE_TOO_LARGE = _ffi.AGORAISH_ERR_SIZE_TOO_LARGE
    BITRATE_LIMIT = _ffi.AGORAISH_ERR_BITRATE_LIMIT
    TOO_MANY_DATA_STREAMS = _ffi.AGORAISH_ERR_TOO_MANY_DATA_STREAMS
    STREAM_MESSAGE_TIMEOUT = _ffi.AGORAISH_ERR_STREAM_MESSAGE_TIMEOUT
    SET_CLIENT_ROLE_NOT_AUTHORIZED = _ffi.AGORAISH_ERR_SET_CLIENT_ROLE_NOT_AUTHORIZED
    DECRYPTION_FAILED = _ffi.AGORAISH_ERR_DECRYPTION_FAILED
    INVALID_USER_ID = _ffi.AGORAISH_ERR_INVALID_USER_ID
    CLIENT_IS_BANNED_BY_SERVER = _ffi.AGORAISH_ERR_CLIENT_IS_BANNED_BY_SERVER
    INVALID_USER_ACCOUNT = _ffi.AGORAISH_ERR_INVALID_USER_ACCOUNT


class LogFilter(enum.IntEnum):
    """Agora's LOG_FILTER_TYPE for ``RtcEngine.set_log_filter``; each includes the more severe levels."""

    OFF = _ffi.AGORAISH_LOG_FILTER_OFF
    DEBUG = _ffi.AGORAISH_LOG_FILTER_DEBUG
    INFO = _ffi.AGORAISH_LOG_FILTER_INFO
    WARN = _ffi.AGORAISH_LOG_FILTER_WARN
    ERROR = _ffi.AGORAISH_LOG_FILTER_ERROR
    CRITICAL = _ffi.AGORAISH_LOG_FILTER_CRITICAL
    # MASK (0x080f) has the value of DEBUG and is available as _ffi.AGORAISH_LOG_FILTER_MASK.


class LogLevel(enum.IntEnum):
    """Agora 4.x LOG_LEVEL for ``log_level`` and ``RtcEngine.set_log_level``."""

    NONE = _ffi.AGORAISH_LOG_LEVEL_NONE
    INFO = _ffi.AGORAISH_LOG_LEVEL_INFO
    WARN = _ffi.AGORAISH_LOG_LEVEL_WARN
    ERROR = _ffi.AGORAISH_LOG_LEVEL_ERROR
    FATAL = _ffi.AGORAISH_LOG_LEVEL_FATAL


class AreaCode(enum.IntEnum):
    """Agora's AREA_CODE bits for ``area_code``; combine regions with ``|``.

    ``GLOB`` is 0xFFFFFFFF here (the value "rtc.area_code" reads back); the
    header spells it ``(int)0xFFFFFFFF``, and -1 is accepted as well.
    """

    CN = _ffi.AGORAISH_AREA_CODE_CN
    NA = _ffi.AGORAISH_AREA_CODE_NA
    EU = _ffi.AGORAISH_AREA_CODE_EU
    AS = _ffi.AGORAISH_AREA_CODE_AS
    JP = _ffi.AGORAISH_AREA_CODE_JP
    IN = _ffi.AGORAISH_AREA_CODE_IN
    GLOB = _ffi.AGORAISH_AREA_CODE_GLOB & 0xFFFFFFFF


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


def get_error_description(code: int) -> str:
    """The library's description of an error code, negated or not ("unknown error" if unknown).

    Thread: any.
    """
    text = _ffi.agoraish_get_error_description(_c_int(code, "code"))
    return text.decode("utf-8", "replace") if text else "unknown error"


def get_version() -> Tuple[str, int]:
    """The library version ("major.minor.patch") and its build number (Agora's getVersion).

    Thread: any.
    """
    build = ctypes.c_int(0)
    text = _ffi.agoraish_get_version(ctypes.byref(build))
    return (text.decode("utf-8", "replace") if text else ""), build.value


class AgoraishError(Exception):
    """A call into libagoraish failed.

    Attributes:
        code: the negative code the C function returned (for example -2).
        description: the library's text for it (agoraish_get_error_description).
        operation: what was being done, for the message (may be empty).
    """

    code: int
    description: str
    operation: str

    def __init__(self, code: int, operation: str = "") -> None:
        self.code = -abs(int(code))
        self.operation = operation
        try:
            self.description = get_error_description(self.code)
        except Exception:  # the library may be half torn down at exit
            self.description = "unknown error"
        prefix = f"{operation}: " if operation else ""
        super().__init__(f"{prefix}{self.description} ({self.code})")

    def __reduce__(self) -> Tuple[type, Tuple[int, str]]:
        return (type(self), (self.code, self.operation))

    @property
    def error_code(self) -> Optional[ErrorCode]:
        """The code as an ``ErrorCode`` (positive), or None if the header does not list it."""
        try:
            return ErrorCode(-self.code)
        except ValueError:
            return None


def _check(rc: int, operation: str) -> None:
    if rc != 0:
        raise AgoraishError(rc, operation)


# --------------------------------------------------------------------------
# Argument conversion: Python values that C cannot represent are -2 here
# --------------------------------------------------------------------------


def _c_int(value: int, name: str) -> int:
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if not -(2**31) <= v < 2**31:
        raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"{name} {v} does not fit a C int")
    return v


def _c_uint(value: int, name: str) -> int:
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if not 0 <= v < 2**32:
        raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"{name} {v} does not fit a C unsigned int")
    return v


def _c_string(value: Union[str, bytes, "os.PathLike[Any]", None], name: str) -> Optional[bytes]:
    """UTF-8 bytes for a C string argument; None stays NULL."""
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, str):
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError:
            raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"{name} is not valid UTF-8") from None
    elif isinstance(value, (bytes, bytearray)):
        data = bytes(value)
    else:
        raise TypeError(f"{name} must be str, bytes or a path, not {type(value).__name__}")
    if b"\0" in data:
        raise AgoraishError(-_ffi.AGORAISH_ERR_INVALID_ARGUMENT, f"{name} contains a NUL byte")
    return data


# --------------------------------------------------------------------------
# Event handler and the ctypes callback plumbing
# --------------------------------------------------------------------------


class EventHandler:
    """Receives an engine's events (Agora's IRtcEngineEventHandler).

    Subclass it and override the callbacks you need; only overridden methods
    are installed in the C table, the others stay NULL. The engine keeps a
    reference to the handler until it is released.

    Thread: every callback runs on the engine's event thread, one at a time,
    in the order the events happened. A callback may call any method of the
    engine except ``release()`` of that same engine, which raises
    ``AgoraishError`` with code -5. An exception raised by a callback is
    reported through ``sys.unraisablehook`` and does not reach the library.
    """

    def on_api_call_executed(self, err: int, api: str, result: str) -> None:
        """An API call was carried out (onApiCallExecuted).

        Args:
            err: 0, or the (positive) error code the work ended with.
            api: the Agora method name, for example "setParameters".
            result: what the call applied, as text (for setParameters, the
                applied JSON object with sorted keys).
        """


def _text(value: Optional[bytes]) -> str:
    return value.decode("utf-8", "replace") if value is not None else ""


class _CallbackSpec:
    """One entry of ``agoraish_event_handler``: C field, CFUNCTYPE, argument conversion."""

    __slots__ = ("name", "ctype", "convert")

    def __init__(self, name: str, ctype: Any, convert: Callable[..., tuple]) -> None:
        self.name = name
        self.ctype = ctype
        self.convert = convert


#: The callbacks of agoraish_event_handler. The Python method has the C field's name.
_CALLBACKS: Tuple[_CallbackSpec, ...] = (
    _CallbackSpec(
        "on_api_call_executed",
        _ffi.ApiCallExecutedCallback,
        lambda err, api, result: (int(err), _text(api), _text(result)),
    ),
)


def _overrides(handler: object, name: str) -> bool:
    """Whether `handler` implements callback `name` itself (not EventHandler's no-op)."""
    if name in getattr(handler, "__dict__", {}):
        return callable(handler.__dict__[name])
    method = getattr(type(handler), name, None)
    if method is None:
        return callable(getattr(handler, name, None))
    return callable(method) and method is not getattr(EventHandler, name, None)


class _Unraisable(types.SimpleNamespace):
    """The argument of ``sys.unraisablehook`` for a custom hook."""


def _report_callback_exception(error: BaseException, name: str, handler: object) -> None:
    message = f"Exception ignored in agoraish callback {name}"
    hook = getattr(sys, "unraisablehook", None)
    try:
        if hook is not None and hook is not getattr(sys, "__unraisablehook__", None):
            hook(
                _Unraisable(
                    exc_type=type(error),
                    exc_value=error,
                    exc_traceback=error.__traceback__,
                    err_msg=message,
                    object=handler,
                )
            )
            return
        stderr = sys.stderr
        if stderr is not None:
            stderr.write(f"{message} of {handler!r}:\n")
            traceback.print_exception(type(error), error, error.__traceback__, file=stderr)
            stderr.flush()
    except BaseException:  # nothing may propagate into C
        pass


class _HandlerCell:
    """The handler the thunks call; emptied on release so late callbacks do nothing."""

    __slots__ = ("handler",)

    def __init__(self, handler: object) -> None:
        self.handler: Optional[object] = handler


def _make_thunk(cell: _HandlerCell, spec: _CallbackSpec) -> Any:
    def thunk(_engine: Optional[int], _user_data: Optional[int], *args: Any) -> None:
        handler = cell.handler
        if handler is None:
            return
        try:
            getattr(handler, spec.name)(*spec.convert(*args))
        except BaseException as error:
            _report_callback_exception(error, spec.name, handler)

    return spec.ctype(thunk)


class _Keepalive:
    """What the C engine points at: the CFUNCTYPE thunks and the table.

    It must stay alive until the library has returned from the last callback.
    It holds no reference to the ``RtcEngine``, so an unreachable engine can
    still be collected (and released) while the keepalive lives on.
    """

    __slots__ = ("cell", "thunks", "table")

    def __init__(self, handler: Optional[object]) -> None:
        self.cell = _HandlerCell(handler)
        self.thunks: List[Any] = []
        self.table = _ffi.EventHandlerTable()
        self.table.struct_size = ctypes.sizeof(_ffi.EventHandlerTable)
        self.table.user_data = None
        if handler is None:
            return
        for spec in _CALLBACKS:
            if _overrides(handler, spec.name):
                thunk = _make_thunk(self.cell, spec)
                self.thunks.append(thunk)
                setattr(self.table, spec.name, thunk)

    def drop_handler(self) -> None:
        self.cell.handler = None


#: Keepalives of engines released with sync=False (and of engines collected
#: on their own event thread): the library may still be returning from a
#: callback through their thunks, so they are kept for the life of the process.
_ASYNC_RELEASED: Set[_Keepalive] = set()
_ASYNC_LOCK = threading.Lock()

#: Engines not yet released, for the exit hook.
_LIVE: "weakref.WeakSet[RtcEngine]" = weakref.WeakSet()


def _keep_forever(keepalive: _Keepalive) -> None:
    keepalive.drop_handler()
    with _ASYNC_LOCK:
        _ASYNC_RELEASED.add(keepalive)


def _release_in_background(handle: int, keepalive: Optional[_Keepalive]) -> None:
    """Releases `handle` from a helper thread (used when collected on its own event thread)."""

    def run() -> None:
        _ffi.agoraish_engine_release(handle, 1)

    if keepalive is not None:
        _keep_forever(keepalive)
    threading.Thread(target=run, name="agoraish-release", daemon=True).start()


# --------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------


class RtcEngine:
    """An engine (Agora's IRtcEngine): create, configure, release.

    Args:
        app_id: 1..128 printable ASCII characters (-101 otherwise).
        handler: an ``EventHandler`` (or any object with ``on_*`` methods),
            or None. The engine keeps it referenced until release.
        server_url: "ws://host:port" or "wss://host:port"; None or "" selects
            the environment variable AGORAISH_SERVER, then "ws://127.0.0.1:7450".
        log_file: the log file; None or "" selects the default
            (AGORAISH_LOG_DIR, $XDG_STATE_HOME/agoraish, ...). Read it back
            with ``log_file``.
        log_file_size_kb: size of one log file; 0 or -1 for the default 1024.
        log_level: a ``LogLevel``; 0 selects INFO.
        area_code: an ``AreaCode`` bit set; 0 selects GLOB.

    Raises:
        AgoraishError: the library refused the configuration
            (``agoraish_get_last_error()``: -2, -101 or -1).

    Owner: the caller, until ``release()``; usable as a context manager.
    Thread: every method may be called from any thread. Callbacks run on
    the engine's event thread.
    """

    def __init__(
        self,
        app_id: str,
        handler: Optional[object] = None,
        *,
        server_url: Optional[str] = None,
        log_file: Optional[StrPath] = None,
        log_file_size_kb: int = 0,
        log_level: int = 0,
        area_code: int = 0,
    ) -> None:
        self._handle: Optional[int] = None
        self._keepalive: Optional[_Keepalive] = None
        self._lock = threading.Lock()
        self._releases_in_flight = 0
        self._releases_overlapped = False
        self._handler = handler

        area = operator.index(area_code)
        if -(2**31) <= area < 0:
            area &= 0xFFFFFFFF  # (int)0xFFFFFFFF, the header's AREA_CODE_GLOB
        app_id_bytes = _c_string(app_id, "app_id")
        server_bytes = _c_string(server_url, "server_url")
        log_file_bytes = _c_string(log_file, "log_file")
        config = _ffi.EngineConfig()
        config.struct_size = ctypes.sizeof(_ffi.EngineConfig)
        config.app_id = app_id_bytes
        config.server_url = server_bytes
        config.log_file = log_file_bytes
        config.log_file_size_kb = _c_int(log_file_size_kb, "log_file_size_kb")
        config.log_level = _c_int(log_level, "log_level")
        config.area_code = _c_uint(area, "area_code")

        keepalive = _Keepalive(handler)
        config.event_handler = ctypes.pointer(keepalive.table)
        handle = _ffi.agoraish_engine_create(ctypes.byref(config))
        if not handle:
            code = _ffi.agoraish_get_last_error()
            raise AgoraishError(code or -_ffi.AGORAISH_ERR_FAILED, "agoraish_engine_create")
        self._handle = handle
        self._keepalive = keepalive
        _LIVE.add(self)

    # -- lifetime ------------------------------------------------------------

    @property
    def handle(self) -> int:
        """The raw ``agoraish_engine_t *`` token (stale after release).

        Thread: any.
        """
        return self._handle or 0

    @property
    def handler(self) -> Optional[object]:
        """The event handler given at creation (None after release).

        Thread: any.
        """
        return self._handler

    @property
    def released(self) -> bool:
        """Whether ``release()`` has succeeded on this engine.

        Thread: any.
        """
        return self._keepalive is None

    def release(self, sync: bool = True) -> None:
        """Releases the engine and everything it owns (Agora's release). Idempotent.

        Args:
            sync: True waits until a callback already running has returned
                and the event thread has ended. False returns at once; the
                callback objects are then kept for the life of the process
                (see the module docstring).

        Raises:
            AgoraishError: -5 when called from one of this engine's own
                callbacks (release it after the callback returns).

        Thread: any, except this engine's event thread.
        """
        with self._lock:
            if self._releases_in_flight:
                self._releases_overlapped = True
            self._releases_in_flight += 1
        rc = -_ffi.AGORAISH_ERR_FAILED
        try:
            rc = _ffi.agoraish_engine_release(self.handle, 1 if sync else 0)
        finally:
            with self._lock:
                self._releases_in_flight -= 1
                keepalive = None
                if rc == 0:
                    keepalive, self._keepalive = self._keepalive, None
                    self._handler = None
                overlapped = self._releases_overlapped
        if keepalive is not None:
            _LIVE.discard(self)
            if sync and not overlapped:
                keepalive.drop_handler()  # no callback runs any more: drop it with the engine
            else:
                # Another release ran at the same time (its sync or not is
                # unknown here), or this one did not wait: keep the thunks.
                _keep_forever(keepalive)
        _check(rc, "release")

    def __enter__(self) -> "RtcEngine":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release(sync=True)

    def __del__(self) -> None:
        keepalive = getattr(self, "_keepalive", None)
        handle = getattr(self, "_handle", None)
        if keepalive is None or not handle:
            return
        try:
            rc = _ffi.agoraish_engine_release(handle, 1)
            if rc == -_ffi.AGORAISH_ERR_REFUSED:
                # Collected on its own event thread: release from another thread.
                _release_in_background(handle, keepalive)
            elif rc == 0:
                keepalive.drop_handler()
            else:
                _keep_forever(keepalive)
        except BaseException:  # interpreter shutdown: modules may be gone
            pass

    def __repr__(self) -> str:
        state = "released" if self.released else "live"
        return f"<agoraish.RtcEngine handle=0x{self.handle:016x} {state}>"

    # -- parameters ------------------------------------------------------------

    def set_parameters(self, params: Union[str, bytes, Mapping[str, Any]]) -> None:
        """Sets private parameters (Agora's setParameters).

        Args:
            params: a JSON object as text, or a mapping (encoded with
                ``json.dumps``), for example ``{"rtc.log_filter": 2063}``.
                Known keys: rtc.log_file, rtc.log_filter, rtc.log_level,
                rtc.log_size, rtc.server_url. The whole object is checked
                before any key is applied.

        Raises:
            AgoraishError: -2 for bad JSON, an unknown key or a bad value;
                -7 if the engine is released.

        On success ``on_api_call_executed(0, "setParameters", json)`` follows.

        Thread: any.
        """
        if isinstance(params, (str, bytes, bytearray)):
            text = params
        else:
            text = json.dumps(dict(params))
        rc = _ffi.agoraish_engine_set_parameters(self.handle, _c_string(text, "params"))
        _check(rc, "set_parameters")

    def get_parameter_text(self, key: str) -> str:
        """Reads one parameter as JSON text (a string value is quoted).

        Raises:
            AgoraishError: -2 for an unknown key; -7 if the engine is released.

        Thread: any.
        """
        key_bytes = _c_string(key, "key")
        length = ctypes.c_size_t(0)
        rc = _ffi.agoraish_engine_get_parameter(self.handle, key_bytes, None, ctypes.byref(length))
        while rc == -_ffi.AGORAISH_ERR_BUFFER_TOO_SMALL:
            buffer = ctypes.create_string_buffer(length.value)
            rc = _ffi.agoraish_engine_get_parameter(self.handle, key_bytes, buffer, ctypes.byref(length))
            if rc == 0:
                return buffer.value.decode("utf-8", "replace")
            # -6 again: the value grew between the two calls; `length` holds the new size.
        _check(rc, f"get_parameter({key!r})")
        return ""  # unreachable: an answer of 0 to a size query would need an empty buffer

    def get_parameter(self, key: str) -> Any:
        """Reads one parameter, decoded from JSON (Agora's getParameter).

        Besides the keys of ``set_parameters``, "rtc.app_id" and
        "rtc.area_code" can be read.

        Raises:
            AgoraishError: -2 for an unknown key; -7 if the engine is released.

        Thread: any.
        """
        return json.loads(self.get_parameter_text(key))

    @property
    def log_file(self) -> str:
        """The path of the current log file (parameter "rtc.log_file").

        Thread: any.
        """
        value = self.get_parameter("rtc.log_file")
        return str(value)

    # -- logging ---------------------------------------------------------------

    def set_log_file(self, path: StrPath) -> None:
        """Switches logging to `path` (Agora's setLogFile); its directory must exist.

        Raises:
            AgoraishError: -2 if the path is empty, too long or cannot be
                opened (the previous file stays in use); -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_log_file(self.handle, _c_string(path, "path"))
        _check(rc, "set_log_file")

    def set_log_filter(self, log_filter: int) -> None:
        """Sets which log lines are written (Agora's setLogFilter): a ``LogFilter`` bit set.

        Raises:
            AgoraishError: -2 for bits outside LOG_FILTER_MASK; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_log_filter(self.handle, _c_uint(log_filter, "filter"))
        _check(rc, "set_log_filter")

    def set_log_level(self, level: int) -> None:
        """Sets the log level (Agora 4.x setLogLevel): a ``LogLevel``.

        Raises:
            AgoraishError: -2 for other values; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_log_level(self.handle, _c_int(level, "level"))
        _check(rc, "set_log_level")

    def set_log_file_size(self, size_kb: int) -> None:
        """Sets the size of one log file in KB (Agora's setLogFileSize).

        Values from 1 to 128 are raised to 128; 0 and values above 20480 are -2.
        When the file would grow past the size, the files rotate
        (``name_1.log`` .. ``name_4.log``).

        Raises:
            AgoraishError: -2 out of range; -7 if released.

        Thread: any.
        """
        rc = _ffi.agoraish_engine_set_log_file_size(self.handle, _c_uint(size_kb, "size_kb"))
        _check(rc, "set_log_file_size")

    # -- library information ------------------------------------------------------

    #: ``get_version()``: the library version and build number (Agora's getVersion).
    get_version = staticmethod(get_version)
    #: The same as ``get_version``, under the short name.
    version = staticmethod(get_version)
    #: ``get_error_description(code)``: the library's text for an error code.
    get_error_description = staticmethod(get_error_description)


def _release_all_at_exit() -> None:
    """Releases the engines still alive, before the interpreter stops running callbacks."""
    for engine in list(_LIVE):
        try:
            engine.release(sync=True)
        except BaseException:
            pass


atexit.register(_release_all_at_exit)
