"""``python -m memrnn.cli``: the ``memrnn`` command."""

import os
import sys

from memrnn.cli import main

os.environ.setdefault("PYTHONUNBUFFERED", "1")
sys.exit(main())
