"""The benchmarks (``bench/README.md``). Importing the package sets Django up first (``bootstrap``)."""

from bench import bootstrap as bootstrap
