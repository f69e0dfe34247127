"""FSM tick semantics, actuator clamping and resets, and located compile errors."""
import pytest

from pipeline.control.fsm import FsmRuntime, compile_fsm
from pipeline.errors import CorpusError
from pipeline.spec.loader import parse_text

BLOCK = """
params: {rate: 2.0, limit: 0.8}
variables: {count: 0}
initial: rise
always:
  - count: count + 1
states:
  rise:
    transitions:
      - {if: act >= limit, to: hold, do: [{reset: [act]}]}
    do:
      - act: act + rate * dt
  hold:
    transitions:
      - {if: sense > 0.5, to: rise}
    do:
      - act: 5            # clamped to 1
"""


def program(text=BLOCK):
    return compile_fsm(parse_text(text, "ctrl.yaml"), ["sense"], ["act"], [0.25])


def test_tick_runs_laws_until_a_transition_fires_then_its_actions_only():
    rt = FsmRuntime(program())
    levels = []
    for _ in range(4):
        rt.tick(0.0, 0.1, [0.0])
        levels.append(rt.actuator_levels()[0])
    assert levels == pytest.approx([0.45, 0.65, 0.85, 0.25])  # 4th tick: transition + reset
    assert rt.program.state_names[rt.state] == "hold"
    rt.tick(0.0, 0.1, [0.0])
    assert rt.actuator_levels() == [1.0]  # hold's law, clamped to [0, 1]
    rt.tick(0.0, 0.1, [0.9])
    assert rt.program.state_names[rt.state] == "rise"
    assert rt.variable("count") == 6  # `always` ran every tick


def test_parameters_are_a_flat_vector_in_declaration_order():
    p = program()
    assert p.param_names == ("rate", "limit")
    rt = FsmRuntime(p, [1.0, 0.3])
    rt.tick(0.0, 0.1, [0.0])
    assert rt.actuator_levels()[0] == pytest.approx(0.35)
    with pytest.raises(CorpusError, match="takes 2 parameters"):
        FsmRuntime(p, [1.0])


def test_errors_are_located_and_all_reported():
    bad = BLOCK.replace("act + rate * dt", "act + speed * dt").replace("to: rise}", "to: rize}") \
        .replace("- count: count + 1", "- sense: 1")
    with pytest.raises(CorpusError) as err:
        program(bad)
    text = str(err.value)
    assert "ctrl.yaml:6:12: always[0].sense: cannot assign 'sense'" in text
    assert "ctrl.yaml:12:14: states.rise.do[0].act: bad expression 'act + speed * dt': unknown name 'speed'" in text
    assert "ctrl.yaml:15:31: states.hold.transitions[0].to: no state named 'rize'" in text
