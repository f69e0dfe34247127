"""The compiled particle model as plain arrays (what the numba kernels take).

`ParticleArrays` is immutable; the actuatable force parameters (spring and angle rest values,
torques, constant-force magnitudes) live in `Live` inside `ParticleData` so controllers can
change them between steps. Membership flags are float64 0/1 so kernels multiply, not branch.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

# flow codes (ParticleArrays.md_flow)
FLOW_STILL, FLOW_UNIFORM, FLOW_WAVES = 0, 1, 2
FLOW_CODES = {"still": FLOW_STILL, "uniform": FLOW_UNIFORM, "waves": FLOW_WAVES}
# integrator codes
EULER, MIDPOINT, RK4 = 0, 1, 2
INTEGRATOR_CODES = {"euler": EULER, "midpoint": MIDPOINT, "rk4": RK4}


class ParticleArrays(NamedTuple):
    """Everything the step kernel needs that does not change while simulating."""

    mass: np.ndarray  # (n,)
    radius: np.ndarray  # (n,)
    volume: np.ndarray  # (n,)
    mu_s: np.ndarray  # (n,)
    mu_k: np.ndarray  # (n,)
    restitution: np.ndarray  # (n,)
    integrated: np.ndarray  # (n,) 1 = registered with the integrator
    on_gravity: np.ndarray  # (n,) 1 = member of gravity
    on_floor: np.ndarray  # (n,) 1 = member of the floor (force and event)
    on_nail: np.ndarray  # (n,) 1 = nailed to the world
    gravity: np.ndarray  # (3,)
    floor: np.ndarray  # (5,) z, envelope, static_speed, rest_speed, min_substep
    sp_ends: np.ndarray  # (ns, 2) int64: a, b
    sp_k: np.ndarray  # (ns,)
    sp_kd: np.ndarray  # (ns,)
    an_ends: np.ndarray  # (na, 3) int64: a, joint, b
    an_k: np.ndarray  # (na,)
    an_kd: np.ndarray  # (na,)
    an_reaction: np.ndarray  # (na,) 1 = reaction on the joint mass
    tq_ends: np.ndarray  # (nt, 2) int64: end, joint
    tq_axis: np.ndarray  # (nt, 3) unit, world
    tq_reaction: np.ndarray  # (nt,)
    cf_dir: np.ndarray  # (nc, 3) fixed direction (unit)
    cf_tri: np.ndarray  # (nc, 3) int64 masses whose triangle normal is the direction, -1 = fixed
    cf_sign: np.ndarray  # (nc,) +-1 orientation of that normal
    cf_start: np.ndarray  # (nc + 1,) int64 CSR offsets into cf_members
    cf_members: np.ndarray  # int64
    md_density: np.ndarray  # (nm,)
    md_drag: np.ndarray  # (nm,)
    md_flow: np.ndarray  # (nm,) int64 flow code
    md_flow_params: np.ndarray  # (nm, 11): u(3), amplitude, period, wavelength, dir(3), surface, 0
    md_members: np.ndarray  # (nm, n) 1 = member
    nb_members: np.ndarray  # int64 members of mutual gravitation
    nb_g: float  # its gravitational constant


class Live(NamedTuple):
    """Force parameters actuators write (float64 arrays, one slot per force)."""

    sp_rest: np.ndarray  # (ns,)
    an_rest: np.ndarray  # (na,)
    tq_torque: np.ndarray  # (nt,)
    cf_mag: np.ndarray  # (nc,)

