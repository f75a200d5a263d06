"""Build hook for the compiled cores: the double-dummy solver (engine/solver/_ddcore.c)
and the information-set MCTS of the benchmark (engine/solver/_ismcts.c).

Both include engine/solver/_rules.h (the card rules they share): it is in each
extension's ``depends`` so that a changed header rebuilds them, and in the package data.

Everything else lives in pyproject.toml.  The extension is optional: when no C
compiler is present the install still succeeds and engine.solver builds the core on
first use into a cache directory, or falls back to pure Python.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "engine.solver._ddcore",
            sources=["engine/solver/_ddcore.c"],
            depends=["engine/solver/_rules.h"],
            extra_compile_args=["-O3", "-std=c11", "-fno-strict-aliasing"],
            optional=True,
        ),
        Extension(
            "engine.solver._ismcts",
            sources=["engine/solver/_ismcts.c"],
            depends=["engine/solver/_rules.h"],
            extra_compile_args=["-O3", "-std=c11", "-fno-strict-aliasing"],
            libraries=["m"],
            optional=True,
        ),
    ]
)
