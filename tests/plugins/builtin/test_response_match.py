"""``response_match_score``: ROUGE-1 F-measure with ADK 2.13's tokenizer (reference 4.2)."""

from __future__ import annotations

import random

import pytest
from agenteval.models import Content, Part
from agenteval_builtin._tokenizer import UnicodeAwareTokenizer, tokenize
from agenteval_builtin.response_match import ResponseMatchScore, rouge1
from agenteval_builtin_test_helpers import inv, run
from hypothesis import assume, given, settings
from hypothesis import strategies as st

M = ResponseMatchScore


def rouge(response, reference) -> float:
    result = run(M, [inv(text=response)], [inv(text=reference)])
    assert result.value is not None
    return result.value


@pytest.mark.parametrize(
    "response, reference, score",
    [
        pytest.param("the cat sat", "the cat", 0.8, id="p1-r2/3"),
        pytest.param("the cat", "the cat sat", 0.8, id="symmetric"),
        pytest.param("The cat sat.", "the CAT sat", 1.0, id="case-and-punctuation"),
        pytest.param("cats running", "cat runs", 1.0, id="porter-stemming"),
        pytest.param("the the the", "the", 0.5, id="clipped-counts"),
        pytest.param("café", "cafe", 0.0, id="no-accent-folding"),
        pytest.param("ＡＢＣ", "abc", 1.0, id="nfkc"),
        pytest.param("今天天气很好", "今天天气很好", 1.0, id="cjk"),
        pytest.param("今天天气", "今天很好", 0.5, id="cjk-per-character"),
        pytest.param("안녕하세요", "안녕 하세요", 1.0, id="hangul-per-syllable"),
        pytest.param("สวัสดี", "สวัสดีครับ", 8 / 11, id="thai-clusters"),  # 4 of 7 clusters
        pytest.param("Привет мир", "привет МИР", 1.0, id="cyrillic"),
        pytest.param("", "", 0.0, id="two-empty-texts-score-zero"),
        pytest.param("!!!", "!!!", 0.0, id="no-tokens-score-zero"),
        pytest.param("", "hello", 0.0, id="empty-response"),
        pytest.param("hello", "", 0.0, id="empty-reference"),
    ],
)
def test_scores(response, reference, score):
    assert rouge(response, reference) == pytest.approx(score)


def test_text_is_every_part_joined_thoughts_included():
    actual = inv(text="x").model_copy(
        update={
            "final_response": Content(
                role="model", parts=[Part(text="the"), Part(text=""), Part(text="cat", thought=True)]
            )
        }
    )
    assert run(M, [actual], [inv(text="the cat")]).value == 1.0


def test_missing_final_response_is_empty_text():
    assert run(M, [inv(text=None)], [inv(text="hello")]).value == 0.0
    result = run(M, [inv(text=None)], [inv(text=None)])
    assert result.value == 0.0
    assert "the response is empty and the expected response is empty" in result.per_invocation[0].reason


def test_mean_over_invocations_reason_and_details():
    result = run(M, [inv(text="the cat sat"), inv(text="dog")], [inv(text="the cat"), inv(text="a bird")])
    assert result.value == pytest.approx(0.4)
    first = result.per_invocation[0]
    assert first.details == {
        "precision": pytest.approx(2 / 3),
        "recall": 1.0,
        "response_tokens": 3,
        "expected_tokens": 2,
    }
    assert first.reason == (
        "ROUGE-1 F 0.800: precision 0.667 (2 of 3 response tokens), recall 1.000 (2 of 2 expected tokens)"
    )
    second = result.per_invocation[1].reason
    assert second.endswith("expected tokens not in the response: a, bird")
    # 0.8 is not below the threshold 0.8 (inclusive): only #2 is listed.
    assert result.reason.startswith("1 of 2 invocations scored below 0.8: #2 (0). #2: ")


def test_punctuation_only_reason():
    reason = run(M, [inv(text="!!!")], [inv(text="hi")]).per_invocation[0].reason
    assert reason == "the response has no words (only punctuation or symbols): scored 0.0"


def test_no_invocations_and_info():
    assert run(M, [], []).reason_code == "no_invocations"
    assert M.info.default_threshold == 0.8 and M.info.requires_expected


# --- properties ---------------------------------------------------------------------------

SCRIPTS = {
    "latin": st.characters(min_codepoint=0x20, max_codepoint=0x24F),
    "cjk": st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
    "kana": st.characters(min_codepoint=0x3040, max_codepoint=0x30FF),
    "hangul": st.characters(min_codepoint=0xAC00, max_codepoint=0xD7AF),
    "thai": st.characters(min_codepoint=0x0E00, max_codepoint=0x0E7F),
    "khmer": st.characters(min_codepoint=0x1780, max_codepoint=0x17FF),
    "myanmar": st.characters(min_codepoint=0x1000, max_codepoint=0x109F),
    "cyrillic": st.characters(min_codepoint=0x0400, max_codepoint=0x04FF),
    "arabic": st.characters(min_codepoint=0x0600, max_codepoint=0x06FF),
    "devanagari": st.characters(min_codepoint=0x0900, max_codepoint=0x097F),
    "any": st.characters(),
}
script_text = st.sampled_from(sorted(SCRIPTS)).flatmap(
    lambda name: st.text(st.one_of(SCRIPTS[name], st.sampled_from(" ,.!?\n")), max_size=40)
)
FAST = settings(max_examples=80, deadline=None)


@FAST
@given(script_text)
def test_identical_texts_score_one_in_every_script(text):
    # ADK gives 0.0 to a text without tokens (empty, punctuation only).
    assert rouge(text, text) == (1.0 if tokenize(text) else 0.0)


@FAST
@given(script_text, script_text)
def test_f_measure_is_symmetric_and_in_range(a, b):
    forward, backward = rouge(a, b), rouge(b, a)
    assert 0.0 <= forward <= 1.0
    assert forward == pytest.approx(backward, abs=1e-12)


@FAST
@given(
    st.lists(st.from_regex(r"[A-Za-z0-9]{1,8}", fullmatch=True), min_size=1, max_size=12),
    st.randoms(use_true_random=False),
)
def test_ascii_word_order_and_case_do_not_matter(words, rnd):
    shuffled = list(words)
    rnd.shuffle(shuffled)
    assert rouge(" ".join(words), " ".join(shuffled).upper()) == 1.0


@FAST
@given(script_text, script_text)
def test_adding_tokens_to_the_response_never_lowers_recall(a, b):
    assume(tokenize(a) and tokenize(b))
    base = run(M, [inv(text=a)], [inv(text=b)]).per_invocation[0].details["recall"]
    longer = run(M, [inv(text=a + " zzzqqq")], [inv(text=b)]).per_invocation[0].details["recall"]
    assert longer >= base


@FAST
@given(script_text, script_text)
def test_the_counting_equals_rouge_score_itself_to_the_last_bit(response, reference):
    from rouge_score import rouge_scorer

    oracle = rouge_scorer.RougeScorer(["rouge1"], tokenizer=UnicodeAwareTokenizer())
    expected = oracle.score(reference, response)["rouge1"]
    got = rouge1(tokenize(reference), tokenize(response))
    assert got == (expected.precision, expected.recall, expected.fmeasure)


def test_each_distinct_word_is_stemmed_once_however_many_scorings_use_it():
    """Stemming is the costly part of ROUGE-1 here: a word seen before comes from the cache
    (the speed itself is measured by benchmarks/, not asserted)."""
    from agenteval_builtin._tokenizer import _BYTE_WORD_TOKENS, _WORD_TOKENS

    rnd = random.Random(7)
    vocabulary = [
        f"{stem}{suffix}"
        for stem in ("run", "walk", "book", "flight", "weather", "city", "answer")
        for suffix in ("", "s", "ing", "ed", "er", "ation")
    ]
    pairs = [
        (" ".join(rnd.choices(vocabulary, k=30)), " ".join(rnd.choices(vocabulary, k=30))) for _ in range(500)
    ]
    _WORD_TOKENS.clear()
    _BYTE_WORD_TOKENS.clear()
    _WORD_TOKENS.misses = 0
    result = run(M, [inv(text=a) for a, _ in pairs], [inv(text=b) for _, b in pairs])
    assert result.value is not None and 0 < result.value < 1
    assert _WORD_TOKENS.misses == len(vocabulary)


def test_importing_the_criterion_does_not_import_nltk_until_prepare():
    """rouge-score imports nltk (about half a second): only ``prepare()`` or the first
    score pays for it, so a run starts its agent without waiting for it."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from agenteval_builtin.response_match import ResponseMatchScore\n"
        "assert 'nltk' not in sys.modules and 'rouge_score.rouge_scorer' not in sys.modules\n"
        "ResponseMatchScore().prepare()\n"
        "assert 'nltk' in sys.modules and 'rouge_score.tokenize' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@FAST
@given(script_text, script_text)
def test_one_count_gives_the_overlap_and_the_missing_tokens_of_the_counter_arithmetic(response, reference):
    from collections import Counter

    from agenteval_builtin.response_match import _rouge1

    wanted, got = tokenize(reference), tokenize(response)
    *_, overlap, missing = _rouge1(wanted, got, Counter(wanted), Counter(got))
    assert overlap == sum((Counter(wanted) & Counter(got)).values())
    assert list(missing.items()) == list((Counter(wanted) - Counter(got)).items())


@FAST
@given(script_text)
def test_a_response_equal_to_its_reference_scores_as_the_counting_scores_it(text):
    from agenteval_builtin.response_match import _compared, _score_invocation

    assert _score_invocation(text, text) == _compared(text, text)
