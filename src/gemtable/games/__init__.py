"""One package per game; each exports GAME (a gemtable.core.Game)."""
