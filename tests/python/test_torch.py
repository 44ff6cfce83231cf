import pytest

import strata

torch = pytest.importorskip("torch")


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.conv(x)) + x


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.block = Block()
        self.head = torch.nn.Linear(4, 5)

    def forward(self, x):
        y = self.block(self.stem(x))
        return self.head(y.mean(dim=(2, 3)))


def test_profile_module_scopes_follow_the_module_tree(tmp_path):
    torch.manual_seed(0)
    net = Net()
    x = torch.randn(1, 3, 16, 16)
    p = strata.profile_module(net, (x,), iterations=3, path=tmp_path / "net.onnx")
    names = [n["name"] for n in p.nodes]
    assert any(n.startswith("/block/conv/") for n in names), names
    assert any(n.startswith("/head/") for n in names), names
    assert p.summary["median_ms"] > 0
    # The exported model computes what the module does.
    got = strata.run(tmp_path / "net.onnx", {"input_0": x.numpy()})
    want = net(x).detach().numpy()
    assert abs(list(got.values())[0] - want).max() < 1e-4
