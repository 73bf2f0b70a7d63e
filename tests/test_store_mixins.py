"""The store's mixins share one namespace (``Store``): a method defined by two of them would
silently hide one behind the other, whichever comes first in the class's bases."""

from labeler.store import Store


def test_no_two_mixins_define_the_same_name() -> None:
    owners: dict[str, list[str]] = {}
    for cls in Store.__mro__:
        for name in vars(cls):
            if not name.startswith("__"):
                owners.setdefault(name, []).append(cls.__name__)
    assert {name: found for name, found in owners.items() if len(found) > 1} == {}
