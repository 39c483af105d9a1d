"""Importing numpy for the knowledge store: lazily, and with single-threaded BLAS.

The store's vector work is small (one query against at most a few hundred thousand rows), where
BLAS worker threads cost more than they gain: on a busy two-core machine a threaded 50,000-row
matrix-vector product took 4-20 times longer than a single-threaded one. OpenBLAS (and OpenMP,
MKL) read their thread count once, when numpy is first imported, so every knowledge module calls
:func:`prepare` before its first ``import numpy``. A thread count the user set is respected,
and the environment is restored afterwards (child processes see what they saw before).
"""

from __future__ import annotations

import os
import sys

__all__ = ["prepare"]

_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def prepare() -> None:
    """Import numpy (once per process) with one BLAS thread unless the user chose otherwise."""
    if "numpy" in sys.modules:
        return
    added = [name for name in _THREAD_VARIABLES if name not in os.environ]
    for name in added:
        os.environ[name] = "1"
    try:
        import numpy  # noqa: F401
    finally:
        for name in added:
            os.environ.pop(name, None)
