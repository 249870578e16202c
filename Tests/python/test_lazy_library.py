"""Importing the binding loads no libagoraish: the package and ``agoraish.token``
work without the library, and the first call that needs it loads it (or raises
``LibraryNotFoundError`` as an import did before). Each case runs in a fresh
interpreter, so nothing this test process loaded counts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import support  # noqa: F401  (sys.path and AGORAISH_LIBRARY)
from support import BINDING, library_path

APP_ID = "0d3723ff78bff15b898cbaa8565c4eaa"
CERT = "8417c227d4257030f424cee3a53e5829"

# Prints a JSON object: what the import gave, and whether libagoraish is mapped.
_PROBE = """
import json, sys
def mapped():
    with open("/proc/self/maps") as maps:
        return "libagoraish" in maps.read()
import agoraish
import agoraish.token
from agoraish.token import RtcTokenBuilder, Role_Publisher
from agoraish import RtcEngine, EventHandler, ChannelServer, AgoraishError, __version__
report = {
    "token": RtcTokenBuilder.build_token_with_uid(%(app)r, %(cert)r, "room", 5, Role_Publisher, 600,
                                                  issue_ts=1718000000, salt=1),
    "loaded": agoraish._ffi.is_loaded(),
    "mapped": mapped(),
    "missing_from_dir": sorted(set(agoraish.__all__) - set(dir(agoraish))),
    "all": sorted(agoraish.__all__),
}
%(then)s
print(json.dumps(report))
"""


def _probe(library: str, then: str = "") -> Dict[str, Any]:
    """Runs _PROBE with AGORAISH_LIBRARY=`library` and the statements `then`
    (which may add to `report`); returns the report."""
    env = dict(os.environ, PYTHONPATH=str(BINDING), AGORAISH_LIBRARY=library)
    code = _PROBE % {"app": APP_ID, "cert": CERT, "then": then}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env,
                         cwd=str(BINDING))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_package_and_its_token_module_import_and_build_tokens_without_the_library(tmp_path: Path):
    import agoraish.token

    report = _probe(str(tmp_path / "nowhere" / "libagoraish.so.0"))
    assert report["token"] == agoraish.token.RtcTokenBuilder.build_token_with_uid(
        APP_ID, CERT, "room", 5, agoraish.token.Role_Publisher, 600, issue_ts=1718000000, salt=1)
    assert report["loaded"] is False and report["mapped"] is False
    assert report["missing_from_dir"] == []
    assert report["all"] == sorted(agoraish.__all__)
    assert {"RtcEngine", "EventHandler", "ChannelServer", "AgoraishError", "__version__"} <= set(report["all"])


def test_the_library_is_loaded_by_the_first_call_that_needs_it_not_by_the_import():
    then = ("report['version'] = agoraish.get_version()[0]\n"
            "report['loaded_after'] = agoraish._ffi.is_loaded()\n"
            "report['mapped_after'] = mapped()\n"
            "report['path'] = agoraish._ffi.LIBRARY_PATH\n")
    report = _probe(str(library_path()), then)
    assert report["loaded"] is False and report["mapped"] is False, "the import loaded the library"
    assert report["version"] == "0.1.0"
    assert report["loaded_after"] is True and report["mapped_after"] is True
    assert report["path"] == str(library_path())


def test_the_first_engine_without_the_library_raises_library_not_found_and_so_does_the_next(tmp_path: Path):
    missing = str(tmp_path / "nowhere" / "libagoraish.so.0")
    then = ("from agoraish._ffi import LibraryNotFoundError\n"
            "report['errors'] = []\n"
            "for make in (lambda: RtcEngine(%r), lambda: RtcEngine(%r), ChannelServer):\n"
            "    try:\n"
            "        make()\n"
            "        report['errors'].append(None)\n"
            "    except LibraryNotFoundError as error:\n"
            "        report['errors'].append(str(error))\n"
            "report['loaded_after'] = agoraish._ffi.is_loaded()\n") % (APP_ID, APP_ID)
    report = _probe(missing, then)
    assert len(report["errors"]) == 3
    for text in report["errors"]:
        assert text is not None, "an engine was created without the library"
        assert text.startswith(f"cannot load libagoraish from AGORAISH_LIBRARY={missing!r}"), text
    assert report["loaded_after"] is False
