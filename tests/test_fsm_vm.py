"""The FSM bytecode (pipeline/control/fsm_code.py) run by the numba interpreter
(pipeline/control/fsm_vm.py) against the Python closures of pipeline/control/fsm.py, which the
articulated engine's FSM controllers tick: the same value to the bit, or the same exception
with the same message, for every operation of the language; and the same machine ticks."""
import math

import numpy as np
import pytest

from pipeline.control.fsm import FsmRuntime, compile_expression, compile_fsm, parse_expression
from pipeline.control.fsm_code import fsm_code, raise_error
from pipeline.control.fsm_vm import evaluate, tick
from pipeline.control.fsm_code import _Emitter

NAMES = ("a", "b", "c", "z", "big", "nan")
VALUES = [0.7, -2.5, 3.0, 0.0, 800.0, math.nan]
SLOTS = {n: i for i, n in enumerate(NAMES)}

EXPRESSIONS = [
    "a + b * c - a / c", "-a ^ 2", "a ^ -b", "(a - b) ^ 0.5", "b ^ 0.5", "z ^ -1", "big ^ big", "c ^ 3",
    "a < b", "a <= a", "b > c", "c >= c", "a == a", "a != b", "nan < 1", "nan == nan", "nan != nan",
    "not a", "not z", "not nan", "a and b", "z and 1 / z", "a or 1 / z", "z or z", "nan and 1", "z or nan",
    "min(a, b, c)", "max(a, nan)", "max(nan, a)", "min(nan, a, b)", "max(z, -z)", "min(-z, z)",
    "clamp(b, 0, 1)", "clamp(nan, 0, 1)", "clamp01(big)", "clamp01(-big)", "abs(b)", "abs(-z)",
    "sqrt(c)", "sqrt(b)", "sqrt(nan)", "exp(a)", "exp(big)", "exp(-big)", "log(c)", "log(z)", "log(b)",
    "log(nan)", "sin(a) + cos(b) + tan(c)", "atan(b)", "atan2(b, a)", "atan2(z, -1)", "floor(b)",
    "floor(nan)", "floor(big * big * big * big * big * big * big * big * big * big * big * big * big * big "
    "* big * big * big * big * big * big * big * big * big * big * big * big * big * big * big * big "
    "* big * big * big * big * big * big * big * big * big * big * big * big * big * big * big * big "
    "* big * big * big * big * big * big * big * big * big * big * big * big * big * big * big * big)",
    "sign(b) + sign(z) + sign(nan)", "if(a > 0, 1, 1 / z)", "if(z, 1 / z, 2)", "if(nan, a, b)",
    "1 / z", "a / (b + 2.5)", "2 * pi", "1e-3 * .5", "a - b - c", "a / b / c",
]


def _vm(text):
    e = _Emitter()
    index = e.expression(parse_expression(text, SLOTS))
    first, end = e.exprs[index]
    code = np.array(e.code, np.int64).reshape(-1, 2)
    value, err = evaluate(code, np.array(e.consts), first, end, np.array(VALUES), np.empty(e.depth))
    if err:
        raise_error(err)
    return value


def _outcome(fn):
    try:
        return ("value", fn())
    except (ArithmeticError, ValueError) as exc:
        return (type(exc).__name__, str(exc))


def _same(x, y):
    if x[0] == "value" and y[0] == "value":
        return (math.isnan(x[1]) and math.isnan(y[1])) or (x[1] == y[1] and math.copysign(1, x[1]) == math.copysign(1, y[1]))
    return x == y


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_the_interpreter_evaluates_like_the_closures(text):
    python = _outcome(lambda: compile_expression(text, SLOTS)(list(VALUES)))
    assert _same(_outcome(lambda: _vm(text)), python), (text, python)


def test_errors_are_those_of_python():
    assert _outcome(lambda: _vm("1 / z")) == ("ZeroDivisionError", "float division by zero")
    assert _outcome(lambda: _vm("sqrt(b)")) == ("ValueError", "math domain error")
    assert _outcome(lambda: _vm("exp(big)")) == ("OverflowError", "math range error")
    assert _outcome(lambda: _vm("b ^ 0.5")) == ("ValueError", "math domain error")  # never a complex number


MACHINE = {
    "params": {"gain": 0.5, "top": 0.9},
    "variables": {"energy": 1.0, "count": 0.0},
    "initial": "rest",
    "always": [{"energy": "max(0, energy - 0.1 * dt)"}],
    "states": {
        "rest": {"transitions": [{"if": "height < 0.2 and energy > 0.5", "to": "push",
                                  "do": [{"reset": ["thrust"]}, {"count": "count + 1"}]}],
                 "do": [{"thrust": "thrust - gain * dt"}, {"steer": "sin(t) * 3"}]},
        "push": {"transitions": [{"if": "thrust >= top", "to": "rest"},
                                 {"if": "t > 2", "to": "rest", "do": [{"reset": ["thrust", "steer"]}]}],
                 "do": [{"thrust": "min(top, thrust + 4 * dt)"}, {"energy": "energy + if(speed > 0, 0.01, -0.02)"}]},
    },
}


def test_a_machine_ticks_like_the_python_runtime():
    program = compile_fsm(MACHINE, ["height", "speed"], ["thrust", "steer"], [0.3, 0.5])
    code = fsm_code([program, program])  # two machines side by side: the second one's rows are offset
    python = FsmRuntime(program)
    slots = np.array(python.slots * 2)
    states = [program.initial_state] * 2
    rng = np.random.default_rng(3)
    n = len(program.slot_names)
    for frame in range(2000):
        t, dt = frame * 0.002, 0.002
        levels = rng.uniform(0, 0.4, 2)
        python.tick(t, dt, list(levels))
        for p in (0, 1):
            own = slots[p * n:(p + 1) * n]
            own[:2] = levels
            states[p], err = tick(code, p, own, states[p], t, dt, np.empty(code.stack))
            assert err == 0
            assert states[p] == python.state and own.tolist() == python.slots, frame
    assert python.variable("count") > 3  # the machine went round its states
