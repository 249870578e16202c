"""A call survives its local address going away, and reconnects at once.

In a network namespace of its own (``unshare -n``, so the host's network is
untouched) a child process brings up loopback, adds 10.77.0.2/32 to it and
runs the embedded server on 0.0.0.0. Engine A joins through
ws://10.77.0.2:PORT (so its signaling connection's local address is
10.77.0.2), engine B through 127.0.0.1. Then the address is deleted: A's
engine hears of it from rtnetlink and reports RECONNECTING with
CLIENT_IP_ADDRESS_CHANGED (13) at once — not after its keepalive runs out.
When the address is added back, the waiting reconnect goes at once and A is
CONNECTED again (REJOIN_SUCCESS); B never saw A leave.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

CHILD = textwrap.dedent(
    """
    import json, subprocess, sys, threading, time
    import agoraish

    def ip(*args):
        subprocess.run(["ip", *args], check=True)

    ip("link", "set", "lo", "up")
    ip("addr", "add", "10.77.0.2/32", "dev", "lo")

    class Events(agoraish.EventHandler):
        def __init__(self):
            self.events = []
            self.cond = threading.Condition()

        def add(self, *e):
            with self.cond:
                self.events.append((time.monotonic(),) + e)
                self.cond.notify_all()

        def on_join_channel_success(self, channel, uid, elapsed):
            self.add("join", uid)

        def on_rejoin_channel_success(self, channel, uid, elapsed):
            self.add("rejoin", uid)

        def on_connection_state_changed(self, state, reason):
            self.add("state", int(state), int(reason))

        def on_user_offline(self, uid, reason):
            self.add("offline", uid)

        def wait(self, pred, timeout):
            end = time.monotonic() + timeout
            with self.cond:
                while True:
                    for e in self.events:
                        if pred(e):
                            return e
                    left = end - time.monotonic()
                    if left <= 0:
                        return None
                    self.cond.wait(left)

    app = "0123456789abcdef0123456789abcdef"
    server = agoraish.ChannelServer(host="0.0.0.0", http_port=-1)
    server.start()
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    ea, eb = Events(), Events()
    a = agoraish.RtcEngine(app, ea, server_url=f"ws://10.77.0.2:{port}", log_file=sys.argv[1] + "/a.log")
    # ws:// to an address other than loopback needs the engine's explicit consent.
    a.set_parameters({"rtc.allow_insecure_signaling": True})
    b = agoraish.RtcEngine(app, eb, server_url=f"ws://127.0.0.1:{port}", log_file=sys.argv[1] + "/b.log")
    out = {}
    a.join_channel(None, "moving", None, 1)
    b.join_channel(None, "moving", None, 2)
    out["joined"] = bool(ea.wait(lambda e: e[1] == "join", 10) and eb.wait(lambda e: e[1] == "join", 10))
    time.sleep(0.5)
    t0 = time.monotonic()
    ip("addr", "del", "10.77.0.2/32", "dev", "lo")
    e = ea.wait(lambda e: e[1] == "state" and e[2] == 4, 10)
    out["reconnecting"] = None if e is None else {"reason": e[3], "after_s": e[0] - t0}
    time.sleep(1.0)
    t1 = time.monotonic()
    ip("addr", "add", "10.77.0.2/32", "dev", "lo")
    e = ea.wait(lambda e: e[1] == "state" and e[0] > t1 and e[2] == 3, 10)
    out["connected"] = None if e is None else {"reason": e[3], "after_s": e[0] - t1}
    out["rejoined"] = ea.wait(lambda e: e[1] == "rejoin", 1) is not None
    out["b_saw_offline"] = eb.wait(lambda e: e[1] == "offline", 0.5) is not None
    a.release()
    b.release()
    server.release()
    print(json.dumps(out))
    """
)


def test_losing_the_calls_local_address_reconnects_at_once(tmp_path: Path) -> None:
    # Namespaces need root and iproute2 (make setup installs it); the CI runs as root.
    assert os.geteuid() == 0, "this test runs the call in a network namespace of its own (root)"
    assert shutil.which("unshare") and shutil.which("ip")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2] / "bindings" / "python"),
                                         env.get("PYTHONPATH", "")])
    r = subprocess.run(["unshare", "-n", sys.executable, "-c", CHILD, str(tmp_path)], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["joined"], out
    # CLIENT_IP_ADDRESS_CHANGED, well inside a second (the keepalive would take many).
    assert out["reconnecting"] is not None and out["reconnecting"]["reason"] == 13, out
    assert out["reconnecting"]["after_s"] < 1.0, out
    # Back as soon as the address is: REJOIN_SUCCESS, within two seconds.
    assert out["connected"] is not None and out["connected"]["reason"] == 15, out
    assert out["connected"]["after_s"] < 2.0, out
    assert out["rejoined"], out
    assert not out["b_saw_offline"], out
