"""Coros W2 (issue 18, docs/biped.md): one job of scenes/biped_speeds.yaml's sweep, step by
step: at every foot-strike the phase it ended, the COM's speed, where the new stance foot
landed ahead of the COM against the IPM's target, how far the old one trails, the pelvis's
height and the landing knee's bend; then the mean COM speed over the last 10 s, or the fall.

    .venv/bin/python benchmarks/biped_strikes.py 1.7
    .venv/bin/python benchmarks/biped_strikes.py 1.7 --set alpha=0.1 --set step_time=0.55
    .venv/bin/python benchmarks/biped_strikes.py 1.7 --set 'swing_height=[[0,0],[0.5,0.11],[0.9,0.06],[1,0.01]]'

--set changes a `biped_walk` parameter of the scene before it compiles (repeatable; a JSON
value for lists), in place of its speed schedule if the scene has one (`by_speed`);
`--set 'by_speed={}' --set 'style={}'` runs the sweep's job in the controller's own gait at
every speed, as before the schedule.
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pipeline  # noqa: E402
from pipeline.batch.sweep import jobs_from_file  # noqa: E402
from pipeline.control.biped_machine import STEPS, TARGET  # noqa: E402
from pipeline.control.biped_rig import SIDES, Frame  # noqa: E402


def w2_source(speed: float) -> dict:
    """The source of scenes/biped_speeds.yaml's job at any commanded speed: the sweep's jobs
    differ only in V_d, so one of them with its speed changed."""
    source = copy.deepcopy(jobs_from_file(ROOT / "scenes" / "biped_speeds.yaml")[0].source)
    source["timeline"][0]["do"]["walk"]["speed"] = speed
    return source


def strikes(speed: float, settings: dict, duration: float):
    """The sweep's job at V_d `speed` (any) with `settings`: (walk controller, strike records, COM x every 0.1 s)."""
    source = w2_source(speed)
    block = source["controllers"][0]["biped_walk"]
    block.update(settings)
    block["by_speed"] = {k: v for k, v in block.get("by_speed", {}).items() if k not in settings}
    sim = pipeline.compile(pipeline.load(source))
    walk = sim.data.user["biped_walk"]["biped"]
    frame = Frame(walk.rig)
    b = walk.rig.b
    legs = [[b(f"{side}_{part}") for part in ("upper_leg", "lower_leg", "foot")] for side in SIDES]
    records, path = [], []
    frame.update(sim.sensors)
    while sim.data.time < duration - 1e-9 and not walk.fell:
        t, phase, steps, target = sim.data.time, walk.phase, walk.s[STEPS], walk.s[TARGET]
        sim.step(1)
        if walk.s[STEPS] != steps and walk.walking:  # a step ended on the state `frame` holds
            com = frame.com
            hip, knee, ankle = (frame.x[i] for i in legs[SIDES.index(walk.stance)])
            thigh, shin = knee - hip, ankle - knee
            bend = math.acos(np.clip(thigh @ shin / np.linalg.norm(thigh) / np.linalg.norm(shin), -1, 1))
            trailing = frame.x[legs[1 - SIDES.index(walk.stance)][2]]
            records.append((t, phase, frame.com_vel[0], ankle[0] - com[0], target - com[0],
                            com[0] - trailing[0], frame.x[b("pelvis"), 2], bend))
        frame.update(sim.sensors)
        if round(sim.data.time * 1000) % 100 == 0 or walk.fell:
            path.append((sim.data.time, frame.com[0]))
    return walk, records, np.array(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("speed", type=float, help="V_d (any; the sweep's job with its speed changed)")
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    settings = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}
    walk, records, path = strikes(args.speed, settings, args.duration)
    print("strike (s)  phase  v (m/s)  lands ahead  IPM target  trails  pelvis  knee (rad)")
    for r in records:
        print("{:9.3f}  {:5.2f}  {:7.2f}  {:11.3f}  {:10.3f}  {:6.3f}  {:6.3f}  {:10.2f}".format(*r))
    t_end = path[-1, 0]
    if walk.fell:
        print(f"V_d {args.speed}: falls at {t_end:.2f} s")
    else:
        tail = path[path[:, 0] >= t_end - 10.0 - 1e-9]
        print(f"V_d {args.speed}: no fall in {t_end:.0f} s, mean COM speed over the last 10 s "
              f"{(tail[-1, 1] - tail[0, 1]) / (tail[-1, 0] - tail[0, 0]):.3f} m/s")


if __name__ == "__main__":
    main()
