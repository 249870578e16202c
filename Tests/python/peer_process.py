"""A channel peer in its own process, for the tests (see peers.RemotePeer).

    python3 peer_process.py APP_ID SERVER_URL LOG_FILE

Creates one engine and reads commands from stdin, one JSON object per line:
{"id": N, "method": "join_channel", "args": [...]}. It calls the RtcEngine
method and answers {"id": N, "result": ...} or {"id": N, "error": CODE,
"message": TEXT}. "ping" answers without calling anything; "exit" (or the end
of stdin) releases the engine and ends the process. Every callback is printed
as {"event": NAME, "args": [...]} when it arrives.
"""

from __future__ import annotations

import json
import sys
import threading

import agoraish
from peers import CALLBACKS, jsonable

_out = threading.Lock()


def emit(message: dict) -> None:
    line = json.dumps(message)
    with _out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class Printer(agoraish.EventHandler):
    pass


def _printer(name: str):
    def callback(self, *args):
        emit({"event": name, "args": jsonable(list(args))})

    return callback


for _name in CALLBACKS:
    setattr(Printer, _name, _printer(_name))


def main() -> int:
    app_id, server_url, log_file = sys.argv[1:4]
    engine = agoraish.RtcEngine(app_id, Printer(), server_url=server_url, log_file=log_file)
    try:
        for line in sys.stdin:
            command = json.loads(line)
            method, args = command["method"], command.get("args", [])
            if method == "exit":
                break
            try:
                result = None if method == "ping" else getattr(engine, method)(*args)
            except agoraish.AgoraishError as error:
                emit({"id": command["id"], "error": error.code, "message": str(error)})
            else:
                emit({"id": command["id"], "result": jsonable(result)})
    finally:
        engine.release()
    return 0


if __name__ == "__main__":
    sys.exit(main())
