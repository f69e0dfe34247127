"""FSM programs as plain arrays: the bytecode a numba kernel ticks (pipeline/control/fsm_vm.py).

`fsm_code(programs)` lays out any number of compiled machines (pipeline/control/fsm.py) in one
`FsmCode`: their states, transitions, actions and resets as integer tables, and every
expression as stack-machine bytecode compiled from the same parse trees that the Python
closures come from. Nothing in it knows a particular machine: any FSM a user writes in YAML
compiles here.

Bytecode: (op, argument) rows. Values are float64 on a stack; `and`, `or` and `if` jump
past the operand they do not need, as the closures skip it, so an untaken `1 / 0` never
raises. The kernel returns an error code where Python's float arithmetic and `math` raise
(`raise_error` raises the same exception with Python's message).
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from pipeline.control.fsm import FsmProgram, Tree

# op codes (argument: CONST constant index, LOAD slot, JZ/JNZ/JMP target row, MIN/MAX count)
(CONST, LOAD, NEG, ADD, SUB, MUL, DIV, POW, LT, LE, GT, GE, EQ, NE, NOT, TRUTH, JZ, JNZ, JMP,
 PUSH0, PUSH1, MIN, MAX, CLAMP, CLAMP01, ABS, SQRT, EXP, LOG, SIN, COS, TAN, ATAN, ATAN2,
 FLOOR, SIGN) = range(36)
_BINARY = {"+": ADD, "-": SUB, "*": MUL, "/": DIV, "^": POW, "<": LT, "<=": LE, ">": GT,
           ">=": GE, "==": EQ, "!=": NE}
_FUNCTION = {"clamp": CLAMP, "clamp01": CLAMP01, "abs": ABS, "sqrt": SQRT, "exp": EXP, "log": LOG,
             "sin": SIN, "cos": COS, "tan": TAN, "atan": ATAN, "atan2": ATAN2, "floor": FLOOR,
             "sign": SIGN}
# action kinds
ASSIGN, ASSIGN_CLAMPED, RESET = 0, 1, 2
# error codes, with the exception Python raises for the same operation
OK, ZERO_DIVISION, DOMAIN, RANGE, FLOOR_NAN, FLOOR_INF = range(6)
_ERRORS = {ZERO_DIVISION: (ZeroDivisionError, "float division by zero"),
           DOMAIN: (ValueError, "math domain error"), RANGE: (OverflowError, "math range error"),
           FLOOR_NAN: (ValueError, "cannot convert float NaN to integer"),
           FLOOR_INF: (OverflowError, "cannot convert float infinity to integer")}


class FsmCode(NamedTuple):
    """Machines as tables. Per machine p, `prog[p]`: slot_base (its slots start there in the
    one slot array of all machines), n_slots, n_sensors, n_actuators, state_base (its first
    row of `states`), always_a, always_b (its `always` actions). The last two slots of a
    machine are dt and t. Ranges are [a, b) rows of the next table."""

    prog: np.ndarray  # (P, 7) int64
    states: np.ndarray  # (S, 4) int64: do_a, do_b, transition_a, transition_b
    trans: np.ndarray  # (T, 4) int64: condition expression, target state (of its machine), action_a, action_b
    acts: np.ndarray  # (A, 5) int64: kind, slot (of its machine), expression, reset_a, reset_b
    reset_slot: np.ndarray  # (R,) int64
    reset_level: np.ndarray  # (R,) float64
    exprs: np.ndarray  # (E, 2) int64: first and end row of its bytecode
    code: np.ndarray  # (C, 2) int64 bytecode rows
    consts: np.ndarray  # (K,) float64
    stack: int  # the deepest stack any expression needs


def raise_error(code: int) -> None:
    """Raise what Python raises for the operation that gave kernel error `code`."""
    kind, message = _ERRORS[code]
    raise kind(message)


def error_message(code: int) -> str:
    """The message of what Python raises for the operation that gave kernel error `code`."""
    return _ERRORS[int(code)][1]


class _Emitter:
    def __init__(self):
        self.code: list[list[int]] = []
        self.consts: list[float] = []
        self.exprs: list[tuple[int, int]] = []
        self.depth = 1

    def expression(self, tree: Tree) -> int:
        """Bytecode of one expression; returns its index in `exprs`."""
        start = len(self.code)
        self.depth = max(self.depth, self._emit(tree))
        self.exprs.append((start, len(self.code)))
        return len(self.exprs) - 1

    def _op(self, op: int, arg: int = 0) -> int:
        self.code.append([op, arg])
        return len(self.code) - 1

    def _emit(self, tree: Tree) -> int:
        """Emit the bytecode of a tree; returns the stack depth it needs."""
        kind = tree[0]
        if kind == "num":
            self.consts.append(tree[1])
            self._op(CONST, len(self.consts) - 1)
            return 1
        if kind == "slot":
            self._op(LOAD, tree[1])
            return 1
        if kind in ("neg", "not"):
            depth = self._emit(tree[1])
            self._op(NEG if kind == "neg" else NOT)
            return depth
        if kind == "bin":
            a = self._emit(tree[2])
            b = self._emit(tree[3])
            self._op(_BINARY[tree[1]])
            return max(a, 1 + b)
        if kind in ("and", "or"):  # a; skip b when a decides; b as 0/1
            a = self._emit(tree[1])
            jump = self._op(JZ if kind == "and" else JNZ)
            b = self._emit(tree[2])
            self._op(TRUTH)
            done = self._op(JMP)
            self.code[jump][1] = self._op(PUSH0 if kind == "and" else PUSH1)
            self.code[done][1] = len(self.code)
            return max(a, b)
        name, args = tree[1], tree[2]
        if name == "if":
            c = self._emit(args[0])
            jump = self._op(JZ)
            a = self._emit(args[1])
            done = self._op(JMP)
            self.code[jump][1] = len(self.code)
            b = self._emit(args[2])
            self.code[done][1] = len(self.code)
            return max(c, a, b)
        depth = max(k + self._emit(x) for k, x in enumerate(args))
        if name in ("min", "max"):
            self._op(MIN if name == "min" else MAX, len(args))
        else:
            self._op(_FUNCTION[name])
        return depth


def fsm_code(programs: Sequence[FsmProgram]) -> FsmCode:
    """The tables and bytecode of machines laid out one after another."""
    e = _Emitter()
    prog, states, trans, acts, reset_slot, reset_level = [], [], [], [], [], []

    def actions(items) -> tuple[int, int]:
        start = len(acts)
        for a in items:
            if a.slot < 0:
                acts.append([RESET, -1, -1, len(reset_slot), len(reset_slot) + len(a.resets)])
                for slot, level in a.resets:
                    reset_slot.append(slot)
                    reset_level.append(level)
            else:
                acts.append([ASSIGN_CLAMPED if a.clamp else ASSIGN, a.slot, e.expression(a.tree), 0, 0])
        return start, len(acts)

    slot_base = 0
    for p in programs:
        always = actions(p.always)
        prog.append([slot_base, len(p.slot_names), p.n_sensors, p.n_actuators, len(states), *always])
        rows = []
        for s in range(len(p.state_names)):
            do = actions(p.do[s])
            first = len(trans)
            for _, target, items, cond in p.transitions[s]:
                condition = e.expression(cond)
                trans.append([condition, target, *actions(items)])
            rows.append([*do, first, len(trans)])
        states.extend(rows)
        slot_base += len(p.slot_names)

    def table(rows, width):
        return np.array(rows, np.int64).reshape(-1, width)

    return FsmCode(table(prog, 7), table(states, 4), table(trans, 4), table(acts, 5),
                   np.array(reset_slot, np.int64), np.array(reset_level, np.float64), table(e.exprs, 2),
                   table(e.code, 2), np.array(e.consts, np.float64), e.depth)
