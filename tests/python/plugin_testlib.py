"""Plugins written in Python for the class-based plugin tests (tests/python/test_plugin_*.py).

The plugins compute with plain numpy index arithmetic on the buffers Kiln passes to enqueue (viewed without
copying through ``PluginBuffer.numpy()``); the tests compare them with independent numpy references
(``numpy.pad(mode="wrap")``, ``numpy.nonzero``).

- CircPadV2 / CircPadCreatorV2: circular padding of the last two dimensions as trt.IPluginV2DynamicExt.
- CircPadV3 / CircPadCreatorV3: the same as trt.IPluginV3 (OneCore + OneBuild + OneRuntime).
- NonZeroV3 / NonZeroCreatorV3: indices of the non-zero elements of a 2-D input, a data-dependent output whose
  row count comes from a size tensor (declare_size_tensor).
- build_and_run / Runner: build a network, deserialize it and run it on the CPU with numpy buffers.
"""

import numpy as np

import kiln as trt


def wrap_indices(n_out, n_in, before):
    """Source index of every output position of a circular pad: (i - before) mod n_in."""
    return (np.arange(n_out) - before) % n_in


def circ_pad_numpy_free(x, pads):
    """Circular padding by index arithmetic (not numpy.pad): pads = (top, bottom, left, right)."""
    top, bottom, left, right = (int(p) for p in pads)
    h, w = x.shape[-2], x.shape[-1]
    rows = wrap_indices(h + top + bottom, h, top)
    cols = wrap_indices(w + left + right, w, left)
    return x[..., rows, :][..., cols]


# ---- IPluginV2DynamicExt ----------------------------------------------------------------------------------------

class CircPadV2(trt.IPluginV2DynamicExt):
    """Circular padding of the last two dimensions (float32, linear) as an IPluginV2DynamicExt."""

    def __init__(self, pads=(1, 1, 1, 1)):
        trt.IPluginV2DynamicExt.__init__(self)
        self.pads = [int(p) for p in pads]
        self.num_outputs = 1
        self.plugin_type = "CircPadPy"
        self.plugin_version = "1"
        self.plugin_namespace = ""
        self.calls = []

    def get_output_datatype(self, index, input_types):
        return input_types[0]

    def get_output_dimensions(self, output_index, inputs, expr_builder):
        out = trt.DimsExprs(inputs[0])
        rank = len(out)
        top, bottom, left, right = self.pads
        out[rank - 2] = expr_builder.operation(
            trt.DimensionOperation.SUM, inputs[0][rank - 2], expr_builder.constant(top + bottom))
        out[rank - 1] = expr_builder.operation(
            trt.DimensionOperation.SUM, inputs[0][rank - 1], expr_builder.constant(left + right))
        return out

    def supports_format_combination(self, pos, in_out, num_inputs):
        desc = in_out[pos]
        return desc.format == trt.TensorFormat.LINEAR and desc.type == trt.DataType.FLOAT

    def configure_plugin(self, inp, out):
        self.calls.append("configure_plugin")

    def get_workspace_size(self, input_desc, output_desc):
        return 0

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        x = inputs[0].numpy()
        y = outputs[0].numpy()
        assert tuple(y.shape) == tuple(output_desc[0].dims)
        y[...] = circ_pad_numpy_free(x, self.pads)

    def serialize(self):
        return np.array(self.pads, dtype=np.int32).tobytes()

    def clone(self):
        return CircPadV2(self.pads)


class CircPadCreatorV2(trt.IPluginCreator):
    """Creator of CircPadV2 (field "pads": int32[4])."""

    def __init__(self):
        trt.IPluginCreator.__init__(self)
        self.name = "CircPadPy"
        self.plugin_version = "1"
        self.plugin_namespace = ""
        self.field_names = trt.PluginFieldCollection(
            [trt.PluginField("pads", np.array([], dtype=np.int32), trt.PluginFieldType.INT32)])

    def create_plugin(self, name, field_collection, phase=None):
        pads = (1, 1, 1, 1)
        for field in field_collection:
            if field.name == "pads":
                pads = field.data.tolist()
        return CircPadV2(pads)

    def deserialize_plugin(self, name, data):
        return CircPadV2(np.frombuffer(bytes(data), dtype=np.int32).tolist())


# ---- IPluginV3 ----------------------------------------------------------------------------------------------------

class CircPadV3(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
    """Circular padding of the last two dimensions as an IPluginV3."""

    def __init__(self, pads=(1, 1, 1, 1)):
        trt.IPluginV3.__init__(self)
        trt.IPluginV3OneCore.__init__(self)
        trt.IPluginV3OneBuild.__init__(self)
        trt.IPluginV3OneRuntime.__init__(self)
        self.pads = [int(p) for p in pads]
        self.num_outputs = 1
        self.plugin_namespace = ""
        self.plugin_name = "CircPadPyV3"
        self.plugin_version = "1"
        self.shapes_seen = []

    def get_capability_interface(self, type):
        return self

    def get_output_data_types(self, input_types):
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        out = trt.DimsExprs(inputs[0])
        rank = len(out)
        top, bottom, left, right = self.pads
        out[rank - 2] = expr_builder.operation(
            trt.DimensionOperation.SUM, inputs[0][rank - 2], expr_builder.constant(top + bottom))
        out[rank - 1] = expr_builder.operation(
            trt.DimensionOperation.SUM, inputs[0][rank - 1], expr_builder.constant(left + right))
        return [out]

    def supports_format_combination(self, pos, in_out, num_inputs):
        desc = in_out[pos].desc
        return desc.format == trt.TensorFormat.LINEAR and desc.type == trt.DataType.FLOAT

    def configure_plugin(self, inp, out):
        pass

    def on_shape_change(self, inp, out):
        self.shapes_seen.append(tuple(inp[0].dims))

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        x = inputs[0].numpy()
        y = outputs[0].numpy()
        y[...] = circ_pad_numpy_free(x, self.pads)

    def attach_to_context(self, context):
        return self.clone()

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection(
            [trt.PluginField("pads", np.array(self.pads, dtype=np.int32), trt.PluginFieldType.INT32)])

    def clone(self):
        return CircPadV3(self.pads)


class CircPadCreatorV3(trt.IPluginCreatorV3One):
    """Creator of CircPadV3 (field "pads": int32[4])."""

    def __init__(self):
        trt.IPluginCreatorV3One.__init__(self)
        self.name = "CircPadPyV3"
        self.plugin_namespace = ""
        self.plugin_version = "1"
        self.field_names = trt.PluginFieldCollection(
            [trt.PluginField("pads", np.array([], dtype=np.int32), trt.PluginFieldType.INT32)])
        self.created = []

    def create_plugin(self, name, field_collection, phase):
        pads = (1, 1, 1, 1)
        for field in field_collection:
            if field.name == "pads":
                pads = field.data.tolist()
        self.created.append(phase)
        return CircPadV3(pads)


# ---- NonZero (size tensor) -----------------------------------------------------------------------------------------

class NonZeroV3(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
    """Row/column indices (K x 2, int32) of the non-zero elements of a 2-D float input; output 1 is K."""

    def __init__(self):
        trt.IPluginV3.__init__(self)
        trt.IPluginV3OneCore.__init__(self)
        trt.IPluginV3OneBuild.__init__(self)
        trt.IPluginV3OneRuntime.__init__(self)
        self.num_outputs = 2
        self.plugin_namespace = ""
        self.plugin_name = "NonZeroPy"
        self.plugin_version = "1"

    def get_capability_interface(self, type):
        return self

    def get_output_data_types(self, input_types):
        return [trt.DataType.INT32, trt.DataType.INT32]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        upper = expr_builder.operation(trt.DimensionOperation.PROD, inputs[0][0], inputs[0][1])
        opt = expr_builder.operation(trt.DimensionOperation.FLOOR_DIV, upper, expr_builder.constant(2))
        k = expr_builder.declare_size_tensor(1, opt, upper)
        indices = trt.DimsExprs(2)
        indices[0] = k
        indices[1] = expr_builder.constant(2)
        return [indices, trt.DimsExprs(0)]

    def supports_format_combination(self, pos, in_out, num_inputs):
        desc = in_out[pos].desc
        if desc.format != trt.TensorFormat.LINEAR:
            return False
        return desc.type == (trt.DataType.FLOAT if pos == 0 else trt.DataType.INT32)

    def configure_plugin(self, inp, out):
        pass

    def on_shape_change(self, inp, out):
        pass

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        x = inputs[0].numpy()
        rows, cols = x.shape
        found = []
        for r in range(rows):           # plain loops: independent of numpy.nonzero used by the tests
            for c in range(cols):
                if x[r, c] != 0:
                    found.append((r, c))
        k = len(found)
        if k:
            outputs[0].numpy(shape=(k, 2), dtype=np.int32)[...] = np.array(found, dtype=np.int32)
        outputs[1].numpy(shape=(), dtype=np.int32)[...] = k

    def attach_to_context(self, context):
        return self.clone()

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection([])

    def clone(self):
        return NonZeroV3()


class NonZeroCreatorV3(trt.IPluginCreatorV3One):
    """Creator of NonZeroV3 (no fields)."""

    def __init__(self):
        trt.IPluginCreatorV3One.__init__(self)
        self.name = "NonZeroPy"
        self.plugin_namespace = ""
        self.plugin_version = "1"
        self.field_names = trt.PluginFieldCollection([])

    def create_plugin(self, name, field_collection, phase):
        return NonZeroV3()


# ---- building and running -------------------------------------------------------------------------------------------

def register(creator, namespace=""):
    """Register ``creator`` with the global registry, replacing an earlier creator of the same key."""
    registry = trt.get_plugin_registry()
    old = registry.get_creator(creator.name, creator.plugin_version, namespace)
    if old is not None:
        registry.deregister_creator(old)
    assert registry.register_creator(creator, namespace)
    return creator


def build_plan(builder, network, logger, profiles=None):
    """Build ``network``; ``profiles`` maps input names to (min, opt, max). Returns the plan (or None)."""
    config = builder.create_builder_config()
    if profiles:
        profile = builder.create_optimization_profile()
        for name, (lo, opt, hi) in profiles.items():
            profile.set_shape(name, lo, opt, hi)
        config.add_optimization_profile(profile)
    return builder.build_serialized_network(network, config)


class Runner:
    """An engine deserialized from a plan, run with numpy inputs and poisoned numpy outputs."""

    def __init__(self, plan, logger):
        self.logger = logger
        self.runtime = trt.Runtime(logger)
        self.engine = self.runtime.deserialize_cuda_engine(plan)
        assert self.engine is not None, "deserialize failed:\n" + logger.errors()
        self.context = self.engine.create_execution_context()
        assert self.context is not None, logger.errors()

    def run(self, outputs, **inputs):
        """Run; ``outputs`` maps output names to (shape, dtype). Returns (ok, {name: array})."""
        if self.engine.backend == trt.BackendKind.CUDA:
            return self._run_device(outputs, inputs)
        keep = []
        for name, value in inputs.items():
            array = np.ascontiguousarray(value)
            keep.append(array)
            assert self.context.set_input_shape(name, array.shape), self.logger.errors()
            self.context.set_tensor_address(name, array.ctypes.data)
        results = {}
        for name, (shape, dtype) in outputs.items():
            out = np.full(shape, np.nan, dtype=dtype) if np.issubdtype(dtype, np.floating) \
                else np.full(shape, -7, dtype=dtype)
            results[name] = out
            self.context.set_tensor_address(name, out.ctypes.data)
        ok = self.context.execute_async_v3(0)
        return ok, results

    def _run_device(self, outputs, inputs):
        """run() for engines on the CUDA backend: the same arrays staged through device memory (kiln._cuda)."""
        from kiln._cuda import device_memory

        memory = device_memory()
        keep = []
        for name, value in inputs.items():
            array = np.ascontiguousarray(value)
            assert self.context.set_input_shape(name, array.shape), self.logger.errors()
            buffer = memory.alloc(array.nbytes)
            memory.to_device(buffer.ptr, array, 0)
            keep.append(buffer)
            self.context.set_tensor_address(name, buffer.ptr)
        results, device = {}, {}
        for name, (shape, dtype) in outputs.items():
            out = np.full(shape, np.nan, dtype=dtype) if np.issubdtype(dtype, np.floating) \
                else np.full(shape, -7, dtype=dtype)
            buffer = memory.alloc(out.nbytes)
            memory.to_device(buffer.ptr, out, 0)  # poisoned on the device too
            results[name], device[name] = out, buffer
            self.context.set_tensor_address(name, buffer.ptr)
        ok = self.context.execute_async_v3(0)
        memory.synchronize(0)
        for name, out in results.items():
            memory.to_host(out, device[name].ptr, 0)
        return ok, results
