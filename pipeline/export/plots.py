"""Plots of a recording (matplotlib, Agg, PNG): gait diagram, joint angles, speed, contact
forces, and any recorded `ch_` channel."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline.errors import CorpusError
from pipeline.export.gait import stepping
from pipeline.export.view import view_of
from pipeline.fileio import atomic_path
from pipeline.simulate.metrics import scene_metrics, speed_series

STANDARD = ("gait", "joints", "speed", "contact")
CONTACT_CHANNEL = "contact_force"


def _figure(width=8.0, height=3.0, rows=1):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt, plt.subplots(rows, 1, figsize=(width, height), dpi=100, layout="constrained")


def _save(plt, fig, path: Path) -> Path:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png")
    plt.close(fig)
    return path


def channels_of(recording) -> dict[str, np.ndarray]:
    """Numeric recorded channels by name without the `ch_` prefix (text channels, such as
    a controller's state names, have nothing to plot)."""
    chans = {(k[3:] if k.startswith("ch_") else k): np.asarray(v)
             for k, v in (getattr(recording, "channels", None) or {}).items()}
    return {k: v for k, v in chans.items() if v.dtype.kind in "biuf"}


def gait_diagram(time, legs, steps, path: Path) -> Path:
    """McKenna's Figures 12-14: a row per leg, white while stepping, black in stance."""
    plt, (fig, ax) = _figure(8.0, 0.45 * len(legs) + 1.0)
    ax.imshow(steps.T.astype(float), aspect="auto", cmap="gray", vmin=0, vmax=1,
              interpolation="nearest", extent=(time[0], time[-1], len(legs) - 0.5, -0.5))
    ax.set_yticks(range(len(legs)), legs)
    ax.set_xlabel("time [s]")
    ax.set_title("gait diagram (step white, stance black)")
    return _save(plt, fig, path)


def joint_angles(time, q, model, path: Path) -> Path | None:
    """Every one-coordinate joint (revolute, prismatic) over time, a panel per creature."""
    model = view_of(model)
    if not model.joints:
        return None
    trees = sorted({tree for _, _, tree in model.joints})
    plt, (fig, axes) = _figure(8.0, 2.6 * len(trees), rows=len(trees))
    for ax, tree in zip(np.atleast_1d(axes), trees):
        mine = [(name, qi) for name, qi, t in model.joints if t == tree]
        for name, qi in mine:
            ax.plot(time, q[:, qi], lw=0.8, label=name)
        if len(mine) <= 12:
            ax.legend(fontsize=6, ncols=2, loc="upper right")
        ax.set_ylabel(f"{model.tree_names[tree]}\nq [rad or m]")
    ax.set_xlabel("time [s]")
    return _save(plt, fig, path)


def speed_title(metrics: dict) -> str:
    """The speed plot's title: the manifest's numbers (scene_metrics), under their names."""
    return (f"{metrics['body']}: mean horizontal speed, cm/s: path_speed {metrics['path_speed'] * 100:.2f}, "
            f"heading_speed {metrics['heading_speed'] * 100:.2f}, planar_speed {metrics['planar_speed'] * 100:.2f}")


def speed_plot(recording, path: Path) -> Path | None:
    """The first creature's root body: its horizontal speed along its path and along its own
    heading between recorded samples (pipeline/simulate/metrics.py: speed_series), whose time
    means are the manifest's path_speed and heading_speed."""
    metrics = scene_metrics(recording)
    if not metrics:
        return None
    t, along_path, along_heading = speed_series(recording)
    plt, (fig, ax) = _figure()
    ax.plot(t, along_path * 100.0, lw=1.0, color="#3060a0", label="along its path")
    ax.plot(t, along_heading * 100.0, lw=0.8, color="#d07020", label="along its heading")
    ax.axhline(0.0, color="0.6", lw=0.5)
    ax.legend(fontsize=7, loc="upper right")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("speed [cm/s]")
    ax.set_title(speed_title(metrics), fontsize=9)
    return _save(plt, fig, path)


def contact_plot(time, forces, body_names, path: Path) -> Path | None:
    """Magnitude of the contact force on each body that ever touches. The contact stage
    records (T, nb, 6) wrenches [torque; force]: the force is the last three."""
    f = np.asarray(forces, float).reshape(len(time), len(body_names), -1)[..., -3:]
    mag = np.linalg.norm(f, axis=2)
    touching = np.flatnonzero(mag.max(axis=0) > 0)
    plt, (fig, ax) = _figure()
    for b in touching:
        ax.plot(time, mag[:, b], lw=0.8, label=body_names[b])
    if 0 < len(touching) <= 12:
        ax.legend(fontsize=6, ncols=2)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("|contact force| [N]")
    return _save(plt, fig, path)


def channel_plot(time, name: str, values: np.ndarray, path: Path) -> Path:
    plt, (fig, ax) = _figure()
    v = np.asarray(values, float).reshape(len(time), -1)
    for j in range(v.shape[1]):
        ax.plot(time, v[:, j], lw=0.8, label=f"[{j}]" if v.shape[1] > 1 else None)
    if 1 < v.shape[1] <= 12:
        ax.legend(fontsize=6, ncols=3)
    ax.set_xlabel("time [s]")
    ax.set_title(f"ch_{name}")
    return _save(plt, fig, path)


def write_plots(recording, model, out_dir: Path, which) -> list[Path]:
    """The plots `which` asks for: True (every standard plot and every channel) or a list of
    standard plot names and channel names."""
    time = np.asarray(recording.time, float)
    chans = channels_of(recording)
    wanted = set(STANDARD) | set(chans) if which is True else set(which)
    unknown = wanted - set(STANDARD) - set(chans)
    if unknown:
        raise CorpusError(f"outputs.plots: no plot or channel named {', '.join(sorted(unknown))} "
                          f"(plots: {', '.join(STANDARD)}; channels: {', '.join(sorted(chans)) or 'none'})")
    out = Path(out_dir) / "plots"
    written: list[Path | None] = []
    gait = stepping(chans)
    if "gait" in wanted and gait is not None:
        written.append(gait_diagram(time, gait[0], gait[1], out / "gait.png"))
    if "joints" in wanted:
        written.append(joint_angles(time, np.asarray(recording.q), model, out / "joint_angles.png"))
    if "speed" in wanted:
        written.append(speed_plot(recording, out / "speed.png"))
    if "contact" in wanted and CONTACT_CHANNEL in chans:
        written.append(contact_plot(time, chans[CONTACT_CHANNEL], list(recording.body_names),
                                    out / "contact_forces.png"))
    for name in sorted(wanted & set(chans)):
        written.append(channel_plot(time, name, chans[name], out / f"ch_{name}.png"))
    return [p for p in written if p is not None]
