"""kiln.plugin: TensorRT's decorator-based Python plugins (tensorrt.plugin) on Kiln. Use it as
``import kiln.plugin as trtp``.

``@register("ns::name")`` describes a plugin's outputs with TensorDesc and symbolic shapes, ``@impl`` gives the
Python implementation run at enqueue, ``@autotune`` lists supported type/format combinations and tactics, and
``network.add_plugin(op.ns.name(*tensors, **attrs))`` puts the plugin into a network. Ahead-of-time
implementations (``aot_impl``) are not supported yet. Pure Python over kiln's class-based IPluginV3 bindings.
"""

from ._autotune import AutoTuneCombination
from ._register import aot_impl, autotune, impl, op, register
from ._shape import ShapeExpr, ShapeExprs, cdiv, max, min  # noqa: A004 - tensorrt.plugin's names
from ._tensor import Shape, SizeTensorDesc, Tensor, TensorDesc, from_shape_expr, size_tensor

__all__ = ["register", "impl", "autotune", "aot_impl", "op", "TensorDesc", "SizeTensorDesc", "Tensor", "Shape",
           "ShapeExpr", "ShapeExprs", "AutoTuneCombination", "from_shape_expr", "size_tensor", "cdiv", "max", "min"]
