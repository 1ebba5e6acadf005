"""The photo side: load, detect, classify, group into a HandProposal. May use `scoring`, never `fanscan`.

Installs as `fanscan.vision`, not as a top-level `vision`: the design's top-level folders (`scoring/`, `vision/`,
`models/`, `training/`) are sub-packages of the one import name `fanscan` (pyproject.toml,
`[tool.setuptools.package-dir]`), so that no generic `vision` lands in site-packages. Import it as
`fanscan.vision` (an editor or a grep for `fanscan.vision` finds this folder).
"""
