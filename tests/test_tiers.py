"""The two tiers on a small suite run by pytest itself (tests/tiers.py): a plain run leaves out
the slow tests and says how many, in one process and under pytest-xdist (whose controller never
collects); ``--runslow`` runs every test and says nothing."""
import os
from pathlib import Path

import pytest

SUITE = '''
import pytest

def test_quick():
    pass

@pytest.mark.slow
def test_slow_one():
    pass

@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 2])
def test_slow_two(n):
    pass
'''


@pytest.fixture
def small_suite(pytester, monkeypatch):
    # tests/tiers.py importable in pytest's subprocess, the caller's own path kept after it
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        filter(None, [str(Path(__file__).parent), os.environ.get("PYTHONPATH")])))
    pytester.makeconftest('pytest_plugins = ["tiers"]\n')
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n")
    pytester.makepyfile(test_small=SUITE)
    return pytester


@pytest.mark.parametrize("processes", [[], ["-p", "xdist", "-n", "2"]], ids=["one", "xdist"])
def test_a_plain_run_says_how_many_slow_tests_it_left_out(small_suite, processes):
    result = small_suite.runpytest_subprocess("-q", *processes)
    result.assert_outcomes(passed=1, deselected=0 if processes else 3)
    result.stdout.fnmatch_lines(
        ["3 slow tests left out: --runslow runs every test, as .ci/run does"])


@pytest.mark.parametrize("option", [["--runslow"], ["-m", "slow or not slow"],
                                    ["test_small.py"]], ids=["runslow", "markexpr", "file"])
def test_runslow_a_mark_expression_or_a_named_file_run_every_test(small_suite, option):
    result = small_suite.runpytest_subprocess("-q", "-p", "xdist", "-n", "2", *option)
    result.assert_outcomes(passed=4)
    result.stdout.no_fnmatch_line("*left out*")
