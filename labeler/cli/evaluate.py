"""Commands: placeholder module, filled by its feature."""
