"""torchviz's picture of the 3-step CNN loop of docs/pass-view-cnn.png, for the comparison in the README.

Usage::

    pip install torchviz          # and Graphviz's dot (Debian: apt-get install graphviz)
    python scripts/make_torchviz_picture.py [OUT.png]   (default docs/torchviz-cnn.png)

torchviz and Graphviz are not dependencies of gradexplorer: without them the
script says so and exits with status 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    try:
        from torchviz import make_dot
    except ImportError:
        print("make_torchviz_picture: torchviz is not installed (pip install torchviz)", file=sys.stderr)
        return 2
    import torch
    from torch import nn

    from tests.programs import CNN_LOOP

    namespace = {"torch": torch, "nn": nn}
    # The same program, its last pass kept for torchviz (it reads the graph after the run).
    exec(CNN_LOOP.replace("loss.backward()", "loss.backward(retain_graph=True)"), namespace)
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "docs" / "torchviz-cnn.png"
    dot = make_dot(namespace["loss"], params=dict(namespace["model"].named_parameters()))
    dot.format = "png"
    dot.render(str(out.with_suffix("")), cleanup=True)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
