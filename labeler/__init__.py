"""labeler: build, version and trust the labelled test sets RAG retrievers are evaluated against."""

__version__ = "0.1.0"

__all__ = ["__version__"]
