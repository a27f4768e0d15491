"""exportkb's knowledge base: catalogue, matcher, kb.db and CLI.

Nothing in this package imports torch or `collectors` at module level, so search,
build, the UI and the site all run in an environment without torch.
"""
__version__ = "0.1.0"
