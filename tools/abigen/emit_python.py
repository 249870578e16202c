"""bindings/python/agoraish/_abi.py: the ctypes mirror of the header."""

from __future__ import annotations

from typing import List

from model import Abi, CType, Struct
from names import callback_types, enum_class, enum_member, struct_class

_SCALAR = {
    "int": "c_int", "unsigned int": "c_uint", "short": "c_short", "unsigned short": "c_ushort",
    "long": "c_long", "unsigned long": "c_ulong", "long long": "c_longlong", "unsigned long long": "c_ulonglong",
    "char": "c_char", "signed char": "c_byte", "unsigned char": "c_ubyte", "float": "c_float", "double": "c_double",
    "_Bool": "c_bool", "int8_t": "c_int8", "uint8_t": "c_uint8", "int16_t": "c_int16", "uint16_t": "c_uint16",
    "int32_t": "c_int32", "uint32_t": "c_uint32", "int64_t": "c_int64", "uint64_t": "c_uint64", "size_t": "c_size_t",
}


def ctype(t: CType, abi: Abi, field_name: str = "", owner: str = "") -> str:
    """The ctypes expression of a C type."""
    if t.kind == "void":
        return "None"
    if t.kind == "int":
        return _SCALAR[t.scalar or "int"]
    if t.kind == "char_p":
        return "c_char_p"
    if t.kind == "buffer":
        return "POINTER(c_char)"
    if t.kind == "handle":
        return "c_void_p"
    if t.kind == "struct":
        return struct_class(abi.struct(t.struct or ""))
    if t.kind == "array":
        assert t.target is not None
        return f"({ctype(t.target, abi)} * {t.count})"
    if t.kind == "function_pointer":
        return callback_types(abi.structs)[(owner, field_name)]
    if t.kind == "pointer":
        assert t.target is not None
        if t.target.kind == "void":
            return "c_void_p"
        return f"POINTER({ctype(t.target, abi)})"
    raise SystemExit(f"abigen: no ctypes for {t.spelling}")


def kind(t: CType) -> str:
    """The argument kind the bad-input suites iterate."""
    if t.kind == "pointer" and t.struct:
        return "struct_pointer"
    if t.kind == "handle":
        return f"{t.struct}_handle"
    return t.kind


def _docstring(text: str, indent: str) -> List[str]:
    if not text:
        return []
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = text.split("\n")
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    return [f'{indent}"""{lines[0]}'] + [f"{indent}{l}" if l else "" for l in lines[1:]] + [f'{indent}"""']


def _comment(text: str, indent: str = "") -> List[str]:
    return [f"{indent}#: {l}".rstrip() for l in text.split("\n")] if text else []


def _signature(t: CType, abi: Abi) -> str:
    assert t.result is not None
    args = ", ".join([ctype(t.result, abi)] + [ctype(p, abi, name) if p.kind != "function_pointer" else "c_void_p"
                                               for name, p in t.params])
    return f"CFUNCTYPE({args})"


def emit(abi: Abi, banner: str) -> str:
    out: List[str] = [f"# {line}".rstrip() for line in banner.split("\n")]
    out += [
        '"""The mechanical ctypes mirror of include/agoraish.h: constants, enums,',
        "structs, callback types and function prototypes, each with the header's",
        "documentation. ``agoraish._ffi`` loads the library and binds the prototypes;",
        '``agoraish.engine`` builds the Python API on top."""',
        "",
        "from __future__ import annotations",
        "",
        "import enum",
        "from ctypes import (",
        "    CFUNCTYPE, POINTER, Structure, c_bool, c_byte, c_char, c_char_p, c_double, c_float, c_int, c_int8,",
        "    c_int16, c_int32, c_int64, c_long, c_longlong, c_short, c_size_t, c_ubyte, c_uint, c_uint8, c_uint16,",
        "    c_uint32, c_uint64, c_ulong, c_ulonglong, c_ushort, c_void_p,",
        ")",
        "from typing import Any, Dict, Tuple",
        "",
        "# " + "-" * 74,
        "# Constants (the header's macros)",
        "# " + "-" * 74,
        "",
    ]
    for m in abi.macros:
        out += _comment(m.doc)
        out.append(f"{m.name} = {m.value}")
    out += ["", "# " + "-" * 74, "# Enums: each member as a constant and the enum as an IntEnum", "# " + "-" * 74]
    for e in abi.enums:
        out.append("")
        for m in e.members:
            out += _comment(m.doc)
            out.append(f"{m.name} = {m.value}")
        out += ["", "", f"class {enum_class(e)}(enum.IntEnum):"]
        out += _docstring(e.doc or f"``enum {e.name}``.", "    ")
        out.append("")
        for m in e.members:
            out.append(f"    {enum_member(e, m.name)} = {m.name}")
    out += ["", "", "#: Every enum of the header, keyed by its C name.", "ENUMS: Dict[str, Any] = {"]
    out += [f'    "{e.name}": {enum_class(e)},' for e in abi.enums]
    out += ["}", "", "# " + "-" * 74, "# Structs (declared first: callbacks and structs refer to each other)",
            "# " + "-" * 74]
    for s in abi.structs:
        out += ["", "", f"class {struct_class(s)}(Structure):"]
        out += _docstring(s.doc or f"``{s.name}``.", "    ")
    out += ["", "", "# " + "-" * 74, "# Callback types, one per function-pointer field", "# " + "-" * 74, ""]
    callbacks = callback_types(abi.structs)
    for s in abi.structs:
        for f in s.callbacks:
            out += _comment(f.doc)
            out.append(f"{callbacks[(s.name, f.name)]} = {_signature(f.type, abi)}")
    out += ["", "# " + "-" * 74, "# Struct fields, in the header's order", "# " + "-" * 74, ""]
    for s in abi.structs:
        out.append(f"{struct_class(s)}._fields_ = [")
        for f in s.fields:
            out.append(f'    ("{f.name}", {ctype(f.type, abi, f.name, s.name)}),')
        out.append("]")
    out += ["", "#: Every struct of the header, keyed by its C name.", "STRUCTS: Dict[str, Any] = {"]
    out += [f'    "{s.name}": {struct_class(s)},' for s in abi.structs]
    out += ["}", ""]
    for s in abi.structs:
        out.append(f"{s.name} = {struct_class(s)}")
    out += ["", "#: The callbacks of each callback struct: (field, callback type, parameter names),",
            "#: in header order.", "CALLBACKS: Dict[str, Tuple[Tuple[str, Any, Tuple[str, ...]], ...]] = {"]
    for s in abi.structs:
        if not s.callbacks:
            continue
        out.append(f'    "{s.name}": (')
        for f in s.callbacks:
            names = ", ".join(f'"{n}"' for n, _ in f.type.params)
            out.append(f'        ("{f.name}", {callbacks[(s.name, f.name)]}, ({names}{"," if len(f.type.params) == 1 else ""})),')
        out.append("    ),")
    out += ["}", "", "# " + "-" * 74, "# Functions", "# " + "-" * 74, "",
            "#: Every function of the header: C name -> (restype, argtypes).",
            "FUNCTIONS: Dict[str, Tuple[Any, Tuple[Any, ...]]] = {"]
    for fn in abi.functions:
        args = ", ".join(ctype(p.type, abi, p.name) for p in fn.params)
        out.append(f'    "{fn.name}": ({ctype(fn.result, abi)}, ({args}{"," if len(fn.params) == 1 else ""})),')
    out += ["}", "", "#: Each function's parameters: (name, kind); kinds are int, char_p, buffer, pointer,",
            "#: struct_pointer, and engine_handle / server_handle.", "PARAMETERS: Dict[str, Tuple[Tuple[str, str], ...]] = {"]
    for fn in abi.functions:
        ps = ", ".join(f'("{p.name}", "{kind(p.type)}")' for p in fn.params)
        out.append(f'    "{fn.name}": ({ps}{"," if len(fn.params) == 1 else ""}),')
    out += ["}", "", "#: Each function's documentation, as the header gives it.", "DOCS: Dict[str, str] = {"]
    for fn in abi.functions:
        out.append(f'    "{fn.name}": {fn.doc!r},')
    out += ["}", ""]
    return "\n".join(out)
