"""``agenteval.text``: the helpers plugins share for showing untrusted text."""

from __future__ import annotations

from agenteval.text import one_line, suggest
from hypothesis import given
from hypothesis import strategies as st


def test_one_line_folds_whitespace_and_cuts_with_a_marker() -> None:
    assert one_line("  a\n\tb  c ") == "a b c"
    assert one_line("abcdef", 4) == "abc…"
    assert one_line("abcd", 4) == "abcd"
    assert one_line(None) == ""
    assert one_line(ValueError("bad\nthing"), 300) == "bad thing"


@given(st.text(), st.integers(min_value=1, max_value=50))
def test_one_line_is_one_line_within_its_limit(text: str, limit: int) -> None:
    out = one_line(text, limit)
    assert len(out) <= limit
    assert not any(ch.isspace() and ch != " " for ch in out)
    assert "  " not in out
    flat = " ".join(text.split())
    assert out == flat or (out.endswith("…") and flat.startswith(out[:-1]))


def test_suggest_finds_a_misspelt_choice_in_either_spelling() -> None:
    assert suggest("threshhold", ["threshold", "match_type"]) == "threshold"
    assert suggest("matchType", ["match_type"]) == "match_type"
    assert suggest("zzz", ["threshold"]) is None


def test_visible_is_public_for_plugins_that_print_untrusted_text():
    from agenteval.text import visible

    assert visible("ok \x1b[2J\u202e") == "ok \\x1b[2J\\u202e"
    assert visible("a\nb", newlines=True) == "a\nb"
