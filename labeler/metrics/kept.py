"""Figures kept between label next's computations, by what they read.

Label next works a comparison out again after every grade, and a grade changes one question:
what depends on one question (its bounds, its slots' moves, its regraded bounds), or on the two
runs alone (their pool), is kept under a key of what it reads and worked out only when that
changes. ``Kept`` holds at most ``keep`` of them, the oldest dropped first; the app asks from
several threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any


class Kept:
    """Values kept by key, at most ``keep`` of them (the oldest first out)."""

    def __init__(self, keep: int) -> None:
        self._values: OrderedDict[Hashable, Any] = OrderedDict()
        self._keep = keep
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The value kept for ``key``, else ``make()``, kept."""
        return self.parts([key], lambda missing: [make()])[0]

    def parts(self, keys: Sequence[Hashable], work_out: Callable[[list[int]], Sequence]) -> list:
        """The value kept for each key; those not kept are worked out together by
        ``work_out(positions of their keys)`` (one value each, in that order) and kept."""
        with self._lock:
            found = [self._values.get(key) for key in keys]
        missing = [i for i, value in enumerate(found) if value is None]
        if missing:
            for i, value in zip(missing, work_out(missing), strict=True):
                found[i] = value
            with self._lock:
                for i in missing:
                    self._values[keys[i]] = found[i]
                while len(self._values) > self._keep:
                    self._values.popitem(last=False)
        return found

    def clear(self) -> None:
        with self._lock:
            self._values.clear()

    def __len__(self) -> int:
        return len(self._values)


__all__ = ["Kept"]
