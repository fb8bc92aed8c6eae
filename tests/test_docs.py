"""The manual cannot drift from the product (issue 27). What is checked, and so the rules the pages follow:

- README.md is a landing page: fewer than 150 lines. It and docs/index.md link every page of docs/.
- docs/command-line.md holds every command's `--help` verbatim, as `python -m footprint_locomotion` prints it with
  COLUMNS=100: the first ```text block under the heading "## Every command" is the top-level `--help`, the first
  under each "### `CMD`" heading is `CMD --help`, and every command the parser lists has such a section (batch
  --jobs' own worker command is not listed, and not documented). After a change to the parser,
  `./dev python tests/test_docs.py --write` rewrites those blocks from the real `--help` (the functions the test
  compares with).
- Every command-line example runs. In README.md and docs/*.md a ```bash block holds only
  - commands starting `./dev python -m footprint_locomotion` or `python -m footprint_locomotion`: each is run with
    this Python (`./dev python` or `python` replaced by sys.executable), its words split as a shell splits them, a
    trailing `# comment` dropped;
  - the `# ` lines right below a command: what it prints. A first line `# exit status N` says it is meant to fail
    with status N (otherwise it must exit 0); the other lines, joined, must appear in its stdout or stderr
    (whitespace aside);
  - `./dev ...` lines (the developer entry points, which set up an environment: not run here), comments on them,
    and blank lines.
  A page's commands run in page order in one temporary folder, which starts as a clone does: tests/data copied in,
  with the files the page assumes (PAGE_FILES); a ```json file=NAME block is written to NAME there before the
  commands below it run. After a command exits 0, every file it names after --output, --output-dir or
  --track-output exists; after one fails, each is as it was before (absent, or the same bytes).
- Every panel of the Footprints tab (each FOOTPRINT_PT_* class in footprint_addon/ui) is named in docs/ as
  "**Label** panel", and every operator (each FOOTPRINT_OT_* class in footprint_addon/operators) by its label in
  bold: read from the source with ast, no Blender needed.
- Every relative link in README.md and docs/*.md reaches a file that exists, and a #anchor a heading of it; every
  repository path the pages quote as code (`solver/...`, `footprint_addon/...`, `farm/...`, `tests/...`,
  `docs/...`) exists.
"""

import ast
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pytest

from cli_run import cli_command, digest, needs_module_install, run_cli
from conftest import ROOT
from test_planning_extraction_rig import module, walk  # noqa: F401  (fixtures: the extraction page's walk.blend)
from test_stepping_transition import strips_blend  # noqa: F401  (fixture: the stepping page's strips.blend)

README = os.path.join(ROOT, "README.md")
DOCS = os.path.join(ROOT, "docs")
COMMAND_LINE = os.path.join(DOCS, "command-line.md")
README_MAX_LINES = 150
HELP_COLUMNS = "100"
TOP_HELP_HEADING = "## Every command"
COMMAND_HEADING = re.compile(r"^### `([a-z-]+)`$")
RUNNABLE = re.compile(r"^(\./dev python|python) -m footprint_locomotion(\s|$)")
OUTPUT_OPTIONS = ("--output", "--output-dir", "--track-output")
EXIT_STATUS = re.compile(r"^exit status (\d+)\b")
REPOSITORY_PATH = re.compile(r"`((?:solver|footprint_addon|farm|tests|docs|bench|presets)/[\w./-]*)`")

# Files the page assumes, laid down in its folder before its commands run: {page: {name: fixture}}, each fixture the
# suite's own, giving the file's path (or a tuple starting with it).
PAGE_FILES = {
    # a Rigify human `rig` (generated from Blender's metarig) with vdP97's Fig. 1 imported as the track `fig1`
    "rigs-and-baking.md": {"scene.blend": "fig1_scene"},
    # the Rigify human whose own action `Walk` is the product's bake of tests/data/straight_walk.json
    "extraction.md": {"walk.blend": "walk"},
    # the Rigify human with two standing strips, A and B (B's stance 0.4 m away, turned 45 degrees), 40 frames apart
    "stepping.md": {"strips.blend": "strips_blend"},
}


def pages():
    """README.md and docs/*.md, by path."""
    return [README, *sorted(glob.glob(os.path.join(DOCS, "*.md")))]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


@dataclass
class Block:
    """A fenced block: its info string's first word, the rest of it, and its lines' span in the page (0-based)."""

    language: str
    attributes: str
    start: int  # the first line inside the fence
    end: int  # the closing fence's line
    heading: str  # the last heading above it


def blocks(lines):
    """The page's fenced blocks, in order."""
    found, heading, opened = [], "", None
    for number, line in enumerate(lines):
        stripped = line.strip()
        if opened is None:
            if stripped.startswith("```"):
                info = stripped[3:].split(maxsplit=1)
                opened = (info[0] if info else "", info[1] if len(info) > 1 else "", number + 1)
            elif line.startswith("#"):
                heading = line.rstrip()
        elif stripped == "```":
            found.append(Block(opened[0], opened[1], opened[2], number, heading))
            opened = None
    assert opened is None, f"a fenced block opened at line {opened[2]} is never closed"
    return found


def prose(lines):
    """The page's lines outside fenced blocks (the fences and code lines blanked, so numbers stay)."""
    code = {number for block in blocks(lines) for number in range(block.start - 1, block.end + 1)}
    return ["" if number in code else line for number, line in enumerate(lines)]


# --- the command line's --help --------------------------------------------------------------------------------------


def help_argv(heading):
    """The --help command a help section's heading stands for (a tuple of words), or None."""
    if heading == TOP_HELP_HEADING:
        return ("--help",)
    match = COMMAND_HEADING.match(heading)
    return (match.group(1), "--help") if match else None


def help_blocks(lines):
    """{argv: the first ```text block under its heading} for the help sections of docs/command-line.md."""
    found = {}
    for block in blocks(lines):
        argv = help_argv(block.heading)
        if argv is not None and block.language == "text" and argv not in found:
            found[argv] = block
    return found


def help_text(argv):
    """What `python -m footprint_locomotion ARGV` prints at COLUMNS=100 (exit status 0 asserted)."""
    proc = subprocess.run(cli_command(*argv), cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": HELP_COLUMNS})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.rstrip("\n")


def listed_commands(top_help):
    """The commands the top-level --help lists, in its order (its usage's {a,b,...})."""
    return re.search(r"\{([a-z,-]+)\}", top_help).group(1).split(",")


def all_help(argvs):
    with ThreadPoolExecutor(max_workers=2) as pool:  # each a Python starting bpy: two at a time on two cores
        return dict(zip(argvs, pool.map(help_text, argvs)))


@needs_module_install
def test_command_line_page_holds_every_commands_help_verbatim():
    lines = read(COMMAND_LINE).splitlines()
    found = help_blocks(lines)
    top = help_text(("--help",))
    commands = listed_commands(top)
    assert "batch-worker" not in commands
    missing = [name for name in commands if (name, "--help") not in found]
    assert not missing, f"docs/command-line.md has no section ### `NAME` with its --help for {missing}"
    unknown = [argv[0] for argv in found if argv != ("--help",) and argv[0] not in commands]
    assert not unknown, f"docs/command-line.md documents commands the parser does not list: {unknown}"
    assert ("--help",) in found, f"docs/command-line.md has no ```text block under {TOP_HELP_HEADING!r}"
    printed = {("--help",): top, **all_help([(name, "--help") for name in commands])}
    stale = []
    for argv, block in found.items():
        shown = "\n".join(lines[block.start:block.end])
        if shown != printed[argv]:
            stale.append(argv)
            print(f"--- docs/command-line.md, the block after line {block.start}: `{' '.join(argv)}` prints:\n"
                  f"{printed[argv]}\n")
    assert not stale, f"stale --help in docs/command-line.md for {stale}: ./dev python tests/test_docs.py --write"


def write_help():
    """Rewrite docs/command-line.md's help blocks from the real --help (the test's own functions)."""
    lines = read(COMMAND_LINE).splitlines()
    found = help_blocks(lines)
    printed = all_help(list(found))
    for argv, block in sorted(found.items(), key=lambda item: -item[1].start):  # from the bottom, spans stay
        lines[block.start:block.end] = printed[argv].split("\n")
    with open(COMMAND_LINE, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"rewrote {len(found)} --help blocks in {COMMAND_LINE}")


# --- the examples ---------------------------------------------------------------------------------------------------


@dataclass
class Example:
    """A command of a page's ```bash block, and what the page says of it."""

    line: int  # 1-based, in the page
    text: str
    status: int = 0
    shown: list = field(default_factory=list)  # the lines it prints, as the page gives them

    def args(self):
        """The words after `python -m footprint_locomotion`."""
        words = shlex.split(self.text, comments=True)
        return words[4:] if words[0] == "./dev" else words[3:]

    def outputs(self):
        args = self.args()
        return [args[k + 1] for k, word in enumerate(args[:-1]) if word in OUTPUT_OPTIONS]


def steps(path):
    """A page's examples and the files its ```json file=NAME blocks write, in page order: Example or (name, text)."""
    lines = read(path).splitlines()
    found = []
    for block in blocks(lines):
        if block.language == "json" and block.attributes.startswith("file="):
            found.append((block.attributes[len("file="):], "\n".join(lines[block.start:block.end]) + "\n"))
        if block.language != "bash":
            continue
        example = None
        for number in range(block.start, block.end):
            line = lines[number]
            where = f"{os.path.relpath(path, ROOT)}:{number + 1}"
            if RUNNABLE.match(line):
                assert not line.rstrip().endswith("\\"), f"{where}: write the command on one line"
                example = Example(number + 1, line)
                found.append(example)
            elif line.startswith("#") and example is not None:
                said = line[1:].strip()
                status = EXIT_STATUS.match(said)
                if status and not example.shown and example.status == 0:
                    example.status = int(status.group(1))
                else:
                    example.shown.append(said)
            elif line.lstrip().startswith("#"):
                continue  # a comment on the lines above
            elif line.startswith(("./dev ", "BLENDER=")) or not line.strip():
                example = None
            else:
                raise AssertionError(f"{where}: a ```bash block holds only commands the docs test runs, their "
                                     f"output as `# ` lines, and ./dev lines: use ```text for {line!r}")
    return found


def runnable_pages():
    return [os.path.relpath(path, ROOT) for path in pages() if any(isinstance(s, Example) for s in steps(path))]


def lay_down(request, page, folder):
    """The folder a page's commands run in, as a clone: tests/data, and the files the page assumes."""
    shutil.copytree(os.path.join(ROOT, "tests", "data"), folder / "tests" / "data")
    for name, fixture in PAGE_FILES.get(os.path.basename(page), {}).items():
        made = request.getfixturevalue(fixture)
        shutil.copyfile(made[0] if isinstance(made, tuple) else made, folder / name)


def normalised(text):
    return " ".join(text.split())


@needs_module_install
@pytest.mark.parametrize("page", runnable_pages())
def test_every_example_of_the_page_runs(page, request, tmp_path):
    folder = tmp_path / "clone"
    lay_down(request, page, folder)
    for step in steps(os.path.join(ROOT, page)):
        if isinstance(step, tuple):
            name, text = step
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
            continue
        where = f"{page}:{step.line}: {step.text}"
        before = {out: digest(folder / out) if (folder / out).is_file() else None for out in step.outputs()}
        proc = run_cli(*step.args(), cwd=folder)
        said = f"{where}\nstdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
        assert proc.returncode == step.status, said
        if step.shown:
            assert normalised(" ".join(step.shown)) in normalised(proc.stdout + "\n" + proc.stderr), said
        for out, was in before.items():
            if step.status == 0:
                assert (folder / out).exists(), f"{where}: wrote no {out}"
            else:
                now = digest(folder / out) if (folder / out).is_file() else None
                assert now == was and ((folder / out).exists() or was is None), f"{where}: changed {out}"


def test_the_pages_that_assume_files_exist():
    names = {os.path.basename(path) for path in pages()}
    assert set(PAGE_FILES) <= names, set(PAGE_FILES) - names


# --- the landing page, the index, the panels and operators, the links -----------------------------------------------


def test_readme_is_a_landing_page_under_150_lines():
    count = len(read(README).splitlines())
    assert count < README_MAX_LINES, f"README.md has {count} lines"


def links(path):
    """(line number, target) of every link and image in the page's prose."""
    found = []
    text = "\n".join(prose(read(path).splitlines()))
    for match in re.finditer(r"\]\(([^)\s]+)\)", text):
        found.append((text.count("\n", 0, match.start()) + 1, match.group(1)))
    return found


def test_readme_and_the_index_link_every_page_of_the_manual():
    manual = {os.path.basename(path) for path in glob.glob(os.path.join(DOCS, "*.md"))}
    from_readme = {os.path.basename(target.split("#")[0]) for _line, target in links(README)
                   if target.startswith("docs/")}
    from_index = {target.split("#")[0] for _line, target in links(os.path.join(DOCS, "index.md"))}
    assert manual - {"index.md"} <= from_index, f"docs/index.md does not link {manual - {'index.md'} - from_index}"
    assert manual <= from_readme, f"README.md does not link {manual - from_readme}"


def labels(folder, prefix):
    """{class name: bl_label} of the classes named prefix* in folder/*.py, read from the source."""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, folder, "*.py"))):
        for node in ast.walk(ast.parse(read(path))):
            if isinstance(node, ast.ClassDef) and node.name.startswith(prefix):
                for item in node.body:
                    if (isinstance(item, ast.Assign) and any(getattr(t, "id", None) == "bl_label" for t in item.targets)
                            and isinstance(item.value, ast.Constant)):
                        found[node.name] = item.value.value
    return found


def manual_text():
    return "\n".join(read(path) for path in pages())


def test_every_panel_is_named_in_the_manual():
    panels = labels("footprint_addon/ui", "FOOTPRINT_PT_")
    assert len(panels) >= 11  # the Footprints tab's panels and sub-panels: the source was read
    text = normalised(manual_text())
    missing = {name: label for name, label in panels.items() if f"**{label}** panel" not in text}
    assert not missing, f"panels the manual does not name as **Label** panel: {missing}"


def test_every_operator_is_named_in_the_manual():
    operators = labels("footprint_addon/operators", "FOOTPRINT_OT_")
    assert len(operators) >= 25  # the source was read
    text = normalised(manual_text())
    missing = {name: label for name, label in operators.items() if f"**{label}**" not in text}
    assert not missing, f"operators the manual does not name in bold: {missing}"


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = heading.lstrip("#").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text.replace("`", ""))
    return text.replace(" ", "-")


def anchors(path):
    seen, found = {}, set()
    for line in prose(read(path).splitlines()):
        if re.match(r"^#{1,6} ", line):
            base = slug(line)
            found.add(base if base not in seen else f"{base}-{seen[base]}")
            seen[base] = seen.get(base, 0) + 1
    return found


def test_every_relative_link_reaches_a_file_and_heading_that_exist():
    broken = []
    for path in pages():
        for line, target in links(path):
            if re.match(r"^[a-z]+:", target):
                continue  # (no page links outside the repository but by intent)
            name, _, anchor = target.partition("#")
            linked = os.path.normpath(os.path.join(os.path.dirname(path), name)) if name else path
            if not os.path.exists(linked):
                broken.append(f"{os.path.relpath(path, ROOT)}:{line}: {target} (no such file)")
            elif anchor and anchor not in anchors(linked):
                broken.append(f"{os.path.relpath(path, ROOT)}:{line}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_every_repository_path_the_pages_quote_exists():
    missing = []
    for path in pages():
        for number, line in enumerate(read(path).splitlines(), 1):
            for quoted in REPOSITORY_PATH.findall(line):
                if not os.path.exists(os.path.join(ROOT, quoted.rstrip("."))):
                    missing.append(f"{os.path.relpath(path, ROOT)}:{number}: {quoted}")
    assert not missing, "\n".join(missing)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: ./dev python tests/test_docs.py --write  (rewrites docs/command-line.md's --help blocks)")
    write_help()
