"""Fuzz (issue 16, "never lose an artist's file"): mutated footprint tracks through `validate` and `solve`.

The command line's main runs in-process (the installed extension's footprint_addon.cli), so thousands of
cases fit the suite's time budget. Each case writes a mutated track (track_mutations.py: about 35 % gentle
perturbations that stay valid, the rest hostile JSON or corrupted bytes) beside a sentinel motion file,
then runs `validate TRACK [--fps F]` and `solve TRACK --output MOTION [--fps F]`. Properties of each case:

1. no exception escapes main (a traceback) and no call outlasts CALL_SECONDS (a hang);
2. the exit code is 0 or 1, and an exit 1 says why on a stderr line starting with "error:";
3. a solve that exits 0 wrote strict JSON (no NaN or Infinity literals) whose every number is finite;
4. a call that exits 1 changed nothing: the track and the sentinel are byte-identical and no other file
   appeared in the folder (no temporaries left behind);
5. validate and solve agree ("validate runs every check solve runs"): at the same fps, what validate
   accepts, solve solves, and what validate refuses, solve refuses;
6. the track is unchanged after a successful solve too, and the folder holds only the track and the motion.

Failures are collected over all cases, then reported grouped by kind with one example each.

Environment:
  FOOTPRINT_FUZZ_SEED   an integer seed (default 16, the issue's number), or "random" for a fresh one: the
                        nightly mode. The seed is printed and named in every failure, to replay it.
  FOOTPRINT_FUZZ_CASES  how many cases to run (default 2000).
  FOOTPRINT_FUZZ_CASE   replay only this case of the seed, by the index a failure names.
"""

from __future__ import annotations

import importlib
import io
import json
import math
import os
import random
import re
import shutil
import signal
import time
import traceback
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import EXTENSION_ID, ROOT
from track_mutations import Case, make_case

DEFAULT_SEED = 16
DEFAULT_CASES = 2000
CALL_SECONDS = 20.0  # a healthy validate or solve of these tracks takes milliseconds
SENTINEL = b"an artist's earlier motion: must survive any failed solve\n"
MIN_SOLVED_SHARE = 0.25  # below this the fuzz has drifted into testing the parser alone
MAX_KINDS_SHOWN = 20
DATA = Path(ROOT) / "tests" / "data"


# --- seeds and base tracks -------------------------------------------------------------------------------


def fuzz_seed() -> int:
    value = os.environ.get("FOOTPRINT_FUZZ_SEED", str(DEFAULT_SEED))
    return random.SystemRandom().randrange(2 ** 32) if value == "random" else int(value)


def case_indices() -> range:
    only = os.environ.get("FOOTPRINT_FUZZ_CASE")
    if only is not None:
        return range(int(only), int(only) + 1)
    return range(int(os.environ.get("FOOTPRINT_FUZZ_CASES", DEFAULT_CASES)))


def base_tracks() -> dict:
    """Name -> JSON text of the known-good tracks: each whole, and its first 1 to 4 footprints (short
    tracks solve faster, and most bugs need only a footprint or two)."""
    bases = {}
    for path in sorted(DATA.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("format") != "footprint-track":
            continue
        bases[path.stem] = json.dumps(doc)
        for count in (1, 2, 3, 4):
            bases[f"{path.stem}[:{count}]"] = json.dumps(dict(doc, footprints=doc["footprints"][:count]))
    return bases


# --- one call of the command line ------------------------------------------------------------------------


class CallTimeout(BaseException):
    """Raised by SIGALRM inside a call that outlasted CALL_SECONDS. A BaseException, so that the code
    under test cannot catch it as an ordinary error and report it as one."""


@dataclass
class Outcome:
    code: int | None  # None when an exception escaped
    stdout: str
    stderr: str
    escaped: str | None  # "Type: message (where)" of what escaped main, a CallTimeout included
    timed_out: bool
    seconds: float


_armed = False  # True only while main runs: an alarm that arrives just after it returned is ignored


def _on_alarm(signum, frame):
    if _armed:
        raise CallTimeout(f"no answer after {CALL_SECONDS:g} s")


def run_main(main, argv) -> Outcome:
    """main(argv) with stdout and stderr captured, a time limit, and whatever escapes it caught."""
    global _armed
    out, err = io.StringIO(), io.StringIO()
    code, escaped, timed_out = None, None, False
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    started = time.perf_counter()
    try:
        _armed = True
        signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
        _armed = False
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 -- anything that escapes main is what the fuzz looks for
        _armed = False
        timed_out = isinstance(exc, CallTimeout)
        escaped = describe_exception(exc)
    finally:
        _armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return Outcome(code, out.getvalue(), err.getvalue(), escaped, timed_out, time.perf_counter() - started)


def describe_exception(exc: BaseException) -> str:
    """Type, first line of the message and the innermost frame: kept as text, not as the exception, so
    2000 cases do not keep 2000 tracebacks' arrays alive."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [frame for frame in frames if EXTENSION_ID in frame.filename]
    shown = ([ours[-1]] if ours else []) + ([frames[-1]] if frames and (not ours or frames[-1] is not ours[-1]) else [])
    where = " <- ".join(f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in reversed(shown))
    return f"{type(exc).__name__}: {first_line(str(exc))}" + (f" (at {where})" if where else "")


def first_line(text: str, limit: int = 160) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit] + "..."


# --- the folder a case runs in --------------------------------------------------------------------------


def prepare_folder(folder: Path, case: Case) -> tuple[Path, Path]:
    """An otherwise empty folder holding the case's track and a sentinel where solve writes."""
    folder.mkdir(exist_ok=True)
    for entry in folder.iterdir():  # what the last case left, a stray temporary included
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    track, motion = folder / "track.json", folder / "motion.json"
    track.write_bytes(case.data)
    motion.write_bytes(SENTINEL)
    return track, motion


def snapshot(folder: Path) -> dict:
    """Every entry of the folder: name -> its bytes (a folder: None)."""
    return {entry.name: None if entry.is_dir() else entry.read_bytes() for entry in folder.iterdir()}


def changes(before: dict, after: dict) -> list[str]:
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(name for name in set(before) & set(after) if before[name] != after[name])
    return ([f"new {name}" for name in added] + [f"removed {name}" for name in removed]
            + [f"changed {name}" for name in changed])


# --- the motion a solve wrote --------------------------------------------------------------------------


def _refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


# A float literal can only overflow to infinity with a 3-digit exponent or 309 digits before its point.
_MAYBE_HUGE = re.compile(rb"[eE][-+]?\d{3}|\d{309}")


def non_finite_literal(data: bytes) -> str | None:
    """The first number of the JSON text that reads as a non-finite float (1e400, 400 digits), or None.
    The regular expression spares the common case a second, hooked parse."""
    if not _MAYBE_HUGE.search(data):
        return None
    found = []

    def check(text):
        if not math.isfinite(float(text)) and not found:
            found.append(text[:40])
        return 0.0

    try:
        json.loads(data.decode("utf-8"), parse_float=check, parse_int=check, parse_constant=_refuse_constant)
    except OverflowError:  # float() of a huge integer literal
        return "an integer too large for a float"
    return found[0] if found else None


def motion_problem(data: bytes) -> str | None:
    """What is wrong with a written motion file, or None: strict JSON, all numbers finite, the format."""
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return f"the motion is not strict JSON: {first_line(str(exc), 80)}"
    huge = non_finite_literal(data)
    if huge:
        return f"the motion holds a number beyond a float: {huge}"
    if not isinstance(doc, dict) or doc.get("format") != "footprint-motion":
        return "the motion is not a footprint-motion document"
    return None


# --- the properties ----------------------------------------------------------------------------------------


@dataclass
class Failure:
    kind: str  # what went wrong, with numbers and paths blanked: failures of one kind group together
    detail: str
    case: Case


def kind_of(command: str, what: str, folder: Path) -> str:
    text = what.replace(str(folder), "<folder>")
    text = re.sub(r"\(at [^)]*\)", "", text)  # the frame: the same bug is reached from several places
    text = re.sub(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", "#", text)
    return f"{command}: {text.strip()}"


def call_failures(command: str, outcome: Outcome, before: dict, after: dict, folder: Path) -> list[tuple]:
    """(kind, detail) of every property a validate or solve call broke (1, 2, 4 and, for solve, 3, 6)."""
    if outcome.timed_out or outcome.seconds > CALL_SECONDS:  # the latter: the code swallowed the alarm
        return [(f"{command}: hang (no answer after {CALL_SECONDS:g} s)", outcome.escaped)]
    if outcome.escaped:
        return [(kind_of(command, f"traceback {outcome.escaped}", folder), outcome.escaped)]
    if outcome.code not in (0, 1):
        return [(f"{command}: exit code {outcome.code!r}", outcome.stderr[-500:])]
    found = []
    error_lines = [line for line in outcome.stderr.splitlines() if line.startswith("error:")]
    if outcome.code == 1 and not error_lines:
        found.append((f"{command}: refused without an 'error:' line", outcome.stderr[-500:]))
    if outcome.code == 1 or command == "validate":
        if changes(before, after):
            verdict = "refused" if outcome.code else "accepted"
            found.append((f"{command}: {verdict} but changed the folder: {', '.join(changes(before, after))}",
                          first_line(outcome.stderr)))
        return found
    # solve, exit 0: only the motion changed, and it holds finite numbers
    unexpected = [c for c in changes(before, after) if c != "changed motion.json"]
    if unexpected:
        found.append((f"solve: succeeded but {', '.join(unexpected)}", ""))
    if "motion.json" in after and after["motion.json"] == before.get("motion.json"):
        found.append(("solve: succeeded but did not write the motion", outcome.stdout[-300:]))
    elif after.get("motion.json") is not None:
        problem = motion_problem(after["motion.json"])
        if problem:
            found.append((kind_of("solve", f"succeeded but {problem}", folder), problem))
    return found


def error_line(outcome: Outcome) -> str:
    return first_line(next((line for line in outcome.stderr.splitlines() if line.startswith("error:")),
                           outcome.stderr))


def agreement_failures(validate: Outcome, solve: Outcome, folder: Path) -> list[tuple]:
    """Property 5: validate's verdict is solve's, at the same fps."""
    if validate.code == 0 and solve.code == 1:
        return [(kind_of("validate", f"accepts what solve refuses: {error_line(solve)}", folder), error_line(solve))]
    if validate.code == 1 and solve.code == 0:
        return [(kind_of("validate", f"refuses what solve accepts: {error_line(validate)}", folder),
                 error_line(validate))]
    return []


def run_case(main, case: Case, folder: Path, tally: Counter, durations: dict) -> list[Failure]:
    track, motion = prepare_folder(folder, case)
    start = snapshot(folder)
    fps = ["--fps", case.fps] if case.fps else []
    validate = run_main(main, ["validate", str(track), *fps])
    after_validate = snapshot(folder)
    solve = run_main(main, ["solve", str(track), "--output", str(motion), *fps])
    after_solve = snapshot(folder)
    tally["validated"] += validate.code == 0
    tally["solved"] += solve.code == 0
    durations[case.index] = validate.seconds + solve.seconds
    found = (call_failures("validate", validate, start, after_validate, folder)
             + call_failures("solve", solve, after_validate, after_solve, folder)
             + agreement_failures(validate, solve, folder))
    return [Failure(kind, detail, case) for kind, detail in found]


# --- the report --------------------------------------------------------------------------------------------


def report(failures: list[Failure], seed: int, cases: int, examples: Path) -> str:
    """Failures grouped by kind, most frequent first, with one example each (its steps, the first bytes of
    its track, and the command that replays it; the whole track is saved under examples)."""
    by_kind: dict[str, list[Failure]] = {}
    for failure in failures:
        by_kind.setdefault(failure.kind, []).append(failure)
    examples.mkdir(exist_ok=True)
    lines = [f"fuzz seed {seed}: {len(failures)} failures of {len(by_kind)} kinds in {cases} cases"]
    for number, (kind, group) in enumerate(sorted(by_kind.items(), key=lambda item: -len(item[1]))):
        if number >= MAX_KINDS_SHOWN:  # the rest, a line each
            lines.append(f"[{len(group)}x] {kind} (case {group[0].case.index}: {group[0].case.describe()[:200]})")
            continue
        example = group[0]
        saved = examples / f"kind{number:02d}-case{example.case.index}.json"
        saved.write_bytes(example.case.data)
        head = example.case.data[:200].decode("utf-8", "backslashreplace")
        lines += [f"[{len(group)}x] {kind}",
                  f"    detail: {first_line(example.detail or '', 300)}",
                  f"    case {example.case.index}: {example.case.describe()}",
                  f"    track ({len(example.case.data)} bytes, saved as {saved}): {head!r}",
                  f"    replay: FOOTPRINT_FUZZ_SEED={seed} FOOTPRINT_FUZZ_CASE={example.case.index} "
                  f"./dev test tests/test_fuzz.py"]
    return "\n".join(lines)


# --- the test ------------------------------------------------------------------------------------------------


def test_mutated_tracks_never_crash_hang_or_lose_a_file(addon, tmp_path):
    main = importlib.import_module(addon + ".footprint_addon.cli").main
    seed, indices, bases = fuzz_seed(), case_indices(), base_tracks()
    print(f"\nfuzz seed {seed} (replay with FOOTPRINT_FUZZ_SEED={seed}), {len(indices)} cases")
    failures, tally, durations = [], Counter(), {}
    started = time.perf_counter()
    for index in indices:
        failures += run_case(main, make_case(seed, index, bases), tmp_path / "case", tally, durations)
    seconds = time.perf_counter() - started
    slowest = sorted(durations, key=durations.get, reverse=True)[:5]
    print(f"fuzz: {len(indices)} cases in {seconds:.1f} s; validate accepted {tally['validated']}, "
          f"solve solved {tally['solved']}; {len(failures)} failures; slowest cases "
          + ", ".join(f"{index} ({durations[index]:.2f} s)" for index in slowest))
    if failures:
        pytest.fail(report(failures, seed, len(indices), tmp_path / "failures"), pytrace=False)
    if len(indices) >= 100:
        assert tally["solved"] >= MIN_SOLVED_SHARE * len(indices), (
            f"fuzz seed {seed}: only {tally['solved']} of {len(indices)} cases solved; the mutations have "
            f"drifted into testing the parser alone (track_mutations.make_case)")
