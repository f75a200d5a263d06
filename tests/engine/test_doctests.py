"""The examples in the engine's docstrings run as tests (python-chess style)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engine

# Entry points and build scripts are not libraries: importing them has side effects.
SKIP = {"engine.__main__", "engine.solver._build"}


def engine_modules() -> list[str]:
    names = ["engine"]
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
        if info.name not in SKIP:
            names.append(info.name)
    return sorted(names)


def test_the_core_modules_are_found():
    names = set(engine_modules())
    for core in (
        "engine.cards",
        "engine.rules",
        "engine.deal",
        "engine.dealing",
        "engine.game",
        "engine.bots",
    ):
        assert core in names


@pytest.mark.parametrize("name", engine_modules())
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, (
        f"{result.failed} of {result.attempted} doctest examples failed in {name}"
    )


def test_core_modules_have_examples():
    finder = doctest.DocTestFinder()
    examples = 0
    for name in (
        "engine",
        "engine.cards",
        "engine.deal",
        "engine.dealing",
        "engine.game",
        "engine.rules",
    ):
        examples += sum(len(t.examples) for t in finder.find(importlib.import_module(name)))
    assert examples >= 20
