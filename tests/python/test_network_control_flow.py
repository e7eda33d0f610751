"""ILoop and IIfConditional from Python: structure, properties and CPU runs against numpy.

The C++ control-flow layers are new; while INetworkDefinition.add_loop/add_if_conditional return None (with the
reason logged) these tests skip themselves with that reason.
"""

import numpy as np
import pytest

import kiln as trt
from network_util import EngineRunner, mark


def build_running_sum(builder, logger, rng):
    """x[5, 3] -> (last value, all values) of acc += x[i], starting from a random constant."""
    net = builder.create_network(0)
    x = net.add_input("x", trt.float32, (5, 3))
    loop = net.add_loop()
    if loop is None:
        pytest.skip("ILoop is not implemented yet: " + logger.errors())
    loop.name = "running_sum"
    trip = net.add_constant((), np.array(5, np.int32)).get_output(0)
    limit = loop.add_trip_limit(trip, trt.TripLimit.COUNT)
    iterator = loop.add_iterator(x, 0, False)
    start = rng.standard_normal(3).astype(np.float32)
    rec = loop.add_recurrence(net.add_constant((3,), start).get_output(0))
    acc = net.add_elementwise(rec.get_output(0), iterator.get_output(0), trt.ElementWiseOperation.SUM).get_output(0)
    rec.set_input(1, acc)
    last = loop.add_loop_output(acc, trt.LoopOutput.LAST_VALUE)
    every = loop.add_loop_output(acc, trt.LoopOutput.CONCATENATE, 0)
    every.set_input(1, trip)
    mark(net, last.get_output(0), "last")
    mark(net, every.get_output(0), "all")
    return net, start, (loop, limit, iterator, rec, last, every)


def test_loop_structure(builder, logger, rng):
    net, _, (loop, limit, iterator, rec, last, every) = build_running_sum(builder, logger, rng)
    assert isinstance(loop, trt.ILoop) and loop.name == "running_sum"
    assert isinstance(limit, trt.ITripLimitLayer) and limit.kind == trt.TripLimit.COUNT
    assert isinstance(iterator, trt.IIteratorLayer) and iterator.axis == 0 and not iterator.reverse
    assert isinstance(rec, trt.IRecurrenceLayer) and isinstance(rec, trt.ILoopBoundaryLayer)
    assert isinstance(last, trt.ILoopOutputLayer) and last.kind == trt.LoopOutput.LAST_VALUE
    assert every.kind == trt.LoopOutput.CONCATENATE and every.axis == 0
    assert rec.loop.name == "running_sum"
    types = {layer.type for layer in net}
    assert {trt.LayerType.TRIP_LIMIT, trt.LayerType.ITERATOR, trt.LayerType.RECURRENCE,
            trt.LayerType.LOOP_OUTPUT} <= types


def test_loop_running_sum_runs(builder, logger, rng):
    net, start, _ = build_running_sum(builder, logger, rng)
    runner = EngineRunner(builder, net, logger)
    xv = rng.standard_normal((5, 3)).astype(np.float32)
    out = runner.run(x=xv)
    np.testing.assert_allclose(out["last"], start + xv.sum(axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["all"], start + np.cumsum(xv, axis=0), rtol=1e-5, atol=1e-6)


def test_if_conditional_runs_the_taken_branch(builder, logger, rng):
    net = builder.create_network(0)
    a = net.add_input("a", trt.float32, (2, 4))
    c = net.add_input("c", trt.bool, ())
    cond = net.add_if_conditional()
    if cond is None:
        pytest.skip("IIfConditional is not implemented yet: " + logger.errors())
    cond.name = "branch"
    condition = cond.set_condition(c)
    assert isinstance(condition, trt.IConditionLayer)
    assert condition.conditional.name == "branch"
    entry = cond.add_input(a)
    assert isinstance(entry, trt.IIfConditionalInputLayer)
    inside = entry.get_output(0)
    when_true = net.add_unary(inside, trt.UnaryOperation.NEG).get_output(0)
    when_false = net.add_unary(inside, trt.UnaryOperation.EXP).get_output(0)
    exit_layer = cond.add_output(when_true, when_false)
    assert isinstance(exit_layer, trt.IIfConditionalOutputLayer)
    mark(net, exit_layer.get_output(0), "y")
    runner = EngineRunner(builder, net, logger)
    av = rng.standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(runner.run(a=av, c=np.array(True))["y"], -av)
    np.testing.assert_allclose(runner.run(a=av, c=np.array(False))["y"], np.exp(av), rtol=1e-5)
