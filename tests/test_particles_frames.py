"""The particle engine's frames in one kernel call (pipeline/particles/frames.py: machines,
bubble columns, integrator, runaway check, records) against a reference that runs each frame
in Python as the engine did before: sensor levels from `sim.sensors`, the FSM's Python
closures (FsmRuntime.tick), the actuators written into the live forces, the bubble columns
drawing from the run's generator, then one `advance` of the integrator. Same to the bit."""
import math

import numpy as np
import pytest

from pipeline.control.fsm import FsmRuntime
from pipeline.particles.integrators import WORK, advance
from pipeline.particles.simulation import compile_particles

FIELD = {"spring": "sp_rest", "angle": "an_rest", "torque": "tq_torque", "constant": "cf_mag"}


def _clamped(x, clamp):
    return max(0.0, min(1.0, x)) if clamp else x


def _level(s, sensors, names, levels):
    """A sensor's level from the simulation's sensors API (Urban §3.2.1.3)."""
    pos = [sensors.body_pose(names[i])[0].tolist() for i in s.masses]
    vel = sensors.body_velocity(names[s.masses[0]])[0].tolist()
    ax, ay, az = s.axis
    (x, y, z) = pos[0]
    if s.kind == "height":
        return _clamped(z - s.radius - sensors.ground(x, y)[0], s.clamp)
    if s.kind == "leg_angle":
        dx, dy, dz = x - pos[1][0], y - pos[1][1], z - pos[1][2]
        lx, lz = dx * ax + dy * ay + dz * az, dx * s.up[0] + dy * s.up[1] + dz * s.up[2]
        angle = math.atan(lx / lz) if lz != 0.0 else math.copysign(math.pi / 2.0, lx)
        return _clamped(0.5 + angle * (math.pi / 2.0 if s.legacy_scaling else 1.0 / (2.0 * math.pi)), s.clamp)
    if s.kind == "speed":
        return _clamped(vel[0] * ax + vel[1] * ay + vel[2] * az, s.clamp)
    if s.kind == "time_to_touchdown":
        return _clamped((vel[2] + math.sqrt(vel[2] * vel[2] + 2.0 * s.g * levels[s.height_level])) / s.g, s.clamp)
    if s.kind == "food":
        # C's hypot, as the kernel calls it: CPython's math.hypot is its own algorithm and
        # differs from it in the last bit now and then
        d = float(np.hypot(pos[1][0] - x, pos[1][1] - y))
        return _clamped(s.scale / d if d > 0 else 1.0, s.clamp)
    return _clamped(s.scale * (x * ax + y * ay + z * az) + s.offset, s.clamp)


def _reference(sim, frames):
    """(time, positions, velocities, fsm states) after each frame, stepped in Python."""
    m, d = sim.model, sim.data
    runtimes = [FsmRuntime(c.binding.program) for c in d.controllers]
    work = np.empty((WORK, m.nbody, 3))
    out = []
    for _ in range(frames):
        t0 = d.time
        for c, rt in zip(d.controllers, runtimes):
            b = c.binding
            levels = [0.0] * len(b.sensors)
            for k in b.order:
                levels[k] = _level(b.sensors[k], sim.sensors, m.body_names, levels)
            rt.tick(t0, sim.dt, levels)
            for (kind, slot, lo, hi), level in zip(b.actuators, rt.actuator_levels()):
                getattr(d.live, FIELD[kind])[slot] = lo + level * (hi - lo)
        for col in d.spawners:
            for _ in range(d.rng.poisson(col.rate * sim.dt)):
                top = col.members[np.argmax(d.pos[col.members, 2])]
                jitter = d.rng.uniform(-col.spread, col.spread, 2)
                d.pos[top] = col.source + np.array([jitter[0], jitter[1], 0.0])
                d.vel[top] = 0.0
        advance(m.arrays, d.live, sim.method, d.pos, d.vel, t0, sim.substep, sim.substeps, d.counters, work)
        d.time = t0 + sim.dt
        d.frame += 1
        out.append((d.time, d.pos.copy(), d.vel.copy(), [rt.state for rt in runtimes]))
    return out


@pytest.mark.parametrize("scene, seconds", [("scenes/roobot_hop.yaml", 4.0), ("scenes/jellyfish.yaml", 2.0)])
def test_kernel_frames_equal_python_frames(scene, seconds):
    reference = compile_particles(scene)
    kernel = compile_particles(scene)
    frames = int(round(seconds / kernel.dt))
    expected = _reference(reference, frames)
    rec = kernel.run(seconds, progress=False)
    every = kernel.settings.record_every
    assert len(rec.time) == frames // every + 1
    for r in range(1, len(rec.time)):
        t, pos, vel, states = expected[r * every - 1]
        assert rec.time[r] == t
        assert np.array_equal(rec.body_pos[r], pos) and np.array_equal(rec.qd[r], vel.ravel())
        assert rec.channels["fsm_state"][r] == states[0]
    assert np.array_equal(kernel.data.counters, reference.data.counters)
    assert kernel.data.rng.bit_generator.state == reference.data.rng.bit_generator.state
    assert len(set(rec.channels["fsm_state"].tolist())) >= 2  # the machine changed state


def test_stepping_in_pieces_equals_one_run():
    """Kernel calls end anywhere: at a chunk, a stop, a `step(n)`; the run goes on the same."""
    whole = compile_particles("scenes/jellyfish.yaml")
    whole.step(700)
    pieces = compile_particles("scenes/jellyfish.yaml")
    for n in (1, 2, 97, 300, 300):
        pieces.step(n)
    assert np.array_equal(whole.data.pos, pieces.data.pos) and np.array_equal(whole.data.vel, pieces.data.vel)
    assert whole.data.rng.bit_generator.state == pieces.data.rng.bit_generator.state
    assert whole.data.controllers[0].runtime.slots == pieces.data.controllers[0].runtime.slots


def test_a_stop_ends_the_records_at_the_first_frame_that_meets_it():
    sim = compile_particles("scenes/roobot_hop.yaml")
    hip = sim.model.body_names.index("hip")
    rec, stopped = sim.frames(2000, record=True, stop=(hip, 2, 0.45, 0))
    below = np.flatnonzero(rec.body_pos[:, hip, 2] < 0.45)
    assert stopped and below.tolist() == [len(rec.time) - 1]
    assert sim.data.time == rec.time[-1]
