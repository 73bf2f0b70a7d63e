"""The C library's allocator (glibc's malloc), which numpy uses: how a short process keeps the
memory it frees for its next arrays. Elsewhere (another C library, no ``ctypes``) it does
nothing.

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
    return libc if hasattr(libc, "mallopt") else None


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


def prefault(size: int, *, block: int = 8 << 20) -> None:
    """Have the kernel hand the process ``size`` bytes of zeroed memory now, and keep them
    with the allocator for the next blocks (``keep_freed_memory``; blocks of ``block`` bytes, so
    that they come from the heap, and are freed together, so that they make one free stretch).
    Meant for a thread of its own while the process does other work on one core: ctypes gives
    up the interpreter's lock for every call, so the kernel's zeroing runs on the idle one."""
    libc = _libc()
    if libc is None or size <= 0:
        return
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    block = min(block, size)  # a small file's evaluation takes no more than it asked for
    taken = []
    for _ in range(-(-size // block)):
        address = libc.malloc(block)
        if not address:
            break
        ctypes.memset(address, 0, block)
        taken.append(address)
    for address in reversed(taken):
        libc.free(address)


__all__ = ["keep_freed_memory", "prefault"]
