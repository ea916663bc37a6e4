"""Static files of the web table (served by gemtable.server; no Python here)."""
