"""Raw ctypes view of include/agoraish.h: library loading, structs, functions.

This module mirrors the C header one to one and adds nothing: the constants,
enums, structs, callback types and prototypes come from ``agoraish._abi``,
which ``make generate`` writes from the header, and every function is bound
here with its ``argtypes`` and ``restype`` under its C name. ``agoraish.engine`` builds the Python API on top of it; use this
module directly only for what that API does not cover.

Loading
-------
The library is looked up, in this order:

1. the path in the environment variable ``AGORAISH_LIBRARY``. When it is set
   it is the only place tried, so a wrong path is reported instead of being
   hidden by another copy of the library;
2. a copy inside this package: ``libagoraish.so.0``, then ``libagoraish.so``;
3. the system: ``libagoraish.so.0`` through the dynamic loader, then
   ``ctypes.util.find_library("agoraish")``.

If none loads, importing this module raises :class:`LibraryNotFoundError`
naming every place tried.

The library is loaded with ``ctypes.CDLL``, which releases the GIL for the
duration of every call. That is required: ``agoraish_engine_release()`` with
``sync`` waits for a callback that is running on the event thread, and that
callback needs the GIL to finish.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from typing import Any, List, Tuple

from ._abi import *  # noqa: F401,F403 (the generated mirror is this module's namespace)
from ._abi import FUNCTIONS

# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_SONAME = "libagoraish.so.0"


class LibraryNotFoundError(OSError):
    """libagoraish could not be loaded; the message names every place tried."""


class LibraryMismatchError(ImportError):
    """The loaded library lacks functions that include/agoraish.h declares."""


def _load() -> Tuple[ctypes.CDLL, str]:
    """Loads libagoraish following the order in the module docstring."""
    explicit = os.environ.get("AGORAISH_LIBRARY")
    if explicit:
        try:
            return ctypes.CDLL(explicit), explicit
        except OSError as error:
            raise LibraryNotFoundError(
                f"cannot load libagoraish from AGORAISH_LIBRARY={explicit!r}: {error}"
            ) from None

    tried: List[str] = ["AGORAISH_LIBRARY (not set)"]
    for name in (_SONAME, "libagoraish.so"):
        path = os.path.join(_PACKAGE_DIR, name)
        if not os.path.exists(path):
            tried.append(f"{path} (no such file)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as error:
            tried.append(f"{path} ({error})")

    try:
        return ctypes.CDLL(_SONAME), _SONAME
    except OSError as error:
        tried.append(f"{_SONAME} through the dynamic loader ({error})")

    found = ctypes.util.find_library("agoraish")
    if found:
        try:
            return ctypes.CDLL(found), found
        except OSError as error:
            tried.append(f"{found} from ctypes.util.find_library ({error})")
    else:
        tried.append('ctypes.util.find_library("agoraish") (nothing found)')

    raise LibraryNotFoundError(
        "cannot find libagoraish; set AGORAISH_LIBRARY to the path of libagoraish.so.0. Tried:\n  "
        + "\n  ".join(tried)
    )


lib, LIBRARY_PATH = _load()
"""The loaded library (``ctypes.CDLL``) and the path or name it was loaded from."""


# --------------------------------------------------------------------------
# Functions, in header order, bound under their C names
# --------------------------------------------------------------------------

_missing: List[str] = []


def _bind(name: str, restype: Any, argtypes: Tuple[Any, ...]) -> Any:
    """Looks `name` up in the library and sets its ctypes signature."""
    try:
        function = getattr(lib, name)
    except AttributeError:
        _missing.append(name)
        return None
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


for _name, (_restype, _argtypes) in FUNCTIONS.items():
    globals()[_name] = _bind(_name, _restype, _argtypes)

if _missing:
    raise LibraryMismatchError(
        f"{LIBRARY_PATH} does not export {', '.join(_missing)}, which include/agoraish.h "
        "declares (check `nm -D --defined-only` on the library)"
    )
