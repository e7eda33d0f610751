// INetworkDefinition.add_* methods for the data-movement, shape, generator, indexing and control-flow layers
// (constant, shuffle, slice, concatenation, gather, scatter, resize, fill, loops, conditionals, ...). Each returns
// the new object (owned by the network) or None when Kiln refused it (the reason went to the logger).
#include "bindNetworkCommon.h"

#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::python
{

using namespace nvinfer1;

namespace
{

constexpr auto kOwned = py::return_value_policy::reference_internal;

} // namespace

void bindNetworkAddMoreMethods(NetworkClass& cls)
{
    cls.def(
           "add_constant",
           [](INetworkDefinition& n, py::object const& shape, py::object const& weights) {
               py::object keep;
               Weights const w = toWeights(weights, keep);
               keepAliveForNetwork(&n, std::move(keep));
               return n.addConstant(toDims(shape), w);
           },
           py::arg("shape"), py::arg("weights"), kOwned)
        .def("add_identity", &INetworkDefinition::addIdentity, py::arg("input"), kOwned)
        .def("add_cast", &INetworkDefinition::addCast, py::arg("input"), py::arg("to_type"), kOwned)
        .def("add_shape", &INetworkDefinition::addShape, py::arg("input"), kOwned)
        .def("add_shuffle", &INetworkDefinition::addShuffle, py::arg("input"), kOwned)
        .def(
            "add_slice",
            [](INetworkDefinition& n, ITensor& input, py::object const& start, py::object const& shape,
                py::object const& stride) { return n.addSlice(input, toDims(start), toDims(shape), toDims(stride)); },
            py::arg("input"), py::arg("start"), py::arg("shape"), py::arg("stride"), kOwned)
        .def(
            "add_concatenation",
            [](INetworkDefinition& n, std::vector<ITensor*> const& inputs) {
                for (size_t i = 0; i < inputs.size(); ++i)
                {
                    if (inputs[i] == nullptr)
                    {
                        throwValueError("add_concatenation: entry " + std::to_string(i) + " is None, expected an ITensor");
                    }
                }
                return n.addConcatenation(inputs.data(), static_cast<int32_t>(inputs.size()));
            },
            py::arg("inputs"), kOwned)
        .def(
            "add_padding_nd",
            [](INetworkDefinition& n, ITensor& input, py::object const& pre, py::object const& post) {
                return n.addPaddingNd(input, toDims(pre), toDims(post));
            },
            py::arg("input"), py::arg("pre_padding"), py::arg("post_padding"), kOwned)
        .def("add_gather", &INetworkDefinition::addGather, py::arg("input"), py::arg("indices"), py::arg("axis"), kOwned)
        .def("add_gather_v2", &INetworkDefinition::addGatherV2, py::arg("input"), py::arg("indices"), py::arg("mode"),
            kOwned)
        .def("add_scatter", &INetworkDefinition::addScatter, py::arg("data"), py::arg("indices"), py::arg("updates"),
            py::arg("mode"), kOwned)
        .def("add_resize", &INetworkDefinition::addResize, py::arg("input"), kOwned)
        .def("add_select", &INetworkDefinition::addSelect, py::arg("condition"), py::arg("then_input"),
            py::arg("else_input"), kOwned)
        .def(
            "add_assertion",
            [](INetworkDefinition& n, ITensor& condition, std::string const& message) {
                return n.addAssertion(condition, message.c_str());
            },
            py::arg("condition"), py::arg("message"), kOwned)
        .def(
            "add_fill",
            [](INetworkDefinition& n, py::object const& shape, FillOperation op, std::optional<DataType> outputType) {
                return outputType ? n.addFill(toDims(shape), op, *outputType) : n.addFill(toDims(shape), op);
            },
            py::arg("shape"), py::arg("op"), py::arg("output_type") = py::none(), kOwned)
        .def("add_one_hot", &INetworkDefinition::addOneHot, py::arg("indices"), py::arg("values"), py::arg("depth"),
            py::arg("axis"), kOwned)
        .def(
            "add_non_zero",
            [](INetworkDefinition& n, ITensor& input, DataType indicesType) { return n.addNonZero(input, indicesType); },
            py::arg("input"), py::arg("indices_type") = DataType::kINT32, kOwned)
        .def(
            "add_nms",
            [](INetworkDefinition& n, ITensor& boxes, ITensor& scores, ITensor& maxOutputBoxesPerClass,
                DataType indicesType) { return n.addNMS(boxes, scores, maxOutputBoxesPerClass, indicesType); },
            py::arg("boxes"), py::arg("scores"), py::arg("max_output_boxes_per_class"),
            py::arg("indices_type") = DataType::kINT32, kOwned)
        .def("add_reverse_sequence", &INetworkDefinition::addReverseSequence, py::arg("input"),
            py::arg("sequence_lens"), kOwned)
        .def("add_squeeze", &INetworkDefinition::addSqueeze, py::arg("input"), py::arg("axes"), kOwned)
        .def("add_unsqueeze", &INetworkDefinition::addUnsqueeze, py::arg("input"), py::arg("axes"), kOwned)
        .def("add_loop", &INetworkDefinition::addLoop, kOwned)
        .def("add_if_conditional", &INetworkDefinition::addIfConditional, kOwned);
}

} // namespace kiln::python

KILN_IGNORE_DEPRECATED_END
