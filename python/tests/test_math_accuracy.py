"""exp, erf and tanh on the CPU are polynomial approximations
(int21-approximate-math), not libm: their accuracy over the float range and
at the special values."""

import math

import numpy as np
import pytest

import int21
from conftest import tiny_model

SMALLEST_NORMAL = np.finfo(np.float32).tiny
LARGEST = np.finfo(np.float32).max
SPECIALS = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, -1e-30],
                    np.float32)

REFERENCES = {
    "Exp": np.exp,
    "Erf": np.vectorize(math.erf, otypes=[np.float64]),
    "Tanh": np.tanh,
}


def run(op, x, dtype=np.float32):
    engine = int21.compile(tiny_model(op, dtype, [x.size], [x.size]))
    return engine.run({"x": x.astype(dtype)})["y"]


@pytest.mark.parametrize("op", sorted(REFERENCES))
def test_within_a_few_ulp_over_the_range(op):
    x = np.linspace(-100, 100, 200001, dtype=np.float32)
    got = run(op, x).astype(np.float64)
    want = REFERENCES[op](x.astype(np.float64))
    # Results between the smallest normal float and the largest (exp's below
    # flush to zero, as vectorized math libraries do).
    normal = (np.abs(want) >= SMALLEST_NORMAL) & (np.abs(want) <= LARGEST)
    relative = np.abs(got[normal] - want[normal]) / np.abs(want[normal])
    assert relative.max() < 5e-7, x[normal][relative.argmax()]
    assert np.all(np.isfinite(got[normal]))


@pytest.mark.parametrize("op", sorted(REFERENCES))
def test_special_values(op):
    got = run(op, SPECIALS)
    with np.errstate(all="ignore"):
        want = REFERENCES[op](SPECIALS.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-6, atol=0)


def test_half_precision_is_computed_in_float():
    x = np.linspace(-8, 8, 4001, dtype=np.float16)
    got = run("Tanh", x, np.float16).astype(np.float64)
    want = np.tanh(x.astype(np.float64)).astype(np.float16).astype(np.float64)
    # Within one f16 rounding of the exact result.
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
