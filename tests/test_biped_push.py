"""Coros W4 (issue 18): the walking biped pushed on the torso. The whole 8 x 4 table is
benchmarks/biped_push.py (docs/biped.md, W4); here a push that the runaway step recovers
and one that the heel guard recovers, each with and without it."""
from benchmarks.biped_push import push


def test_a_late_push_from_behind_ends_the_runaway_step_and_recovers():
    """600 N x 0.1 s from behind at 6.45 s, as the swing foot is about to land short of
    where the pushed COM needs it: the next step ends once that foot is 0.7 leg lengths
    ahead of the stance foot, and the biped walks at V_d again 4-6 s later. Waiting for
    that foot's strike instead, the biped vaults over a bent knee and falls."""
    assert push(600.0, 0.0, 0.45, {}) == (True, True)
    assert push(600.0, 0.0, 0.45, {"runaway_step": 0.0}) == (False, False)


def test_a_push_back_and_to_the_right_recovers_with_the_heel_guard():
    """600 N x 0.1 s from 225 degrees (back and to the right) at 6.3 s: the virtual force,
    pushing the body forwards again, loads the stance foot's heel while its toes are off;
    the foot-roll guard drops that share, and the biped walks at V_d again 4-6 s later.
    Without the guard the pressure sits on the heel's inner corner, the stance foot and
    pelvis spin and it falls (docs/biped.md, W4)."""
    assert push(600.0, 225.0, 0.3, {}) == (True, True)
    assert push(600.0, 225.0, 0.3, {"heel_guard": 0.0}) == (False, False)
