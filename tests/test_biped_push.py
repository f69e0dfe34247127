"""Coros W4 (issue 18): the walking biped pushed on the torso. The whole 8 x 4 table is
benchmarks/biped_push.py (docs/biped.md, W4); here the push that the runaway step
recovers, with and without it."""
from benchmarks.biped_push import push


def test_a_late_push_from_behind_ends_the_runaway_step_and_recovers():
    """600 N x 0.1 s from behind at 6.45 s, as the swing foot is about to land short of
    where the pushed COM needs it: the next step ends once that foot is 0.7 leg lengths
    ahead of the stance foot, and the biped walks at V_d again 4-6 s later. Waiting for
    that foot's strike instead, the biped vaults over a bent knee and falls."""
    assert push(600.0, 0.0, 0.45, {}) == (True, True)
    assert push(600.0, 0.0, 0.45, {"runaway_step": 0.0}) == (False, False)
