"""The corpus fixtures, shared with tests/corpus."""

from corpus.conftest import corpus_root  # noqa: F401
