"""The union-find shared by the MCR engine and photo grouping, against components found by a plain graph search."""

from __future__ import annotations

import random

from fanscan.scoring.disjoint_sets import DisjointSets


def _components_by_search(n: int, links: list[tuple[int, int]]) -> set[frozenset[int]]:
    neighbours: dict[int, set[int]] = {i: set() for i in range(n)}
    for a, b in links:
        neighbours[a].add(b)
        neighbours[b].add(a)
    seen: set[int] = set()
    components = set()
    for start in range(n):
        if start in seen:
            continue
        stack, component = [start], set()
        while stack:
            item = stack.pop()
            if item not in component:
                component.add(item)
                stack.extend(neighbours[item] - component)
        seen |= component
        components.add(frozenset(component))
    return components


def test_groups_are_the_connected_components() -> None:
    rng = random.Random(13)
    for _ in range(200):
        n = rng.randint(1, 15)
        links = [(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, 2 * n))]
        groups = DisjointSets(n)
        for a, b in links:
            groups.union(a, b)
        found: dict[int, set[int]] = {}
        for item in range(n):
            found.setdefault(groups.find(item), set()).add(item)
        assert {frozenset(g) for g in found.values()} == _components_by_search(n, links)


def test_union_says_whether_it_joined_two_groups() -> None:
    groups = DisjointSets(4)
    assert groups.union(0, 1)
    assert groups.union(2, 3)
    assert not groups.union(1, 0)
    assert groups.union(1, 3)
    assert not groups.union(0, 2)
    assert groups.find(0) == groups.find(2) == groups.find(3)
