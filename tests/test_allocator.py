"""glibc's allocator: what a big table frees is handed back to the kernel. Measured on this
process's own resident memory, in a child process so the test runner's heap is not involved."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

CHILD = r"""
import ctypes
from labeler.allocator import give_back

def anon_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("RssAnon"):
                return int(line.split()[1]) // 1024

libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
# 2,000 blocks of 64 KiB (served from the heap, not mapped one by one), touched, then freed but
# for the last, which pins the heap's top so that free() alone cannot shrink it.
blocks = [libc.malloc(64 << 10) for _ in range(2000)]
for block in blocks:
    libc.memset(block, 1, 64 << 10)
before = anon_mb()
for block in blocks[:-1]:
    libc.free(block)
freed = anon_mb()
give_back()
print(before, freed, anon_mb())
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc and /proc")
def test_give_back_returns_the_free_pages_of_the_heap() -> None:
    env = {"MALLOC_TRIM_THRESHOLD_": str(1 << 30)}  # as ``keep_freed_memory`` sets it
    output = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, check=True, env=env
    ).stdout
    before, freed, after = map(int, output.split())
    assert before - freed < 20  # freed, but kept by the allocator
    assert freed - after > 100  # 125 MB handed back
