"""Label next's kept figures: values by key, the missing ones worked out together, the oldest
dropped first."""

from labeler.metrics.kept import Kept


def test_only_the_missing_keys_are_worked_out_together_in_order() -> None:
    kept = Kept(10)
    asked: list[list[int]] = []

    def work_out(missing: list[int]) -> list[str]:
        asked.append(missing)
        return [f"value {keys[i]}" for i in missing]

    keys = ["a", "b"]
    assert kept.parts(keys, work_out) == ["value a", "value b"]
    keys = ["b", "c", "a", "d"]
    assert kept.parts(keys, work_out) == ["value b", "value c", "value a", "value d"]
    assert asked == [[0, 1], [1, 3]]
    assert kept.get("c", lambda: "never made") == "value c"


def test_at_most_keep_values_the_oldest_dropped_first() -> None:
    kept = Kept(2)
    for key in ("a", "b", "c"):
        kept.get(key, lambda key=key: key.upper())
    assert len(kept) == 2
    assert kept.get("a", lambda: "made again") == "made again"  # "a" was dropped
    assert kept.get("c", lambda: "made again") == "C"
    kept.clear()
    assert len(kept) == 0
