"""Engines with Python plugins: build -> serialize -> deserialize works where the creator is registered; in a fresh
process without it, deserialization fails with a message naming the plugin, and the process does not crash."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kiln as trt
from plugin_testlib import CircPadCreatorV2, CircPadCreatorV3, CircPadV2, CircPadV3, Runner, build_plan, register

HERE = os.path.dirname(os.path.abspath(__file__))


def build_circ_pad_plan(builder, logger, v2):
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (1, 2, 3, 3))
    if v2:
        layer = network.add_plugin_v2([x], CircPadV2((1, 0, 2, 1)))
    else:
        layer = network.add_plugin_v3([x], [], CircPadV3((1, 0, 2, 1)))
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    plan = build_plan(builder, network, logger)
    assert plan is not None, logger.errors()
    return bytes(plan)


@pytest.mark.parametrize("v2", [False, True])
def test_round_trip_in_process(builder, logger, v2):
    creator = register(CircPadCreatorV2() if v2 else CircPadCreatorV3())
    plan = build_circ_pad_plan(builder, logger, v2)
    runner = Runner(plan, logger)
    x = np.random.default_rng().normal(size=(1, 2, 3, 3)).astype(np.float32)
    ok, out = runner.run({"y": ((1, 2, 4, 6), np.float32)}, x=x)
    assert ok, logger.errors()
    np.testing.assert_array_equal(out["y"], np.pad(x, ((0, 0), (0, 0), (1, 0), (2, 1)), mode="wrap"))
    if not v2:
        assert trt.TensorRTPhase.RUNTIME in creator.created


FRESH_PROCESS = textwrap.dedent("""
    import sys
    import kiln as trt

    class Logger(trt.ILogger):
        def __init__(self):
            trt.ILogger.__init__(self)
            self.errors = []

        def log(self, severity, msg):
            if severity in (trt.ILogger.ERROR, trt.ILogger.INTERNAL_ERROR):
                self.errors.append(msg)

    logger = Logger()
    runtime = trt.Runtime(logger)
    with open(sys.argv[1], "rb") as f:
        engine = runtime.deserialize_cuda_engine(f.read())
    print("ENGINE", engine is None)
    print("ERRORS", " | ".join(logger.errors))
""")


@pytest.mark.parametrize("v2", [False, True])
def test_fresh_process_without_creator_fails_cleanly(builder, logger, tmp_path, v2):
    register(CircPadCreatorV2() if v2 else CircPadCreatorV3())
    plan = build_circ_pad_plan(builder, logger, v2)
    path = tmp_path / "circpad.engine"
    path.write_bytes(plan)
    script = tmp_path / "fresh.py"
    script.write_text(FRESH_PROCESS)
    env = dict(os.environ)
    result = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, env=env,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "ENGINE True" in result.stdout
    name = "CircPadPy" if v2 else "CircPadPyV3"
    errors = [line for line in result.stdout.splitlines() if line.startswith("ERRORS")][0]
    assert name in errors, result.stdout
