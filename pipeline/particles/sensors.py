"""What controllers read of a particle run (`sim.sensors`), and the particle FSM's sensors
bound to a scene.

`ParticleSensors` offers the methods of the articulated engine's `sim.sensors`
(pipeline/simulate/sensors.py) for point masses: the "bodies" are the masses, by name (as in
the Recording), with identity orientation and no angular velocity; the "joints" are the angle
elements, by force name (`<creature>.<force>` with several creatures).

`FsmSensor` is one `sensors:` entry of a particle creature (Urban §3.2.1.3, §4.2); its level
is computed inside the step kernel (pipeline/particles/machines.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pipeline.errors import CorpusError
from pipeline.particles.forces import TOUCH, accumulate, angle_state

_UP = np.array([0.0, 0.0, 1.0])
_IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])
_ZERO = np.zeros(3)


class ParticleSensors:
    """Sensors of a particle simulation (see the module doc); values of the current state."""

    def __init__(self, sim):
        self._sim = sim
        m = sim.model
        self._index = {name: i for i, name in enumerate(m.body_names)}
        self._angles = {name: k for k, name in enumerate(m.angle_names)}
        self._floorless = m.arrays._replace(on_floor=np.zeros_like(m.arrays.on_floor))
        self._key = None
        self._contact = np.zeros((m.nbody, 3))

    def _body(self, name: str) -> int:
        try:
            return self._index[name]
        except KeyError:
            raise CorpusError(f"no point mass named {name!r} (masses: "
                              f"{', '.join(self._sim.model.body_names)})") from None

    def body_pose(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        return self._sim.data.pos[self._body(name)].copy(), _IDENTITY.copy()

    def body_velocity(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        return self._sim.data.vel[self._body(name)].copy(), _ZERO.copy()

    def contact_forces(self) -> np.ndarray:
        """(n, 3) floor force on every mass (normal reaction and friction, world axes): the
        force law of the step kernel at the current state, less the same without the floor.
        Impacts are events, not forces: a bouncing mass feels none."""
        sim = self._sim
        d = sim.data
        key = (id(d), d.time, d.pos.tobytes(), d.vel.tobytes(), d.live.sp_rest.tobytes(),
               d.live.an_rest.tobytes(), d.live.tq_torque.tobytes(), d.live.cf_mag.tobytes())
        if key != self._key:
            with_floor, without = np.empty_like(d.pos), np.empty_like(d.pos)
            accumulate(sim.model.arrays, d.live, d.pos, d.vel, d.time, sim.substep, with_floor)
            accumulate(self._floorless, d.live, d.pos, d.vel, d.time, sim.substep, without)
            self._contact[:] = with_floor - without
            self._key = key
        return self._contact.copy()

    def body_contact(self, name: str) -> tuple[np.ndarray, bool]:
        """The floor's force on the mass and whether it touches the floor (a floor member
        within 1e-7 m of the plane)."""
        i = self._body(name)
        a = self._sim.model.arrays
        touching = a.on_floor[i] != 0.0 and self._sim.data.pos[i, 2] - a.radius[i] - a.floor[0] <= TOUCH
        return self.contact_forces()[i], bool(touching)

    def com(self) -> tuple[np.ndarray, np.ndarray]:
        d = self._sim.data
        mass = self._sim.model.arrays.mass
        total = max(float(mass.sum()), 1e-300)
        return mass @ d.pos / total, mass @ d.vel / total

    def _angle(self, name: str) -> tuple:
        k = self._angles.get(name)
        if k is None:
            known = ", ".join(self._angles) or "none in this scene"
            raise CorpusError(f"point masses have no joints: {name!r} is not an angle element "
                              f"(angle elements: {known})")
        d = self._sim.data
        ia, ij, ib = (int(x) for x in self._sim.model.arrays.an_ends[k])
        return k, angle_state(d.pos, d.vel, ia, ij, ib)

    def joint(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The angle a-j-b of the angle element `name` (rad) and its rate; the rate is NaN
        while an arm has no length or the arms are parallel."""
        _, (ok, theta, rate, *_) = self._angle(name)
        return np.array([theta]), np.array([rate if ok else math.nan])

    def joint_force(self, name: str) -> np.ndarray:
        """The angle element's torque k (theta - rest) + kd rate (0 where it has no gradient)."""
        k, (ok, theta, rate, *_) = self._angle(name)
        a = self._sim.model.arrays
        torque = a.an_k[k] * (theta - self._sim.data.live.an_rest[k]) + a.an_kd[k] * rate
        return np.array([torque if ok else 0.0])

    def ground(self, x: float, y: float) -> tuple[float, np.ndarray]:
        return float(self._sim.model.arrays.floor[0]), _UP.copy()


@dataclass(frozen=True)
class FsmSensor:
    """One `sensors:` entry of a particle creature bound to the scene: `masses` are scene mass
    indices (the sensed mass first), `height_level` the index of the height sensor a
    time-to-touchdown reads. pipeline/particles/machines.py computes its level."""

    kind: str  # height · leg_angle · speed · time_to_touchdown · food · position
    masses: tuple[int, ...]
    axis: tuple[float, float, float]
    up: tuple[float, float, float]
    scale: float
    offset: float
    clamp: bool
    legacy_scaling: bool
    radius: float  # of the sensed mass
    g: float  # gravity's magnitude
    height_level: int = -1


def fsm_sensors(creature, offset: int, radius: np.ndarray, g: float) -> tuple[FsmSensor, ...]:
    """A creature's `sensors:` bound to the scene: its masses start at index `offset` of the
    scene's masses."""
    slot = {s.name: k for k, s in enumerate(creature.sensors)}
    return tuple(FsmSensor(s.kind, tuple(offset + i for i in s.masses), s.axis, s.up,
                           s.scale, s.offset, s.clamp, s.legacy_scaling,
                           float(radius[offset + s.masses[0]]), g, slot.get(s.height_sensor, -1))
                 for s in creature.sensors)


def sensor_order(sensors) -> list[int]:
    """Evaluation order: time-to-touchdown sensors after the height sensors they read."""
    first = [k for k, s in enumerate(sensors) if s.kind != "time_to_touchdown"]
    return first + [k for k, s in enumerate(sensors) if s.kind == "time_to_touchdown"]
