"""numba's compiles are noticed as they happen and timed apart (pipeline/compile_watch.py),
and a simulation's progress bar leaves their time out of its rate and ETA."""
import io

import numba
import pytest

from pipeline.compile_watch import NOTICE, announced, watching
from pipeline.progress import frame_length, frame_progress


def fresh_kernel():
    """A kernel no cache holds: each call of this function defines a new one."""
    @numba.njit
    def inner(x):
        return x + 1.0

    @numba.njit
    def outer(x):
        return inner(x) * 2.0

    return outer


def test_a_compile_is_announced_once_and_timed_once_with_its_callees(capsys):
    kernel = fresh_kernel()
    with announced() as watch:
        assert kernel(1.0) == 4.0
        kernel(2.0)  # compiled already: no event
    assert watch.compiles == 1  # outer's compile contains inner's
    assert watch.seconds > 0
    assert capsys.readouterr().err == NOTICE + "\n"
    with announced(quiet=True) as watch:
        fresh_kernel()(1.0)
    assert watch.compiles == 1 and capsys.readouterr().err == ""


def test_no_compile_no_notice(capsys):
    kernel = fresh_kernel()
    kernel(1.0)
    with announced() as watch:
        kernel(3.0)
    assert watch.compiles == 0 and watch.seconds == 0 and capsys.readouterr().err == ""


def test_the_bar_counts_frames_of_dt_and_leaves_compiles_out_of_its_clock(monkeypatch):
    import tqdm

    bars = []
    original = tqdm.tqdm.__init__

    def keep(self, *a, **k):
        k["file"] = io.StringIO()
        original(self, *a, **k)
        bars.append(self)

    monkeypatch.setattr(tqdm.tqdm, "__init__", keep)
    with frame_progress("demo", 10, 1 / 2400, show=True) as advanced:
        start = bars[0].start_t
        with watching() as watch:
            fresh_kernel()(1.0)
        advanced()
        shift = bars[0].start_t - start
    assert "frames of 1/2400 s" in bars[0].bar_format
    assert shift == pytest.approx(watch.seconds, abs=1e-3)  # two listeners, read microseconds apart
    assert shift > 0


@pytest.mark.parametrize("dt, text", [(1 / 2400, "1/2400 s"), (1 / 240, "1/240 s"),
                                      (0.3, "0.3 s"), (2e-4, "1/5000 s"), (0.00123, "0.00123 s")])
def test_frame_length_reads_as_a_fraction_where_it_is_one(dt, text):
    assert frame_length(dt) == text
