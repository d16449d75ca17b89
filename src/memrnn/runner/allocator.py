"""glibc's malloc, told to keep the memory a training run frees for its next step.

A small model's training step allocates and frees the same few hundred buffers every
step. By default glibc hands blocks above 128 KiB back to the kernel (mmap) and trims
the heap's top, so the next step faults the pages in again: a quarter of the step of 16
Stack-LSTMs trained as one (512 rows, hidden 32) went to page faults. Run processes keep
them instead; the numbers computed do not change, only the resident memory between
steps, which stays near its peak.
"""

from __future__ import annotations

import ctypes
import sys

# mallopt's parameters, from <malloc.h>
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
_SETTINGS = {
    _M_MMAP_THRESHOLD: 32 << 20,  # blocks up to 32 MiB come from the heap, and are reused
    _M_TRIM_THRESHOLD: 1 << 30,  # the heap's top is handed back only above 1 GiB free
    _M_TOP_PAD: 256 << 20,  # and grows 256 MiB at a time
}


def keep_freed_memory() -> bool:
    """Set this process's malloc to keep freed memory for reuse (glibc on Linux; a no-op
    elsewhere). Whether the settings took."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    return all(mallopt(option, value) == 1 for option, value in _SETTINGS.items())
