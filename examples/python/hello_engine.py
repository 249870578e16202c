#!/usr/bin/env python3
"""hello_engine.py — the smallest agoraish host in Python, in the order of
Agora's lifecycle: create an engine with an event handler, read the version
and the log file, set a parameter, receive on_api_call_executed, release.

Runs from a checkout: it imports bindings/python and, unless
AGORAISH_LIBRARY says otherwise, uses the checkout's dist/lib (`make dist`):

    python3 examples/python/hello_engine.py
"""
import sys
import threading

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish


class Handler(agoraish.EventHandler):
    """Receives the engine's events on its event thread."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.line = ""

    def on_api_call_executed(self, err: int, api: str, result: str) -> None:
        status = "ok" if err == 0 else agoraish.get_error_description(err)
        self.line = f"{api} {result} -> {status}"
        self.event.set()


def main() -> int:
    handler = Handler()
    try:
        engine = agoraish.RtcEngine("hello-agoraish", handler)
    except agoraish.AgoraishError as error:
        print(f"cannot create the engine: {error}", file=sys.stderr)
        return 1
    with engine:  # leaving the block releases the engine (sync=True)
        version, build = agoraish.get_version()
        print(f"agoraish {version} (build {build}): engine created")
        print(f"log file: {engine.log_file}")
        engine.set_parameters({"rtc.log_filter": agoraish.LogFilter.DEBUG})
        got = handler.event.wait(timeout=5)
        print(f"onApiCallExecuted: {handler.line if got else 'no event within 5 s'}")
    print("engine released")
    return 0 if got else 1


if __name__ == "__main__":
    sys.exit(main())
