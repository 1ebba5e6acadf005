"""Disjoint sets (union-find) over the items 0..n-1: which items a set of pairwise links joins into one group.

Used by the MCR engine (pairs of chows / pungs joined without a cycle) and by photo grouping (tiles that share a
row). Tiny inputs (a hand's melds, a photo's tiles), so no union by rank.
"""

from __future__ import annotations


class DisjointSets:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, item: int) -> int:
        """The representative of `item`'s group (path halving on the way)."""
        parent = self.parent
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def union(self, a: int, b: int) -> bool:
        """Join the groups of `a` and `b` (b's representative stays); False when they were already one group."""
        root_a, root_b = self.find(a), self.find(b)
        if root_a == root_b:
            return False
        self.parent[root_a] = root_b
        return True
