"""The suite's two tiers, as a pytest plugin (loaded by tests/conftest.py): a plain ``pytest -q``
leaves out the tests marked ``slow``, and says how many at the end of its report, also under
pytest-xdist, whose workers collect and deselect while the controller prints; ``--runslow`` (the
README's test command and .ci/run) runs every test."""
import pytest

LEFT_OUT = pytest.StashKey[int]()


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true",
                     help="run the tests marked slow too: every test (the README's test "
                          "command and .ci/run do)")


def every_test(config) -> bool:
    """Whether this run keeps the slow tests: ``--runslow``; a ``-m`` expression, which chooses
    by marks itself (``-m slow``: those alone); test files or tests named on the command line
    (``pytest tests/test_store.py``: all of that file's)."""
    return (config.getoption("runslow") or bool(config.getoption("markexpr"))
            or config.args_source == pytest.Config.ArgsSource.ARGS)


def pytest_report_header(config):
    if not every_test(config):
        return ("slow tests left out (a tenth of the tests, three quarters of the suite's "
                "CPU): --runslow runs every test, as .ci/run does")
    return None


def pytest_collection_modifyitems(config, items):
    """Without ``--runslow`` (or ``-m``, or files named), the tests marked slow deselected, their
    number kept for the report (and sent to the controller from an xdist worker)."""
    if every_test(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
    config.stash[LEFT_OUT] = len(slow)
    if hasattr(config, "workeroutput"):
        config.workeroutput["slow_left_out"] = len(slow)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist's controller: every worker collects the whole suite, so any worker's count
    is the run's."""
    left_out = getattr(node, "workeroutput", {}).get("slow_left_out")
    if left_out is not None:
        node.config.stash[LEFT_OUT] = left_out


def pytest_terminal_summary(terminalreporter, config):
    left_out = config.stash.get(LEFT_OUT, 0)
    if left_out:
        terminalreporter.write_line(
            f"{left_out} slow test{'s' * (left_out != 1)} left out: --runslow runs every test, "
            "as .ci/run does", yellow=True)
