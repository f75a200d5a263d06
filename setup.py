"""Build hook for the compiled cores: the double-dummy solver (engine/solver/_ddcore.c)
and the information-set MCTS of the benchmark (engine/solver/_ismcts.c).

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
            extra_compile_args=["-O3", "-std=c11", "-fno-strict-aliasing"],
            optional=True,
        ),
        Extension(
            "engine.solver._ismcts",
            sources=["engine/solver/_ismcts.c"],
            extra_compile_args=["-O3", "-std=c11", "-fno-strict-aliasing"],
            libraries=["m"],
            optional=True,
        ),
    ]
)
