"""The Unicode-aware ROUGE tokenisation of ADK 2.13 (its fix for issue #3111), rewritten.

Steps, applied to a whole text:

1. NFKC normalisation, then lower-casing (full-width ``ＡＢＣ`` becomes ``abc``).
2. Character classes:

   * CJK Unified Ideographs (U+4E00-U+9FFF), Hiragana and Katakana (U+3040-U+30FF) and
     Hangul syllables (U+AC00-U+D7AF): each character is a token of its own;
   * Thai, Lao (U+0E00-U+0EFF), Khmer (U+1780-U+17FF) and Myanmar (U+1000-U+109F):
     a combining mark (category ``M*``) joins the current word; any other character of
     these blocks, punctuation and digits included, starts a new word (a cluster);
   * other alphanumerics (``str.isalnum``) and combining marks join the current word;
   * everything else (spaces, punctuation, ``_``, symbols, emoji) ends the word.

3. A word made only of ASCII characters (hence of ``[a-z0-9]``) goes through
   rouge_score's default tokenisation, which Porter-stems (NLTK) tokens longer than
   three characters. Any other word is a token as is: never stemmed, never folded, so
   ``café`` and ``cafe`` differ.

Speed: stemming dominates ROUGE's cost, so each distinct ASCII word is tokenised once (a
table that learns each word on first sight, so a text's words are looked up in C), and the
tokens and token counts of the last 4,096 texts are kept. Pure-ASCII texts skip the
character scan (their bytes are folded to words by one ``bytes.translate`` and split, their
words looked up by their bytes); other texts are scanned by ``str.translate`` with a table that learns
each character's rewrite on first sight.
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from itertools import chain
from types import ModuleType
from typing import Any

__all__ = ["UnicodeAwareTokenizer", "load_stemming", "token_counts", "tokenize"]

#: An ASCII text's bytes with upper case folded and every byte but ``[a-z0-9]`` a space:
#: its words are then its ``split()`` (what ``[a-z0-9]+`` finds in it lower-cased).
_ASCII_WORDS = bytes(
    code + 32 if 65 <= code <= 90 else code if 97 <= code <= 122 or 48 <= code <= 57 else 32
    for code in range(256)
)


@lru_cache(maxsize=1)
def load_stemming() -> tuple[Callable, object]:
    """rouge_score's word tokenisation and NLTK's Porter stemmer, imported on first use:
    importing nltk costs about half a second, which runs without ROUGE should not pay
    (``ResponseMatchScore.prepare`` calls this in the background)."""
    from rouge_score import tokenize as rouge_tokenize

    return rouge_tokenize.tokenize, _porter_module().PorterStemmer()


def _porter_module() -> ModuleType:
    """``nltk.stem.porter``, imported without numpy, scipy and scikit-learn: importing any
    part of nltk imports the whole package, which imports those when they are installed
    (``scipy.stats`` for Fisher's exact test, ``scipy.sparse`` for a dependency parser,
    numpy for clustering: about a second and 100 MB that ROUGE never uses). While nltk
    loads they are unimportable from this thread only (nltk then leaves those parts out,
    its documented fallback); other threads, and this one afterwards, import them as ever."""
    if "nltk.stem.porter" in sys.modules:
        return sys.modules["nltk.stem.porter"]
    hidden = _HiddenFromThread(threading.get_ident())
    sys.meta_path.insert(0, hidden)
    try:
        return importlib.import_module("nltk.stem.porter")
    finally:
        sys.meta_path.remove(hidden)


#: What nltk imports when it is installed and ROUGE never uses.
_NOT_FOR_ROUGE = frozenset({"numpy", "scipy", "sklearn"})


class _HiddenFromThread(importlib.abc.MetaPathFinder):
    """An import finder that makes ``_NOT_FOR_ROUGE`` (and their submodules) unimportable
    from one thread; imports from any other thread go on to the usual finders."""

    def __init__(self, thread: int) -> None:
        self._thread = thread

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if threading.get_ident() == self._thread and name.partition(".")[0] in _NOT_FOR_ROUGE:
            raise ModuleNotFoundError(f"No module named {name!r} (not imported for ROUGE)", name=name)
        return None


def _is_solo_script(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF  # CJK Unified Ideographs
        or 0x3040 <= code <= 0x30FF  # Hiragana, then Katakana
        or 0xAC00 <= code <= 0xD7AF  # Hangul syllables
    )


def _is_cluster_script(code: int) -> bool:
    return (
        0x0E00 <= code <= 0x0EFF  # Thai, then Lao
        or 0x1780 <= code <= 0x17FF  # Khmer
        or 0x1000 <= code <= 0x109F  # Myanmar
    )


def _rewrite(code: int) -> str:
    """What the scan turns a character into before splitting on whitespace: itself
    (joins the current word), a space (separator), itself between spaces (a token of
    its own) or a space then itself (starts a new word)."""
    char = chr(code)
    if _is_solo_script(code):
        return f" {char} "
    is_mark = unicodedata.category(char).startswith("M")
    if _is_cluster_script(code):
        return char if is_mark else f" {char}"
    return char if is_mark or char.isalnum() else " "


class _RewriteTable(dict):
    """``str.translate`` table filled on first sight of each character, so the scan runs
    in C for every character seen before (up to a bound, against unbounded growth)."""

    def __missing__(self, code: int) -> str:
        value = _rewrite(code)
        if len(self) < _TABLE_LIMIT:
            self[code] = value
        return value


_TABLE_LIMIT = 1 << 16

_TABLE = _RewriteTable()


class _AsciiWordTokens(dict):
    """rouge_score's own default tokenisation of an ASCII word, stemmer included, filled
    on first sight of each word (up to a bound, against unbounded growth), so that a text's
    words are looked up in C."""

    #: Words tokenised so far (each distinct word once while the table has room).
    misses = 0

    def __missing__(self, word: str) -> tuple[str, ...]:
        tokenize_words, stemmer = load_stemming()
        value = tuple(tokenize_words(word, stemmer))
        self.misses += 1
        if len(self) < _WORD_LIMIT:
            self[word] = value
        return value


class _AsciiByteWordTokens(dict):
    """``_WORD_TOKENS`` by the word's bytes (an ASCII text's words are split as bytes)."""

    def __missing__(self, word: bytes) -> tuple[str, ...]:
        value = _WORD_TOKENS[word.decode("ascii")]
        if len(self) < _WORD_LIMIT:
            self[word] = value
        return value


_WORD_LIMIT = 1 << 16

_WORD_TOKENS = _AsciiWordTokens()
_BYTE_WORD_TOKENS = _AsciiByteWordTokens()


def _words(text: str) -> list[str]:
    """The words of an NFKC-normalised, lower-cased text (step 2)."""
    return text.translate(_TABLE).split()


#: Texts whose tokens are kept: a run scores each expected text against each of its runs,
#: and a scoring tokenises each text twice (score, then reason).
_TEXTS_KEPT = 4096


@lru_cache(maxsize=_TEXTS_KEPT)
def tokenize(text: str) -> tuple[str, ...]:
    """The tokens ROUGE compares for ``text`` (see the module docstring)."""
    if text.isascii():
        # NFKC leaves ASCII unchanged, and an ASCII word character is [a-z0-9].
        words = text.encode("ascii").translate(_ASCII_WORDS).split()
        return tuple(chain.from_iterable(map(_BYTE_WORD_TOKENS.__getitem__, words)))
    tokens: list[str] = []
    for word in _words(unicodedata.normalize("NFKC", text).lower()):
        if word.isascii():
            tokens.extend(_WORD_TOKENS[word])
        else:
            tokens.append(word)
    return tuple(tokens)


@lru_cache(maxsize=_TEXTS_KEPT)
def token_counts(text: str) -> Counter:
    """How many times each of ``text``'s tokens occurs, in order of first occurrence
    (the same object for the same text while it is kept: do not change it)."""
    return Counter(tokenize(text))


class UnicodeAwareTokenizer:
    """A rouge_score tokenizer (an object with ``tokenize(text) -> list[str]``)."""

    def tokenize(self, text: str) -> list[str]:
        return list(tokenize(text))
