"""Find a compiled core, or build it once into a cache directory.

Two cores live here: ``_ddcore`` (the double-dummy solver) and ``_ismcts`` (the
information-set MCTS sparring partner, :mod:`engine.bots.ismcts`).
Order: the extension built by the package (``setup.py`` ``ext_modules``, so
``engine/solver/<name>*.so`` next to this file), then a copy compiled on first use
with the system C compiler into ``$MANILLEN_CACHE`` / ``$XDG_CACHE_HOME/manillen`` /
``~/.cache/manillen`` (keyed by the hash of the source, of the headers it includes
(``_rules.h``, shared by both cores) and of the flags, and by the Python ABI; written
atomically so concurrent workers are safe), else ``None`` and the caller uses pure Python.

``MANILLEN_SOLVER=python`` forces pure Python; ``MANILLEN_SOLVER_BUILD=0`` forbids
the on-the-fly build.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "_ddcore.c"
CFLAGS = ["-O3", "-fPIC", "-shared", "-std=c11", "-fno-strict-aliasing"]
LIBS = {"_ismcts": ["-lm"]}
INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.MULTILINE)


def _load(path: Path, name: str = "engine.solver._ddcore"):
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def cache_dir() -> Path:
    base = os.environ.get("MANILLEN_CACHE")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "manillen"


def compiler() -> list[str] | None:
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    cmd = cc.split()
    if shutil.which(cmd[0]) is None:
        for alt in ("cc", "gcc", "clang"):
            if shutil.which(alt):
                return [alt]
        return None
    return cmd


def build(target: Path, source: Path = SOURCE) -> bool:
    cmd = compiler()
    include = sysconfig.get_paths().get("include")
    if cmd is None or not include or not (Path(include) / "Python.h").exists():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=target.parent)
    os.close(fd)
    try:
        res = subprocess.run(
            [*cmd, *CFLAGS, f"-I{include}", str(source), "-o", tmp, *LIBS.get(source.stem, [])],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if res.returncode != 0:
            return False
        os.replace(tmp, target)
        stem = source.stem
        for old in target.parent.glob(f"{stem}-*"):  # stale builds of older sources
            if old != target and old.name.startswith(f"{stem}-{sys.implementation.cache_tag}-"):
                try:
                    old.unlink()
                except OSError:
                    pass
        return True
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def local_headers(source: Path) -> list[Path]:
    """The headers ``source`` includes with quotes (``#include "_rules.h"``), looked up
    beside the file that includes them, and the ones they include: each once, in order."""
    found: list[Path] = []
    todo = [source]
    while todo:
        including = todo.pop(0)
        for m in INCLUDE.finditer(including.read_bytes()):
            path = (including.parent / m.group(1).decode()).resolve()
            if path not in found and path.is_file():
                found.append(path)
                todo.append(path)
    return found


def source_digest(source: Path, flags: str) -> str:
    """The cache key of a build of ``source``: its text, the text of the headers it
    includes (a changed ``_rules.h`` must not load a stale build) and the flags."""
    h = hashlib.sha256(source.read_bytes())
    for path in local_headers(source):
        h.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    h.update(b"\0" + flags.encode())
    return h.hexdigest()[:16]


def load_core(name: str = "_ddcore"):
    """The C module ``name`` (``_ddcore`` or ``_ismcts``), or None.

    ``MANILLEN_SOLVER=python`` only concerns the solver: the ISMCTS core has no
    pure-Python twin.
    """
    if name == "_ddcore" and os.environ.get("MANILLEN_SOLVER", "").lower() in (
        "python",
        "py",
        "pure",
    ):
        return None
    try:  # built by setup.py / pip install
        return importlib.import_module(f"engine.solver.{name}")
    except ImportError:
        pass
    source = HERE / f"{name}.c"
    if os.environ.get("MANILLEN_SOLVER_BUILD", "1") == "0" or not source.exists():
        return None
    flags = " ".join(CFLAGS + LIBS.get(name, []))
    digest = source_digest(source, flags)
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = cache_dir() / f"{name}-{sys.implementation.cache_tag}-{digest}{suffix}"
    try:
        if not target.exists() and not build(target, source):
            return None
        return _load(target, f"engine.solver.{name}")
    except (ImportError, OSError):
        return None
