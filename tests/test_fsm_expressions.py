"""The FSM expression language: grammar, precedence, laziness, and refusal of anything else."""
import math
import re

import pytest

from pipeline.control.fsm import ExpressionError, compile_expression

SLOTS = {"a": 0, "b": 1, "leg": 2}
VALUES = [2.0, 0.5, 0.3]


def ev(text):
    return compile_expression(text, SLOTS)(VALUES)


@pytest.mark.parametrize("text, value", [
    ("1 + 2 * 3 ^ 2", 19.0),
    ("-2 ^ 2", -4.0),
    ("2 ^ -1", 0.5),
    ("(1 + 2) * 3", 9.0),
    ("a * b - leg", 2.0 * 0.5 - 0.3),
    ("10 / 4 / 5", 0.5),
    ("1e-3 * 2", 0.002),
    (".5 + 1.", 1.5),
    ("1 < 2 and not 0", 1.0),
    ("0 or 3 > 2", 1.0),
    ("a >= 2 and b != 0.5", 0.0),
    ("min(3, 1, 2) + max(a, b)", 3.0),
    ("clamp01(1.5) + clamp01(-1) + clamp(5, 0, 2)", 3.0),
    ("atan2(1, 1) * 4", math.pi),
    ("sqrt(abs(-16)) + sign(-3) + floor(2.7)", 4.0 - 1.0 + 2.0),
    ("if(a > 1, leg, 1 / 0)", 0.3),  # lazy: the untaken branch is never evaluated
    ("2 * pi", 2 * math.pi),
    (7, 7.0),
])
def test_values(text, value):
    assert ev(text) == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("text, message", [
    ("__import__('os')", "unexpected character"),
    ("open(a)", "unknown function 'open'"),
    ("a.real", "unexpected character"),
    ("leg[0]", "unexpected character"),
    ("lambda: 1", "unexpected character"),
    ("speed + 1", "unknown name 'speed'"),
    ("min(1)", "min() takes 2+ arguments"),
    ("clamp(1, 2)", "clamp() takes 3 arguments"),
    ("(1 + 2", "expected ')'"),
    ("1 +", "unexpected 'end of expression'"),
    ("1 2", "unexpected '2'"),
])
def test_refused(text, message):
    with pytest.raises(ExpressionError, match=re.escape(message)):
        compile_expression(text, SLOTS)
