"""Small programs shared by the core and the GUI tests."""

import textwrap

#: Nested modules (model.2 is a Sequential inside the Sequential), one backward.
MODEL = textwrap.dedent("""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Sequential(nn.Linear(8, 8), nn.ReLU()), nn.Linear(8, 1))
    x = torch.randn(5, 4)
    loss = model(x).pow(2).mean()
    loss.backward()
""")
