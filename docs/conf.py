"""Sphinx configuration of memrnn's documentation: ``make docs`` builds it into
docs/_build/html, warnings as errors, running the gallery and the tutorial."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
# The gallery's scripts train small models: one thread each keeps the build's time steady
# on a shared machine and its numbers the same from build to build.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import memrnn  # noqa: E402

project = "memrnn"
author = "The memrnn developers"
copyright = "the memrnn developers"
release = getattr(memrnn, "__version__", "0.1.0")

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
myst_heading_anchors = 3

# The docstrings are Google style (Args, Returns, Raises, Attributes).
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {
    "members": True,
    "show-inheritance": True,
    # scikit-learn adds these to every estimator; its own pages document them
    "exclude-members": "set_fit_request, set_predict_request, set_score_request",
}

sphinx_gallery_conf = {
    "examples_dirs": ["../examples/tutorial", "../examples/gallery"],
    "gallery_dirs": ["tutorial", "gallery"],
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "abort_on_example_error": True,
    "show_memory": False,
}

html_theme = "furo"
html_title = "memrnn"
html_static_path = ["_static"]
html_css_files = ["memrnn.css"]
