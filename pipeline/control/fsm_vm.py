"""The numba interpreter of `FsmCode` (pipeline/control/fsm_code.py): one machine's tick over
its slot array, with FsmRuntime.tick's semantics (pipeline/control/fsm.py) and its results
to the bit: the same float operations in the same order, Python's `min`/`max` argument
order, `math` calls that go to the same C library, and an error code wherever Python raises.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from pipeline.control.fsm_code import (ABS, ADD, ASSIGN_CLAMPED, ATAN, ATAN2, CLAMP, CLAMP01, CONST,
                                       COS, DIV, DOMAIN, EQ, EXP, FLOOR, FLOOR_INF, FLOOR_NAN, GE, GT, JMP,
                                       JNZ, JZ, LE, LOAD, LOG, LT, MAX, MIN, MUL, NE, NEG, NOT, OK, POW,
                                       PUSH0, PUSH1, RANGE, RESET, SIGN, SIN, SQRT, SUB, TAN, TRUTH,
                                       ZERO_DIVISION)
from pipeline.nrt import njit_no_refcounts


@njit_no_refcounts
def _math1(op, x):
    """A one-argument `math` function and its error as CPython's math module reports it:
    a NaN from a non-NaN argument is a domain error, an infinity from a finite one a range
    error (exp) or a domain error (log 0)."""
    if op == SQRT:
        r = math.sqrt(x) if x >= 0.0 or x != x else math.nan
    elif op == EXP:
        r = math.exp(x)
        if math.isinf(r) and math.isfinite(x):
            return r, RANGE
    elif op == LOG:
        if x == 0.0:
            return -math.inf, DOMAIN
        r = math.log(x) if x > 0.0 or x != x else math.nan
    elif op == SIN:
        r = math.sin(x)
    elif op == COS:
        r = math.cos(x)
    elif op == TAN:
        r = math.tan(x)
    else:
        r = math.atan(x)
    if r != r and x == x:
        return r, DOMAIN
    return r, OK


@njit_no_refcounts
def _pow(x, y):
    """math.pow: C's pow, with CPython's errors for finite arguments."""
    r = x ** y
    if math.isfinite(x) and math.isfinite(y) and not math.isfinite(r):
        if r != r or x == 0.0:
            return r, DOMAIN
        return r, RANGE
    return r, OK


@njit_no_refcounts
def evaluate(code, consts, first, end, slots, stack):
    """Run expression rows [first, end) over `slots`; returns (value, error code)."""
    top = -1
    pc = first
    while pc < end:
        op = code[pc, 0]
        arg = code[pc, 1]
        pc += 1
        if op == CONST:
            top += 1
            stack[top] = consts[arg]
        elif op == LOAD:
            top += 1
            stack[top] = slots[arg]
        elif op == NEG:
            stack[top] = -stack[top]
        elif op == NOT:
            stack[top] = 1.0 if stack[top] == 0.0 else 0.0
        elif op == TRUTH:
            stack[top] = 0.0 if stack[top] == 0.0 else 1.0
        elif op == JZ:
            top -= 1
            if stack[top + 1] == 0.0:
                pc = arg
        elif op == JNZ:
            top -= 1
            if stack[top + 1] != 0.0:
                pc = arg
        elif op == JMP:
            pc = arg
        elif op == PUSH0:
            top += 1
            stack[top] = 0.0
        elif op == PUSH1:
            top += 1
            stack[top] = 1.0
        elif op == MIN or op == MAX:  # Python's: the first argument, replaced by a smaller (larger) one
            top -= arg - 1
            r = stack[top]
            for k in range(1, arg):
                v = stack[top + k]
                if (v < r) if op == MIN else (v > r):
                    r = v
            stack[top] = r
        elif op == CLAMP or op == CLAMP01:
            if op == CLAMP:
                top -= 2
                x, lo, hi = stack[top], stack[top + 1], stack[top + 2]
            else:
                x, lo, hi = stack[top], 0.0, 1.0
            stack[top] = lo if x < lo else hi if x > hi else x
        elif op == ABS:
            stack[top] = abs(stack[top])
        elif op == SIGN:
            x = stack[top]
            stack[top] = float((x > 0.0) - (x < 0.0))
        elif op == FLOOR:
            x = stack[top]
            if x != x:
                return x, FLOOR_NAN
            if math.isinf(x):
                return x, FLOOR_INF
            stack[top] = np.floor(x)
        elif op == ATAN2:
            top -= 1
            stack[top] = math.atan2(stack[top], stack[top + 1])
        elif op >= SQRT:
            r, err = _math1(op, stack[top])
            if err != OK:
                return r, err
            stack[top] = r
        else:  # binary arithmetic and comparisons
            top -= 1
            a = stack[top]
            b = stack[top + 1]
            if op == ADD:
                r = a + b
            elif op == SUB:
                r = a - b
            elif op == MUL:
                r = a * b
            elif op == DIV:
                if b == 0.0:
                    return math.nan, ZERO_DIVISION
                r = a / b
            elif op == POW:
                r, err = _pow(a, b)
                if err != OK:
                    return r, err
            elif op == LT:
                r = 1.0 if a < b else 0.0
            elif op == LE:
                r = 1.0 if a <= b else 0.0
            elif op == GT:
                r = 1.0 if a > b else 0.0
            elif op == GE:
                r = 1.0 if a >= b else 0.0
            elif op == EQ:
                r = 1.0 if a == b else 0.0
            else:
                r = 1.0 if a != b else 0.0
            stack[top] = r
    return stack[0], OK


@njit_no_refcounts
def _actions(fc, first, end, slots, stack):
    for a in range(first, end):
        kind = fc.acts[a, 0]
        if kind == RESET:
            for r in range(fc.acts[a, 3], fc.acts[a, 4]):
                slots[fc.reset_slot[r]] = fc.reset_level[r]
            continue
        e = fc.acts[a, 2]
        v, err = evaluate(fc.code, fc.consts, fc.exprs[e, 0], fc.exprs[e, 1], slots, stack)
        if err != OK:
            return err
        if kind == ASSIGN_CLAMPED:
            v = 0.0 if v < 0.0 else 1.0 if v > 1.0 else v
        slots[fc.acts[a, 1]] = v
    return OK


@njit_no_refcounts
def tick(fc, p, slots, state, t, dt, stack):
    """One control step of machine p whose slots (sensor levels already written) are
    `slots`, in state `state`: `always`, then the first transition whose condition is
    non-zero (its actions, then its target), else the state's `do`. Returns (state, error)."""
    n = fc.prog[p, 1]
    slots[n - 2] = dt
    slots[n - 1] = t
    err = _actions(fc, fc.prog[p, 5], fc.prog[p, 6], slots, stack)
    if err != OK:
        return state, err
    row = fc.prog[p, 4] + state
    for tr in range(fc.states[row, 2], fc.states[row, 3]):
        e = fc.trans[tr, 0]
        v, err = evaluate(fc.code, fc.consts, fc.exprs[e, 0], fc.exprs[e, 1], slots, stack)
        if err != OK:
            return state, err
        if v != 0.0:
            return fc.trans[tr, 1], _actions(fc, fc.trans[tr, 2], fc.trans[tr, 3], slots, stack)
    return state, _actions(fc, fc.states[row, 0], fc.states[row, 1], slots, stack)
