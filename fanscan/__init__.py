"""fanscan, the application: CLI, batch scoring and labelling, composed from `scoring` and `vision`."""

__version__ = "0.1.0"
