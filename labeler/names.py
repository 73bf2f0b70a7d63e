"""The one rule for a person's name (a reviewer, an account), and how any name is shown on a
terminal.

A reviewer's name is written everywhere a grade is: in labels and their history, in qrels
(``labeler import qrels --reviewer``), in judge files (a person's ratings), in the app's session
and on the command line. One rule keeps them all the same name, typed the same way:

    1 to 64 characters, each an ASCII letter, a digit, ``.``, ``_`` or ``-``.

ASCII only, on purpose: ``maria`` and the same word with a Cyrillic ``a`` (U+0430) must not be
two reviewers who look like one, and a name must survive a URL, a file name, a TREC column and a
terminal as it is.
Names are case-sensitive (``Maria`` and ``maria`` are two names), as they always were in the
labels; an account refuses a name that differs from another only by case (``labeler.accounts``).

Names written before this rule (a database of round two may hold ``testset:orders@v1``) are
kept and shown as they are, escaped on a terminal (``terminal_safe``); only new names are held to
the rule.
"""

from __future__ import annotations

import re
import unicodedata

from labeler.errors import LabelerError, shown

NAME_MAX = 64
NAME_RULE = "1 to 64 characters, each an ASCII letter, a digit, '.', '_' or '-'"
_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
_OUTSIDE = re.compile(r"[^A-Za-z0-9._-]")


def is_name(value: object) -> bool:
    """Whether ``value`` follows the name rule."""
    return isinstance(value, str) and _NAME.fullmatch(value) is not None


def to_name(text: str, *, fill: str = "-") -> str:
    """``text`` made into a name by the rule, for names the tool derives itself (an imported
    test set's reviewer, a judge's default name from its model): each character the rule does
    not allow written as ``fill``, cut to ``NAME_MAX``."""
    return _OUTSIDE.sub(fill, text)[:NAME_MAX] or fill


def check_name(value: object, *, field: str = "reviewer", what: str = "reviewer") -> str:
    """``value`` when it follows the name rule, else a LabelerError naming ``field``. Surrounding
    whitespace is not forgiven: ``"maria "`` typed in a form is a different string in a file."""
    if is_name(value):
        return value  # type: ignore[return-value]
    if not isinstance(value, str):
        problem = "is not text"
    elif not value:
        problem = "is empty"
    elif len(value) > NAME_MAX:
        problem = f"is {len(value)} characters long"
    else:
        bad = next(c for c in value if not _NAME.fullmatch(c))
        problem = f"holds {_character(bad)}"
    article = "an" if what[:1] in "aeiou" else "a"
    msg = f"{article} {what} name is {NAME_RULE}; {terminal_safe(shown(value))} {problem}"
    raise LabelerError(msg, field=field)


def _character(char: str) -> str:
    if char == " ":
        return "a space"
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


# terminal output -------------------------------------------------------------------------------

# Characters a terminal acts on instead of showing: C0 and C1 controls (ESC starts the sequences
# that clear the screen or set the window title; C1's CSI does the same in one byte), DEL, line
# and paragraph separators, and invisible formatting characters (a bidi override turns the rest
# of a line around). Newlines and tabs lay output out and are kept.
_ACTIVE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_SUSPECT = re.compile(r"[^\x20-\x7e\n\t]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if unicodedata.category(char) not in _ACTIVE_CATEGORIES:
        return char
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the first plane: a surrogate pair, as JSON writes it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on written as an escape (``\\u001b``
    for ESC), so a name or an id from a file or a browser can never drive the terminal it is
    printed on. The escapes are JSON's, so JSON output stays valid JSON."""
    return _SUSPECT.sub(_escape, text)


__all__ = ["NAME_MAX", "NAME_RULE", "check_name", "is_name", "terminal_safe", "to_name"]
