"""glibc's allocator: with ``keep_freed_memory``, blocks a process frees stay with it for its
next ones instead of going back to the kernel (which would zero fresh pages for them again), and
memory faulted in ahead (``prefault``) serves them. Measured on a child process's own resident
memory, so the test runner's heap is not involved."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

COMMON = r"""
import ctypes, sys
from labeler.allocator import keep_freed_memory, prefault

def anon_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("RssAnon"):
                return int(line.split()[1]) // 1024

libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
"""

CHILD = (
    COMMON
    + r"""
if sys.argv[1] == "keep":
    keep_freed_memory()
# 100 blocks of 1 MiB: by default each is mapped on its own and unmapped when freed.
blocks = [libc.malloc(1 << 20) for _ in range(100)]
for block in blocks:
    libc.memset(block, 1, 1 << 20)
before = anon_mb()
for block in blocks:
    libc.free(block)
print(before, anon_mb())
"""
)


def _resident(mode: str) -> tuple[int, int]:
    output = subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, check=True
    ).stdout
    before, after = map(int, output.split())
    return before, after


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc and /proc")
def test_freed_blocks_stay_with_the_process_only_when_asked() -> None:
    before, after = _resident("default")
    assert before - after > 90  # 100 MB given back at once
    before, after = _resident("keep")
    assert before - after < 10  # kept for the next blocks


PREFAULT = (
    COMMON
    + r"""
keep_freed_memory()
start = anon_mb()
prefault(64 << 20)
faulted = anon_mb()
for _ in range(30):  # 60 MB of blocks of 2 MiB, written: the pages faulted ahead serve them
    libc.memset(libc.malloc(2 << 20), 1, 2 << 20)
print(start, faulted, anon_mb())
"""
)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc and /proc")
def test_memory_faulted_ahead_serves_the_next_blocks() -> None:
    output = subprocess.run(
        [sys.executable, "-c", PREFAULT], capture_output=True, text=True, check=True
    ).stdout
    start, faulted, used = map(int, output.split())
    assert faulted - start > 60  # 64 MB zeroed by the kernel now, and kept
    assert used - faulted < 8  # then written to without new pages
