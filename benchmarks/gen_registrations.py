"""Generate one large module with many lionagi HookBus registrations, to measure how `migrate`
grows with the file and the number of registrations against `scan` on the same file.

    python benchmarks/gen_registrations.py OUT_DIR --lines 50000 --registrations 500
    /usr/bin/time -v python -m planeshift scan OUT_DIR --no-cache --builtin-packs lionagi ...
    /usr/bin/time -v python -m planeshift migrate --root OUT_DIR --no-cache ...

The module is ``app.py`` in OUT_DIR (plus a pyproject.toml loading only the built-in lionagi
pack): ``bus = HookBus()``, then filler functions (a docstring, a few statements, a branch,
a loop) with a registration of one of them after every ``k``-th,
``bus.on(HookPoint.TOOL_POST, handler_i)`` (a subscriber the registration codemod rewrites),
alternating with ``bus.on(HookPoint.TOOL_PRE, guard_i)`` (an interceptor). Deterministic: the
same arguments give the same bytes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

HEADER = '''"""Generated: {registrations} HookBus registrations in about {lines} lines."""
from lionagi.hooks import HookBus, HookPoint

bus = HookBus()

'''

FILLER = '''

def helper_{i}(items, limit={i}):
    """Filler {i}: a function with a loop and a branch, as real modules have."""
    total = 0
    for item in items:
        if item > limit:
            total += item * 2
        else:
            total -= 1
    return total
'''

HANDLER = '''

async def handler_{i}(tool_name, result, **kw):
    """Handler {i}."""
    return (tool_name, result, {i})
bus.on(HookPoint.TOOL_POST, handler_{i})
'''

GUARD = '''

def guard_{i}(tool_name, arguments, **kw):
    """Guard {i}."""
    return None
bus.on(HookPoint.TOOL_PRE, guard_{i})
'''


# Call sites are rewritten only for a dispatcher whose façade reads declarations (after
# `migrate --owners`); this stand-in for lionagi's HookBus, in the generated project, is one.
OWNER = '''"""Stand-in for lionagi's HookBus after `migrate --owners`: its façade reads the
declarations the call sites make."""
from enum import Enum

from planeshift.kernels import Declarations


class HookPoint(str, Enum):
    TOOL_PRE = "tool_pre"
    TOOL_POST = "tool_post"


class HookBus:
    def on(self, point, handler):
        handler = _HOOK_BUS_DECLARATIONS.accept(handler)


_HOOK_BUS_DECLARATIONS = Declarations(planes=("interceptor", "subscriber"))
'''


def generate(lines: int, registrations: int) -> str:
    """Flat: every function and registration at the top level of the module."""
    filler_lines = FILLER.count("\n")
    reg_lines = HANDLER.count("\n")
    fillers = max(0, (lines - registrations * reg_lines) // filler_lines)
    every = max(1, fillers // max(1, registrations))
    out = [HEADER.format(registrations=registrations, lines=lines)]
    made = 0
    for i in range(fillers):
        out.append(FILLER.format(i=i))
        if made < registrations and i % every == every - 1:
            out.append((HANDLER if made % 2 == 0 else GUARD).format(i=made))
            made += 1
    while made < registrations:
        out.append((HANDLER if made % 2 == 0 else GUARD).format(i=made))
        made += 1
    return "".join(out)


def generate_chunked(lines: int, registrations: int, per_chunk: int = 10) -> str:
    """Chunked: the filler functions are methods of a class per chunk, and each chunk's
    handlers are defined and registered inside a ``register_<k>()`` function the module calls,
    so the module has a few hundred top-level statements, not thousands."""
    chunks = max(1, -(-registrations // per_chunk))
    reg_lines = HANDLER.count("\n")
    filler_lines = FILLER.count("\n")
    fillers = max(0, (lines - registrations * reg_lines - chunks * 6) // filler_lines)
    out = [HEADER.format(registrations=registrations, lines=lines)]
    made = filled = 0
    for k in range(chunks):
        share = fillers // chunks + (1 if k < fillers % chunks else 0)
        out.append(f"\n\nclass Filler{k}:\n    \"\"\"Chunk {k}.\"\"\"\n")
        for _ in range(share):
            out.append(_indent(FILLER.format(i=filled).replace("(items,", "(self, items,")))
            filled += 1
        if not share:
            out.append("    pass\n")
        out.append(f"\n\ndef register_{k}():\n")
        for _ in range(min(per_chunk, registrations - made)):
            out.append(_indent((HANDLER if made % 2 == 0 else GUARD).format(i=made)))
            made += 1
        out.append(f"\n\nregister_{k}()\n")
    return "".join(out)


def _indent(block: str) -> str:
    return "".join(f"    {line}" if line.strip() else line
                   for line in block.splitlines(keepends=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--registrations", type=int, default=500)
    parser.add_argument("--layout", choices=("chunked", "flat"), default="chunked",
                        help="flat: thousands of top-level statements (see README)")
    parser.add_argument("--no-owner", action="store_true",
                        help="leave out the HookBus stand-in that reads declarations: every "
                             "registration is then refused (no dispatcher reads it)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    make = generate if args.layout == "flat" else generate_chunked
    text = make(args.lines, args.registrations)
    (args.out / "app.py").write_text(text, encoding="utf-8")
    (args.out / "pyproject.toml").write_text(
        "[project]\nname = 'generated'\n\n[tool.planeshift]\nbuiltin-packs = ['lionagi']\n"
        "max-file-size = 0  # a generated module may be larger than the 5 MB default\n")
    if not args.no_owner:
        bus = args.out / "lionagi" / "hooks" / "bus.py"
        bus.parent.mkdir(parents=True, exist_ok=True)
        (bus.parent.parent / "__init__.py").write_text("")
        (bus.parent / "__init__.py").write_text("from .bus import HookBus, HookPoint\n")
        bus.write_text(OWNER)
    print(f"{args.out / 'app.py'}: {text.count(chr(10))} lines, "
          f"{text.count('bus.on(')} registrations")


if __name__ == "__main__":
    main()
