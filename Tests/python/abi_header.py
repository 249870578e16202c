"""A small reader of include/agoraish.h for the tests: functions, structs, constants.

It understands exactly the subset of C the header uses (prototypes, typedef'd
structs with plain and function-pointer fields, enums with integer values,
object-like #defines). Anything it cannot read makes it raise, so a header
change that outgrows it shows up as a test failure rather than a silent gap.
"""

from __future__ import annotations

import ast
import ctypes
import operator
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "include" / "agoraish.h"


@dataclass(frozen=True)
class Param:
    """One parameter or field: its C type (normalized spacing) and name."""

    ctype: str
    name: str


@dataclass(frozen=True)
class Function:
    """A prototype: `restype name(params);`."""

    name: str
    restype: str
    params: Tuple[Param, ...]


@dataclass(frozen=True)
class Field:
    """A struct field; `callback` holds (restype, params) for a function pointer.

    An array field `char name[N]` has the ctype "char[N]" with N evaluated.
    """

    name: str
    ctype: str
    callback: Tuple[str, Tuple[Param, ...]] = None  # type: ignore[assignment]


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def _code(text: str) -> str:
    """The header without comments and preprocessor lines."""
    lines = [line for line in _strip_comments(text).splitlines() if not line.lstrip().startswith("#")]
    return "\n".join(lines)


def normalize_type(ctype: str) -> str:
    """'const  char*' -> 'const char *'."""
    ctype = re.sub(r"\s*\*\s*", " * ", ctype)
    return re.sub(r"\s+", " ", ctype).strip()


def _param(text: str) -> Param:
    text = text.strip()
    m = re.fullmatch(r"(.*?[\s\*])(\w+)", text)
    if not m:
        raise ValueError(f"cannot read parameter {text!r}")
    return Param(normalize_type(m.group(1)), m.group(2))


def _params(text: str) -> Tuple[Param, ...]:
    text = " ".join(text.split())
    if text in ("void", ""):
        if text == "":
            raise ValueError("a prototype with () instead of (void)")
        return ()
    return tuple(_param(part) for part in text.split(","))


def header_text() -> str:
    return HEADER.read_text(encoding="utf-8")


def functions(text: str = None) -> Dict[str, Function]:  # type: ignore[assignment]
    """Every function prototype `... agoraish_x(...);`, in header order."""
    code = _code(text if text is not None else header_text())
    result: Dict[str, Function] = {}
    for statement in code.split(";"):
        statement = re.split(r"[{}]", statement)[-1]  # drop `extern "C" {`, struct bodies
        m = re.fullmatch(r"\s*([^()]*?)\b(agoraish_\w+)\s*\(([^()]*)\)\s*", statement, flags=re.S)
        if not m or "typedef" in m.group(1):
            continue
        name = m.group(2)
        result[name] = Function(name, normalize_type(m.group(1)), _params(m.group(3)))
    return result


def structs(text: str = None) -> Dict[str, List[Field]]:  # type: ignore[assignment]
    """Every `typedef struct X { ... } X;`, with its fields in order."""
    text = text if text is not None else header_text()
    return _structs(_code(text), constants(text))


def _structs(code: str, known: Dict[str, int], only: Optional[str] = None) -> Dict[str, List[Field]]:
    """The structs of `code` (or just `only`); array lengths are evaluated with the constants in `known`.

    A declaration may name several fields of one type (`int x, y;`).
    """
    result: Dict[str, List[Field]] = {}
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", code, flags=re.S):
        name, body = m.group(1), m.group(2)
        if only is not None and name != only:
            continue
        fields: List[Field] = []
        for decl in body.split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            fp = re.fullmatch(r"(.*?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)", decl)
            if fp:
                fields.append(Field(fp.group(2), "fnptr", (normalize_type(fp.group(1)), _params(fp.group(3)))))
                continue
            first, *more = decl.split(",")
            head = _param(re.sub(r"\[.*\]\s*$", "", first))
            base = re.sub(r"[\s\*]+$", "", head.ctype)  # the type without the first declarator's stars
            for i, declarator in enumerate([first] + more):
                declarator = declarator.strip()
                if i > 0:
                    declarator = f"{base} {declarator}"
                array = re.fullmatch(r"(.*?)\[(.+)\]", declarator)
                if array:
                    p = _param(array.group(1))
                    fields.append(Field(p.name, f"{p.ctype}[{_evaluate(array.group(2), known)}]"))
                else:
                    p = _param(declarator)
                    fields.append(Field(p.name, p.ctype))
        result[name] = fields
    return result


_HEADER_STRUCTS: Dict[str, List[Field]] = {}


def _header_struct(name: str) -> List[Field]:
    """The fields of struct `name` of the header (read once), for struct-typed fields."""
    if not _HEADER_STRUCTS:
        _HEADER_STRUCTS.update(structs())
    if name not in _HEADER_STRUCTS:
        raise ValueError(f"no size known for the field type {name!r}")
    return _HEADER_STRUCTS[name]


def _size_and_alignment(ctype: str) -> Tuple[int, int]:
    """Size and alignment of a field type on this platform (natural alignment, as the C compilers here use)."""
    pointer = ctypes.sizeof(ctypes.c_void_p)
    array = re.fullmatch(r"(.+)\[(\d+)\]", ctype)
    if array:
        size, alignment = _size_and_alignment(array.group(1))
        return size * int(array.group(2)), alignment
    if ctype == "fnptr" or ctype.endswith("*"):
        return pointer, pointer
    if ctype == "char":
        return 1, 1
    if ctype in _SIZEOF:
        return _SIZEOF[ctype], _SIZEOF[ctype]
    if re.fullmatch(r"agoraish_\w+", ctype):
        # A struct of the header: its own size, aligned to its widest field.
        fields = _header_struct(ctype)
        return layout(fields)["__size__"], max(_size_and_alignment(f.ctype)[1] for f in fields)
    raise ValueError(f"no size known for the field type {ctype!r}")


def layout(fields: List[Field]) -> Dict[str, int]:
    """Field offsets and "__size__" of a struct, by the natural alignment rules."""
    offsets: Dict[str, int] = {}
    offset, widest = 0, 1
    for f in fields:
        size, alignment = _size_and_alignment(f.ctype)
        offset = (offset + alignment - 1) // alignment * alignment
        offsets[f.name] = offset
        offset += size
        widest = max(widest, alignment)
    offsets["__size__"] = (offset + widest - 1) // widest * widest
    return offsets


def struct_names_declared(text: str = None) -> List[str]:  # type: ignore[assignment]
    """Names of every `typedef struct X {` block (a cross-check for `structs`)."""
    code = _code(text if text is not None else header_text())
    return re.findall(r"typedef\s+struct\s+(\w+)\s*\{", code)


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.BitOr: operator.or_}

#: `sizeof` of the C types the header's #defines may measure (this platform's sizes).
_SIZEOF = {
    "uint8_t": 1,
    "uint32_t": 4,
    "int32_t": 4,
    "uint64_t": 8,
    "int64_t": 8,
    "int": ctypes.sizeof(ctypes.c_int),
    "unsigned int": ctypes.sizeof(ctypes.c_uint),
    "double": ctypes.sizeof(ctypes.c_double),
    "void *": ctypes.sizeof(ctypes.c_void_p),
    "size_t": ctypes.sizeof(ctypes.c_size_t),
}


def _sizeof(m: "re.Match[str]") -> str:
    ctype = normalize_type(m.group(1))
    if ctype not in _SIZEOF:
        raise ValueError(f"cannot evaluate sizeof({ctype})")
    return str(_SIZEOF[ctype])


def _evaluate(expr: str, known: Dict[str, int],
              offsetof: "Optional[Callable[[str, str], int]]" = None) -> int:
    expr = re.sub(r"\bsizeof\s*\(([^()]*)\)", _sizeof, expr)
    if offsetof is not None:
        expr = re.sub(r"\boffsetof\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)",
                      lambda m: str(offsetof(m.group(1), m.group(2))), expr)
    expr = re.sub(r"\(\s*int\s*\)\s*(0[xX][0-9a-fA-F]+|\d+)", r"__int32__(\1)", expr)

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in known:
            return known[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "__int32__":
            v = ev(node.args[0]) & 0xFFFFFFFF
            return v - 2**32 if v >= 2**31 else v
        raise ValueError(f"cannot evaluate {expr!r}")

    return ev(ast.parse(expr.strip(), mode="eval"))


#: An enum declaration and its body: `enum X { ... };` or `typedef enum X { ... } X;`.
_ENUM_BODY = r"\benum\s+{name}\s*\{{(.*?)\}}\s*(?:\w+\s*)?;"


def constants(text: str = None) -> Dict[str, int]:  # type: ignore[assignment]
    """Every `#define AGORAISH_X value` and every enumerator, by name."""
    text = text if text is not None else header_text()
    raw = _strip_comments(text)
    values: Dict[str, int] = {}

    def offsetof(struct: str, field: str) -> int:
        # Only the struct measured: others may use constants defined further down.
        offsets = layout(_structs(_code(text), values, only=struct)[struct])
        if field not in offsets:
            raise ValueError(f"offsetof({struct}, {field}): no such field")
        return offsets[field]

    for m in re.finditer(r"^\s*#define\s+(AGORAISH_\w+)[ \t]+(.+)$", raw, flags=re.M):
        values[m.group(1)] = _evaluate(m.group(2), values, offsetof)
    enums = list(re.finditer(_ENUM_BODY.format(name=r"\w+"), raw, flags=re.S))
    declared = re.findall(r"\benum\s+\w+\s*\{", raw)
    if len(enums) != len(declared):
        raise ValueError(f"read {len(enums)} of the {len(declared)} enum declarations")
    for m in enums:
        for item in m.group(1).split(","):
            item = item.strip()
            if not item:
                continue
            name, _, value = item.partition("=")
            if not value:
                raise ValueError(f"enumerator {name.strip()} has no explicit value")
            values[name.strip()] = _evaluate(value, values)
    return values


def enum_members(enum_name: str, text: str = None) -> Dict[str, int]:  # type: ignore[assignment]
    """The enumerators of one enum, by name."""
    raw = _strip_comments(text if text is not None else header_text())
    m = re.search(_ENUM_BODY.format(name=re.escape(enum_name)), raw, flags=re.S)
    if not m:
        raise KeyError(enum_name)
    result: Dict[str, int] = {}
    for item in m.group(1).split(","):
        item = item.strip()
        if item:
            name, _, value = item.partition("=")
            result[name.strip()] = _evaluate(value, result)
    return result
