"""Plots of a recording (matplotlib, Agg, PNG): gait diagram, joint angles, speed, height,
contact forces, and any recorded `ch_` channel. Each says what it shows: names from the model and
the scene on every line or panel, units on every axis, and one plot per idea."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline.errors import CorpusError
from pipeline.export.channels import CONTACT_CHANNEL, describe, drawn_elsewhere
from pipeline.export.gait import stepping
from pipeline.export.limbs import panels
from pipeline.export.view import view_of
from pipeline.fileio import atomic_path
from pipeline.simulate.metrics import scene_metrics, speed_series

STANDARD = ("gait", "joints", "speed", "height", "contact")


def _figure(width=8.0, height=3.0, rows=1, cols=1, **kwargs):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt, plt.subplots(rows, cols, figsize=(width, height), dpi=100, layout="constrained", **kwargs)


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
    ax.set_ylabel("leg")
    ax.set_xlabel("time [s]")
    ax.set_title("gait diagram: each leg stepping (white) or in stance (black)")
    return _save(plt, fig, path)


def joint_angles(time, q, model, path: Path) -> Path | None:
    """Every one-coordinate joint over time, a panel per limb (pipeline/export/limbs.py), each
    line named; angles in degrees, slides in metres."""
    groups = panels(view_of(model))
    if not groups:
        return None
    cols = 1 if len(groups) <= 3 else 2
    rows = -(-len(groups) // cols)
    plt, (fig, axes) = _figure(6.0 * cols + 1.5, 0.6 + 1.7 * rows, rows, cols, sharex=True, squeeze=False)
    for ax, panel in zip(axes.flat, groups):
        for j in panel.joints:
            ax.plot(time, q[:, j.q] if j.prismatic else np.degrees(q[:, j.q]), lw=0.8, label=j.name)
        ax.set_title(panel.title, fontsize=9, loc="left")
        ax.set_ylabel("position [m]" if panel.joints[0].prismatic else "angle [deg]", fontsize=8)
        ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    for ax in axes.flat[len(groups):]:
        ax.set_visible(False)
    for column in axes.T:  # the time axis under the lowest panel of each column
        lowest = [ax for ax in column if ax.get_visible()][-1]
        lowest.tick_params(labelbottom=True)
        lowest.set_xlabel("time [s]")
    fig.suptitle("joint angles, one panel per limb", fontsize=10)
    return _save(plt, fig, path)


def _followed(recording) -> tuple[dict, np.ndarray] | None:
    """The manifest's metrics and the recorded positions of the body they describe, unless
    it never moves (a pendulum's base welded to the world has no speed or height to show)."""
    metrics = scene_metrics(recording)
    if not metrics:
        return None
    pos = np.asarray(recording.body_pos, float)[:, list(recording.body_names).index(metrics["body"])]
    return (metrics, pos) if np.ptp(pos, axis=0).max() > 0 else None


def speed_title(metrics: dict) -> str:
    """The speed plot's title: the manifest's numbers (scene_metrics), under their names."""
    return (f"{metrics['body']}: horizontal speed\nrun means [cm/s]: path_speed {metrics['path_speed'] * 100:.2f}, "
            f"heading_speed {metrics['heading_speed'] * 100:.2f}, planar_speed {metrics['planar_speed'] * 100:.2f}")


def speed_plot(recording, path: Path) -> Path | None:
    """The first creature's root body: its horizontal speed along its path and along its own
    heading between recorded samples (pipeline/simulate/metrics.py: speed_series), whose time
    means are the manifest's path_speed and heading_speed."""
    followed = _followed(recording)
    if followed is None:
        return None
    metrics = followed[0]
    t, along_path, along_heading = speed_series(recording)
    plt, (fig, ax) = _figure(9.5, 3.2)
    ax.axhline(0.0, color="0.6", lw=0.5)
    # each series beside its run mean, the manifest's number, named as the manifest names it
    for series, name, what, color in ((along_path, "path_speed", "along its path", "#3060a0"),
                                      (along_heading, "heading_speed", "along its heading", "#d07020")):
        ax.plot(t, series * 100.0, lw=0.9, color=color, label=what)
        ax.axhline(metrics[name] * 100.0, color=color, lw=0.8, ls="--", label=f"mean: {name} {metrics[name] * 100:.2f}")
    ax.axhline(metrics["planar_speed"] * 100.0, color="0.2", lw=0.8, ls=":",
               label=f"net distance / time:\nplanar_speed {metrics['planar_speed'] * 100:.2f}")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("speed [cm/s]")
    ax.set_title(speed_title(metrics), fontsize=9)
    return _save(plt, fig, path)


def height_plot(recording, path: Path) -> Path | None:
    """The height of the body the speed plot and the manifest follow (its origin's world z):
    a drop, a bounce, a creature settling on its legs."""
    followed = _followed(recording)
    if followed is None:
        return None
    metrics, z = followed[0], followed[1][:, 2]
    plt, (fig, ax) = _figure()
    ax.plot(recording.time, z * 100.0, lw=0.9, color="#3060a0")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("height z [cm]")
    ax.set_title(f"{metrics['body']}: height of its origin above z = 0 "
                 f"(final {metrics['final_position'][2] * 100:.2f} cm)", fontsize=9)
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
    ax.set_title("contact force on each body that touches something", fontsize=9)
    return _save(plt, fig, path)


def channel_plot(time, name: str, values: np.ndarray, path: Path, scene=None) -> Path:
    """A recorded channel, described by pipeline/export/channels.py: named columns as small
    multiples (one panel each, sharing the y range), an FSM state with its state names."""
    about = describe(name, values, scene)
    v = np.asarray(values, float).reshape(len(time), -1)
    rows = about.columns or ("",)
    plt, (fig, axes) = _figure(8.0, 0.9 + (0.75 if about.columns else 2.1) * len(rows), len(rows), 1,
                               sharex=True, sharey=True, squeeze=False)
    for j, (ax, column) in enumerate(zip(axes[:, 0], rows)):
        ax.plot(time, v[:, j], lw=0.8, drawstyle="steps-post" if about.levels else "default")
        ax.set_ylabel(f"{column}\n{about.ylabel}" if column else about.ylabel, fontsize=8)
        if about.levels:
            ax.set_yticks(range(len(about.levels)), about.levels)
        elif about.ticks:
            ax.set_yticks(about.ticks)
    axes[-1, 0].set_xlabel("time [s]")
    fig.suptitle(about.title, fontsize=10)
    return _save(plt, fig, path)


def write_plots(recording, model, out_dir: Path, which, scene=None) -> list[Path]:
    """The plots `which` asks for: True (every standard plot and every channel no other plot
    draws) or a list of standard plot names and channel names. `scene` names channel
    columns and levels (pipeline/export/channels.py)."""
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
    if "height" in wanted:
        written.append(height_plot(recording, out / "height.png"))
    if "contact" in wanted and CONTACT_CHANNEL in chans:
        written.append(contact_plot(time, chans[CONTACT_CHANNEL], list(recording.body_names),
                                    out / "contact_forces.png"))
    for name in sorted(wanted & set(chans)):
        if which is not True or not drawn_elsewhere(name):
            written.append(channel_plot(time, name, chans[name], out / f"ch_{name}.png", scene))
    return [p for p in written if p is not None]
