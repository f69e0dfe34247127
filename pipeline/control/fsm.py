"""Finite-state-machine controllers written in YAML (Urban's FSMRoobot / Jellyfish brains).

A controller block (schemas/controller_fsm.schema.json) has `params` (a flat named vector),
`variables` (memory), an `initial` state, `always` actions and `states` with per-tick `do`
actions and ordered `transitions`. Expressions are parsed by a small recursive-descent parser
over a whitelisted grammar and compiled to nested closures over one flat slot list; user
strings never reach Python's eval.

Tick semantics (Urban's `if (cond) {law} else {next state}`): run `always`; then the first
transition of the current state whose condition is non-zero runs its actions and switches
state; if none fires, the state's `do` actions run. An assignment to an actuator stores its
level clamped to [0, 1]; `reset: [names]` restores initial levels.
"""
from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from typing import Callable, Sequence

from pipeline.errors import CorpusError, Problem
from pipeline.spec.loader import format_path, mark_at

Slots = list  # the flat value list every compiled expression reads
Expr = Callable[[Slots], float]


def _clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


FUNCTIONS: dict[str, tuple[int, Callable]] = {
    "min": (-2, min), "max": (-2, max),
    "clamp": (3, _clamp), "clamp01": (1, lambda x: _clamp(x, 0.0, 1.0)),
    "abs": (1, abs), "sqrt": (1, math.sqrt), "exp": (1, math.exp), "log": (1, math.log),
    "sin": (1, math.sin), "cos": (1, math.cos), "tan": (1, math.tan), "atan": (1, math.atan),
    "atan2": (2, math.atan2), "floor": (1, math.floor),
    "sign": (1, lambda x: (x > 0) - (x < 0)),
    "if": (3, None),  # lazy: if(cond, a, b)
}
CONSTANTS = {"pi": math.pi}
_TOKEN = re.compile(r"\s*(?:(\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)|"
                    r"([A-Za-z_][A-Za-z0-9_]*)|(<=|>=|==|!=|[-+*/^(),<>]))")
_BINARY: dict[str, Callable[[float, float], float]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "^": math.pow,  # math.pow: a math error, never a complex number
    "<": lambda a, b: float(a < b), "<=": lambda a, b: float(a <= b),
    ">": lambda a, b: float(a > b), ">=": lambda a, b: float(a >= b),
    "==": lambda a, b: float(a == b), "!=": lambda a, b: float(a != b),
}


class ExpressionError(ValueError):
    pass


# An expression parses to a tree of tuples, which compiles to Python closures
# (`closure`, what FsmRuntime ticks) or to the bytecode of pipeline/control/fsm_code.py
# (what the particle engine's kernel ticks), so both read one grammar:
#   ("num", v) · ("slot", k) · ("neg", a) · ("bin", op, a, b) · ("and", a, b) · ("or", a, b)
#   · ("not", a) · ("call", name, (args...))   (`if` is a call, evaluated lazily)
Tree = tuple


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ExpressionError(f"unexpected character {text[pos:].strip()[:1]!r} at column {pos + 1}")
        pos = m.end()
        num, name, op = m.groups()
        if num is not None:
            out.append(("num", num))
        elif name in ("and", "or", "not"):
            out.append(("op", name))
        elif name is not None:
            out.append(("name", name))
        else:
            out.append(("op", op))
    return out + [("end", "")]


class _Parser:
    """Recursive descent: or > and > not > comparison > sum > product > unary > power > atom."""

    def __init__(self, text: str, slots: dict[str, int]):
        self.toks = _tokens(text)
        self.i = 0
        self.slots = slots

    def peek(self):
        return self.toks[self.i]

    def take(self, value=None):
        tok = self.toks[self.i]
        if value is not None and tok[1] != value:
            raise ExpressionError(f"expected '{value}' but found '{tok[1] or 'the end'}'")
        self.i += 1
        return tok

    def parse(self) -> Tree:
        e = self.or_()
        if self.peek()[0] != "end":
            raise ExpressionError(f"unexpected '{self.peek()[1]}'")
        return e

    def or_(self):
        e = self.and_()
        while self.peek() == ("op", "or"):
            self.take()
            e = ("or", e, self.and_())
        return e

    def and_(self):
        e = self.not_()
        while self.peek() == ("op", "and"):
            self.take()
            e = ("and", e, self.not_())
        return e

    def not_(self):
        if self.peek() == ("op", "not"):
            self.take()
            return ("not", self.not_())
        return self.comparison()

    def comparison(self):
        e = self.sum_()
        if self.peek()[1] in ("<", "<=", ">", ">=", "==", "!="):
            op = self.take()[1]
            e = ("bin", op, e, self.sum_())
        return e

    def _chain(self, ops, sub):
        e = sub()
        while self.peek()[1] in ops and self.peek()[0] == "op":
            op = self.take()[1]
            e = ("bin", op, e, sub())
        return e

    def sum_(self):
        return self._chain(("+", "-"), self.product)

    def product(self):
        return self._chain(("*", "/"), self.unary)

    def unary(self):
        if self.peek() in (("op", "-"), ("op", "+")):
            neg = self.take()[1] == "-"
            a = self.unary()
            return ("neg", a) if neg else a
        return self.power()

    def power(self):
        e = self.atom()
        if self.peek() == ("op", "^"):
            self.take()
            e = ("bin", "^", e, self.unary())
        return e

    def atom(self):
        kind, text = self.take()
        if kind == "num":
            return ("num", float(text))
        if kind == "op" and text == "(":
            e = self.or_()
            self.take(")")
            return e
        if kind != "name":
            raise ExpressionError(f"unexpected '{text or 'end of expression'}'")
        if self.peek() == ("op", "("):
            return self.call(text)
        if text in self.slots:
            return ("slot", self.slots[text])
        if text in CONSTANTS:
            return ("num", CONSTANTS[text])
        close = difflib.get_close_matches(text, list(self.slots) + list(CONSTANTS), n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(sorted(self.slots))}"
        raise ExpressionError(f"unknown name '{text}' ({hint})")

    def call(self, fname):
        if fname not in FUNCTIONS:
            raise ExpressionError(f"unknown function '{fname}' (allowed: {', '.join(sorted(FUNCTIONS))})")
        self.take("(")
        args = [self.or_()]
        while self.peek() == ("op", ","):
            self.take()
            args.append(self.or_())
        self.take(")")
        arity, _ = FUNCTIONS[fname]
        if (arity >= 0 and len(args) != arity) or (arity < 0 and len(args) < -arity):
            raise ExpressionError(f"{fname}() takes {abs(arity)}{'+' if arity < 0 else ''} arguments, not {len(args)}")
        return ("call", fname, tuple(args))


def closure(tree: Tree) -> Expr:
    """The Python closure that evaluates a parsed expression over a slot list."""
    kind = tree[0]
    if kind == "num":
        v = tree[1]
        return lambda s, v=v: v
    if kind == "slot":
        k = tree[1]
        return lambda s, k=k: s[k]
    if kind == "neg":
        a = closure(tree[1])
        return lambda s, a=a: -a(s)
    if kind == "not":
        a = closure(tree[1])
        return lambda s, a=a: float(not a(s))
    if kind in ("and", "or"):
        a, b = closure(tree[1]), closure(tree[2])
        if kind == "and":
            return lambda s, a=a, b=b: float(bool(a(s)) and bool(b(s)))
        return lambda s, a=a, b=b: float(bool(a(s)) or bool(b(s)))
    if kind == "bin":
        fn, a, b = _BINARY[tree[1]], closure(tree[2]), closure(tree[3])
        return lambda s, a=a, b=b, fn=fn: fn(a(s), b(s))
    fname, args = tree[1], tuple(closure(x) for x in tree[2])
    if fname == "if":
        c, a, b = args
        return lambda s, c=c, a=a, b=b: a(s) if c(s) else b(s)
    fn = FUNCTIONS[fname][1]
    if len(args) == 1:
        (a,) = args
        return lambda s, a=a, fn=fn: float(fn(a(s)))
    return lambda s, args=args, fn=fn: float(fn(*(x(s) for x in args)))


def parse_expression(text, slots: dict[str, int]) -> Tree:
    """Parse an expression (string or number) over named slots into a tree."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return ("num", float(text))
    return _Parser(str(text), slots).parse()


def compile_expression(text, slots: dict[str, int]) -> Expr:
    """Compile an expression (string or number) over named slots into a closure."""
    return closure(parse_expression(text, slots))


@dataclass(frozen=True)
class _Action:
    slot: int  # target slot, or -1 for reset
    expr: Expr | None
    clamp: bool  # actuator levels are clamped to [0, 1]
    resets: tuple[tuple[int, float], ...] = ()
    tree: Tree | None = None  # what expr was compiled from


@dataclass(frozen=True)
class FsmProgram:
    """A compiled FSM: slot layout, state names, actions and transitions."""

    slot_names: tuple[str, ...]  # sensors, actuators, params, variables, dt, t
    n_sensors: int
    n_actuators: int
    param_names: tuple[str, ...]
    variable_names: tuple[str, ...]
    initial_values: tuple[float, ...]
    state_names: tuple[str, ...]
    initial_state: int
    always: tuple[_Action, ...]
    do: tuple[tuple[_Action, ...], ...]  # per state
    # per state: (condition, target state, actions, the condition's tree)
    transitions: tuple[tuple[tuple[Expr, int, tuple[_Action, ...], Tree], ...], ...]
    source: tuple = ()  # compile_fsm's arguments: a program pickles as them (closures cannot)

    def __reduce__(self):
        return compile_fsm, self.source

    @property
    def param_slice(self) -> slice:
        a = self.n_sensors + self.n_actuators
        return slice(a, a + len(self.param_names))


def compile_fsm(block, sensors: Sequence[str], actuators: Sequence[str],
                actuator_levels: Sequence[float]) -> FsmProgram:
    """Compile a controller block against the sensor and actuator names of its creature.

    Raises CorpusError listing every bad name and expression with its file:line:col.
    """
    problems: list[Problem] = []

    def problem(message, *path):
        m = mark_at(block, path)
        problems.append(Problem(message, m.file, m.line, m.col, format_path(path)))

    params = dict(block.get("params", {}))
    variables = dict(block.get("variables", {}))
    names = list(sensors) + list(actuators) + list(params) + list(variables) + ["dt", "t"]
    seen = set()
    for n in names:
        if n in seen:
            problem(f"the name '{n}' is used twice (sensors, actuators, params and variables share one namespace)")
        seen.add(n)
    slots = {n: i for i, n in enumerate(names)}
    n_s, n_a = len(sensors), len(actuators)
    writable = {n: slots[n] for n in list(actuators) + list(variables)}
    initial_levels = dict(zip(actuators, actuator_levels))

    def expr(text, *path) -> Tree | None:
        try:
            return parse_expression(text, slots)
        except ExpressionError as exc:
            problem(f"bad expression {str(text)!r}: {exc}", *path)
            return None

    def actions(items, *path) -> tuple[_Action, ...]:
        out = []
        for i, item in enumerate(items or ()):
            ((target, value),) = item.items()
            if target == "reset":
                resets = []
                for j, n in enumerate(value):
                    if n not in initial_levels:
                        problem(f"'{n}' is not an actuator", *path, i, "reset", j)
                    else:
                        resets.append((slots[n], initial_levels[n]))
                out.append(_Action(-1, None, False, tuple(resets)))
                continue
            if target not in writable:
                problem(f"cannot assign '{target}': only actuators and variables can be set", *path, i, target)
                continue
            tree = expr(value, *path, i, target)
            out.append(_Action(writable[target], tree and closure(tree), target in initial_levels, (), tree))
        return tuple(out)

    states = list(block["states"])
    index = {n: i for i, n in enumerate(states)}
    if block["initial"] not in index:
        problem(f"no state named '{block['initial']}'", "initial")
    do, transitions = [], []
    for sname in states:
        st = block["states"][sname] or {}
        do.append(actions(st.get("do"), "states", sname, "do"))
        trs = []
        for i, tr in enumerate(st.get("transitions", [])):
            if tr["to"] not in index:
                problem(f"no state named '{tr['to']}'", "states", sname, "transitions", i, "to")
                continue
            cond = expr(tr["if"], "states", sname, "transitions", i, "if")
            trs.append((cond and closure(cond), index[tr["to"]],
                        actions(tr.get("do"), "states", sname, "transitions", i, "do"), cond))
        transitions.append(tuple(trs))
    always = actions(block.get("always"), "always")
    if problems:
        raise CorpusError(problems)
    initial = [0.0] * n_s + list(actuator_levels) + [float(v) for v in params.values()] \
        + [float(v) for v in variables.values()] + [0.0, 0.0]
    return FsmProgram(tuple(names), n_s, n_a, tuple(params), tuple(variables), tuple(initial),
                      tuple(states), index.get(block["initial"], 0), always, tuple(do),
                      tuple(transitions), (block, tuple(sensors), tuple(actuators),
                                           tuple(actuator_levels)))


class FsmRuntime:
    """The live state of one FSM: its slot values and current state."""

    def __init__(self, program: FsmProgram, params: Sequence[float] | None = None):
        self.program = program
        self.slots: Slots = list(program.initial_values)
        if params is not None:
            if len(params) != len(program.param_names):
                raise CorpusError(f"this controller takes {len(program.param_names)} parameters "
                                  f"({', '.join(program.param_names)}), not {len(params)}")
            self.slots[program.param_slice] = [float(p) for p in params]
        self.state = program.initial_state

    def _run(self, actions) -> None:
        s = self.slots
        for a in actions:
            if a.slot < 0:
                for k, level in a.resets:
                    s[k] = level
            elif a.clamp:
                v = a.expr(s)
                s[a.slot] = 0.0 if v < 0.0 else 1.0 if v > 1.0 else v
            else:
                s[a.slot] = a.expr(s)

    def tick(self, t: float, dt: float, sensor_levels: Sequence[float]) -> None:
        """One control step; afterwards `actuator_levels()` holds the commanded levels."""
        p = self.program
        s = self.slots
        s[:p.n_sensors] = sensor_levels
        s[-2] = dt
        s[-1] = t
        self._run(p.always)
        for cond, target, acts, _ in p.transitions[self.state]:
            if cond(s):
                self._run(acts)
                self.state = target
                return
        self._run(p.do[self.state])

    def actuator_levels(self) -> list[float]:
        a = self.program.n_sensors
        return self.slots[a:a + self.program.n_actuators]

    def variable(self, name: str) -> float:
        return self.slots[self.program.slot_names.index(name)]
