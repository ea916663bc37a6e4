"""gemtable: an unofficial open-source home for gem-and-glass tabletop games."""

__version__ = "0.1.0"
