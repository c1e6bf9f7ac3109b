"""dri: Dr Inventor-style analogy and document-similarity pipeline."""

__version__ = "0.1.0"
