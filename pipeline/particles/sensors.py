"""Sensors: functions of the particle state returning levels in [0, 1] (Urban §3.2.1.3, §4.2).

Each reads the simulation directly (Urban's admitted "cheat"). World z is up, so Urban's
y-height is our z and his leg angle atan(leg.x / leg.y) is atan(leg . heading / leg . up).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from pipeline.particles.types import Sensor

SensorFn = Callable[[list, list, list], float]  # (positions, velocities as nested lists, levels)


def _level(x: float, clamp: bool) -> float:
    return max(0.0, min(1.0, x)) if clamp else x


def make_sensor(s: Sensor, offset: int, radius: np.ndarray, floor_z: float, g: float,
                names: dict[str, int]) -> SensorFn:
    """A function (pos, vel, levels so far) -> level for sensor `s`; mass indices get `offset`.
    pos and vel are `tolist()` copies: plain floats are much faster than numpy scalars here."""
    i = s.masses[0] + offset
    ax, ay, az = s.axis
    ux, uy, uz = s.up
    if s.kind == "height":
        r = float(radius[i])
        return lambda pos, vel, lv: _level(pos[i][2] - r - floor_z, s.clamp)
    if s.kind == "leg_angle":
        foot = s.masses[1] + offset
        gain = math.pi / 2.0 if s.legacy_scaling else 1.0 / (2.0 * math.pi)

        def leg_angle(pos, vel, lv):
            (hx, hy, hz), (fx, fy, fz) = pos[i], pos[foot]
            dx, dy, dz = hx - fx, hy - fy, hz - fz
            lx, lz = dx * ax + dy * ay + dz * az, dx * ux + dy * uy + dz * uz
            angle = math.atan(lx / lz) if lz != 0.0 else math.copysign(math.pi / 2.0, lx)
            return _level(0.5 + angle * gain, s.clamp)
        return leg_angle
    if s.kind == "speed":
        return lambda pos, vel, lv: _level(vel[i][0] * ax + vel[i][1] * ay + vel[i][2] * az, s.clamp)
    if s.kind == "time_to_touchdown":
        k = names[s.height_sensor]

        def touchdown(pos, vel, lv):
            vz = vel[i][2]
            return _level((vz + math.sqrt(vz * vz + 2.0 * g * lv[k])) / g, s.clamp)
        return touchdown
    if s.kind == "food":
        food = s.masses[1] + offset

        def food_level(pos, vel, lv):
            dx, dy = pos[food][0] - pos[i][0], pos[food][1] - pos[i][1]
            d = math.hypot(dx, dy)
            return _level(s.scale / d if d > 0 else 1.0, s.clamp)
        return food_level
    return lambda pos, vel, lv: _level(s.scale * (pos[i][0] * ax + pos[i][1] * ay + pos[i][2] * az)
                                       + s.offset, s.clamp)


def sensor_order(sensors) -> list[int]:
    """Evaluation order: time-to-touchdown sensors after the height sensors they read."""
    first = [k for k, s in enumerate(sensors) if s.kind != "time_to_touchdown"]
    return first + [k for k, s in enumerate(sensors) if s.kind == "time_to_touchdown"]
