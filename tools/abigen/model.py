"""The ABI of include/agoraish.h as data, read with libclang (the C parser of
the Swift toolchain's clang), never with regular expressions.

`read_header(path)` returns an `Abi`: its macros (integer constants, their
values computed by clang), enums, structs (fields, sizes and offsets as the
compiler lays them out), callback fields (function pointers with their
parameter names) and functions, each with the doc comment the header gives
it, in header order.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import clang.cindex as ci

ROOT = Path(__file__).resolve().parents[2]


def _libclang() -> str:
    """The libclang of the Swift toolchain (or $LIBCLANG)."""
    explicit = os.environ.get("LIBCLANG")
    if explicit:
        return explicit
    swiftc = shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"
    lib = Path(os.path.realpath(swiftc)).parents[1] / "lib" / "libclang.so"
    if lib.exists():
        return str(lib)
    raise SystemExit("abigen: libclang.so not found next to the Swift toolchain; set LIBCLANG")


def _resource_include() -> List[str]:
    """The compiler's own headers (stddef.h, stdint.h) for libclang."""
    lib = Path(_libclang()).parent
    dirs = sorted(glob.glob(str(lib / "clang" / "*" / "include")))
    return ["-isystem", dirs[-1]] if dirs else []


_configured = False


def _index() -> ci.Index:
    global _configured
    if not _configured:
        ci.Config.set_library_file(_libclang())
        _configured = True
    return ci.Index.create()


@dataclass
class CType:
    """A C type reduced to what the mirrors need."""

    spelling: str  # as written in the header ("const char *")
    kind: str  # void, int, char_p, buffer, pointer, handle, struct, array, function_pointer
    scalar: Optional[str] = None  # canonical scalar ("int", "unsigned int", "uint32_t", ...)
    target: Optional["CType"] = None  # pointee or element
    count: int = 0  # array length
    struct: Optional[str] = None  # struct name for struct / pointer-to-struct
    const: bool = False
    result: Optional["CType"] = None  # function pointer result
    params: List[Tuple[str, "CType"]] = field(default_factory=list)  # function pointer parameters


@dataclass
class Field:
    name: str
    type: CType
    offset: int  # bytes
    doc: str


@dataclass
class Struct:
    name: str
    size: int
    align: int
    fields: List[Field]
    doc: str

    @property
    def versioned(self) -> bool:
        """Whether the struct begins with `uint32_t struct_size`."""
        return bool(self.fields) and self.fields[0].name == "struct_size"

    @property
    def callbacks(self) -> List[Field]:
        return [f for f in self.fields if f.type.kind == "function_pointer"]


@dataclass
class Enumerator:
    name: str
    value: int
    doc: str


@dataclass
class Enum:
    name: str
    members: List[Enumerator]
    doc: str


@dataclass
class Param:
    name: str
    type: CType


@dataclass
class Function:
    name: str
    result: CType
    params: List[Param]
    doc: str

    @property
    def handle(self) -> Optional[str]:
        """The handle type of the first parameter ("engine", "server"), if any."""
        if self.params and self.params[0].type.kind == "handle":
            return self.params[0].type.struct
        return None


@dataclass
class Macro:
    name: str
    value: int
    doc: str


@dataclass
class Abi:
    major: int
    minor: int
    macros: List[Macro]
    enums: List[Enum]
    structs: List[Struct]
    functions: List[Function]
    handles: List[str]

    def struct(self, name: str) -> Struct:
        return next(s for s in self.structs if s.name == name)


def clean_comment(raw: Optional[str]) -> str:
    """The text of a /** ... */ or /**< ... */ comment, without its markers."""
    if not raw:
        return ""
    text = raw.strip()
    for opener in ("/**<", "/**", "///<", "///", "/*"):
        if text.startswith(opener):
            text = text[len(opener):]
            break
    if text.endswith("*/"):
        text = text[:-2]
    lines = []
    for line in text.split("\n"):
        s = line.strip()
        if s.startswith("*"):
            s = s[1:]
            if s.startswith(" "):
                s = s[1:]
        lines.append(s.rstrip())
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


_SCALARS = {
    ci.TypeKind.INT: "int",
    ci.TypeKind.UINT: "unsigned int",
    ci.TypeKind.SHORT: "short",
    ci.TypeKind.USHORT: "unsigned short",
    ci.TypeKind.LONG: "long",
    ci.TypeKind.ULONG: "unsigned long",
    ci.TypeKind.LONGLONG: "long long",
    ci.TypeKind.ULONGLONG: "unsigned long long",
    ci.TypeKind.CHAR_S: "char",
    ci.TypeKind.SCHAR: "signed char",
    ci.TypeKind.UCHAR: "unsigned char",
    ci.TypeKind.FLOAT: "float",
    ci.TypeKind.DOUBLE: "double",
    ci.TypeKind.BOOL: "_Bool",
}

#: Typedefs of <stdint.h> / <stddef.h> kept by name (their width is their meaning).
_NAMED = {"int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "size_t"}


def _record_name(t: ci.Type) -> Optional[str]:
    decl = t.get_canonical().get_declaration()
    return decl.spelling or None


def convert_type(t: ci.Type, params: Optional[List[str]] = None) -> CType:
    """A libclang type as a CType; `params` names a function pointer's parameters."""
    spelling = t.spelling
    const = t.is_const_qualified()
    # Keep the stdint names before desugaring.
    named = t.spelling.replace("const ", "").strip()
    canonical = t.get_canonical()
    if named in _NAMED:
        return CType(spelling, "int", scalar=named, const=const)
    k = canonical.kind
    if k == ci.TypeKind.VOID:
        return CType(spelling, "void")
    if k in _SCALARS:
        return CType(spelling, "int", scalar=_SCALARS[k], const=const)
    if k == ci.TypeKind.ENUM:
        return CType(spelling, "int", scalar="int", const=const)
    if k == ci.TypeKind.RECORD:
        return CType(spelling, "struct", struct=_record_name(t), const=const)
    if k == ci.TypeKind.CONSTANTARRAY:
        element = convert_type(t.get_array_element_type() if t.kind == ci.TypeKind.CONSTANTARRAY
                               else canonical.get_array_element_type())
        return CType(spelling, "array", target=element, count=canonical.get_array_size())
    if k == ci.TypeKind.POINTER:
        pointee_sugared = t.get_pointee() if t.kind == ci.TypeKind.POINTER else canonical.get_pointee()
        pointee_canonical = pointee_sugared.get_canonical()
        if pointee_canonical.kind in (ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO):
            result = convert_type(pointee_sugared.get_result())
            args = list(pointee_sugared.argument_types()) if pointee_canonical.kind == ci.TypeKind.FUNCTIONPROTO else []
            names = params or [f"arg{i}" for i in range(len(args))]
            return CType(spelling, "function_pointer", result=result,
                         params=[(names[i] if i < len(names) else f"arg{i}", convert_type(a)) for i, a in enumerate(args)])
        target = convert_type(pointee_sugared)
        if target.kind == "struct":
            decl = pointee_canonical.get_declaration()
            if not decl.is_definition() and decl.get_definition() is None:
                # An opaque type: a handle (agoraish_engine_t *).
                return CType(spelling, "handle", struct=(target.struct or "").replace("agoraish_", ""))
            return CType(spelling, "pointer", target=target, struct=target.struct)
        if target.kind == "int" and target.scalar == "char":
            return CType(spelling, "char_p" if target.const else "buffer", target=target)
        return CType(spelling, "pointer", target=target)
    raise SystemExit(f"abigen: type {spelling!r} ({k}) has no mapping; teach tools/abigen/model.py")


def _parse(path: Path, extra: List[str], unsaved=None, cplusplus=False) -> ci.TranslationUnit:
    args = (["-x", "c++", "-std=c++17"] if cplusplus else ["-x", "c", "-std=c99"]) + [f"-I{path.parent}"] \
        + _resource_include() + extra
    tu = _index().parse(str(path), args=args, unsaved_files=unsaved,
                        options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise SystemExit("abigen: " + "\n".join(str(d) for d in errors))
    return tu


def _macro_values(header: Path, names: List[str]) -> Dict[str, int]:
    """The integer value of each macro, as the compiler computes it (a C++
    enumeration with a 64-bit underlying type initialised by each macro)."""
    if not names:
        return {}
    body = f'#include "{header.name}"\nenum agoraish_abigen_macros : long long {{\n'
    body += "".join(f"    agoraish_abigen_{n} = (long long)({n}),\n" for n in names) + "};\n"
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "macros.cpp"
        probe.write_text(body)
        tu = _parse(probe, [f"-I{header.parent}"], cplusplus=True)
        values = {}
        for c in tu.cursor.walk_preorder():
            if c.kind == ci.CursorKind.ENUM_CONSTANT_DECL and c.spelling.startswith("agoraish_abigen_"):
                values[c.spelling[len("agoraish_abigen_"):]] = c.enum_value
        return values


def _doc_before(cursor: ci.Cursor, source: List[str]) -> str:
    """A macro's doc comment: the /** ... */ ending on the line above it."""
    line = cursor.location.line - 2  # 0-based index of the line above
    if line < 0 or not source[line].rstrip().endswith("*/"):
        return ""
    end = line
    while line >= 0 and "/**" not in source[line]:
        line -= 1
    if line < 0:
        return ""
    return clean_comment("\n".join(source[line:end + 1]))


def read_header(header: Path) -> Abi:
    header = header.resolve()
    tu = _parse(header, [])
    source = header.read_text(encoding="utf-8").split("\n")

    def ours(c: ci.Cursor) -> bool:
        return c.location.file is not None and Path(c.location.file.name).resolve() == header

    macro_cursors = []
    enums: List[Enum] = []
    structs: List[Struct] = []
    functions: List[Function] = []
    handles: List[str] = []
    seen_structs = set()
    for c in tu.cursor.get_children():
        if not ours(c):
            continue
        if c.kind == ci.CursorKind.MACRO_DEFINITION:
            tokens = list(c.get_tokens())
            if c.spelling.startswith("AGORAISH_") and len(tokens) > 1 and c.spelling != "AGORAISH_H":
                macro_cursors.append(c)
        elif c.kind == ci.CursorKind.ENUM_DECL and c.is_definition():
            name = c.spelling if not c.is_anonymous() else ""
            members = [Enumerator(m.spelling, m.enum_value, clean_comment(m.raw_comment))
                       for m in c.get_children() if m.kind == ci.CursorKind.ENUM_CONSTANT_DECL]
            if name and all(e.name != name for e in enums):
                enums.append(Enum(name, members, clean_comment(c.raw_comment)))
        elif c.kind in (ci.CursorKind.STRUCT_DECL, ci.CursorKind.TYPEDEF_DECL):
            target = c
            if c.kind == ci.CursorKind.TYPEDEF_DECL:
                underlying = c.underlying_typedef_type.get_canonical()
                decl = underlying.get_declaration()
                if underlying.kind == ci.TypeKind.RECORD and decl.is_definition() is False and decl.get_definition() is None:
                    handles.append(c.spelling)
                    continue
                if underlying.kind == ci.TypeKind.ENUM:
                    d = decl
                    if d.is_definition() and d.spelling and all(e.name != d.spelling for e in enums):
                        members = [Enumerator(m.spelling, m.enum_value, clean_comment(m.raw_comment))
                                   for m in d.get_children() if m.kind == ci.CursorKind.ENUM_CONSTANT_DECL]
                        enums.append(Enum(d.spelling, members, clean_comment(d.raw_comment or c.raw_comment)))
                    continue
                if underlying.kind != ci.TypeKind.RECORD:
                    continue
                target = decl
            if not target.is_definition() or target.spelling in seen_structs or not target.spelling:
                continue
            seen_structs.add(target.spelling)
            t = target.type
            fields = []
            for f in target.get_children():
                if f.kind != ci.CursorKind.FIELD_DECL:
                    continue
                names = [p.spelling for p in f.get_children() if p.kind == ci.CursorKind.PARM_DECL]
                fields.append(Field(f.spelling, convert_type(f.type, names), t.get_offset(f.spelling) // 8,
                                    clean_comment(f.raw_comment)))
            doc = clean_comment(target.raw_comment or c.raw_comment)
            structs.append(Struct(target.spelling, t.get_size(), t.get_align(), fields, doc))
        elif c.kind == ci.CursorKind.FUNCTION_DECL:
            params = [Param(a.spelling, convert_type(a.type)) for a in c.get_arguments()]
            functions.append(Function(c.spelling, convert_type(c.result_type), params, clean_comment(c.raw_comment)))
    values = _macro_values(header, [m.spelling for m in macro_cursors])
    macros = [Macro(m.spelling, values[m.spelling], _doc_before(m, source)) for m in macro_cursors]
    major = next(m.value for m in macros if m.name == "AGORAISH_ABI_VERSION_MAJOR")
    minor = next(m.value for m in macros if m.name == "AGORAISH_ABI_VERSION_MINOR")
    return Abi(major, minor, macros, enums, structs, functions, handles)
