"""Python controllers the simulation tests name by import path (`simulation_controllers:pd`)."""


def pd(sim, t, params):
    """Joint-space PD toward params['target'], publishing the error as a channel."""
    d = sim.data
    err = d.q[0] - params["target"]
    d.ctrl[0] = -params["kp"] * err - params["kd"] * d.qd[0]
    d.channels["err"] = err
    d.user.setdefault("calls", []).append(t)


def broken(sim, t, params):
    if t > 0.01:
        raise ValueError("sensor unplugged")


not_callable = 3


def stamp_and_hold(sim, t, params):
    """Publishes the time it last ran as a channel, then waits for the next command (HOLD)."""
    from pipeline.control.python_ctrl import HOLD

    sim.data.channels["stamp"] = t
    return HOLD
