"""labeler.numbers: signed figures never read "-0.000"."""

import pytest

from labeler.numbers import plain, rounded, signed


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [(-0.00004, 4, "+0.0000"), (-0.0, 3, "+0.000"), (0.0126, 3, "+0.013"), (-0.2104, 3, "-0.210")],
)
def test_signed(value: float, digits: int, shown: str) -> None:
    assert signed(value, digits) == shown


def test_plain_and_rounded_drop_the_minus_of_zero() -> None:
    assert plain(-0.00001, 4) == "0.0000"
    assert str(rounded(-0.0004, 3)) == "0.0"
    assert rounded(-0.0126, 3) == -0.013
