"""What every benchmark script shares: run a command in a fresh process and measure its wall
time and peak RSS, describe the machine, and fingerprint the code being timed."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

TIME = "/usr/bin/time"
MIB = 1024 * 1024


@dataclass
class Measure:
    label: str
    wall: float
    peak_kib: int | None
    rc: int
    stderr: str = ""
    extra: dict = field(default_factory=dict)


def measure(label: str, cmd: list[str], stdout_path: Path | None = None,
            cwd: Path | None = None, env: dict | None = None) -> Measure:
    """Run ``cmd`` in a fresh process; wall time around the whole process, peak RSS of it
    (``/usr/bin/time -v`` when present, else ``getrusage`` of a wrapper's child); ``env``: the
    child's environment (None: this process's, without the jemalloc setting Polars wrote into
    it when it loaded here: the command runs as from a shell)."""
    if env is None:
        env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(open(stdout_path, "wb")) if stdout_path else subprocess.DEVNULL
        if os.access(TIME, os.X_OK):
            report = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_time_{os.getpid()}.txt"
            t0 = time.perf_counter()
            proc = subprocess.run([TIME, "-v", "-o", str(report), *cmd], stdout=out,
                                  stderr=subprocess.PIPE, cwd=cwd, check=False, env=env)
            wall = time.perf_counter() - t0
            text = report.read_text(errors="replace") if report.exists() else ""
            report.unlink(missing_ok=True)
            found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
            peak = int(found.group(1)) if found else None
            cpu = re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", text)
        else:
            wrapper = ("import resource, subprocess, sys, time, json\n"
                       "t0 = time.perf_counter()\n"
                       "rc = subprocess.run(sys.argv[1:]).returncode\n"
                       "sys.stderr.write('\\nBENCH_MEASURE ' + json.dumps("
                       "[rc, time.perf_counter() - t0, "
                       "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]) + '\\n')\n")
            proc = subprocess.run([sys.executable, "-c", wrapper, *cmd], stdout=out,
                                  stderr=subprocess.PIPE, cwd=cwd, check=False, env=env)
            found = re.search(r"BENCH_MEASURE (\[.*\])", proc.stderr.decode(errors="replace"))
            rc, wall, peak = (json.loads(found.group(1)) if found
                              else (proc.returncode, float("nan"), None))
            proc.returncode = rc
    m = Measure(label, wall, peak, proc.returncode, proc.stderr.decode(errors="replace"))
    if os.access(TIME, os.X_OK) and len(cpu) == 2:
        m.extra["cpu"] = float(cpu[0]) + float(cpu[1])  # user + system seconds, children included
        m.extra["system"] = float(cpu[1])  # the kernel's share: page faults, thread wake-ups
    peaks = re.findall(r"^PROCESS_PEAK_KIB (\S+) \d+ (\d+)$", m.stderr, re.MULTILINE)
    own = [int(k) for role, k in peaks if role == "coordinator"]
    if own:  # bench/process_peaks.py's lines
        m.extra["coordinator_kib"] = own[0]
        m.extra["children_kib"] = sorted((int(k) for role, k in peaks if role == "worker"),
                                         reverse=True)
        m.extra["largest_child_kib"] = next((int(k) for role, k in peaks
                                             if role == "workers-max"), None)
        # every process's peak: a worker left ending when the command exits is not among the
        # children /usr/bin/time waits for, but its sampled peak is
        m.peak_kib = max([k for k in (m.peak_kib, own[0], *m.extra["children_kib"])
                          if k is not None])
    return m


# Runs scorehouse's command line in this Python process and prints, at exit, that process's own
# peak RSS (the coordinator's alone) and each of its worker processes' (bench/process_peaks.py).
COORDINATOR = (
    "import sys\n"
    f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
    "import process_peaks\n"
    "process_peaks.watch()\n"
    "from scorehouse.__main__ import entry\n"  # what the installed script runs
    "sys.argv[0] = 'scorehouse'\n"
    "entry()\n"
)


def fmt_processes(m: Measure) -> str:
    """Each process's peak of a run measured with :data:`COORDINATOR`: ``coordinator 940 MiB,
    children 610, 598, 12 MiB (largest exactly 612 MiB)``."""
    if "coordinator_kib" not in m.extra:
        return "coordinator ? MiB"
    text = f"coordinator {m.extra['coordinator_kib'] / 1024:,.0f} MiB"
    children = m.extra.get("children_kib", [])
    if children:
        text += (f", {len(children)} child process(es) "
                 + ", ".join(f"{k / 1024:,.0f}" for k in children) + " MiB")
    if m.extra.get("largest_child_kib"):
        text += f" (largest child exactly {m.extra['largest_child_kib'] / 1024:,.0f} MiB)"
    return text


def summary_line(stderr: str) -> str:
    """The last ``run N: ...`` line scorehouse printed."""
    found = re.findall(r"^run \d+:.*$", stderr, re.MULTILINE)
    return found[-1] if found else ""


def code_hash(files: list[Path]) -> str:
    """Hash of the files a family's ``code_version`` covers: when another edit lands between two
    campaign runs, every unit is legitimately re-scored, and the timing says so."""
    digest = hashlib.sha256()
    for path in sorted(files):
        if path.exists():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def tail(text: str, lines: int = 15) -> str:
    return "\n".join("    " + t for t in text.strip().splitlines()[-lines:])


def fmt_peak(m: Measure) -> str:
    return f"{m.peak_kib / 1024:,.0f}" if m.peak_kib is not None else "?"


def machine(packages: tuple[str, ...]) -> list[str]:
    """Machine, Python and package versions, and the host's speed at this hour
    (:func:`host_speed`), as the first lines of a benchmark's report."""
    from importlib.metadata import PackageNotFoundError, version

    model = ""
    with contextlib.suppress(OSError):
        for row in Path("/proc/cpuinfo").read_text().splitlines():
            if row.startswith("model name"):
                model = row.split(":", 1)[1].strip()
                break
    mem = ""
    with contextlib.suppress(OSError, AttributeError):
        kib = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        mem = f", {kib / MIB:.1f} GiB RAM"
    versions = []
    for package in packages:
        try:
            versions.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            versions.append(f"{package} (absent)")
    return [f"machine:  nproc {os.cpu_count()} ({len(os.sched_getaffinity(0))} usable), "
            f"CPU {model or platform.processor() or '?'}{mem}, "
            f"{platform.system()} {platform.release()}",
            f"python:   {platform.python_version()} ({sys.executable})",
            f"versions: {', '.join(versions)}", host_speed()]


# A fixed single-core workload (Python's loop, hashing, NumPy's sort): its time in a fresh
# process says how fast one core of the host is at that hour. This host's speed moved by 10 %
# within a session (bench/README.md, round fifteen), so each bench prints it beside its
# figures; it does not see every cause (round sixteen: 0.273-0.286 s all session while the
# test suite took 492-544 s).
_REFERENCE = """
import hashlib, time
import numpy as np
best = float("inf")
for _ in range(3):
    began = time.perf_counter()
    x = 0
    for i in range(2_000_000):
        x += i * i % 7
    hashlib.sha256(b"x" * 100_000_000).digest()
    np.random.default_rng(0).random(4_000_000).sort()
    best = min(best, time.perf_counter() - began)
print(best)
"""


def host_speed() -> str:
    """One core's speed now: the best of three runs of a fixed single-core workload, seconds
    (a bigger figure: a slower core; an equal one does not make two hours' figures
    comparable)."""
    seconds = _snippet(_REFERENCE)
    if isinstance(seconds, str):
        return f"host:     reference workload failed ({seconds})"
    return (f"host:     reference workload {seconds:.3f} s (one core, best of 3; "
            f"1-min load average {os.getloadavg()[0]:.2f})")


def _snippet(code: str) -> float | str:
    """The number a Python snippet prints, run in a fresh process from the repository's root;
    or, when it prints none, the last line of its stderr."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1])
    try:
        return float(done.stdout)
    except ValueError:
        return tail(done.stderr, 1).strip()


# The demo campaign at scale 0.05 (every family, small units) loaded and scored twice in one
# process: the second run's CPU, warm (the imports and the first run's caches paid), is how
# fast the host runs work shaped like the test suite's (DuckDB, Polars, small units) at that
# hour; it moved with the suite when the single core's workload did not (bench/README.md,
# round twenty-six).
_CAMPAIGN = """
import resource, tempfile
from pathlib import Path
from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.pipeline import run
best = float("inf")
with tempfile.TemporaryDirectory() as folder:
    campaign = write_demo_campaign(Path(folder) / "campaign", scale=0.05).parent
    for k in range(2):
        before = resource.getrusage(resource.RUSAGE_SELF)
        done = run(campaign, Path(folder) / f"w{k}.duckdb", None, steps=("load", "score"),
                   quiet=True, workers=1)
        after = resource.getrusage(resource.RUSAGE_SELF)
        assert done.exit_code == 0, done.summary()
        best = min(best, sum(getattr(after, f) - getattr(before, f)
                             for f in ("ru_utime", "ru_stime")))
print(best)
"""


def campaign_speed() -> str:
    """The CPU seconds of the demo campaign at scale 0.05 loaded and scored in one process, the
    best of two runs in that process (in practice the second, warm one): :data:`_CAMPAIGN`."""
    seconds = _snippet(_CAMPAIGN)
    if isinstance(seconds, str):
        return f"campaign: failed ({seconds})"
    return (f"campaign: demo at scale 0.05 loaded and scored in one process, "
            f"{seconds:.2f} s of CPU (best of 2)")


def last_run(log: Path) -> list[dict]:
    """The events of the last run logged in ``log`` (``scorehouse run --log-json FILE``,
    docs/log.schema.json), from its ``run`` event on; lines that are not JSON skipped."""
    events: list[dict] = []
    with contextlib.suppress(OSError):
        for line in log.read_text(encoding="utf-8").splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict):
                    events = [] if record.get("event") == "run" else events
                    events.append(record)
    return events


def step_seconds(log: Path) -> dict[str, float]:
    """Seconds of each step (load, score, report; and the reduces of the score step, which its
    summary times apart) of the last run logged in ``log``."""
    steps: dict[str, float] = {}
    for record in last_run(log):
        if record.get("event") == "step":
            steps[record["step"]] = float(record["seconds"])
        elif record.get("event") == "summary":  # with the reduces, timed apart
            steps = {k: float(v) for k, v in record.get("durations", steps).items()}
    return steps


def fmt_reduces(log: Path) -> str:
    """``consensus 4 x 31.20 s, intervals 5 x 3.10 s`` for the last run logged in ``log``: the
    reduce step broken down by name (the debug events ``reduce``), each name's number of reduces
    and their total time, the longest total first."""
    totals: dict[str, list[float]] = {}
    for record in last_run(log):
        if record.get("event") == "reduce" and "reduce" in record and "seconds" in record:
            totals.setdefault(record["reduce"], []).append(float(record["seconds"]))
    return ", ".join(f"{name} {len(times)} x {sum(times):.2f} s" for name, times in
                     sorted(totals.items(), key=lambda kv: -sum(kv[1]))) or "none ran"


def fmt_steps(m: Measure, log: Path) -> str:
    """``load 0.6 s, score 1.7 s, report 1.9 s, rest 1.1 s`` for a run measured with
    ``--log-json log``: the rest is start-up (imports, opening the warehouse) and finishing."""
    steps = step_seconds(log)
    if not steps:
        return "no step logged"
    rest = m.wall - sum(steps.values())
    return ", ".join(f"{k} {v:.2f} s" for k, v in steps.items()) + f", rest {rest:.2f} s"
