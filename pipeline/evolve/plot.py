"""fitness.png: best so far, mean and quartiles per generation, for one run or several
overlaid (one colour per run; `corpus evolve --plot DIR...`)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline.evolve.database import read_generations


def plot_runs(run_dirs: list[Path], out: Path, title: str | None = None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pipeline.fileio import atomic_path

    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=120)
    several = len(run_dirs) > 1
    for k, folder in enumerate(run_dirs):
        cols = {n: np.array(v, dtype=float) for n, v in read_generations(Path(folder) / "evolution.db").items()}
        color = f"C{k % 10}"
        label = Path(folder).name
        ax.plot(cols["generation"], cols["best"], color=color, lw=1.8, label=f"{label}: best" if several else "best")
        if not several:  # the spread of each generation would hide the other runs
            ax.plot(cols["generation"], cols["mean"], color=color, lw=0.8, ls="--", label="mean")
            ax.fill_between(cols["generation"], cols["q1"], cols["q3"], color=color, alpha=0.2, lw=0,
                            label="quartiles")
    ax.set_xlabel("generation")
    ax.set_ylabel("fitness")
    ax.set_title(title or ("best fitness per generation" if several else Path(run_dirs[0]).name))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    with atomic_path(out) as tmp:
        fig.savefig(tmp, format="png")
    plt.close(fig)
    return Path(out)
