"""The heuristic baseline across snapshot budgets and after-action modes, per task tag.

    python benchmarks/bench_heuristic.py [--out-root /tmp/heuristic-sweep] [--workers 2]
                                         [--no-run] [--write-readme]

Runs the builtin eval suite (48 tasks on the bundled sites) with the model-free
``heuristic`` provider at snapshot budgets (``--max-tokens``) 500, 1000, 2000, 3000 and 4000
with ``--after-action none``, and at 3000 with ``--after-action diff``, plus the ``reference``
provider at default settings, each through the ``webrefs eval run`` command into its own
folder under ``--out-root``. Then it reads each ``results.json`` and prints a markdown table:
success overall and for each task tag (from each episode's ``tags``), per configuration.
``--no-run`` only reads the folders of an earlier sweep.

Success is counted over valid episodes (success or failure); invalid episodes and errors
are shown apart when there are any.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parent / "README.md"
START, END = "<!-- heuristic:start -->", "<!-- heuristic:end -->"
WEBREFS = Path(sys.executable).parent / "webrefs"
CONFIGS: list[tuple[str, str, int, str]] = [
    # (folder, provider, --max-tokens, --after-action)
    ("heuristic-500-none", "heuristic", 500, "none"),
    ("heuristic-1000-none", "heuristic", 1000, "none"),
    ("heuristic-2000-none", "heuristic", 2000, "none"),
    ("heuristic-3000-none", "heuristic", 3000, "none"),
    ("heuristic-4000-none", "heuristic", 4000, "none"),
    ("heuristic-3000-diff", "heuristic", 3000, "diff"),
    ("reference-default", "reference", 3000, "none"),
]


def run(out_root: Path, workers: int) -> dict[str, float]:
    """Run every configuration; wall seconds of each."""
    walls = {}
    for folder, provider, budget, after in CONFIGS:
        cmd = [str(WEBREFS), "eval", "run", "--suite", "builtin", "--provider", provider,
               "--out", str(out_root / folder), "--workers", str(workers), "--quiet"]
        if provider != "reference":  # the reference runs at the CLI's defaults
            cmd += ["--max-tokens", str(budget), "--after-action", after]
        started = time.monotonic()
        print(f"running {folder} (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        walls[folder] = time.monotonic() - started
    return walls


def load(out_root: Path, folder: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out_root / folder / "results.json").read_text("utf-8"))
    return data


def rate(episodes: list[dict[str, Any]]) -> str:
    valid = [e for e in episodes if e["status"] in ("success", "failure")]
    if not valid:
        return "-"
    wins = sum(e["status"] == "success" for e in valid)
    return f"{wins}/{len(valid)} ({100 * wins / len(valid):.0f}%)"


def label(folder: str) -> str:
    _, provider, budget, after = next(c for c in CONFIGS if c[0] == folder)
    return "reference, defaults" if provider == "reference" else f"{budget}, {after}"


def table(out_root: Path) -> str:
    heuristic = [c for c in CONFIGS if c[1] == "heuristic"]
    runs = {c[0]: load(out_root, c[0]) for c in heuristic}
    tags: dict[str, int] = defaultdict(int)
    for episode in next(iter(runs.values()))["episodes"]:
        for tag in episode["tags"]:
            tags[tag] += 1
    order = sorted(tags, key=lambda t: (-tags[t], t))
    head = "| tag (tasks) | " + " | ".join(label(f) for f in runs) + " |"
    lines = ["Heuristic provider, success by configuration (budget = `--max-tokens`, then "
             "`--after-action`):", "", head, "|---|" + "---:|" * len(runs)]
    total = len(next(iter(runs.values()))["episodes"])
    lines.append(f"| **all ({total})** | "
                 + " | ".join(f"**{rate(r['episodes'])}**" for r in runs.values()) + " |")
    for tag in order:
        cells = [rate([e for e in r["episodes"] if tag in e["tags"]]) for r in runs.values()]
        lines.append(f"| {tag} ({tags[tag]}) | " + " | ".join(cells) + " |")
    medians = []
    steps = []
    apart = []
    cut = []
    for r in runs.values():
        eps = r["episodes"]
        medians.append(f"{statistics.median(e['observation_tokens'] for e in eps):,.0f}")
        steps.append(f"{statistics.median(e['steps'] for e in eps):g}")
        bad = sum(e["status"] in ("invalid", "error") for e in eps)
        apart.append(str(bad))
        snaps = [c["output"] for e in eps for c in e["trajectory"]
                 if c["tool"] == "web_snapshot" and c["output"].startswith("[snapshot]")]
        cut.append(f"{sum('truncated=true' in o.split(chr(10), 1)[0] for o in snaps)}"
                   f"/{len(snaps)}")
    lines.append("| median tool-result tokens / task | " + " | ".join(medians) + " |")
    lines.append("| median steps / task | " + " | ".join(steps) + " |")
    lines.append("| snapshots cut by the budget | " + " | ".join(cut) + " |")
    lines.append("| invalid + error episodes | " + " | ".join(apart) + " |")

    ref = load(out_root, "reference-default")
    eps = ref["episodes"]
    snaps = [c["tokens"] for e in eps for c in e["trajectory"] if c["tool"] == "web_snapshot"]
    per_step = [c["tokens"] for e in eps for c in e["trajectory"]]
    options = ref["run"]["options"]
    lines += ["", f"Reference provider at default settings (`--max-tokens "
              f"{options['max_tokens']}`, `--after-action {options['after_action']}`): success "
              f"{rate(eps)}; median snapshot tokens per `web_snapshot` step "
              f"{statistics.median(snaps):.0f} (p90 "
              f"{statistics.quantiles(snaps, n=10, method='inclusive')[-1]:.0f}, "
              f"{len(snaps)} snapshots); median tokens per step, every tool result "
              f"{statistics.median(per_step):.0f}; median steps per task "
              f"{statistics.median(e['steps'] for e in eps):g}."]
    return "\n".join(lines)


def write_readme(body: str, note: str) -> None:
    section = (f"{START}\n## Heuristic baseline: budgets and after-action modes\n\n"
               "`python benchmarks/bench_heuristic.py --write-readme` (needs Chromium; runs "
               "`webrefs eval run --suite builtin` seven times with `--workers 2 --quiet`, "
               "each into its own folder under `--out-root`).\n\n"
               f"{note}\n\n{body}\n{END}")
    text = README.read_text(encoding="utf-8")
    if START in text and END in text:
        head, rest = text.split(START, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    README.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out-root", type=Path, default=Path("/tmp/heuristic-sweep"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-run", action="store_true", help="only read an earlier sweep")
    parser.add_argument("--write-readme", action="store_true")
    args = parser.parse_args()
    note_file = args.out_root / "sweep-note.txt"
    note = note_file.read_text("utf-8") if note_file.exists() else "From an earlier sweep."
    if not args.no_run:
        before = os.getloadavg()[0]
        walls = run(args.out_root, args.workers)
        note = (f"Measured in one sweep of {sum(walls.values()) / 60:.0f} min "
                f"({min(walls.values()) / 60:.1f}-{max(walls.values()) / 60:.1f} min per run); "
                f"load average {before:.1f} at the start and {os.getloadavg()[0]:.1f} at the "
                "end (other jobs shared the 2 cores; this changes times, not outcomes, unless "
                "a wait times out).")
        note_file.write_text(note, encoding="utf-8")
    body = table(args.out_root)
    print(note + "\n\n" + body)
    if args.write_readme:
        write_readme(body, note)


if __name__ == "__main__":
    main()
