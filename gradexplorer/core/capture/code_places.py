"""Where a frame's code lives: torch's own files, gradexplorer's core, the wrappers a backward call goes through.

The recorder tells the user's calls from library calls by the file a frame
runs: a backward call made from inside torch (``torch.func``, a reentrant
checkpoint) is not a user pass, and a hook registered from torch's or
gradexplorer's own code is a library hook.
"""

from __future__ import annotations

import os

import torch

__all__ = ["CORE_DIR", "PASS_WRAPPERS", "TORCH_DIR"]

#: Files of torch's own package: a backward call made from there is library-internal.
TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
#: The API wrappers a user's backward call passes through before the mode sees it.
PASS_WRAPPERS = (
    os.path.join(TORCH_DIR, "overrides.py"),
    os.path.join(TORCH_DIR, "_tensor.py"),
    os.path.join(TORCH_DIR, "autograd", "__init__.py"),
)
#: gradexplorer's core package: its frames are never the user's.
CORE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
