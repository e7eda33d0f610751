// trt.Dims and its fixed-rank forms (Dims2, DimsHW, Dims3, Dims4): sequence protocol, equality with tuples and
// lists, and implicit conversion from Python sequences, so that every binding taking nvinfer1::Dims accepts (1, 2).
#include "pyCommon.h"

#include <string>

namespace kiln::python
{

namespace
{

using nvinfer1::Dims;

int32_t rankOf(Dims const& dims)
{
    return dims.nbDims > 0 ? std::min(dims.nbDims, Dims::MAX_DIMS) : 0;
}

int32_t checkedIndex(Dims const& dims, int64_t index)
{
    int64_t const rank = rankOf(dims);
    int64_t const i = index < 0 ? index + rank : index;
    if (i < 0 || i >= rank)
    {
        throwIndexError("Dims index " + std::to_string(index) + " out of range for rank " + std::to_string(rank));
    }
    return static_cast<int32_t>(i);
}

//! Equality with another Dims or any sequence of integers; NotImplemented-like false for anything else.
bool equalsObject(Dims const& self, py::handle other)
{
    if (py::isinstance<Dims>(other))
    {
        return dimsEqual(self, other.cast<Dims const&>());
    }
    if (py::isinstance<py::str>(other) || !py::isinstance<py::sequence>(other))
    {
        return false;
    }
    try
    {
        return dimsEqual(self, toDims(other));
    }
    catch (py::error_already_set&)
    {
        return false;
    }
    catch (py::builtin_exception&)
    {
        return false;
    }
}

template <typename T, typename Class>
void addSequenceProtocol(Class& cls)
{
    cls.def("__len__", [](T const& self) { return rankOf(self); })
        .def("__getitem__", [](T const& self, int64_t index) { return self.d[checkedIndex(self, index)]; })
        .def("__getitem__",
            [](T const& self, py::slice slice) {
                py::tuple all = dimsToTuple(self);
                return py::reinterpret_steal<py::tuple>(PyObject_GetItem(all.ptr(), slice.ptr()));
            })
        .def("__setitem__",
            [](T& self, int64_t index, int64_t value) { self.d[checkedIndex(self, index)] = value; })
        .def("__iter__", [](T const& self) { return py::iter(dimsToTuple(self)); })
        .def("__eq__", [](T const& self, py::handle other) { return equalsObject(self, other); })
        .def("__ne__", [](T const& self, py::handle other) { return !equalsObject(self, other); })
        .def("__str__", [](T const& self) { return dimsToString(self); })
        .def("__repr__", [](T const& self) { return dimsToString(self); })
        .def(py::pickle([](T const& self) { return dimsToTuple(self); },
            [](py::tuple const& state) {
                T result{};
                static_cast<Dims&>(result) = toDims(state);
                return result;
            }));
}

} // namespace

void bindCoreDims(py::module_& m)
{
    py::class_<Dims> dims(m, "Dims", "A tensor shape: a sequence of up to Dims.MAX_DIMS extents (-1 is dynamic).");
    dims.def(py::init([]() {
        Dims d{};
        d.nbDims = 0;
        return d;
    }))
        .def(py::init([](py::iterable shape) { return toDims(shape); }), py::arg("shape"))
        .def_readonly_static("MAX_DIMS", &Dims::MAX_DIMS);
    addSequenceProtocol<Dims>(dims);
    py::implicitly_convertible<py::tuple, Dims>();
    py::implicitly_convertible<py::list, Dims>();
    py::implicitly_convertible<py::array, Dims>();

    auto fixed = [](Dims const& source, int32_t rank, char const* name) {
        if (source.nbDims != rank)
        {
            throwValueError(std::string(name) + " needs exactly " + std::to_string(rank) + " extents, got "
                + std::to_string(source.nbDims));
        }
        return source;
    };

    py::class_<nvinfer1::Dims2, Dims> dims2(m, "Dims2", "A rank-2 Dims.");
    dims2.def(py::init<>())
        .def(py::init<int64_t, int64_t>(), py::arg("dim0"), py::arg("dim1"))
        .def(py::init([fixed](py::iterable shape) {
            Dims const d = fixed(toDims(shape), 2, "Dims2");
            return nvinfer1::Dims2(d.d[0], d.d[1]);
        }),
            py::arg("shape"));
    addSequenceProtocol<nvinfer1::Dims2>(dims2);

    py::class_<nvinfer1::DimsHW, nvinfer1::Dims2> dimsHW(m, "DimsHW", "A rank-2 spatial Dims with h and w.");
    dimsHW.def(py::init<>())
        .def(py::init<int64_t, int64_t>(), py::arg("h"), py::arg("w"))
        .def(py::init([fixed](py::iterable shape) {
            Dims const d = fixed(toDims(shape), 2, "DimsHW");
            return nvinfer1::DimsHW(d.d[0], d.d[1]);
        }),
            py::arg("shape"))
        .def_property(
            "h", [](nvinfer1::DimsHW const& self) { return self.h(); },
            [](nvinfer1::DimsHW& self, int64_t v) { self.h() = v; })
        .def_property(
            "w", [](nvinfer1::DimsHW const& self) { return self.w(); },
            [](nvinfer1::DimsHW& self, int64_t v) { self.w() = v; });
    addSequenceProtocol<nvinfer1::DimsHW>(dimsHW);

    py::class_<nvinfer1::Dims3, nvinfer1::Dims2> dims3(m, "Dims3", "A rank-3 Dims.");
    dims3.def(py::init<>())
        .def(py::init<int64_t, int64_t, int64_t>(), py::arg("dim0"), py::arg("dim1"), py::arg("dim2"))
        .def(py::init([fixed](py::iterable shape) {
            Dims const d = fixed(toDims(shape), 3, "Dims3");
            return nvinfer1::Dims3(d.d[0], d.d[1], d.d[2]);
        }),
            py::arg("shape"));
    addSequenceProtocol<nvinfer1::Dims3>(dims3);

    py::class_<nvinfer1::Dims4, nvinfer1::Dims3> dims4(m, "Dims4", "A rank-4 Dims.");
    dims4.def(py::init<>())
        .def(py::init<int64_t, int64_t, int64_t, int64_t>(), py::arg("dim0"), py::arg("dim1"), py::arg("dim2"),
            py::arg("dim3"))
        .def(py::init([fixed](py::iterable shape) {
            Dims const d = fixed(toDims(shape), 4, "Dims4");
            return nvinfer1::Dims4(d.d[0], d.d[1], d.d[2], d.d[3]);
        }),
            py::arg("shape"));
    addSequenceProtocol<nvinfer1::Dims4>(dims4);
}

} // namespace kiln::python
