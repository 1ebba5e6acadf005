"""Best-first enumeration of joint readings of the tiles in a photo.

Each tile has a few candidate readings with probabilities (the classifier's top-k). A joint reading takes one
candidate per tile; its cost is the sum of -log(probability). `best_first` yields joint readings in order of increasing
cost without building the product: most tiles are near-certain (one candidate), so only the uncertain ones branch,
and the caller stops as soon as it has what it needs.

The successor scheme (increment one position at or after the last incremented one) reaches every index vector exactly
once, and since candidates are sorted by cost, the heap pops readings in nondecreasing cost order.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

# Candidates less probable than this are never considered (a tile read as X with p < 0.001 is not X).
MIN_CANDIDATE_PROB = 1e-3


@dataclass(frozen=True)
class Candidate:
    tile: str
    prob: float

    @property
    def cost(self) -> float:
        return -math.log(max(self.prob, 1e-12))


def prune_candidates(
    candidates: Sequence[tuple[str, float]], max_cost_over_best: float, min_prob: float = MIN_CANDIDATE_PROB
) -> tuple[Candidate, ...]:
    """Candidates sorted by probability, keeping the best always and the others only when plausible: probability at
    least `min_prob` and cost within `max_cost_over_best` of the best one."""
    ordered = sorted((Candidate(t, float(p)) for t, p in candidates), key=lambda c: -c.prob)
    if not ordered:
        return ()
    best = ordered[0]
    kept = [best]
    seen = {best.tile}
    for candidate in ordered[1:]:
        if candidate.tile in seen or candidate.prob < min_prob or candidate.cost - best.cost > max_cost_over_best:
            continue
        kept.append(candidate)
        seen.add(candidate.tile)
    return tuple(kept)


def best_first(
    options: Sequence[Sequence[Candidate]], max_cost_over_best: float
) -> Iterator[tuple[float, tuple[int, ...]]]:
    """(cost, choice index per tile) in order of increasing cost, while the cost stays within `max_cost_over_best` of
    the cheapest reading. Every option list must be non-empty and sorted by cost."""
    if any(not o for o in options):
        raise ValueError("every tile needs at least one candidate")
    branching = [i for i, o in enumerate(options) if len(o) > 1]
    base = tuple(0 for _ in options)
    best_cost = sum(o[0].cost for o in options)
    heap: list[tuple[float, tuple[int, ...], int]] = [(best_cost, base, 0)]
    while heap:
        cost, choice, pivot = heapq.heappop(heap)
        if cost - best_cost > max_cost_over_best:
            return
        yield cost, choice
        # Children: bump one branching position at or after the pivot (position in `branching`).
        for k in range(pivot, len(branching)):
            tile = branching[k]
            current = choice[tile]
            if current + 1 < len(options[tile]):
                step = options[tile][current + 1].cost - options[tile][current].cost
                child = (*choice[:tile], current + 1, *choice[tile + 1 :])
                heapq.heappush(heap, (cost + step, child, k))
