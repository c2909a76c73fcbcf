"""The Unicode-aware ROUGE tokenizer (ADK 2.13, reference section 4.2)."""

from __future__ import annotations

import unicodedata

import pytest
from agenteval_builtin import _tokenizer
from agenteval_builtin._tokenizer import UnicodeAwareTokenizer, tokenize
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("", []),
        ("   \n\t ", []),
        ("!!! ... ?", []),
        ("Hello, World!", ["hello", "world"]),
        ("The cats are running", ["the", "cat", "are", "run"]),  # Porter, tokens > 3 chars only
        ("was has its", ["was", "has", "its"]),  # 3 letters: never stemmed
        ("user_id e-mail don't", ["user", "id", "e", "mail", "don", "t"]),
        ("3.14 AF123", ["3", "14", "af123"]),
        ("ＡＢＣ ｔｅｓｔｓ", ["abc", "test"]),  # NFKC, then the ASCII path (stemmed)
        ("ﬁle Ⅻ x²", ["file", "xii", "x2"]),
        ("café naïve", ["café", "naïve"]),  # non-ASCII words: unchanged, never stemmed
        ("cafe\u0301", ["café"]),  # NFKC composes
        ("Cafés", ["cafés"]),
        ("Привет, мир!", ["привет", "мир"]),
        ("مرحبا بالعالم", ["مرحبا", "بالعالم"]),
        ("नमस्ते", ["नमस्ते"]),  # Devanagari combining marks stay in the word
        ("今天天气很好", ["今", "天", "天", "气", "很", "好"]),
        ("東京abc都", ["東", "京", "abc", "都"]),
        ("カタカナー", ["カ", "タ", "カ", "ナ", "ー"]),
        ("ｶﾀｶﾅ", ["カ", "タ", "カ", "ナ"]),  # half-width kana become full-width
        ("こんにちは", ["こ", "ん", "に", "ち", "は"]),
        ("안녕하세요 서울", ["안", "녕", "하", "세", "요", "서", "울"]),
        ("สวัสดี", ["ส", "วั", "ส", "ดี"]),  # Thai: a base starts a cluster, marks attach
        ("น้ำ", ["น้\u0e4d", "า"]),  # NFKC splits SARA AM into NIKHAHIT (a mark) + SARA AA
        ("กรุงเทพฯ", ["ก", "รุ", "ง", "เ", "ท", "พ", "ฯ"]),  # Thai punctuation is kept as a cluster
        ("๑๒๓", ["๑", "๒", "๓"]),
        ("ສະບາຍດີ", ["ສ", "ະ", "ບ", "າ", "ຍ", "ດີ"]),
        ("မြန်မာ", ["မြ", "န်", "မာ"]),  # U+102C is a spacing mark (Mc): it attaches
        ("ab\u0e31cd", ["ab\u0e31cd"]),  # a Thai mark after Latin joins the Latin word
        ("ก1", ["ก1"]),  # a word character after a cluster base continues the cluster
        ("😀 👍🏽 €", []),  # symbols and emoji separate and vanish
        ("Καλημέρα", ["καλημέρα"]),
    ],
)
def test_tokens(text, tokens):
    assert list(tokenize(text)) == tokens
    assert UnicodeAwareTokenizer().tokenize(text) == tokens


def test_stemming_is_memoised_per_word():
    _tokenizer._WORD_TOKENS.clear()
    _tokenizer._BYTE_WORD_TOKENS.clear()
    _tokenizer._WORD_TOKENS.misses = 0
    tokenize.cache_clear()
    tokenize("running runners running")
    tokenize("the runners")
    assert _tokenizer._WORD_TOKENS.misses == 3  # running, runners, the


FAST = settings(max_examples=150, deadline=None)


@FAST
@given(st.text())
def test_tokens_are_non_empty_and_contain_no_whitespace(text):
    for token in tokenize(text):
        assert token and not any(ch.isspace() for ch in token)


@FAST
@given(st.text())
def test_canonically_equivalent_texts_tokenise_alike(text):
    # NFKC is applied first, so NFC/NFD/NFKC/NFKD variants of a text give the same tokens.
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        assert tokenize(unicodedata.normalize(form, text)) == tokenize(text)


@FAST
@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_fast_path_equals_the_general_scan(text):
    slow_words = _tokenizer._words(text.lower())
    slow = [t for w in slow_words for t in _tokenizer._WORD_TOKENS[w]]
    assert list(tokenize(text)) == slow


@FAST
@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_words_are_what_a_z0_9_finds_in_the_lower_cased_text(text):
    import re

    words = re.findall(r"[a-z0-9]+", text.lower())
    assert list(tokenize(text)) == [t for w in words for t in _tokenizer._WORD_TOKENS[w]]
    split = text.encode("ascii").translate(_tokenizer._ASCII_WORDS).split()
    assert [w.decode("ascii") for w in split] == words


def _runs_cleanly(code: str) -> None:
    """``code`` exits 0 in a fresh interpreter (imports are per process)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_stemming_loads_without_importing_numpy_or_scipy_and_leaves_them_importable():
    _runs_cleanly(
        "import sys\n"
        "from agenteval_builtin._tokenizer import load_stemming\n"
        "tokenize, stemmer = load_stemming()\n"
        "assert stemmer.stem('running') == 'run'\n"
        "assert 'scipy' not in sys.modules, 'scipy was imported'\n"
        "assert 'numpy' not in sys.modules, 'numpy was imported'\n"
        "import numpy, scipy.stats\n"
        "assert scipy.stats.fisher_exact([[1, 2], [3, 4]]).pvalue > 0\n"
    )


def test_another_thread_imports_numpy_while_nltk_loads():
    """Only the thread that loads nltk goes without numpy: a criterion that imports numpy
    while ``prepare()`` runs in the background still gets it."""
    _runs_cleanly(
        "import importlib, sys, threading\n"
        "from agenteval_builtin import _tokenizer\n"
        "hidden = _tokenizer._HiddenFromThread(threading.get_ident())\n"
        "sys.meta_path.insert(0, hidden)\n"
        "got = []\n"
        "worker = threading.Thread(target=lambda: got.append(importlib.import_module('numpy')))\n"
        "worker.start(); worker.join()\n"
        "assert got and got[0].__name__ == 'numpy'\n"
        "try:\n"
        "    import scipy\n"
        "except ImportError:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError('scipy was importable from the hidden thread')\n"
    )
