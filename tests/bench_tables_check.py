#!/usr/bin/env python3
"""The speed and accuracy tables of README.md and docs/benchmarks.md agree with
the recorded data: every row of them is a row that

    python3 examples/plot_bench.py --table docs/results/speed.jsonl docs/results/accuracy.jsonl

prints. After a new measurement, rewrite the JSON lines
(scripts/anchor-table-jsonl.py LOG REVISION DATE) and copy the rows."""
import pathlib
import re
import subprocess
import sys

src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])
results = src / "docs" / "results"
printed = subprocess.run([sys.executable, str(src / "examples" / "plot_bench.py"), "--table",
                          str(results / "speed.jsonl"), str(results / "accuracy.jsonl")],
                         check=True, capture_output=True, text=True).stdout
rows = {line.strip() for line in printed.splitlines() if line.startswith("| ") and "---" not in line}


def section_rows(path, heading):
    """Table rows under `## heading` up to the next heading."""
    text = path.read_text()
    m = re.search(rf"^## {heading}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert m, f"{path}: no section '{heading}'"
    return [line.strip() for line in m.group(1).splitlines() if line.startswith("| ") and "---" not in line]


checked, bad = 0, []
for path, heading in ((src / "README.md", "Speed"), (src / "README.md", "Accuracy"),
                      (src / "docs" / "benchmarks.md", "Speed against the strongest anchors"),
                      (src / "docs" / "benchmarks.md", "Accuracy")):
    for row in section_rows(path, heading):
        checked += 1
        if row not in rows:
            bad.append(f"{path.name} ({heading}): {row}")
if bad:
    sys.exit("rows not in the recorded data (docs/results/*.jsonl):\n  " + "\n  ".join(bad) + "\n" + __doc__)
print(f"{checked} table rows agree with docs/results/speed.jsonl and accuracy.jsonl")
