"""Assemble resolved particle creatures and a world into one `ParticleArrays` + `Live`."""
from __future__ import annotations

import numpy as np

from pipeline.errors import CorpusError, Problem
from pipeline.particles.arrays import FLOW_CODES, Live, ParticleArrays
from pipeline.particles.types import ParticleCreature, World


def _problem(message, where) -> Problem:
    return Problem(message, where.file, where.line, where.col, where.path)


def build_arrays(creatures: tuple[ParticleCreature, ...], world: World):
    """Returns (arrays, live, offsets, force_slots) where force_slots maps
    (creature index, force name) -> (kind, slot in its table)."""
    masses = [m for c in creatures for m in c.masses]
    n = len(masses)
    offsets = np.cumsum([0] + [len(c.masses) for c in creatures])[:-1]
    col = lambda attr: np.array([getattr(m, attr) for m in masses], dtype=np.float64)
    flags = {k: np.zeros(n) for k in ("gravity", "floor", "nail")}
    nbody, nb_g = [], 0.0
    springs, angles, torques, consts, cf_tri = [], [], [], [], []
    slots: dict[tuple[int, str], tuple[str, int]] = {}
    media = {md.name: k for k, md in enumerate(world.media)}
    md_members = np.zeros((len(world.media), n))
    problems = []
    for ci, c in enumerate(creatures):
        o = int(offsets[ci])
        for f in c.forces:
            idx = tuple(o + i for i in f.masses)
            table = {"spring": springs, "angle": angles, "torque": torques, "constant": consts}.get(f.kind)
            if table is not None:
                slots[(ci, f.name)] = (f.kind, len(table))
                table.append((f, idx))
                if f.kind == "constant":
                    cf_tri.append(tuple(o + i for i in f.normal_of) if f.normal_of else (-1, -1, -1))
            elif f.kind == "fluid":
                if f.medium not in media:
                    problems.append(_problem(f"no medium named '{f.medium}' in the world "
                                             f"(media: {', '.join(media) or 'none'})", f.where))
                    continue
                md_members[media[f.medium], list(idx)] = 1.0
            elif f.kind == "gravitation":
                nbody.extend(idx)
                nb_g = f.values["G"]
            else:
                flags[f.kind][list(idx)] = 1.0
    if problems:
        raise CorpusError(problems)
    ints = lambda rows, k: np.array(rows, dtype=np.int64).reshape(-1, k)
    vals = lambda table, key: np.array([f.values[key] for f, _ in table], dtype=np.float64)
    cf_start = np.cumsum([0] + [len(idx) for _, idx in consts]).astype(np.int64)
    flow = np.zeros((len(world.media), 11))
    for k, md in enumerate(world.media):
        flow[k, 0:3] = md.velocity
        flow[k, 3:6] = (md.amplitude, md.period, md.wavelength)
        flow[k, 6:9] = md.direction
        flow[k, 9] = md.surface
    arrays = ParticleArrays(
        mass=col("mass"), radius=col("radius"), volume=col("volume"), mu_s=col("mu_s"),
        mu_k=col("mu_k"), restitution=col("restitution"),
        integrated=np.array([1.0 if m.integrate else 0.0 for m in masses]),
        on_gravity=flags["gravity"], on_floor=flags["floor"], on_nail=flags["nail"],
        gravity=np.array(world.gravity, dtype=np.float64),
        floor=np.array([world.floor_z, world.envelope, world.static_speed, world.rest_speed,
                        world.min_substep]),
        sp_ends=ints([idx for _, idx in springs], 2), sp_k=vals(springs, "k"), sp_kd=vals(springs, "kd"),
        an_ends=ints([idx for _, idx in angles], 3), an_k=vals(angles, "k"), an_kd=vals(angles, "kd"),
        an_reaction=np.array([float(f.reaction) for f, _ in angles]),
        tq_ends=ints([idx for _, idx in torques], 2),
        tq_axis=np.array([f.axis for f, _ in torques], dtype=np.float64).reshape(-1, 3),
        tq_reaction=np.array([float(f.reaction) for f, _ in torques]),
        cf_dir=np.array([f.direction for f, _ in consts], dtype=np.float64).reshape(-1, 3),
        cf_tri=ints(cf_tri, 3),
        cf_sign=np.array([f.values.get("sign", 1.0) for f, _ in consts]),
        cf_start=cf_start, cf_members=np.array([i for _, idx in consts for i in idx], dtype=np.int64),
        md_density=np.array([md.density for md in world.media], dtype=np.float64),
        md_drag=np.array([md.drag for md in world.media], dtype=np.float64),
        md_flow=np.array([FLOW_CODES[md.flow] for md in world.media], dtype=np.int64),
        md_flow_params=flow, md_members=md_members,
        nb_members=np.array(nbody, dtype=np.int64), nb_g=float(nb_g))
    live = Live(sp_rest=vals(springs, "rest"), an_rest=vals(angles, "rest"),
                tq_torque=vals(torques, "torque"), cf_mag=vals(consts, "magnitude"))
    return arrays, live, offsets, slots

