"""memrnn: memory-augmented recurrent networks and the benchmarks that test them."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("memrnn")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
