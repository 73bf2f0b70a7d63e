"""The C library's allocator (glibc's malloc), which numpy and the Arrow reader share: how a
short process keeps the memory it frees for its next arrays, and how a big table's memory is
handed back. Elsewhere (another C library, no ``ctypes``) both do nothing.

Fresh memory is dear on a virtual machine: every page the kernel hands out is zeroed first, and
at about 1 GB/s on the 2-core machine the benchmarks run on, the zeroing was a fifth to a third
of a 10,000-question ``labeler eval`` (docs/benchmarks.md, "Fresh memory").
"""

from __future__ import annotations

import ctypes
from typing import Any

# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
MMAP_THRESHOLD_MAX = 32 << 20  # glibc's largest: bigger blocks are always mapped afresh


def _libc() -> Any:
    try:
        libc = ctypes.CDLL(None)  # the process's own symbols (TypeError on Windows)
    except (OSError, TypeError):
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def keep_freed_memory() -> None:
    """Have glibc keep the memory the process frees for its next blocks, instead of giving it
    back to the kernel at once (blocks of more than 128 KiB are mapped and unmapped one by one,
    from one arena per thread) and having the kernel zero fresh pages again. Blocks over 32 MiB
    are still mapped one by one, so a big evaluation's peak stays where it was. The setting
    lasts as long as the process: for the short ones of the CLI only."""
    libc = _libc()
    if libc is None:
        return
    libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_MAX)
    libc.mallopt(_M_TRIM_THRESHOLD, 1 << 30)
    libc.mallopt(_M_ARENA_MAX, 1)


def give_back() -> None:
    """Hand every free page of the allocator's heaps back to the kernel (``malloc_trim``)."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


__all__ = ["MMAP_THRESHOLD_MAX", "give_back", "keep_freed_memory"]
