"""``.venv/bin/python -m bench.contradictions.cross_rules``: the product's verdicts for ``cross``.

Writes ``var/cross-rules.json``: for every outside writer's pair in ``dev/``, whether
today's decision (grammar + change test, ``bench.contradictions``' offline rule, with e5
vectors) supersedes. Run in the product's venv; ``cross`` (torch's venv) reads the file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.contradictions.__main__ import offline_rule
from bench.contradictions.sets import Closeness, load_sets

OUT = Path("var") / "cross-rules.json"


def main() -> int:
    rows = [r for n, rs in load_sets().items() if n.startswith("dev/w") for r in rs]
    closeness = Closeness(enabled=True, cache=str(Path("var") / "contradiction-vectors.npz"))
    closeness.prepare({t for r in rows for t in (r["old"], r["new"])})
    rule = offline_rule(closeness)
    verdicts = {f"{r['old']}\x00{r['new']}": rule(r["old"], r["new"]) == "supersedes" for r in rows}
    OUT.write_text(json.dumps(verdicts, ensure_ascii=False), encoding="utf-8")
    print(f"{len(verdicts)} verdicts in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
