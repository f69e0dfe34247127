"""Named metrics: plain functions over a Recording (and the Model it came from), the one
definition of each quantity that the manifest, batch.csv, plots and tests report
(docs/metrics.md).

    displacement(rec, model, body=None, axis="x", t0=None, t1=None)   m along a world axis
    speed(...)                  the same divided by the time between t0 and t1, m/s
    planar_speed(rec, model, body=None, t0=None, t1=None)   net horizontal distance / time, m/s
    path_speed(...)             horizontal distance along the path / time, m/s
    heading_speed(...)          horizontal motion along the body's own heading / time, m/s
    final_position(rec, model, body=None)                              [x, y, z]
    time_until(rec, model, body=None, quantity="z", below=, above=)   s; the run's end if never
    fell(rec, model, body=None)  the body's z axis turned below the horizon at some frame
    mechanical_energy(rec, model, at="end")   kinetic + gravitational J ("start", "end", "change")

`body` defaults to the first body (the root of the first creature); `axis` is x, y, z or a
vector; t0/t1 default to the recording's first and last times. path_speed and heading_speed
are the time means of `speed_series`, measured between recorded samples. `compute(rec,
model, spec)` takes a list of names and/or a {result name: metric name | {metric: name,
**arguments}} mapping, or callables `f(rec, model) -> value`; the same specs work in
`pipeline.evaluate` and evolution files. Register a new one with `@metric`.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from pipeline.errors import CorpusError

METRICS: dict[str, Callable] = {}


def metric(fn: Callable) -> Callable:
    METRICS[fn.__name__] = fn
    return fn


def up_axis_z(quat: np.ndarray) -> np.ndarray:
    """World z component of a body's local z axis, for (..., 4) wxyz quaternions."""
    w, x, y, _ = np.moveaxis(quat, -1, 0)[:4]
    return 1.0 - 2.0 * (x * x + y * y)


def _body(rec, body) -> int:
    if body is None:
        return 0
    try:
        return list(rec.body_names).index(body)
    except ValueError:
        from pipeline.spec.checks import did_you_mean

        raise CorpusError(f"metric: no body named {body!r}{did_you_mean(body, rec.body_names)}") from None


def _frame(rec, t, default: int) -> int:
    if t is None:
        return default
    return int(np.clip(np.searchsorted(rec.time, float(t) - 1e-12), 0, len(rec.time) - 1))


def _axis(axis) -> np.ndarray:
    if isinstance(axis, str):
        if axis not in ("x", "y", "z"):
            raise CorpusError(f"metric: axis {axis!r} must be x, y, z or a vector")
        return np.eye(3)["xyz".index(axis)]
    a = np.asarray(axis, float)
    return a / np.linalg.norm(a)


@metric
def displacement(rec, model, body=None, axis="x", t0=None, t1=None) -> float:
    b = _body(rec, body)
    i, j = _frame(rec, t0, 0), _frame(rec, t1, len(rec.time) - 1)
    return float((rec.body_pos[j, b] - rec.body_pos[i, b]) @ _axis(axis))


def _span(rec, t0, t1) -> float:
    i, j = _frame(rec, t0, 0), _frame(rec, t1, len(rec.time) - 1)
    return float(rec.time[j] - rec.time[i])


@metric
def speed(rec, model, body=None, axis="x", t0=None, t1=None) -> float:
    span = _span(rec, t0, t1)
    return displacement(rec, model, body, axis, t0, t1) / span if span > 0 else 0.0


@metric
def planar_speed(rec, model, body=None, t0=None, t1=None) -> float:
    span = _span(rec, t0, t1)
    dx = displacement(rec, model, body, "x", t0, t1)
    dy = displacement(rec, model, body, "y", t0, t1)
    return float(np.hypot(dx, dy) / span) if span > 0 else 0.0


def _unit(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1; zero rows (no direction) stay zero."""
    norm = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return np.divide(vectors, norm, out=np.zeros_like(vectors), where=norm > 1e-9)


def heading(quat: np.ndarray) -> np.ndarray:
    """Unit ground-plane direction of a body's x axis (its forward) for (..., 4) wxyz
    quaternions; zero where the x axis stands vertical."""
    w, x, y, z = np.moveaxis(np.asarray(quat, float), -1, 0)[:4]
    return _unit(np.stack([1 - 2 * (y * y + z * z), 2 * (x * y + w * z)], axis=-1))


def _steps(rec, body, t0, t1):
    """The recorded samples in [t0, t1]: their times, each interval's horizontal step and
    the interval's heading (the mean of its two ends' headings)."""
    b = _body(rec, body)
    i, j = _frame(rec, t0, 0), _frame(rec, t1, len(rec.time) - 1)
    t = np.asarray(rec.time[i:j + 1], float)
    step = np.diff(np.asarray(rec.body_pos[i:j + 1, b, :2], float), axis=0)
    ends = heading(rec.body_quat[i:j + 1, b])
    return t, step, _unit(ends[:-1] + ends[1:])


def speed_series(rec, body=None, t0=None, t1=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per interval between recorded samples in [t0, t1]: its midpoint time (s), the
    horizontal speed along the path and the speed along the heading (m/s). Their time
    means are path_speed and heading_speed."""
    t, step, along = _steps(rec, body, t0, t1)
    dt = np.diff(t)
    return 0.5 * (t[:-1] + t[1:]), np.linalg.norm(step, axis=1) / dt, np.sum(step * along, axis=1) / dt


@metric
def path_speed(rec, model, body=None, t0=None, t1=None) -> float:
    t, step, _ = _steps(rec, body, t0, t1)
    span = t[-1] - t[0]
    return float(np.linalg.norm(step, axis=1).sum() / span) if span > 0 else 0.0


@metric
def heading_speed(rec, model, body=None, t0=None, t1=None) -> float:
    t, step, along = _steps(rec, body, t0, t1)
    span = t[-1] - t[0]
    return float(np.sum(step * along) / span) if span > 0 else 0.0


@metric
def final_position(rec, model, body=None) -> list[float]:
    return [float(v) for v in rec.body_pos[-1, _body(rec, body)]]


@metric
def time_until(rec, model, body=None, quantity="z", below=None, above=None) -> float:
    b = _body(rec, body)
    if quantity in ("x", "y", "z"):
        values = rec.body_pos[:, b, "xyz".index(quantity)]
    elif quantity == "up":
        values = up_axis_z(rec.body_quat[:, b])
    else:
        raise CorpusError(f"metric time_until: quantity {quantity!r} must be x, y, z or up")
    hit = np.zeros(len(values), bool)
    if below is not None:
        hit |= values < float(below)
    if above is not None:
        hit |= values > float(above)
    k = np.flatnonzero(hit)
    return float(rec.time[k[0]] if k.size else rec.time[-1])


@metric
def fell(rec, model, body=None) -> bool:
    return bool((up_axis_z(rec.body_quat[:, _body(rec, body)]) < 0.0).any())


@metric
def mechanical_energy(rec, model, at="end") -> float:
    energy = model.mechanical_energy
    if at not in ("start", "end", "change"):
        raise CorpusError(f"metric mechanical_energy: at {at!r} must be start, end or change")
    first = energy(rec.q[0], rec.qd[0])
    if at == "start":
        return first
    last = energy(rec.q[-1], rec.qd[-1])
    return last if at == "end" else last - first


def compute(rec, model, spec) -> dict:
    """Evaluate a metric spec (see the module doc) into {name: value}."""
    if spec is None:
        return {}
    if isinstance(spec, (list, tuple)):
        items = {}
        for s in spec:
            if isinstance(s, str):
                items[s] = {"metric": s}
            elif callable(s):
                items[getattr(s, "__name__", "metric")] = s
            else:
                items.update(s)
    elif isinstance(spec, dict):
        items = spec
    else:
        items = {str(spec): {"metric": str(spec)}}
    out = {}
    for name, s in items.items():
        if callable(s):
            out[name] = s(rec, model)
            continue
        s = {"metric": s} if isinstance(s, str) else dict(s)
        kind = s.pop("metric", name)
        fn = METRICS.get(kind)
        if fn is None:
            from pipeline.spec.checks import did_you_mean

            raise CorpusError(f"unknown metric {kind!r}{did_you_mean(kind, METRICS)} "
                              f"(known: {', '.join(sorted(METRICS))})")
        try:
            out[name] = fn(rec, model, **s)
        except TypeError as exc:
            raise CorpusError(f"metric {name!r} ({kind}): {exc}") from None
    return out


# what a run's manifest and a batch's table report, of the first creature's root body over
# the whole run (docs/metrics.md)
SCENE_METRICS = ("heading_speed", "planar_speed", "path_speed", "final_position", "fell")


def scene_metrics(rec, model=None) -> dict:
    """The summary a run's manifest and a batch's table carry (SCENE_METRICS)."""
    if len(rec.time) < 2 or len(rec.body_names) == 0:
        return {}
    return {"body": str(rec.body_names[0]), **compute(rec, model, list(SCENE_METRICS))}
