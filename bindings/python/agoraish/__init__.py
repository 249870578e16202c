"""agoraish: Python binding of libagoraish, an open real-time engine with the
programming surface of the Agora RTC SDK.

    import agoraish

    class Handler(agoraish.EventHandler):
        def on_api_call_executed(self, err, api, result):
            print(api, result)          # runs on the engine's event thread

    with agoraish.RtcEngine("my-app-id", Handler()) as engine:
        engine.set_parameters({"rtc.log_filter": agoraish.LogFilter.DEBUG})
        print(engine.log_file)

``agoraish._ffi`` holds the raw ctypes declarations of include/agoraish.h; it
finds the library through AGORAISH_LIBRARY, a copy inside this package, or
the system (see its docstring). Importing the package loads nothing: the
library is loaded by the first call that needs it (creating an engine or a
server, ``get_version()``, ...), which raises ``agoraish._ffi.LibraryNotFoundError``
when it cannot be found. ``agoraish.token`` never needs it.
"""

from . import engine as _engine
from .engine import *  # noqa: F401,F403 (the public names are engine.__all__)
from . import token  # noqa: F401 (RTC token builders; pure Python, no library needed)

__version__ = "0.1.0"

__all__ = [*_engine.__all__, "__version__"]
