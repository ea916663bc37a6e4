"""Per-game board renderers (JavaScript modules); see README.md."""
