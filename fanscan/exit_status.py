"""What `fanscan`'s exit status means, the same for every command (printed at the end of `--help`).

A single hand (`score HAND`, `photo`) says with its status whether it is a valid win; a set of them (a file of hand
strings, a batch) says whether every one could be scored, and each row says whether its hand meets the minimum
(`meets_minimum`), since a table of a hundred hands has no one answer to that."""

from __future__ import annotations

SCORED = 0  # done: the hand (or every hand of a set) was scored, and a single hand meets the minimum
SOME_FAILED = 1  # a set of hands or photos (a file of hand strings, a batch): some could not be scored
ERROR = 2  # a usage error, or the one hand or photo given could not be scored: nothing was scored
BELOW_MINIMUM = 3  # the one hand given was scored but is below the minimum (MCR: 8 fan without flowers)
INTERRUPTED = 130  # Ctrl-C

EPILOG = """\
exit status: 0 = done (a single hand scored and meets the minimum; a file of hands or a batch: every one
scored); 1 = some hands or photos of a file or batch could not be scored (the rest were); 2 = usage error, or
nothing scored (a bad hand, photo or file); 3 = the one hand given (score HAND, photo) was scored but is below
the minimum (MCR: 8 fan, flowers not counted), so it is no valid win; 130 = interrupted."""
