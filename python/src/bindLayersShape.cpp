// Python bindings of the data-movement, shape, generator and indexing layer classes: Permutation, shuffle, slice,
// concatenation, padding, shape, constant, identity, cast, fill, gather, scatter, resize, select, assertion,
// squeeze/unsqueeze, one-hot, non-zero, NMS and reverse-sequence. Properties use TensorRT's Python names.
#include "bindNetworkCommon.h"

#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::python
{

using namespace nvinfer1;

namespace
{

constexpr int32_t kMaxDims = Dims::MAX_DIMS;

//! A float or int fill parameter; TypeError for anything else.
void checkNumber(py::handle value, char const* what)
{
    if (py::isinstance<py::bool_>(value) || !(py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)
            || py::hasattr(value, "__float__")))
    {
        throwTypeError(std::string("IFillLayer.") + what + " must be a number, got "
            + py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>());
    }
}

//! A Permutation from a trt.Permutation or a sequence of at most MAX_DIMS integers; unspecified entries keep
//! their identity position.
Permutation toPermutation(py::handle value)
{
    if (py::isinstance<Permutation>(value))
    {
        return value.cast<Permutation>();
    }
    if (py::isinstance<py::str>(value) || !py::isinstance<py::iterable>(value))
    {
        throwTypeError("Expected a sequence of integers for a Permutation, got "
            + py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>());
    }
    Permutation perm{};
    for (int32_t i = 0; i < kMaxDims; ++i)
    {
        perm.order[i] = i;
    }
    int32_t count = 0;
    for (py::handle item : py::reinterpret_borrow<py::iterable>(value))
    {
        if (count >= kMaxDims)
        {
            throwValueError("A Permutation has at most " + std::to_string(kMaxDims) + " entries");
        }
        if (py::isinstance<py::bool_>(item) || !py::hasattr(item, "__index__"))
        {
            throwTypeError("Permutation entries must be integers");
        }
        perm.order[count++] = py::reinterpret_steal<py::int_>(PyNumber_Index(item.ptr())).cast<int32_t>();
    }
    return perm;
}

int32_t permIndex(int64_t index)
{
    int64_t const i = index < 0 ? index + kMaxDims : index;
    if (i < 0 || i >= kMaxDims)
    {
        throwIndexError("Permutation index " + std::to_string(index) + " out of range");
    }
    return static_cast<int32_t>(i);
}

void bindPermutation(py::module_& m)
{
    py::class_<Permutation>(m, "Permutation",
        "A dimension permutation of IShuffleLayer: entry i is the input dimension that output dimension i takes.")
        .def(py::init([]() {
            Permutation perm{};
            for (int32_t i = 0; i < kMaxDims; ++i)
            {
                perm.order[i] = i;
            }
            return perm;
        }))
        .def(py::init([](py::object const& order) { return toPermutation(order); }), py::arg("order"))
        .def("__len__", [](Permutation const&) { return kMaxDims; })
        .def("__getitem__", [](Permutation const& p, int64_t index) { return p.order[permIndex(index)]; })
        .def("__setitem__", [](Permutation& p, int64_t index, int32_t value) { p.order[permIndex(index)] = value; })
        .def("__eq__",
            [](Permutation const& p, py::object const& other) {
                if (py::isinstance<Permutation>(other))
                {
                    Permutation const& q = other.cast<Permutation const&>();
                    return std::equal(p.order, p.order + kMaxDims, q.order);
                }
                // A shorter sequence compares with the leading entries.
                std::vector<int64_t> values;
                try
                {
                    values = other.cast<std::vector<int64_t>>();
                }
                catch (py::cast_error const&)
                {
                    return false;
                }
                if (values.size() > static_cast<size_t>(kMaxDims))
                {
                    return false;
                }
                for (size_t i = 0; i < values.size(); ++i)
                {
                    if (p.order[i] != values[i])
                    {
                        return false;
                    }
                }
                return true;
            })
        .def("__repr__", [](Permutation const& p) {
            std::string text = "Permutation(";
            for (int32_t i = 0; i < kMaxDims; ++i)
            {
                text += (i ? ", " : "") + std::to_string(p.order[i]);
            }
            return text + ")";
        });
    py::implicitly_convertible<py::tuple, Permutation>();
    py::implicitly_convertible<py::list, Permutation>();
}

void bindShuffleSlice(py::module_& m)
{
    LayerClass<IShuffleLayer, ILayer> shuffle(m, "IShuffleLayer", "Transpose, reshape, transpose.");
    shuffle
        .def_property(
            "first_transpose", &IShuffleLayer::getFirstTranspose,
            [](IShuffleLayer& l, py::object const& value) { l.setFirstTranspose(toPermutation(value)); })
        .def_property(
            "second_transpose", &IShuffleLayer::getSecondTranspose,
            [](IShuffleLayer& l, py::object const& value) { l.setSecondTranspose(toPermutation(value)); })
        .def_property("zero_is_placeholder", &IShuffleLayer::getZeroIsPlaceholder,
            &IShuffleLayer::setZeroIsPlaceholder);
    defDims(shuffle, "reshape_dims", &IShuffleLayer::getReshapeDimensions, &IShuffleLayer::setReshapeDimensions);

    LayerClass<ISliceLayer, ILayer> slice(m, "ISliceLayer", "Strided slice.");
    defDims(slice, "start", &ISliceLayer::getStart, &ISliceLayer::setStart);
    defDims(slice, "shape", &ISliceLayer::getSize, &ISliceLayer::setSize);
    defDims(slice, "stride", &ISliceLayer::getStride, &ISliceLayer::setStride);
    defDims(slice, "axes", &ISliceLayer::getAxes, &ISliceLayer::setAxes);
    slice.def_property("mode", &ISliceLayer::getMode, &ISliceLayer::setMode);

    LayerClass<IConcatenationLayer, ILayer>(m, "IConcatenationLayer", "Concatenation along one axis.")
        .def_property("axis", &IConcatenationLayer::getAxis, &IConcatenationLayer::setAxis);

    LayerClass<IPaddingLayer, ILayer> padding(m, "IPaddingLayer", "Zero padding of the last two dimensions.");
    defDims(padding, "pre_padding_nd", &IPaddingLayer::getPrePaddingNd, &IPaddingLayer::setPrePaddingNd);
    defDims(padding, "post_padding_nd", &IPaddingLayer::getPostPaddingNd, &IPaddingLayer::setPostPaddingNd);

    LayerClass<IShapeLayer, ILayer>(m, "IShapeLayer", "The shape of its input as a 1D INT64 tensor.");
    LayerClass<ISqueezeLayer, ILayer>(m, "ISqueezeLayer", "Removes unit dimensions listed by an axes tensor.");
    LayerClass<IUnsqueezeLayer, ILayer>(m, "IUnsqueezeLayer", "Inserts unit dimensions listed by an axes tensor.");
}

void bindGenerators(py::module_& m)
{
    LayerClass<IConstantLayer, ILayer> constant(m, "IConstantLayer", "A constant tensor built from weights.");
    defWeights(constant, "weights", &IConstantLayer::getWeights, &IConstantLayer::setWeights);
    defDims(constant, "shape", &IConstantLayer::getDimensions, &IConstantLayer::setDimensions);

    LayerClass<IIdentityLayer, ILayer>(m, "IIdentityLayer", "Copies its input.");
    LayerClass<ICastLayer, ILayer>(m, "ICastLayer", "Converts its input to another data type.")
        .def_property("to_type", &ICastLayer::getToType, &ICastLayer::setToType);

    LayerClass<IFillLayer, ILayer> fill(m, "IFillLayer", "Generates a tensor (linspace or random).");
    defDims(fill, "shape", &IFillLayer::getDimensions, &IFillLayer::setDimensions);
    fill.def_property("operation", &IFillLayer::getOperation, &IFillLayer::setOperation)
        .def_property("to_type", &IFillLayer::getToType, &IFillLayer::setToType)
        .def_property_readonly("is_alpha_beta_int64", &IFillLayer::isAlphaBetaInt64)
        // Integers set the int64 form (used by INT64 outputs); floats the double form.
        .def_property(
            "alpha",
            [](IFillLayer const& l) -> py::object {
                return l.isAlphaBetaInt64() ? py::object(py::int_(l.getAlphaInt64()))
                                            : py::object(py::float_(l.getAlpha()));
            },
            [](IFillLayer& l, py::object const& value) {
                checkNumber(value, "alpha");
                if (py::isinstance<py::int_>(value) && l.getToType() == DataType::kINT64)
                {
                    l.setAlphaInt64(value.cast<int64_t>());
                }
                else
                {
                    l.setAlpha(value.cast<double>());
                }
            })
        .def_property(
            "beta",
            [](IFillLayer const& l) -> py::object {
                return l.isAlphaBetaInt64() ? py::object(py::int_(l.getBetaInt64()))
                                            : py::object(py::float_(l.getBeta()));
            },
            [](IFillLayer& l, py::object const& value) {
                checkNumber(value, "beta");
                if (py::isinstance<py::int_>(value) && l.getToType() == DataType::kINT64)
                {
                    l.setBetaInt64(value.cast<int64_t>());
                }
                else
                {
                    l.setBeta(value.cast<double>());
                }
            });
}

void bindIndexing(py::module_& m)
{
    LayerClass<IGatherLayer, ILayer>(m, "IGatherLayer", "Gathers elements of a data tensor at indices.")
        .def_property("axis", &IGatherLayer::getGatherAxis, &IGatherLayer::setGatherAxis)
        .def_property("num_elementwise_dims", &IGatherLayer::getNbElementWiseDims, &IGatherLayer::setNbElementWiseDims)
        .def_property("mode", &IGatherLayer::getMode, &IGatherLayer::setMode);

    LayerClass<IScatterLayer, ILayer>(m, "IScatterLayer", "Writes updates into a copy of data at indices.")
        .def_property("mode", &IScatterLayer::getMode, &IScatterLayer::setMode)
        .def_property("axis", &IScatterLayer::getAxis, &IScatterLayer::setAxis);

    LayerClass<IOneHotLayer, ILayer>(m, "IOneHotLayer", "One-hot encoding.")
        .def_property("axis", &IOneHotLayer::getAxis, &IOneHotLayer::setAxis);

    LayerClass<INonZeroLayer, ILayer> nonZero(m, "INonZeroLayer", "Coordinates of the non-zero elements.");
    defChecked(nonZero, "indices_type", &INonZeroLayer::getIndicesType, &INonZeroLayer::setIndicesType);

    LayerClass<INMSLayer, ILayer> nms(m, "INMSLayer", "Non-maximum suppression.");
    nms.def_property("bounding_box_format", &INMSLayer::getBoundingBoxFormat, &INMSLayer::setBoundingBoxFormat)
        .def_property("topk_box_limit", &INMSLayer::getTopKBoxLimit, &INMSLayer::setTopKBoxLimit);
    defChecked(nms, "indices_type", &INMSLayer::getIndicesType, &INMSLayer::setIndicesType);

    LayerClass<IReverseSequenceLayer, ILayer>(m, "IReverseSequenceLayer", "Reverses variable-length sequences.")
        .def_property("batch_axis", &IReverseSequenceLayer::getBatchAxis, &IReverseSequenceLayer::setBatchAxis)
        .def_property(
            "sequence_axis", &IReverseSequenceLayer::getSequenceAxis, &IReverseSequenceLayer::setSequenceAxis);

    LayerClass<ISelectLayer, ILayer>(m, "ISelectLayer", "Elementwise choice by a boolean condition.");

    LayerClass<IAssertionLayer, ILayer>(m, "IAssertionLayer", "Fails the build or run when its condition is false.")
        .def_property(
            "message", [](IAssertionLayer const& l) { return std::string(l.getMessage()); },
            [](IAssertionLayer& l, std::string const& message) { l.setMessage(message.c_str()); });
}

void bindResize(py::module_& m)
{
    LayerClass<IResizeLayer, ILayer> resize(m, "IResizeLayer", "Resizes the trailing dimensions by interpolation.");
    defDims(resize, "shape", &IResizeLayer::getOutputDimensions, &IResizeLayer::setOutputDimensions);
    resize
        .def_property(
            "scales",
            [](IResizeLayer const& l) {
                int32_t const count = l.getScales(0, nullptr);
                std::vector<float> scales(count > 0 ? static_cast<size_t>(count) : 0);
                if (count > 0)
                {
                    l.getScales(count, scales.data());
                }
                return scales;
            },
            [](IResizeLayer& l, std::vector<float> const& scales) {
                l.setScales(scales.data(), static_cast<int32_t>(scales.size()));
            })
        .def_property("resize_mode", &IResizeLayer::getResizeMode, &IResizeLayer::setResizeMode)
        .def_property("coordinate_transformation", &IResizeLayer::getCoordinateTransformation,
            &IResizeLayer::setCoordinateTransformation)
        .def_property("selector_for_single_pixel", &IResizeLayer::getSelectorForSinglePixel,
            &IResizeLayer::setSelectorForSinglePixel)
        .def_property("nearest_rounding", &IResizeLayer::getNearestRounding, &IResizeLayer::setNearestRounding)
        .def_property("cubic_coeff", &IResizeLayer::getCubicCoeff, &IResizeLayer::setCubicCoeff)
        .def_property("exclude_outside", &IResizeLayer::getExcludeOutside, &IResizeLayer::setExcludeOutside);
}

} // namespace

void bindLayersShape(py::module_& m)
{
    bindPermutation(m);
    bindShuffleSlice(m);
    bindGenerators(m);
    bindIndexing(m);
    bindResize(m);
}

} // namespace kiln::python

KILN_IGNORE_DEPRECATED_END
