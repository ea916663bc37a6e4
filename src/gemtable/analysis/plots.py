"""PNG plots of a tournament with matplotlib (headless Agg backend)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def win_matrix(summary: dict[str, Any], path: Path, title: str = "") -> Path:
    plt = _plt()
    labels = [e["bot"] for e in summary["table"]]
    h2h = summary["head_to_head"]
    n = len(labels)
    grid = [[h2h.get(a, {}).get(b, {}).get("rate", float("nan")) for b in labels] for a in labels]
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * n, 1.2 + 1.1 * n))
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(n), labels, rotation=30, ha="right")
    ax.set_yticks(range(n), labels)
    for i in range(n):
        for j in range(n):
            c = h2h.get(labels[i], {}).get(labels[j])
            if c:
                ax.text(j, i, f"{100 * c['rate']:.0f}%\n±{50 * (c['wilson_high'] - c['wilson_low']):.0f}",
                        ha="center", va="center", fontsize=8)
    ax.set_title(title or "win rate: row ahead of column")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def score_distributions(rows: Sequence[dict[str, Any]], labels: list[str], path: Path, title: str = "") -> Path:
    plt = _plt()
    data = []
    for label in labels:
        data.append([r[f"score_{s}"] for r in rows for s in range(r["players"]) if r[f"bot_{s}"] == label])
    fig, ax = plt.subplots(figsize=(2 + 1.4 * len(labels), 4))
    ax.boxplot(data, showmeans=True)
    ax.set_xticks(range(1, len(labels) + 1), labels, rotation=20, ha="right")
    ax.set_ylabel("final score")
    ax.set_title(title or "score distribution per bot")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def seat_advantage(summary: dict[str, Any], path: Path, title: str = "") -> Path:
    plt = _plt()
    seats = summary["seats"]
    xs = [s["seat"] + 1 for s in seats]
    ys = [s["rate"] for s in seats]
    err = [[s["rate"] - s["wilson_low"] for s in seats], [s["wilson_high"] - s["rate"] for s in seats]]
    fig, ax = plt.subplots(figsize=(2 + 1.0 * len(xs), 4))
    ax.bar(xs, ys, yerr=err, capsize=6, color="#4a7fb0")
    if seats:
        ax.axhline(1.0 / len(seats), color="grey", linestyle="--", linewidth=1, label="fair share")
        ax.legend()
    ax.set_xticks(xs)
    ax.set_xlabel("seat (1 = first player)")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    ax.set_title(title or "first-player advantage")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def tournament_plots(rows: Sequence[dict[str, Any]], summary: dict[str, Any], folder: str | Path,
                     game: str = "") -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    labels = [e["bot"] for e in summary["table"]]
    prefix = f"{game}: " if game else ""
    return [
        win_matrix(summary, folder / "win_matrix.png", prefix + "win rate, row ahead of column"),
        score_distributions(rows, labels, folder / "scores.png", prefix + "score distribution per bot"),
        seat_advantage(summary, folder / "seats.png", prefix + "win rate by seat"),
    ]
