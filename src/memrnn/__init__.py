"""memrnn: memory-augmented recurrent networks and the benchmarks that test them."""

# the one place the version is written; pyproject.toml reads it (setuptools ``attr:``)
__version__ = "0.1.0"

__all__ = ["__version__"]
