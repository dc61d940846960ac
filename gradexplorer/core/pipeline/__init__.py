"""The capture as a pipeline: run the program (:mod:`gradexplorer.core.capture.run`), then named, timed build steps.

:func:`capture` and :func:`build_capture` are in :mod:`.compose`; the steps, in
order, are :data:`.steps.STEPS`.
"""

from .compose import build_capture, capture, run_steps
from .steps import STEPS, Step

__all__ = ["STEPS", "Step", "build_capture", "capture", "run_steps"]
