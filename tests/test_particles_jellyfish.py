"""Urban's jellyfish and SeaWorld (digest §4, tests J1-J3, J5-J7)."""
import math
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.particles.simulation import compile_particles
from pipeline.particles.spec import resolve_particles, resolve_world, scene_of
from pipeline.spec.loader import read_file

ROOT = Path(__file__).resolve().parents[1]
IDLE, TRACK, HOVER = range(3)
STILL_WATER = resolve_world({"gravity": 9.8, "media": [{"name": "water", "density": 1000, "drag": 0.5}]})
DOME = ["b0", "b1", "b2"]


def jellyfish_doc():
    return read_file(ROOT / "creatures" / "jellyfish.yaml")


def still_water_sim(controller=True, z=0.6):
    doc = jellyfish_doc()
    if not controller:
        del doc["controller"]
    c = resolve_particles(doc, at=[{"move": [0, 0, z]}])
    return compile_particles(scene_of(c, STILL_WATER, name="j", dt=1 / 500))


def test_j1_topology_and_constants():
    c = resolve_particles(jellyfish_doc())
    body = [m for m in c.masses if m.name != "food"]
    assert len(body) == 15
    springs = [f for f in c.forces if f.kind == "spring"]
    assert len(springs) == 15
    assert len([f for f in c.forces if f.kind == "constant"]) == 4
    pos = {m.name: np.array(m.pos) for m in c.masses}
    for i in range(3):
        assert np.linalg.norm(pos[f"b{i}"][:2]) == pytest.approx(0.03, abs=1e-6)
        for j in range(4):
            assert pos[f"b{i}"][2] - pos[f"t{i}_{j}"][2] == pytest.approx(0.1 * (j + 1))
    dome = {f.name: f for f in springs if f.name.startswith("dome")}
    assert all(f.values["k"] == 50 and f.values["kd"] == 5 for f in dome.values())
    assert all(f.values["rest"] == pytest.approx(0.03 * math.sqrt(3), abs=1e-6) for f in dome.values())
    tentacle = [f for f in springs if f.name.startswith("tentacle")]
    assert all(f.values["k"] == 20 and f.values["kd"] == 1 and f.values["rest"] == pytest.approx(0.1)
               for f in tentacle)
    for m in body:
        assert m.mass / m.volume == pytest.approx(1100 if m.name in DOME else 1200)
    ranges = {a.name: (a.min, a.max) for a in c.actuators}
    assert ranges == {"pulse": (-5, 5), "steer0": (-0.5, 0.5), "steer1": (-0.5, 0.5), "steer2": (-0.5, 0.5)}


def dome_z(sim):
    return sim.data.pos[:3, 2].mean()


def test_j2_sinks_without_pulses():
    sim = still_water_sim(controller=False, z=3.0)
    zs = [dome_z(sim)]
    for _ in range(20):
        sim.step(125)
        zs.append(dome_z(sim))
    assert (np.diff(zs) < 0).all()
    assert zs[0] - zs[-1] > 0.05


@pytest.fixture(scope="module")
def swim():
    """The jellyfish in still water for 12 s: per-frame state, energy, dome, food distance."""
    sim = still_water_sim()
    names = sim.model.body_names
    food = names.index("food")
    tips = [names.index(f"t{i}_3") for i in range(3)]
    log = {k: [] for k in ("state", "energy", "dome", "dist", "tips", "food0")}
    for _ in range(6000):
        sim.step(1)
        d = sim.data.pos[:3].mean(0)
        log["state"].append(sim.data.channels["fsm_state"])
        log["energy"].append(sim.data.channels["fsm_energy"])
        log["dome"].append(d)
        log["dist"].append(math.hypot(*(sim.data.pos[food, :2] - d[:2])))
        log["tips"].append(sim.data.pos[tips, 2].max())
        log["food0"].append(sim.data.controllers[0].runtime.slots[0])
    return sim, {k: np.array(v) for k, v in log.items()}


def pulse_ends(state):
    return np.flatnonzero((state[:-1] == TRACK) & (state[1:] == IDLE)) + 1


def test_j3_pulses_raise_the_dome_and_tentacles_trail(swim):
    _, log = swim
    first_track = pulse_ends(log["state"])[:4]
    assert log["dome"][first_track[-1], 2] > 0.6 + 0.1
    rising = np.flatnonzero(np.diff(log["dome"][:, 2]) > 0)
    assert (log["tips"][rising] < log["dome"][rising, 2] - 0.2).all()


def test_j5_closes_on_food_to_the_side(swim):
    _, log = swim
    ends = pulse_ends(log["state"])[:5]
    assert len(ends) == 5
    d = log["dist"][np.r_[0, ends]]
    assert (np.diff(d) < 0).all(), d
    assert d[-1] < 0.1
    near = log["dist"] < 0.1 - 0.03  # every dome mass within 0.1 m horizontally
    assert (log["food0"][near] == 1.0).all() and near.any()


def test_j6_energy_model(swim):
    sim, log = swim
    e, s = log["energy"], log["state"]
    dt = sim.dt
    de = np.diff(e) / dt
    steady = (s[1:] == s[:-1])
    track = steady & (s[1:] == TRACK)
    idle = steady & (s[1:] == IDLE) & (e[1:] < 1.0)
    hover = steady & (s[1:] == HOVER)
    assert de[track] == pytest.approx(-0.1, abs=1e-9)
    assert de[idle] == pytest.approx(0.4, abs=1e-9)
    assert de[hover] == pytest.approx(0.0, abs=1e-12)
    assert e.min() >= 0 and e.max() <= 1
    # track until energy falls below 0.5, then hover/idle until above 0.7, then track again
    first_hover = np.argmax(s == HOVER)
    last_track = first_hover - np.argmax(s[first_hover::-1] == TRACK)
    assert e[last_track] < 0.5 <= e[last_track - int(1.0 / dt)]
    back_to_track = first_hover + np.argmax(s[first_hover:] == TRACK)
    assert back_to_track > first_hover and e[back_to_track - 1] > 0.7


def test_j7_seaworld():
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "jellyfish.yaml"))
    names = sim.model.body_names
    idx = lambda n: names.index(n)
    bubbles = [idx(f"seaworld.bubble{i}") for i in range(6)]
    rocks = [idx(f"seaworld.rock{i}") for i in range(3)]
    tops = [idx("seaworld.weed0_4"), idx("seaworld.weed1_4")]
    bases = [idx("seaworld.weed0_0"), idx("seaworld.weed1_0")]
    base0 = sim.data.pos[bases].copy()
    top_x, recycled, rising = [], 0, 0
    for _ in range(60):
        before = sim.data.pos[bubbles, 2].copy()
        sim.step(50)
        after = sim.data.pos[bubbles, 2]
        recycled += int((after < before - 0.05).sum())
        rising += int((after > before).sum())
        top_x.append(sim.data.pos[tops, 0].copy())
    assert recycled >= 5 and rising > recycled
    r = sim.model.arrays.radius
    assert sim.data.pos[rocks, 2] == pytest.approx(r[rocks], abs=1e-12)  # resting on the floor
    assert np.abs(sim.data.vel[rocks]).max() < 1e-9
    assert np.abs(sim.data.pos[bases] - base0).max() == 0.0  # nailed
    assert (sim.data.pos[tops, 2] > sim.data.pos[bases, 2] + 0.35).all()  # standing up
    assert np.ptp(np.array(top_x), axis=0).min() > 0.005  # swaying in the current


def test_j4_hover_holds_depth_in_the_swell():
    """Hover only (tracking switched off by its threshold): 60 s in SeaWorld's currents."""
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "jellyfish.yaml"))
    c = sim.data.controllers[0]
    program = c.binding.program
    params = list(program.initial_values[program.param_slice])
    params[program.param_names.index("track_above")] = 2.0
    sim.set_params("jellyfish", params)
    b0 = sim.model.body_names.index("jellyfish.b0")
    deviation = []
    for _ in range(30000):
        sim.step(1)
        deviation.append(sim.data.pos[b0, 2] - c.runtime.variable("hover_depth"))
    deviation = np.array(deviation)
    assert c.runtime.variable("hover_depth") == pytest.approx(0.6, abs=0.01)  # saved at the start
    assert np.abs(deviation).max() < 0.2  # our tolerance: each pulse cycle swings ~0.15 m
    assert abs(deviation[-10000:].mean()) < 0.05  # no drift over the last 20 s
