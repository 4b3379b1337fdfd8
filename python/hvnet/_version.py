"""hvnet's version: the engine's, so the package and its core never disagree."""

from hvnet._core import __version__

__all__ = ["__version__"]
