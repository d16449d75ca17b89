"""The compiled time loops of ``memrnn.models.controller.fused`` for one controller
(``loops.cpp``).

At the quick profiles' sizes a training step of a Stack-LSTM makes some fifty small
tensor operations per time step, and the Python interpreter's few microseconds per
operation are about half of the step on a CPU. ``loops.cpp`` runs the same loops from
C++: the same ATen calls where ATen's rounding matters, plain loops with the same
arithmetic elsewhere, and so the same numbers bit for bit (``tests/models/controller/
test_native.py`` compares the two on every kind of memory and cell), without the
interpreter. ``benchmarks/compiled_loops.py`` measures the gain (``docs/speed.md``).
K controllers trained at once (a group under ``torch.func.vmap``) run the Python loops.

It is compiled on first use with PyTorch's C++ extension tools (a C++ compiler is needed,
such as ``g++``; ``ninja`` comes with memrnn) into a cache shared by every process of the
machine, keyed by the source, the flags, the torch and the Python version, so a later
process only loads it (``prepare`` builds it ahead, as the runner does before it starts
worker processes, and the test suite before its first test). Where it cannot be built,
or with ``MEMRNN_NATIVE=0`` in the environment, the Python loops run instead, with a
warning in the first case; ``python_loops()`` asks for them in a block. On a GPU the
Python loops run: there the loop's cost is the kernel launches, which compiling the host
code does not remove.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import torch
from torch import Tensor

SOURCE = Path(__file__).with_name("loops.cpp")
# It includes ATen's headers and pybind11's, not torch/extension.h: parsing that one (the
# whole C++ frontend) took 40 of the 45 seconds of compiling.
# No fused multiply-adds: the plain loops must round each product as ATen's kernels do.
# -O3 vectorises the element-wise loops (the same arithmetic per element, in the same
# order: GCC reorders no floating-point sum without -ffast-math).
FLAGS = ("-O3", "-ffp-contract=off")
_built: list[ModuleType | None] = []  # empty until the first call tried to build
_python_only = [False]


def cache_directory() -> Path:
    """Where the compiled loops are kept: ``$MEMRNN_CACHE``, else ``memrnn`` under
    PyTorch's own extension directory (``$TORCH_EXTENSIONS_DIR`` or
    ``~/.cache/torch_extensions``)."""
    if os.environ.get("MEMRNN_CACHE"):
        return Path(os.environ["MEMRNN_CACHE"])
    torch_dir = os.environ.get("TORCH_EXTENSIONS_DIR")
    base = Path(torch_dir) if torch_dir else Path.home() / ".cache" / "torch_extensions"
    return base / "memrnn"


def _name() -> str:
    """The module's name: a digest of the sources and of what its binary depends on."""
    key = hashlib.sha256(SOURCE.read_bytes())
    key.update(f"{FLAGS} {torch.__version__} {sys.version} {sys.platform}".encode())
    return f"memrnn_loops_{key.hexdigest()[:16]}"


def _load(name: str, library: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, library)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build() -> ModuleType:
    """The compiled module: loaded from the cache, or compiled into it first. Each
    builder compiles in a directory of its own and moves the library into place in one
    step, so processes that start together never wait on a lock or see half a file."""
    from torch.utils import cpp_extension

    name = _name()
    directory = cache_directory()
    suffix = ".pyd" if sys.platform == "win32" else ".so"  # as PyTorch names the library
    library = directory / f"{name}{suffix}"
    if library.exists():
        return _load(name, library)
    directory.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=directory))
    # PyTorch runs ``ninja`` from PATH: the one pip put beside this interpreter first, for
    # a virtual environment that was not activated.
    path = os.environ.get("PATH", "")
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), path])
    try:
        built: ModuleType = cpp_extension.load(name, [str(SOURCE)], build_directory=str(scratch),
                                               extra_cflags=list(FLAGS), verbose=False)  # fmt: skip
        os.replace(scratch / library.name, library)  # the loaded module stays valid
    finally:
        os.environ["PATH"] = path
        shutil.rmtree(scratch, ignore_errors=True)
    return built


def loops(like: Tensor) -> ModuleType | None:
    """The compiled loops for tensors like ``like``, or None for the Python loops: on a
    GPU, in a precision other than float32 or float64, inside ``python_loops()``, with
    ``MEMRNN_NATIVE=0``, or where the build failed (which warns once, with the compiler's
    complaint)."""
    if like.device.type != "cpu" or like.dtype not in (torch.float32, torch.float64):
        return None
    if _python_only[0] or os.environ.get("MEMRNN_NATIVE") == "0":
        return None
    if not _built:
        try:
            _built.append(_build())
        except Exception as error:  # no compiler, no headers: the Python loops still run
            _built.append(None)
            warnings.warn(
                f"memrnn: the compiled loops ({SOURCE.name}) could not be built, so the "
                f"slower Python loops run instead: {error}",
                RuntimeWarning,
                stacklevel=2,
            )
    return _built[0]


def prepare() -> None:
    """Build (or load) the compiled loops now, so that processes started later find them
    in the cache instead of each compiling its own."""
    loops(torch.zeros(()))


@contextmanager
def python_loops() -> Iterator[None]:
    """Run the Python loops inside the block (the reference the compiled ones equal)."""
    before = _python_only[0]
    _python_only[0] = True
    try:
        yield
    finally:
        _python_only[0] = before
