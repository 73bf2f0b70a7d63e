"""Numbers as people read them: no "-0.0000".

A difference of -0.00004 printed with four decimals reads "-0.0000", a sign on nothing, which a
reader takes for a finding (issue #23). Every face formats its signed figures here: rounded
first, and a value that rounds to zero shown without a minus sign.
"""

from __future__ import annotations


def rounded(value: float, digits: int) -> float:
    """``value`` rounded to ``digits``, a negative zero made positive (for tables and charts
    whose own formatting would print "-0.000")."""
    return round(value, digits) + 0.0


def signed(value: float, digits: int) -> str:
    """``value`` with its sign and ``digits`` decimals: "+0.013", "-0.210", and "+0.000"
    for anything that rounds to zero, whichever side of it."""
    return f"{rounded(value, digits):+.{digits}f}"


def plain(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals, never "-0.000"."""
    return f"{rounded(value, digits):.{digits}f}"


__all__ = ["plain", "rounded", "signed"]
