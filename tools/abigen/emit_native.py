"""The mirrors in Swift, C and C++: the signature check, the layout probe and
its Swift counterpart, the table of known struct sizes, the handle sweep of
the bad-input suite and the C++ callback bindings."""

from __future__ import annotations

from typing import Dict, List

from model import Abi, Struct
from names import camel, lower_camel


def _c_comment(banner: str) -> List[str]:
    return ["/*"] + [f" * {l}".rstrip() for l in banner.split("\n")] + [" */"]


def _swift_comment(banner: str) -> List[str]:
    return [f"// {l}".rstrip() for l in banner.split("\n")]


def _doc_lines(text: str, prefix: str) -> List[str]:
    return [f"{prefix}{l}".rstrip() for l in text.split("\n")] if text else []


def abi_check(abi: Abi, banner: str) -> str:
    """Sources/agoraish/ABICheck.swift: each @_cdecl function has the type the header declares."""
    out = _swift_comment(banner) + [
        "import CAgoraishABI",
        "",
        "// Compile-time proof that every @_cdecl function has exactly the type that",
        "// include/agoraish.h declares: each assignment fails to compile if a",
        "// parameter or result type drifts.",
        "private func checkSignaturesAgainstHeader() {",
    ]
    for fn in abi.functions:
        local = lower_camel(fn.name[len("agoraish_"):])
        out.append(f"    do {{ var {local} = CAgoraishABI.{fn.name}; {local} = abi_{fn.name[len('agoraish_'):]}; _ = {local} }}")
    out.append("}")
    return "\n".join(out) + "\n"


def layout_probe(abi: Abi, banner: str, sizes: Dict[str, Dict[str, int]]) -> str:
    """Tests/c/layout_probe.c: prints every struct's size and offsets as JSON."""
    out = _c_comment(banner + "\n\nPrints the size and field offsets of every struct of include/agoraish.h as\n"
                     "JSON: {\"struct\": {\"__size__\": n, \"field\": offset, ...}, ...}. The Swift test\n"
                     "(Tests/AgoraishABITests) and the Python test (Tests/python/test_abi.py)\n"
                     "compare their own view of the structs with it.")
    out += ["#include <stdio.h>", "#include <stddef.h>", '#include "agoraish.h"', ""]
    out.append("/* The sizes of earlier ABI minors that the header names. */")
    for m in abi.macros:
        if "_SIZE_0_" in m.name:
            out.append(f"_Static_assert({m.name} == {m.value}, \"{m.name}\");")
    out += [
        "",
        "static int first_struct = 1;",
        "",
        "static void begin(const char *name, size_t size) {",
        '    printf("%s\\n  \\"%s\\": {\\"__size__\\": %zu", first_struct ? "{" : ",", name, size);',
        "    first_struct = 0;",
        "}",
        'static void field(const char *name, size_t offset) { printf(", \\"%s\\": %zu", name, offset); }',
        'static void end(void) { printf("}"); }',
        "",
        "#define BEGIN(T) begin(#T, sizeof(T))",
        "#define FIELD(T, f) field(#f, offsetof(T, f))",
        "",
        "int main(void) {",
    ]
    for s in abi.structs:
        out.append(f"    BEGIN({s.name});")
        out += [f"    FIELD({s.name}, {f.name});" for f in s.fields]
        out.append("    end();")
    out += ['    printf("\\n}\\n");', "    return 0;", "}"]
    return "\n".join(out) + "\n"


def layout_tests(abi: Abi, banner: str) -> str:
    """Tests/AgoraishABITests/LayoutTests.swift: Swift's view of the structs against the C probe."""
    out = _swift_comment(banner) + [
        "import CAgoraishABI",
        "import Foundation",
        "import Testing",
        "",
        "/// Swift sees the structs of include/agoraish.h with the sizes and offsets",
        "/// that a C compiler gives them. The C side is Tests/c/layout_probe.c, whose",
        "/// JSON output `make test` passes in AGORAISH_ABI_LAYOUT.",
        "@Suite struct LayoutTests {",
        "    /// Sizes and field offsets as Swift computes them, in the probe's format.",
        "    static func swiftLayout() -> [String: [String: Int]] {",
        "        var layout: [String: [String: Int]] = [:]",
    ]
    for s in abi.structs:
        var = lower_camel(s.name[len("agoraish_"):])
        out += ["", f"        let {var}: [String: Int] = [", f'            "__size__": MemoryLayout<{s.name}>.size,']
        for f in s.fields:
            out.append(f'            "{f.name}": MemoryLayout<{s.name}>.offset(of: \\.{f.name})!,')
        out += ["        ]", f'        layout["{s.name}"] = {var}']
    out += [
        "        return layout",
        "    }",
        "",
        "    @Test func structLayoutsMatchTheCProbe() throws {",
        '        let path = try #require(ProcessInfo.processInfo.environment["AGORAISH_ABI_LAYOUT"],',
        '                                "run through `make test`, which builds the C probe and sets AGORAISH_ABI_LAYOUT")',
        "        let data = try Data(contentsOf: URL(fileURLWithPath: path))",
        "        let probe = try JSONDecoder().decode([String: [String: Int]].self, from: data)",
        "        let swift = Self.swiftLayout()",
        "        #expect(Set(probe.keys) == Set(swift.keys))",
        "        for (name, fields) in probe {",
        '            #expect(swift[name] == fields, "\\(name) differs between C and Swift")',
        "        }",
        "    }",
        "}",
    ]
    return "\n".join(out) + "\n"


def struct_sizes(abi: Abi, banner: str, history: Dict[str, Dict[str, int]]) -> str:
    """Sources/agoraish/StructSizes.swift: the sizes each versioned struct had in every ABI minor."""
    out = _swift_comment(banner) + [
        "import CAgoraishABI",
        "",
        "/// The `struct_size` values the library accepts for each `struct_size`-first",
        "/// struct: its size in every ABI minor that had it (include/abi/struct-sizes.json).",
        "/// Any other size is -2 (`readVersioned`).",
        "enum StructSizes {",
    ]
    for s in abi.structs:
        if not s.versioned:
            continue
        known = sorted({sizes[s.name] for sizes in history.values() if s.name in sizes})
        minors = [m for m in sorted(history, key=lambda v: tuple(int(x) for x in v.split(".")))
                  if s.name in history[m]]
        out.append(f"    /// `{s.name}` (ABI {', '.join(minors)}).")
        out.append(f"    static let {lower_camel(s.name[len('agoraish_'):])}: [Int] = {known}")
    out.append("}")
    return "\n".join(out) + "\n"


def handle_sweep(abi: Abi, banner: str) -> str:
    """Tests/c/abi_functions.h: every handle-taking function called with a given
    handle and zero for everything else, for the bad-handle sweep."""
    out = _c_comment(banner + "\n\nEvery function of include/agoraish.h whose first parameter is a handle,\n"
                     "called with a given handle and zero / NULL for every other argument.\n"
                     "Functions that return a pointer report NULL as -1.")
    out += ["#ifndef AGORAISH_TESTS_C_ABI_FUNCTIONS_H", "#define AGORAISH_TESTS_C_ABI_FUNCTIONS_H", "",
            '#include "agoraish.h"', "", "/** One row: the function's name and a call of it with `handle`. */",
            "typedef struct abi_function {", "    const char *name;", "    int (*call)(void *handle);",
            "} abi_function;", ""]
    rows: Dict[str, List[str]] = {}
    for fn in abi.functions:
        handle = fn.handle
        if handle is None:
            continue
        args = [f"(agoraish_{handle}_t *)handle"]
        for p in fn.params[1:]:
            args.append("0" if p.type.kind == "int" else "NULL")
        call = f"{fn.name}({', '.join(args)})"
        if fn.result.kind == "int":
            body = f"return {call};"
        else:
            body = f"return {call} ? 0 : -1;"
        out.append(f"static int call_{fn.name}(void *handle) {{ {body} }}")
        rows.setdefault(handle, []).append(fn.name)
    for handle, names in rows.items():
        out += ["", f"/** The functions taking an `agoraish_{handle}_t *`, in header order. */",
                f"static const abi_function abi_{handle}_functions[] = {{"]
        out += [f'    {{"{n}", call_{n}}},' for n in names]
        out.append("};")
    out += ["", "#endif"]
    return "\n".join(out) + "\n"


def _is_event_handler(s: Struct) -> bool:
    """An event callback table: `agoraish_event_handler`, and its twins for
    other targets such as `agoraish_event_handler_ex` (one connection)."""
    return s.name.endswith("_handler") or "_handler_" in s.name


def cpp_bindings(abi: Abi, banner: str) -> str:
    """bindings/cpp/agoraish_callbacks.hpp: binds each callback of an event
    handler table to the method of the same name (on_user_joined ->
    onUserJoined): `agoraish_event_handler` to IRtcEngineEventHandler's,
    `agoraish_event_handler_ex` to IRtcEngineEventHandlerEx's (whose methods
    take the connection first, as the C callbacks do after user_data)."""
    out = _c_comment(banner) + ["#pragma once", "", "// Included by agoraish.hpp inside namespace agoraish::detail.", ""]
    for s in abi.structs:
        if not _is_event_handler(s) or not s.callbacks:
            continue
        # agoraish_event_handler -> bindEventHandlerTable, agoraish_event_handler_ex ->
        # bindEventHandlerExTable.
        fn = "bind" + camel(s.name) + "Table"
        out += [f"/** Binds every callback of `{s.name}` to the method of `H` with its name. */",
                "template <typename H, typename Table>",
                f"void {fn}(Table& table) noexcept {{"]
        for f in s.callbacks:
            out.append(f"    bindCallback<&H::{lower_camel(f.name)}>(table.{f.name});")
        out += ["}", ""]
    return "\n".join(out)
