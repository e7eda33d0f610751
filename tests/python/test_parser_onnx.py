"""trt.OnnxParser: models generated here with the ``onnx`` package, parsed from bytes and from files, run and
compared with numpy; parser errors, flags, capability queries and the refitter."""

import numpy as np
import pytest

import kiln as trt
from kiln.runner import EngineRunner
from runtime_testlib import build_engine

onnx = pytest.importorskip("onnx", reason="the onnx package is needed to generate test models")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def make_model(rng, op="Relu", domain=""):
    """y = op(x * w + b) with random initializers; x is float32 [N, 4] with a symbolic batch."""
    w = rng.standard_normal((4,)).astype(np.float32)
    b = rng.standard_normal((4,)).astype(np.float32)
    nodes = [
        helper.make_node("Mul", ["x", "w"], ["xw"], name="mul_node"),
        helper.make_node("Add", ["xw", "b"], ["pre"], name="add_node"),
        helper.make_node(op, ["pre"], ["y"], name="act_node", domain=domain),
    ]
    graph = helper.make_graph(
        nodes, "kiln_parser_test",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
        initializer=[numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    opsets = [helper.make_opsetid("", 17)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    model = helper.make_model(graph, opset_imports=opsets, producer_name="kiln-tests")
    return model, w, b


def new_parser(builder, logger):
    network = builder.create_network(0)
    return network, trt.OnnxParser(network, logger)


def run_parsed(builder, network, logger, x):
    _, engine, _ = build_engine(builder, network, logger, {"x": ((1, 4), (3, 4), (16, 4))})
    return EngineRunner(engine).run({"x": x})["y"]


def test_parse_from_bytes_and_run(builder, logger, rng):
    model, w, b = make_model(rng)
    network, parser = new_parser(builder, logger)
    assert parser.parse(model.SerializeToString()), [str(parser.get_error(i)) for i in range(parser.num_errors)]
    assert parser.num_errors == 0
    assert network.num_inputs == 1 and network.num_outputs == 1
    x = rng.standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(run_parsed(builder, network, logger, x), np.maximum(x * w + b, 0), rtol=1e-5)


def test_parse_from_file_and_with_path(builder, logger, rng, tmp_path):
    model, w, b = make_model(rng, op="Sigmoid")
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    network, parser = new_parser(builder, logger)
    assert parser.parse_from_file(str(path)), logger.errors()
    x = rng.standard_normal((3, 4)).astype(np.float32)
    expected = 1.0 / (1.0 + np.exp(-(x * w + b)))
    np.testing.assert_allclose(run_parsed(builder, network, logger, x), expected, rtol=1e-5, atol=1e-6)

    network2, parser2 = new_parser(builder, logger)
    assert parser2.parse(path.read_bytes(), str(path))
    assert network2.num_layers == network.num_layers

    network3, parser3 = new_parser(builder, logger)
    assert parser3.parse_with_weight_descriptors(bytearray(path.read_bytes()))
    assert network3.num_outputs == 1


def test_parse_errors(builder, logger, rng, tmp_path):
    network, parser = new_parser(builder, logger)
    garbage = rng.integers(0, 256, 300, dtype=np.uint8).tobytes()
    assert not parser.parse(garbage)
    assert parser.num_errors >= 1
    error = parser.get_error(0)
    # Random bytes are usually not protobuf; sometimes they decode into a model without ir_version/graph.
    assert error.code() in (trt.ErrorCode.MODEL_DESERIALIZE_FAILED, trt.ErrorCode.INVALID_GRAPH)
    assert isinstance(error.desc(), str) and error.desc()
    assert isinstance(error.file(), str) and isinstance(error.func(), str) and error.line() >= 0
    assert error.node() == -1
    assert error.code().name in str(error)
    with pytest.raises(IndexError):
        parser.get_error(parser.num_errors)
    parser.clear_errors()
    assert parser.num_errors == 0

    assert not parser.parse_from_file(str(tmp_path / "missing.onnx"))
    assert parser.num_errors >= 1
    with pytest.raises(TypeError, match="parse_from_file"):
        parser.parse("a path is not a model")


def test_unsupported_node_error_names_the_node(builder, logger, rng):
    model, _, _ = make_model(rng, op="KilnNoSuchOp", domain="kiln.test")
    network, parser = new_parser(builder, logger)
    assert not parser.parse(model.SerializeToString())
    errors = [parser.get_error(i) for i in range(parser.num_errors)]
    assert errors
    error = errors[0]
    assert error.code() in (trt.ErrorCode.UNSUPPORTED_NODE, trt.ErrorCode.INVALID_NODE)
    assert error.node() == 2
    assert error.node_name() == "act_node"
    assert error.node_operator() == "KilnNoSuchOp"
    assert error.local_function_stack() == []
    assert error.local_function_stack_size() == 0
    assert "act_node" in str(error)


def test_supports_model_and_operator(builder, logger, rng):
    network, parser = new_parser(builder, logger)
    assert parser.supports_operator("Relu")
    assert parser.supports_operator("Conv")
    assert not parser.supports_operator("KilnNoSuchOp")

    good, _, _ = make_model(rng)
    supported, subgraphs = parser.supports_model(good.SerializeToString())
    assert supported
    assert subgraphs == [([0, 1, 2], True)]

    bad, _, _ = make_model(rng, op="KilnNoSuchOp", domain="kiln.test")
    network2, parser2 = new_parser(builder, logger)
    supported, subgraphs = parser2.supports_model(bad.SerializeToString())
    assert not supported
    assert any(not ok for _, ok in subgraphs)
    covered = sorted(i for nodes, _ in subgraphs for i in nodes)
    assert covered == [0, 1, 2]

    network3, parser3 = new_parser(builder, logger)
    assert not parser3.supports_model_v2(bad.SerializeToString())
    assert parser3.num_subgraphs >= 1
    nodes = [parser3.get_subgraph_nodes(i) for i in range(parser3.num_subgraphs)]
    flags = [parser3.is_subgraph_supported(i) for i in range(parser3.num_subgraphs)]
    assert sorted(n for group in nodes for n in group) == [0, 1, 2]
    assert False in flags


def test_flags_and_queries(builder, logger, rng):
    network, parser = new_parser(builder, logger)
    assert parser.flags == 1 << int(trt.OnnxParserFlag.NATIVE_INSTANCENORM)
    assert parser.get_flag(trt.OnnxParserFlag.NATIVE_INSTANCENORM)
    parser.set_flag(trt.OnnxParserFlag.ENABLE_PLUGIN_OVERRIDE)
    assert parser.get_flag(trt.OnnxParserFlag.ENABLE_PLUGIN_OVERRIDE)
    parser.clear_flag(trt.OnnxParserFlag.NATIVE_INSTANCENORM)
    assert not parser.get_flag(trt.OnnxParserFlag.NATIVE_INSTANCENORM)
    parser.flags = 0
    assert parser.flags == 0

    model, _, _ = make_model(rng)
    assert parser.parse(model.SerializeToString())
    assert parser.get_used_vc_plugin_libraries() == []
    tensor = parser.get_layer_output_tensor("add_node", 0)
    assert tensor is not None and tensor.name == "pre"
    assert parser.get_layer_output_tensor("no_such_node", 0) is None
    with parser as entered:
        assert entered is parser


def test_parser_keeps_network_alive(builder, logger, rng):
    model, w, b = make_model(rng)
    parser = trt.OnnxParser(builder.create_network(0), logger)  # only the parser references the network
    import gc
    gc.collect()
    assert parser.parse(model.SerializeToString())


def test_parser_refitter_is_not_supported(logger):
    assert not hasattr(trt, "OnnxParserRefitter") or callable(trt.OnnxParserRefitter)
    assert trt.get_nv_onnx_parser_version() > 0
