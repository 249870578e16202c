"""Fallback and priority (ABI 0.7) through the Python binding, without a call.

The setters accept and refuse what include/agoraish.h documents
(set_local_publish_fallback_option: DISABLED or AUDIO_ONLY;
set_remote_subscribe_fallback_option: 0..2; set_remote_user_priority: uid not
0, HIGH or NORMAL), the enums carry Agora's numbers, and the two callbacks are
on EventHandler with the documented signatures and are wired into the C table
like the other callbacks. What the fallbacks do on a congested link is tested
with the engine and the server; here nothing joins a channel.
"""

from __future__ import annotations

import inspect
from typing import List, Tuple

import pytest

import agoraish
from agoraish import AgoraishError, EventHandler, PriorityType, StreamFallbackOptions

EINVAL, ENOINIT = -2, -7
INT_MAX, INT_MIN = 2**31 - 1, -(2**31)


# --------------------------------------------------------------------------
# Enums
# --------------------------------------------------------------------------


def test_stream_fallback_options_are_agoras_numbers():
    assert {m.name: int(m) for m in StreamFallbackOptions} == {
        "DISABLED": 0,
        "VIDEO_STREAM_LOW": 1,
        "AUDIO_ONLY": 2,
    }


def test_priority_type_is_agoras_numbers():
    assert {m.name: int(m) for m in PriorityType} == {"HIGH": 50, "NORMAL": 100}


def test_enums_are_exported():
    assert "StreamFallbackOptions" in agoraish.__all__ and "PriorityType" in agoraish.__all__
    assert agoraish.engine.StreamFallbackOptions is StreamFallbackOptions
    assert agoraish.engine.PriorityType is PriorityType


# --------------------------------------------------------------------------
# Setters on a created engine (no call)
# --------------------------------------------------------------------------


def _refused(call, *args) -> int:
    with pytest.raises(AgoraishError) as info:
        call(*args)
    return info.value.code


@pytest.mark.parametrize("option", [-1, StreamFallbackOptions.VIDEO_STREAM_LOW, 3, INT_MAX, INT_MIN])
def test_local_publish_fallback_option_refuses(make_engine, option):
    engine = make_engine()
    assert _refused(engine.set_local_publish_fallback_option, option) == EINVAL


def test_local_publish_fallback_option_accepts_disabled_and_audio_only(make_engine):
    engine = make_engine()
    for option in (StreamFallbackOptions.AUDIO_ONLY, StreamFallbackOptions.AUDIO_ONLY,
                   StreamFallbackOptions.DISABLED, 2, 0):
        assert engine.set_local_publish_fallback_option(option) is None, option


@pytest.mark.parametrize("option", [-1, 3, INT_MAX, INT_MIN])
def test_remote_subscribe_fallback_option_refuses(make_engine, option):
    engine = make_engine()
    assert _refused(engine.set_remote_subscribe_fallback_option, option) == EINVAL


def test_remote_subscribe_fallback_option_accepts_every_option(make_engine):
    engine = make_engine()
    for option in (*StreamFallbackOptions, *StreamFallbackOptions, 0, 1, 2):
        assert engine.set_remote_subscribe_fallback_option(option) is None, option


@pytest.mark.parametrize("priority", [PriorityType.HIGH, PriorityType.NORMAL])
def test_remote_user_priority_refuses_uid_0(make_engine, priority):
    engine = make_engine()
    assert _refused(engine.set_remote_user_priority, 0, priority) == EINVAL


@pytest.mark.parametrize("priority", [0, 1, 49, 51, 99, 101, -1, INT_MAX, INT_MIN])
def test_remote_user_priority_refuses_other_priorities(make_engine, priority):
    engine = make_engine()
    assert _refused(engine.set_remote_user_priority, 7, priority) == EINVAL


def test_remote_user_priority_accepts_high_and_normal(make_engine):
    engine = make_engine()
    # Users that have not joined (yet); HIGH moves from one user to the next.
    for uid, priority in ((7, PriorityType.HIGH), (7, PriorityType.HIGH), (8, PriorityType.HIGH),
                          (7, PriorityType.NORMAL), (8, PriorityType.NORMAL), (2**32 - 1, 50), (2**32 - 1, 100)):
        assert engine.set_remote_user_priority(uid, priority) is None, (uid, priority)


def test_values_c_cannot_hold_are_refused_before_the_call(make_engine):
    engine = make_engine()
    assert _refused(engine.set_local_publish_fallback_option, 2**31) == EINVAL
    assert _refused(engine.set_remote_subscribe_fallback_option, -(2**31) - 1) == EINVAL
    assert _refused(engine.set_remote_user_priority, 2**32, PriorityType.HIGH) == EINVAL
    assert _refused(engine.set_remote_user_priority, -1, PriorityType.HIGH) == EINVAL
    assert _refused(engine.set_remote_user_priority, 7, 2**31) == EINVAL
    with pytest.raises(TypeError):
        engine.set_local_publish_fallback_option("AUDIO_ONLY")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        engine.set_remote_user_priority(7, 50.0)  # type: ignore[arg-type]


def test_setters_on_a_released_engine(make_engine):
    engine = make_engine()
    engine.release()
    assert _refused(engine.set_local_publish_fallback_option, StreamFallbackOptions.AUDIO_ONLY) == ENOINIT
    assert _refused(engine.set_remote_subscribe_fallback_option, StreamFallbackOptions.AUDIO_ONLY) == ENOINIT
    assert _refused(engine.set_remote_user_priority, 7, PriorityType.HIGH) == ENOINIT


def test_refusals_name_the_operation(make_engine):
    engine = make_engine()
    for call, args, operation in (
        (engine.set_local_publish_fallback_option, (1,), "set_local_publish_fallback_option"),
        (engine.set_remote_subscribe_fallback_option, (3,), "set_remote_subscribe_fallback_option"),
        (engine.set_remote_user_priority, (0, 50), "set_remote_user_priority"),
    ):
        with pytest.raises(AgoraishError) as info:
            call(*args)
        assert info.value.operation == operation


# --------------------------------------------------------------------------
# Callbacks
# --------------------------------------------------------------------------


def test_callbacks_are_on_the_handler_base_class():
    publish = inspect.signature(EventHandler.on_local_publish_fallback_to_audio_only)
    assert list(publish.parameters) == ["self", "is_fallback_or_recover"]
    subscribe = inspect.signature(EventHandler.on_remote_subscribe_fallback_to_audio_only)
    assert list(subscribe.parameters) == ["self", "uid", "is_fallback_or_recover"]
    # The base class does nothing.
    assert EventHandler().on_local_publish_fallback_to_audio_only(True) is None
    assert EventHandler().on_remote_subscribe_fallback_to_audio_only(7, False) is None


def test_callbacks_are_the_first_entries_of_abi_0_7_in_the_table():
    from agoraish import _ffi
    from agoraish.engine import _CALLBACKS

    # Right after on_network_quality, the last callback of ABI 0.6.
    names = [spec.name for spec in _CALLBACKS]
    i = names.index("on_network_quality")
    assert names[i + 1:i + 3] == ["on_local_publish_fallback_to_audio_only",
                                  "on_remote_subscribe_fallback_to_audio_only"]
    fields = [name for name, _ in _ffi.EventHandlerTable._fields_]
    j = fields.index("on_network_quality")
    assert fields[j + 1:j + 3] == names[i + 1:i + 3]


class Fallbacks(EventHandler):
    def __init__(self) -> None:
        self.events: List[Tuple] = []

    def on_local_publish_fallback_to_audio_only(self, is_fallback_or_recover: bool) -> None:
        self.events.append(("publish", is_fallback_or_recover))

    def on_remote_subscribe_fallback_to_audio_only(self, uid: int, is_fallback_or_recover: bool) -> None:
        self.events.append(("subscribe", uid, is_fallback_or_recover))


def test_overridden_callbacks_are_installed_and_convert_their_arguments(make_engine):
    handler = Fallbacks()
    engine = make_engine(handler)
    table = engine._keepalive.table
    assert table.on_local_publish_fallback_to_audio_only
    assert table.on_remote_subscribe_fallback_to_audio_only
    # Through the C function pointers the library calls: ints become bools, the uid stays unsigned.
    table.on_local_publish_fallback_to_audio_only(None, None, 1)
    table.on_local_publish_fallback_to_audio_only(None, None, 0)
    table.on_remote_subscribe_fallback_to_audio_only(None, None, 2**32 - 1, 1)
    table.on_remote_subscribe_fallback_to_audio_only(None, None, 7, 0)
    assert handler.events == [
        ("publish", True),
        ("publish", False),
        ("subscribe", 2**32 - 1, True),
        ("subscribe", 7, False),
    ]
    assert all(type(event[-1]) is bool for event in handler.events)


def test_callbacks_not_overridden_are_not_installed(make_engine):
    engine = make_engine(EventHandler())
    table = engine._keepalive.table
    assert not table.on_local_publish_fallback_to_audio_only
    assert not table.on_remote_subscribe_fallback_to_audio_only
