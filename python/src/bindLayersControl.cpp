// Python bindings of the control-flow objects and their boundary layers: ILoop (recurrence, trip limit, iterator,
// loop output) and IIfConditional (condition, input, output). The containers and layers belong to the network.
#include "bindNetworkCommon.h"

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::python
{

using namespace nvinfer1;

namespace
{

constexpr auto kOwned = py::return_value_policy::reference_internal;

void bindLoops(py::module_& m)
{
    LayerClass<ILoopBoundaryLayer, ILayer>(m, "ILoopBoundaryLayer", "Base of the layers that delimit a loop.")
        .def_property_readonly("loop", &ILoopBoundaryLayer::getLoop, kOwned);
    LayerClass<IRecurrenceLayer, ILoopBoundaryLayer>(m, "IRecurrenceLayer",
        "Loop-carried value: input 0 is the initial value, input 1 (set_input(1, ...)) the next value.");
    LayerClass<ILoopOutputLayer, ILoopBoundaryLayer>(m, "ILoopOutputLayer", "An output of a loop.")
        .def_property_readonly("kind", &ILoopOutputLayer::getLoopOutput)
        .def_property("axis", &ILoopOutputLayer::getAxis, &ILoopOutputLayer::setAxis);
    LayerClass<ITripLimitLayer, ILoopBoundaryLayer>(m, "ITripLimitLayer", "The trip limit of a loop.")
        .def_property_readonly("kind", &ITripLimitLayer::getTripLimit);
    LayerClass<IIteratorLayer, ILoopBoundaryLayer>(m, "IIteratorLayer", "Slices a tensor along an axis per iteration.")
        .def_property("axis", &IIteratorLayer::getAxis, &IIteratorLayer::setAxis)
        .def_property("reverse", &IIteratorLayer::getReverse, &IIteratorLayer::setReverse);

    py::class_<ILoop, NoDeleteHolder<ILoop>>(m, "ILoop", "A recurrent subgraph, owned by the network.")
        .def("add_recurrence", &ILoop::addRecurrence, py::arg("initial_value"), kOwned)
        .def("add_trip_limit", &ILoop::addTripLimit, py::arg("tensor"), py::arg("kind"), kOwned)
        .def("add_iterator", &ILoop::addIterator, py::arg("tensor"), py::arg("axis") = 0, py::arg("reverse") = false,
            kOwned)
        .def("add_loop_output", &ILoop::addLoopOutput, py::arg("tensor"), py::arg("kind"), py::arg("axis") = 0, kOwned)
        .def_property(
            "name", [](ILoop const& l) { return std::string(l.getName()); },
            [](ILoop& l, std::string const& name) { l.setName(name.c_str()); });
}

void bindConditionals(py::module_& m)
{
    LayerClass<IIfConditionalBoundaryLayer, ILayer>(
        m, "IIfConditionalBoundaryLayer", "Base of the layers that delimit an if-conditional.")
        .def_property_readonly("conditional", &IIfConditionalBoundaryLayer::getConditional, kOwned);
    LayerClass<IConditionLayer, IIfConditionalBoundaryLayer>(m, "IConditionLayer", "The condition of a conditional.");
    LayerClass<IIfConditionalInputLayer, IIfConditionalBoundaryLayer>(
        m, "IIfConditionalInputLayer", "An input of a conditional.");
    LayerClass<IIfConditionalOutputLayer, IIfConditionalBoundaryLayer>(
        m, "IIfConditionalOutputLayer", "An output of a conditional.");

    py::class_<IIfConditional, NoDeleteHolder<IIfConditional>>(
        m, "IIfConditional", "Two subgraphs selected by a 0D BOOL condition, owned by the network.")
        .def("set_condition", &IIfConditional::setCondition, py::arg("condition"), kOwned)
        .def("add_output", &IIfConditional::addOutput, py::arg("true_subgraph_output"),
            py::arg("false_subgraph_output"), kOwned)
        .def("add_input", &IIfConditional::addInput, py::arg("input"), kOwned)
        .def_property(
            "name", [](IIfConditional const& c) { return std::string(c.getName()); },
            [](IIfConditional& c, std::string const& name) { c.setName(name.c_str()); });
}

} // namespace

void bindLayersControl(py::module_& m)
{
    bindLoops(m);
    bindConditionals(m);
}

} // namespace kiln::python

KILN_IGNORE_DEPRECATED_END
