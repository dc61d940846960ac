"""The cuda path (skipped without a CUDA device; CI has none)."""

import pytest
import torch

from gradexplorer import capture
from gradexplorer.resources import read_example

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


def test_next_functions_on_cuda_gives_the_notes_numbers():
    cap = capture(read_example("03_next_functions").replace("requires_grad=True)", "requires_grad=True, device=device)"),
                  device="cuda:0")
    assert cap.ok, cap.error
    c = cap.graph.nodes[cap.node_named("c")]
    assert c["variable"].device == "cuda:0"
    assert c["grad"].item() == pytest.approx(1.32)
    # Records never keep device memory: values come back as CPU tensors.
    assert c["grad"].data.device.type == "cpu"
    assert cap.graph.nodes[cap.node_named("d")]["grads"][0].outputs[0].item() == pytest.approx(1.3)


def test_register_buffer_example_on_cuda_leaves_the_plain_attribute_on_cpu():
    cap = capture(read_example("05_register_buffer"), device="cuda:0")
    assert cap.ok, cap.error
    layer, fixed = cap.modules
    assert layer.entry("layer.w").device == "cuda:0"
    assert layer.entry("layer.a").device == "cpu"
    assert "stayed on cpu when the module moved to cuda:0" in layer.warnings[0].message
    assert fixed.entry("fixed.a").device == "cuda:0" and not fixed.warnings


def test_default_device_is_the_picked_one():
    cap = capture("t = torch.zeros(2)\nprint(t.device)\n", device="cuda:0")
    assert cap.stdout.strip() == "cuda:0"
