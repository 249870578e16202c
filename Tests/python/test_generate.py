"""The generated mirrors of include/agoraish.h (tools/abigen, `make generate`).

They are fresh (what the header gives today), and a function or callback
added to the header reaches every mirror with one command.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ABIGEN = ROOT / "tools" / "abigen" / "abigen.py"

NEW_FUNCTION = """
/** A function only this test's copy of the header declares. */
int agoraish_engine_abigen_probe(agoraish_engine_t *engine, int value, const char *label);
"""

NEW_CALLBACK = """    /** A callback only this test's copy of the header declares. */
    void (*on_abigen_probe)(agoraish_engine_t *engine, void *user_data, uint32_t uid, const char *label);
"""


def _generate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ABIGEN), *args], cwd=ROOT, capture_output=True, text=True)


def test_generated_files_are_fresh():
    run = _generate("--check")
    assert run.returncode == 0, run.stderr


def test_a_new_function_and_callback_reach_every_mirror(tmp_path):
    header = (ROOT / "include" / "agoraish.h").read_text(encoding="utf-8")
    closing = "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif"
    assert closing in header
    header = header.replace(closing, NEW_FUNCTION + "\n" + closing)
    last_field = "} agoraish_event_handler;"
    assert last_field in header
    header = header.replace(last_field, NEW_CALLBACK + last_field)
    include = tmp_path / "include"
    include.mkdir()
    (include / "agoraish.h").write_text(header, encoding="utf-8")
    out = tmp_path / "out"
    run = _generate("--header", str(include / "agoraish.h"), "--out", str(out))
    assert run.returncode == 0, run.stderr

    def text(rel: str) -> str:
        return (out / rel).read_text(encoding="utf-8")

    ffi = text("bindings/python/agoraish/_abi.py")
    assert '"agoraish_engine_abigen_probe": (c_int, (c_void_p, c_int, c_char_p)),' in ffi
    assert '("value", "int"), ("label", "char_p")' in ffi
    assert "A function only this test's copy of the header declares." in ffi
    assert "AbigenProbeCallback = CFUNCTYPE(None, c_void_p, c_void_p, c_uint32, c_char_p)" in ffi
    assert '("on_abigen_probe", AbigenProbeCallback, ("engine", "user_data", "uid", "label")),' in ffi
    assert "CAgoraishABI.agoraish_engine_abigen_probe; engineAbigenProbe = abi_engine_abigen_probe" in text(
        "Sources/agoraish/ABICheck.swift")
    assert 'call_agoraish_engine_abigen_probe(void *handle) { return agoraish_engine_abigen_probe(' \
           '(agoraish_engine_t *)handle, 0, NULL); }' in text("Tests/c/abi_functions.h")
    assert "bindCallback<&H::onAbigenProbe>(table.on_abigen_probe);" in text("bindings/cpp/agoraish_callbacks.hpp")
    assert "FIELD(agoraish_event_handler, on_abigen_probe);" in text("Tests/c/layout_probe.c")
    assert '"on_abigen_probe": MemoryLayout<agoraish_event_handler>.offset(of: \\.on_abigen_probe)!' in text(
        "Tests/AgoraishABITests/LayoutTests.swift")
    # The event handler grew by one pointer: its new size is known, the old ones still are.
    # The current minor's size is rewritten from the header: when the handler already
    # grew in this minor, its grown size replaces that one (no release had it).
    def known(text_: str):
        line = next(l for l in text_.splitlines() if "static let eventHandler:" in l)
        return [int(v) for v in line.split("= [")[1].rstrip("]").split(",")]

    old = known((ROOT / "Sources" / "agoraish" / "StructSizes.swift").read_text(encoding="utf-8"))
    history = json.loads((ROOT / "include" / "abi" / "struct-sizes.json").read_text(encoding="utf-8"))
    current = max(history, key=lambda minor: tuple(int(part) for part in minor.split(".")))
    earlier = {sizes.get("agoraish_event_handler") for minor, sizes in history.items() if minor != current}
    kept = old if history[current]["agoraish_event_handler"] in earlier else old[:-1]
    assert known(text("Sources/agoraish/StructSizes.swift")) == kept + [old[-1] + 8]
