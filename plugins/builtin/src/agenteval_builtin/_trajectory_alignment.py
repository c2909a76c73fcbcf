"""Aligning two tool-call lists, given the similarity of every (actual, expected) pair.

``similarity[i][j]`` in [0, 1] scores actual call ``i`` against expected call ``j`` (0: they
cannot be paired). An alignment is a list of ``Pair(actual, expected, similarity)``, each call
in at most one pair, pairs of similarity 0 left out. Three shapes:

* ``diagonal`` (EXACT): call ``k`` with call ``k``;
* ``ordered`` (IN_ORDER): pairs in the same order on both sides; ``optimal`` is the weighted
  longest common subsequence (dynamic programming, O(|A|·|E|)); ``greedy`` takes, for each
  expected call in order, the first later actual call it can pair with (ADK's pass);
* ``unordered`` (ANY_ORDER, SUBSET, SUPERSET): ``optimal`` is a maximum-weight bipartite
  matching (``_assignment``, O(n³), solved per tool name since calls of different tools never
  pair); ``greedy`` gives each expected call in order the unused actual call it is most
  similar to (first among equals), as LangChain and DeepEval do.

``optimal`` maximises the summed similarity, so every score built from it (precision,
recall, F) is at least the greedy one's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ._assignment import max_weight_matching

__all__ = ["Pair", "align"]


class Pair(NamedTuple):
    actual: int
    expected: int
    similarity: float


def align(
    shape: str,
    similarity: Sequence[Sequence[float]],
    n_actual: int,
    n_expected: int,
    *,
    greedy: bool,
    groups: Sequence[str] = (),
) -> list[Pair]:
    """The pairs of the alignment, sorted by actual index. ``groups``: the actual calls'
    tool names then the expected calls' (``n_actual + n_expected`` entries), so that the
    unordered matching is solved per tool name."""
    if shape == "diagonal":
        pairs = [Pair(k, k, similarity[k][k]) for k in range(min(n_actual, n_expected))]
        return [p for p in pairs if p.similarity > 0]
    if shape == "ordered":
        return (
            _greedy_ordered(similarity, n_actual, n_expected)
            if greedy
            else _lcs(similarity, n_actual, n_expected)
        )
    if greedy:
        return _greedy_unordered(similarity, n_actual, n_expected)
    return _matching(similarity, n_actual, n_expected, groups)


def _lcs(similarity: Sequence[Sequence[float]], n: int, m: int) -> list[Pair]:
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below, weights = best[i], best[i + 1], similarity[i]
        for j in range(m - 1, -1, -1):
            value = below[j] if below[j] >= row[j + 1] else row[j + 1]
            s = weights[j]
            if s > 0 and s + below[j + 1] > value:
                value = s + below[j + 1]
            row[j] = value
    pairs = []
    i = j = 0
    while i < n and j < m:
        s = similarity[i][j]
        if s > 0 and best[i][j] == s + best[i + 1][j + 1]:
            pairs.append(Pair(i, j, s))
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _greedy_ordered(similarity: Sequence[Sequence[float]], n: int, m: int) -> list[Pair]:
    pairs = []
    start = 0
    for j in range(m):
        for i in range(start, n):
            if similarity[i][j] > 0:
                pairs.append(Pair(i, j, similarity[i][j]))
                start = i + 1
                break
    return pairs


def _greedy_unordered(similarity: Sequence[Sequence[float]], n: int, m: int) -> list[Pair]:
    used = [False] * n
    pairs = []
    for j in range(m):
        best, at = 0.0, -1
        for i in range(n):
            if not used[i] and similarity[i][j] > best:
                best, at = similarity[i][j], i
        if at >= 0:
            used[at] = True
            pairs.append(Pair(at, j, best))
    return sorted(pairs)


def _matching(similarity: Sequence[Sequence[float]], n: int, m: int, groups: Sequence[str]) -> list[Pair]:
    by_group: dict[str, tuple[list[int], list[int]]] = {}
    for i in range(n):
        by_group.setdefault(groups[i] if groups else "", ([], []))[0].append(i)
    for j in range(m):
        by_group.setdefault(groups[n + j] if groups else "", ([], []))[1].append(j)
    pairs = []
    for rows, columns in by_group.values():
        if not rows or not columns:
            continue
        if len(rows) == 1 or len(columns) == 1:  # one call on a side: its best partner
            s, i, j = max((similarity[i][j], -i, -j) for i in rows for j in columns)
            if s > 0:
                pairs.append(Pair(-i, -j, s))
        else:
            weights = [[similarity[i][j] for j in columns] for i in rows]
            pairs.extend(Pair(rows[a], columns[b], weights[a][b]) for a, b in max_weight_matching(weights))
    return sorted(pairs)
