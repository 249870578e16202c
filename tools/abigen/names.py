"""How C names become the names of each binding: one rule per kind of name."""

from __future__ import annotations

import os
from typing import Dict, List, Sequence, Tuple

from model import Enum, Struct


def camel(snake: str) -> str:
    """agoraish_rtc_stats -> RtcStats; on_user_joined -> OnUserJoined."""
    if snake.startswith("agoraish_"):
        snake = snake[len("agoraish_"):]
    return "".join(part[:1].upper() + part[1:] for part in snake.split("_") if part)


def lower_camel(snake: str) -> str:
    """on_user_joined -> onUserJoined (the C++ handler's method)."""
    c = camel(snake)
    return c[:1].lower() + c[1:]


def struct_class(s: Struct) -> str:
    """The ctypes class of a struct: an observer or handler is a ...Table (the
    Python API names its handler and observer classes after the struct)."""
    if s.name.endswith(("_observer", "_handler")):
        return camel(s.name) + "Table"
    return camel(s.name)


def callback_type(field_name: str, owner: str = "") -> str:
    """on_user_joined -> UserJoinedCallback; in a struct whose name ends in
    _ex (agoraish_event_handler_ex, whose fields repeat the handler's names
    with other signatures) -> UserJoinedExCallback."""
    name = field_name[3:] if field_name.startswith("on_") else field_name
    return camel(name) + ("ExCallback" if owner.endswith("_ex") else "Callback")


def callback_types(structs: Sequence[Struct]) -> Dict[Tuple[str, str], str]:
    """The callback type of every function-pointer field, keyed by (struct,
    field): callback_type's name, unless a struct before it in the header
    took that name already (the media player's observers and the video
    canvas all have an `on_frame`); then the struct's name qualifies it:
    agoraish_media_player_audio_frame_observer.on_frame ->
    MediaPlayerAudioFrameCallback. The first struct keeps the plain name, so
    a struct appended to the header never renames an existing type."""
    names: Dict[Tuple[str, str], str] = {}
    taken = set()
    for s in structs:
        for f in s.callbacks:
            name = callback_type(f.name, s.name)
            if name in taken:
                owner = s.name
                for suffix in ("_observer", "_handler"):
                    if owner.endswith(suffix):
                        owner = owner[: -len(suffix)]
                qualifier = camel(owner)
                member = camel(f.name[3:] if f.name.startswith("on_") else f.name)
                name = qualifier + ("" if qualifier.endswith(member) else member) + "Callback"
            if name in taken:
                raise SystemExit(f"abigen: two callback types would be named {name}")
            taken.add(name)
            names[(s.name, f.name)] = name
    return names


def enum_class(e: Enum) -> str:
    return camel(e.name)


def enum_prefix(e: Enum) -> str:
    """The prefix every member shares, ending in '_' (at least AGORAISH_)."""
    names: List[str] = [m.name for m in e.members]
    expected = e.name.upper() + "_"
    if all(n.startswith(expected) and n[len(expected):][:1].isalpha() for n in names):
        return expected
    if len(names) == 1:
        return "AGORAISH_"
    prefix = os.path.commonprefix(names)
    prefix = prefix[: prefix.rfind("_") + 1]
    # A member would start with a digit or be empty: keep one more word.
    while prefix and any(not n[len(prefix):] or n[len(prefix)].isdigit() for n in names):
        prefix = prefix[: prefix[:-1].rfind("_") + 1]
    return prefix or "AGORAISH_"


def enum_member(e: Enum, member: str) -> str:
    return member[len(enum_prefix(e)):]
