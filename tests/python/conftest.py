"""Shared pytest fixtures of Kiln's Python tests (tests/python).

Run with the build-tree module on the path, e.g.
``PYTHONPATH=build/python python3 -m pytest tests/python -q``.

Fixtures:
    logger        a RecordingLogger (a trt.ILogger subclass) that stores every message
    builder       a trt.Builder logging to ``logger``
    rng           a numpy Generator with a fresh seed, printed when a test fails
    tiny_network  a factory building input -> ReLU -> output networks (see make_tiny_network)

Helpers importable from tests (``from conftest import ...``): RecordingLogger, make_tiny_network, poisoned.
"""

import threading

import numpy as np
import pytest

import kiln as trt


class RecordingLogger(trt.ILogger):
    """A trt.ILogger that records (severity, message) pairs; safe to call from any thread."""

    def __init__(self, min_severity=trt.ILogger.VERBOSE):
        trt.ILogger.__init__(self)
        self.min_severity = min_severity
        self.messages = []
        self.threads = set()
        self._lock = threading.Lock()

    def log(self, severity, msg):
        """Record one message (called by Kiln with the GIL held)."""
        if int(severity) > int(self.min_severity):
            return
        with self._lock:
            self.messages.append((severity, msg))
            self.threads.add(threading.get_ident())

    def of_severity(self, *severities):
        """The messages with one of the given severities."""
        with self._lock:
            return [m for s, m in self.messages if s in severities]

    def errors(self):
        """All ERROR and INTERNAL_ERROR messages joined by newlines (handy in assert messages)."""
        return "\n".join(self.of_severity(trt.ILogger.ERROR, trt.ILogger.INTERNAL_ERROR))

    def clear(self):
        """Forget the recorded messages."""
        with self._lock:
            self.messages.clear()


def make_tiny_network(builder, shape=(2, 3), dtype=None, flags=0, input_name="x", output_name="y"):
    """Build ``input -> ReLU -> output``; returns (network, input_tensor, output_tensor).

    A -1 in ``shape`` makes the input dynamic (add an optimization profile before building).
    Skips the calling test when the network API is not bound yet.
    """
    network = builder.create_network(flags)
    if not hasattr(network, "add_input") or not hasattr(network, "add_activation"):
        pytest.skip("INetworkDefinition.add_input/add_activation are not bound yet")
    x = network.add_input(input_name, trt.float32 if dtype is None else dtype, shape)
    relu = network.add_activation(x, trt.ActivationType.RELU)
    y = relu.get_output(0)
    y.name = output_name
    network.mark_output(y)
    return network, x, y


def poisoned(shape, dtype=np.float32):
    """An array filled with NaN (floats) or a sentinel (integers), to detect outputs a run did not write."""
    array = np.empty(shape, dtype=dtype)
    if np.issubdtype(array.dtype, np.floating):
        array.fill(np.nan)
    else:
        array.fill(np.iinfo(array.dtype).min if np.issubdtype(array.dtype, np.integer) else 1)
    return array


@pytest.fixture
def logger():
    """A fresh RecordingLogger."""
    return RecordingLogger()


@pytest.fixture
def builder(logger):
    """A trt.Builder that logs to the ``logger`` fixture."""
    return trt.Builder(logger)


@pytest.fixture
def rng(request):
    """A numpy Generator seeded freshly for each test; the seed is printed with the failure report."""
    seed = int(np.random.SeedSequence().entropy % (2**32))
    print(f"rng seed: {seed}")
    return np.random.default_rng(seed)


@pytest.fixture
def tiny_network(builder):
    """A factory: tiny_network(shape=(2, 3), ...) -> (network, input, output) built with ``builder``."""

    def factory(**kwargs):
        return make_tiny_network(builder, **kwargs)

    return factory
