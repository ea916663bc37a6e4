"""The `gemtable` command line."""
