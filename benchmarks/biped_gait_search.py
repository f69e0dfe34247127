"""Coros W2 at one speed (issue 18, docs/biped.md): CMA-ES over the walking controller's gait
and style parameters for the job of scenes/biped_speeds.yaml's sweep at that V_d, from a start
point. The cost of a setting is the larger of |mean COM speed - V_d| over 20-30 s and over
30-40 s, or 2 + the share of the 40 s left when it falls (any fall costs more than any walk).
The searched parameters are those a speed schedule (`by_speed`) can set and the style block's
knots, which `style_weight` 0 turns off at other speeds; the swing height's knots are left as
they are. Prints every improvement and the best setting as a JSON object of `biped_walk` keys.

    .venv/bin/python benchmarks/biped_gait_search.py 1.7 --workers 2 --evaluations 600
    .venv/bin/python benchmarks/biped_gait_search.py 1.7 --workers 2 --fix lean=0.15 --robust 0.03 --start '{...}'

--fix holds a parameter; --robust r makes the cost the worst of the setting and of it with
alpha and the step time r up and the IPM gain r down, and the reverse (less sensitive gaits).
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402
from benchmarks.biped_strikes import w2_source  # noqa: E402
from pipeline.control.biped_walk_controller import DEFAULTS  # noqa: E402

DURATION = 40.0
# the start point: EditableWalking's leg style (scenes/biped_style.yaml) with lean 0.1, the
# best one-at-a-time change (docs/biped.md, Style)
START = {"lean": 0.1, "alpha": 0.05, "ipm_gain": 1.1, "step_time": 0.6, "step_height": 0.0,
         "k_v": 350.0, "max_force_sagittal": 60.0, "max_step": 0.6,
         "style.stance_knee": [[0, 0.2], [1, 0.07]], "style.stance_ankle": [[0, -0.56], [1, 1.19]],
         "style.swing_ankle": [[0, 1.19], [1, -0.56]]}
# one unit of the search's coordinates in each parameter (a knot list: in each knot's value)
SCALE = {"lean": 0.05, "alpha": 0.02, "ipm_gain": 0.05, "step_time": 0.03, "step_height": 0.02,
         "k_v": 150.0, "max_force_sagittal": 30.0, "max_step": 0.05,
         "style.stance_knee": 0.1, "style.stance_ankle": 0.3, "style.swing_ankle": 0.3}


def _values(knots_or_number) -> list[float]:
    v = knots_or_number
    return [float(y) for _, y in v] if isinstance(v, list) else [float(v)]


def dimension() -> int:
    return sum(len(_values(v)) for v in START.values())


def settings_at(z: np.ndarray) -> dict:
    """The setting at search coordinates z (0: START)."""
    out, i = {}, 0
    for key, start in START.items():
        n = len(_values(start))
        if isinstance(start, list):
            out[key] = [[t, round(y + SCALE[key] * z[i + j], 4)] for j, (t, y) in enumerate(start)]
        else:
            out[key] = round(start + SCALE[key] * z[i], 4)
        i += n
    return out


def schedule(settings: dict, block: dict, speed: float, below: float) -> dict:
    """The sweep's `biped_walk` block `block` with `settings` reached at V_d `speed` by a
    speed schedule from its own gait at V_d `below` (`by_speed`, linear between the two;
    the style's weight 0 -> 1, so the style block acts only above `below`)."""
    block = copy.deepcopy(block)
    base = {**DEFAULTS, **block}
    by_speed = {k: [[below, float(base[k])], [speed, v]] for k, v in settings.items() if not k.startswith("style.")}
    by_speed["style_weight"] = [[below, 0.0], [speed, 1.0]]
    block["style"] = {k[len("style."):]: v for k, v in settings.items() if k.startswith("style.")}
    block["by_speed"] = by_speed
    return {k: v for k, v in block.items() if k not in by_speed}  # scheduled, not also a value


def walk(speed: float, block: dict, duration: float = DURATION) -> tuple[float | None, list[float]]:
    """The sweep's job at V_d `speed` with the `biped_walk` block `block`, run for
    `duration`: (the time it fell or None, its mean COM speeds over each 10 s from 20 s on)."""
    source = w2_source(speed)
    source["controllers"][0]["biped_walk"] = block
    sim = pipeline.compile(pipeline.load(source))
    controller = sim.data.user["biped_walk"]["biped"]
    path = [(sim.data.time, sim.sensors.com()[0][0])]
    while sim.data.time < duration - 1e-9 and not controller.fell:
        sim.step(500)
        path.append((sim.data.time, sim.sensors.com()[0][0]))
    if controller.fell:
        return sim.data.time, []
    x = {round(t, 3): com_x for t, com_x in path}  # every 0.5 s
    return None, [(x[t + 10.0] - x[t]) / 10.0 for t in np.arange(20.0, duration - 9.0, 10.0)]


def cost(args: tuple[float, dict]) -> tuple[float, float | None, list[float]]:
    speed, block = args
    fell, means = walk(speed, block)
    return (2.0 + (DURATION - fell) / DURATION if fell is not None
            else max(abs(m - speed) for m in means)), fell, means


def variants(settings: dict, robust: float) -> list[dict]:
    """settings, and with robust = r > 0 also with alpha and the step time times 1 + r and the
    IPM gain times 1 - r, and the reverse (three moves that each speed the walk up)."""
    out = [settings]
    for f in ((1.0 + robust, 1.0 - robust) if robust else ()):
        moved = dict(settings)
        for key, factor in (("alpha", f), ("ipm_gain", 2.0 - f), ("step_time", f)):
            moved[key] = round(settings[key] * factor, 4)
        out.append(moved)
    return out


def main() -> None:
    import cma

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("speed", type=float, help="V_d (any; the sweep's job with its speed changed)")
    parser.add_argument("--evaluations", type=int, default=600)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--sigma", type=float, default=0.5, help="CMA-ES's first step, in SCALE units")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--below", type=float, default=1.4,
                        help="the V_d up to which the sweep's own gait holds (the schedule's first knots)")
    parser.add_argument("--start", help="JSON: the start point and the parameters searched (default START)")
    parser.add_argument("--fix", action="append", default=[], metavar="KEY=VALUE",
                        help="hold a parameter at a value, unsearched (repeatable)")
    parser.add_argument("--robust", type=float, default=0.0,
                        help="r: the cost is the worst of the setting and its two moves by r (variants())")
    args = parser.parse_args()
    if args.start:
        START.clear()
        START.update(json.loads(args.start))
    fixed = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.fix)}
    for key in fixed:
        START.pop(key, None)
    block = w2_source(args.speed)["controllers"][0]["biped_walk"]

    def setting(z):
        return {**settings_at(z), **fixed}

    es = cma.CMAEvolutionStrategy(np.zeros(dimension()), args.sigma,
                                  {"seed": args.seed, "maxfevals": args.evaluations, "verbose": -9})
    best = (float("inf"), None, None)
    start = time.time()
    with Pool(args.workers) as pool:
        while not es.stop():
            zs = es.ask()
            runs = [variants(setting(z), args.robust) for z in zs]
            flat = pool.map(cost, [(args.speed, schedule(s, block, args.speed, args.below))
                                   for run in runs for s in run])
            per = len(runs[0])
            results = [flat[i:i + per] for i in range(0, len(flat), per)]
            es.tell(zs, [max(r[0] for r in result) for result in results])
            for z, result in zip(zs, results):
                c = max(r[0] for r in result)
                if c < best[0]:
                    best = (c, setting(z), result)
                    print(f"[{es.countevals} evaluations, {time.time() - start:.0f} s] cost {c:.3f}: "
                          + " | ".join(f"falls at {fell:.1f} s" if fell is not None else _speeds(means)
                                       for _, fell, means in result)
                          + f"\n  {json.dumps(best[1])}", flush=True)
    print(f"best after {es.countevals} evaluations: cost {best[0]:.3f}")
    print(json.dumps(schedule(best[1], block, args.speed, args.below)))


def _speeds(means: list[float]) -> str:
    return ", ".join(f"{m:.3f} m/s over {20 + 10 * i}-{30 + 10 * i} s" for i, m in enumerate(means))


if __name__ == "__main__":
    main()
