"""test_pyinit.py — python/cudal1/pyinit.py, how a KernelBench-format task's modules get their
params: one seed gives Model and a ModelNew that initialises the same way the same values and
consistent derived state; another seed other values; the off-default construction moves every
constant parameter (init.ones_/zeros_, Parameter(torch.ones), BatchNorm's running statistics)
the same way in both modules whatever their order, leaves the generator's own draws as a plain
construction's and restores torch afterwards; align copies Model's values only where the state
maps and differs."""
import math
import os
import sys
import unittest

import torch
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from cudal1 import pyinit  # noqa: E402


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.bn = nn.BatchNorm1d(4)
        self.scale = nn.Parameter(torch.ones(4))


class Folded(nn.Module):
    """Its own names, nn.Linear's init, the scale declared first and folded in __init__."""
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(4))
        self.weight = nn.Parameter(torch.empty(4, 8))
        self.bias = nn.Parameter(torch.empty(4))
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        nn.init.uniform_(self.bias, -1 / math.sqrt(8), 1 / math.sqrt(8))
        self.bn = nn.BatchNorm1d(4)
        with torch.no_grad():
            self.register_buffer("w_s", self.weight * self.scale[:, None])


class Empty(nn.Module):
    """Declares the weights, initialises nothing (maps onto Model's fc by name)."""
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        with torch.no_grad():
            self.fc.weight.zero_()
        self.bn = nn.BatchNorm1d(4)
        self.scale = nn.Parameter(torch.zeros(4))


def build(cls, seed, off=False):
    return pyinit.construct(cls, [], {}, seed, off, "cpu", False)


class TestConstruct(unittest.TestCase):
    def test_one_seed_one_set_of_values_and_derived_state_agrees(self):
        m, f = build(Model, 7), build(Folded, 7)
        self.assertTrue(torch.equal(m.fc.weight, f.weight))
        self.assertTrue(torch.equal(m.fc.bias, f.bias))
        self.assertTrue(torch.allclose(f.w_s, f.weight * f.scale[:, None]))
        self.assertFalse(torch.equal(build(Model, 8).fc.weight, m.fc.weight))

    def test_a_64_bit_seed_is_taken(self):
        self.assertTrue(torch.equal(build(Model, 2**64 - 1).fc.weight,
                                    build(Model, 2**64 - 1).fc.weight))

    def test_off_default_moves_constants_alike_in_both_modules(self):
        m, f = build(Model, 3, off=True), build(Folded, 3, off=True)
        for t in (m.scale, m.bn.weight, m.bn.bias, m.bn.running_mean, m.bn.running_var):
            self.assertEqual(len(set(t.tolist())), 4, t)  # no longer one constant
        self.assertTrue((m.bn.running_var > 0).all())
        self.assertTrue(torch.equal(m.scale, f.scale))
        self.assertTrue(torch.equal(m.bn.weight, f.bn.weight))
        self.assertTrue(torch.equal(m.bn.running_mean, f.bn.running_mean))
        # the module's own draws are a plain construction's
        self.assertTrue(torch.equal(m.fc.weight, build(Model, 3).fc.weight))
        self.assertTrue(torch.allclose(f.w_s, f.weight * f.scale[:, None]))

    def test_torch_is_restored_after_the_off_default_construction(self):
        build(Model, 3, off=True)
        self.assertEqual(nn.Parameter(torch.ones(3)).tolist(), [1.0, 1.0, 1.0])
        self.assertEqual(nn.init.ones_(torch.empty(2)).tolist(), [1.0, 1.0])
        bn = nn.BatchNorm1d(2)
        self.assertEqual(bn.running_var.tolist(), [1.0, 1.0])

    def test_default_construction_keeps_constants(self):
        m = build(Model, 3)
        self.assertEqual(m.scale.tolist(), [1.0] * 4)
        self.assertEqual(m.bn.running_var.tolist(), [1.0] * 4)


class TestAlign(unittest.TestCase):
    def names(self):
        return [k for k, v in Model().state_dict().items() if v.is_floating_point()]

    def test_mapped_state_gets_models_values(self):
        m, e = build(Model, 5), build(Empty, 5)
        self.assertTrue(pyinit.align(e, m, self.names()))
        self.assertTrue(torch.equal(e.fc.weight, m.fc.weight))
        self.assertTrue(torch.equal(e.scale, m.scale))

    def test_nothing_maps_and_the_module_keeps_its_own(self):
        m, f = build(Model, 5), build(Folded, 5)
        before = {k: v.clone() for k, v in f.state_dict().items()}
        self.assertFalse(pyinit.align(f, m, self.names()))
        for k, v in f.state_dict().items():
            self.assertTrue(torch.equal(v, before[k]), k)


if __name__ == "__main__":
    unittest.main()
