"""The prompts a judge run sends: versioned templates in the package, or the user's own."""

from pathlib import Path

import pytest

from labeler.errors import LabelerError
from labeler.judge.prompts import builtin_prompt, contexts_text, prompt_kind, read_prompt


def test_the_builtin_prompts_hold_their_placeholders_and_ask_for_json() -> None:
    relevance = builtin_prompt("relevance")
    assert (relevance.version, relevance.source) == ("relevance-v1", "built-in")
    assert "{{question}}" in relevance.text
    assert "{{passage}}" in relevance.text
    assert '{"grade": 0, 1 or 2, "reason"' in relevance.text
    faithfulness = builtin_prompt("Faithfulness")  # DeepEval's spelling
    assert faithfulness.kind.grades == (0, 1)
    assert len(relevance.hash) == 64
    assert relevance.short_hash == relevance.hash[:8]


def test_filling_is_one_pass() -> None:
    """A chunk that holds a placeholder is sent as written, never filled again."""
    prompt = builtin_prompt("relevance")
    text = prompt.render({"question": "Why {{passage}}?", "passage": "A {{question}} B"})
    assert "<question>\nWhy {{passage}}?\n</question>" in text
    assert "<passage>\nA {{question}} B\n</passage>" in text


def test_an_unknown_metric_names_the_ones_there_are() -> None:
    with pytest.raises(LabelerError, match="rates relevance or faithfulness, not 'tone'"):
        prompt_kind("tone")


def test_a_users_prompt(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text("Q: {{ question }}\nP: {{passage}}\nJSON please.", encoding="utf-8")
    prompt = read_prompt(path, "relevance")
    assert (prompt.version, prompt.source) == ("custom", str(path))
    assert prompt.render({"question": "q", "passage": "p"}) == "Q: q\nP: p\nJSON please."
    assert prompt.hash != builtin_prompt("relevance").hash


def test_a_users_prompt_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("Q: {{question}}\nP: {{pasage}}\n", encoding="utf-8")
    with pytest.raises(LabelerError) as raised:
        read_prompt(path, "relevance")
    assert str(raised.value) == (
        f'{path}:2: field "prompt": unknown placeholder {{{{pasage}}}}: a relevance prompt has'
        " {{question}}, {{passage}}"
    )
    path.write_text("Q: {{question}}\n", encoding="utf-8")
    with pytest.raises(LabelerError, match=r"the prompt lacks \{\{passage\}\}"):
        read_prompt(path, "relevance")
    path.write_bytes(b"\xff{{question}}{{passage}}")
    with pytest.raises(LabelerError, match="not UTF-8"):
        read_prompt(path, "relevance")


def test_contexts_are_numbered() -> None:
    assert contexts_text(["one", "two"]) == "[1] one\n\n[2] two"
