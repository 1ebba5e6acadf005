"""Sub-commands of the `fanscan` CLI, one module each."""
