"""Maximum-weight bipartite matching (the assignment problem), in pure Python.

``max_weight_matching(weights)`` takes an ``n × m`` matrix of non-negative weights and
returns the pairs ``(row, column)`` of a matching whose total weight is the largest possible;
pairs of weight 0 are left out. It solves the square problem padded with zero weights by the
shortest augmenting path method (Hungarian algorithm with dual potentials): one Dijkstra-like
search per row, O(k³) time for ``k = max(n, m)``, O(k²) memory.

Among columns at the same distance the search prefers a free one, which ends the search at
once; without that, matrices full of equal weights (common here: similarities are often 0, 1
or a few shares) cost O(k³) even though any perfect matching is optimal.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["max_weight_matching"]

_INF = float("inf")


def max_weight_matching(weights: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """The pairs ``(i, j)`` of a maximum-weight matching of ``weights`` (rows × columns),
    sorted by ``i``; only pairs of positive weight are returned."""
    n = len(weights)
    m = len(weights[0]) if n else 0
    if not n or not m:
        return []
    size = max(n, m)
    top = max(max(row) for row in weights)
    # Costs to minimise: ``top - weight``, padded with ``top`` (weight 0) to a square.
    cost = [[top - w for w in row] + [top] * (size - m) for row in weights]
    cost.extend([[top] * size for _ in range(size - n)])
    column_of = _assign(cost)
    return [(i, j) for i, j in enumerate(column_of) if i < n and j < m and weights[i][j] > 0]


def _assign(cost: list[list[float]]) -> list[int]:
    """A minimum-cost perfect assignment of a square matrix: the column of each row."""
    size = len(cost)
    row_potential = [0.0] * size
    column_potential = [0.0] * size
    column_of = [-1] * size
    row_of = [-1] * size
    came_from = [-1] * size
    for start in range(size):
        distance = [_INF] * size
        unreached = list(range(size))
        visited_rows: list[int] = []
        visited_columns: list[int] = []
        reach = 0.0
        row = start
        sink = -1
        while sink < 0:
            visited_rows.append(row)
            base = reach - row_potential[row]
            costs = cost[row]
            best, best_at, best_free = _INF, -1, False
            for position, column in enumerate(unreached):
                length = base + costs[column] - column_potential[column]
                if length < distance[column]:
                    distance[column] = length
                    came_from[column] = row
                length = distance[column]
                free = row_of[column] < 0
                if length < best or (length == best and free and not best_free):
                    best, best_at, best_free = length, position, free
            reach = best
            column = unreached[best_at]
            unreached[best_at] = unreached[-1]
            unreached.pop()
            visited_columns.append(column)
            if row_of[column] < 0:
                sink = column
            else:
                row = row_of[column]
        row_potential[start] += reach
        for row in visited_rows[1:]:
            row_potential[row] += reach - distance[column_of[row]]
        for column in visited_columns:
            column_potential[column] -= reach - distance[column]
        column = sink
        while True:  # flip the path's pairs back to the row the search started from
            row = came_from[column]
            row_of[column] = row
            column, column_of[row] = column_of[row], column
            if row == start:
                break
    return column_of
