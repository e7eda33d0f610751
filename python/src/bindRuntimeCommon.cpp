// Implementation of the runtime bindings' shared helpers (bindRuntimeCommon.h): per-object reference tables that
// keep Python callbacks and buffers alive, and the conversion of Python memory objects to tensor addresses.
#include "bindRuntimeCommon.h"

#include <string>

namespace kiln::python
{

namespace
{

constexpr char const* kREF_TABLE = "_kiln_refs";

//! The reference table of `owner`, created on first use.
py::dict refTable(py::handle owner)
{
    py::dict attributes = owner.attr("__dict__");
    if (!attributes.contains(kREF_TABLE))
    {
        attributes[kREF_TABLE] = py::dict();
    }
    return attributes[kREF_TABLE];
}

//! Whether the strides of an __array_interface__ describe a C-contiguous array.
bool isCContiguous(py::dict const& interface)
{
    if (!interface.contains("strides") || interface["strides"].is_none())
    {
        return true;
    }
    py::tuple shape = interface["shape"];
    py::tuple strides = interface["strides"];
    std::string const typestr = py::str(interface["typestr"]);
    int64_t itemSize = 0;
    for (size_t i = 2; i < typestr.size(); ++i)
    {
        if (typestr[i] < '0' || typestr[i] > '9')
        {
            break;
        }
        itemSize = itemSize * 10 + (typestr[i] - '0');
    }
    int64_t expected = itemSize;
    for (ssize_t i = static_cast<ssize_t>(shape.size()) - 1; i >= 0; --i)
    {
        int64_t const extent = shape[i].cast<int64_t>();
        if (extent > 1 && strides[i].cast<int64_t>() != expected)
        {
            return false;
        }
        expected *= extent;
    }
    return true;
}

[[noreturn]] void rejectDevice(char const* what, char const* protocol)
{
    throwValueError(std::string(what) + ": the object is device memory (" + protocol
        + "); Kiln runs engines on its CPU backend, which needs host memory (e.g. a numpy array)");
}

uintptr_t fromArrayInterface(py::dict interface, char const* what, bool writable)
{
    py::object data = interface.contains("data") ? py::object(interface["data"]) : py::none();
    if (!py::isinstance<py::tuple>(data))
    {
        throwTypeError(std::string(what) + ": __array_interface__ without a (pointer, read_only) data tuple; "
            + "pass a numpy array or an integer address");
    }
    py::tuple pair = data;
    if (writable && pair.size() > 1 && pair[1].cast<bool>())
    {
        throwValueError(std::string(what) + ": the array is read-only but the tensor is written by the engine");
    }
    if (!isCContiguous(interface))
    {
        throwValueError(std::string(what) + ": the array is not C-contiguous (use numpy.ascontiguousarray)");
    }
    return pair[0].cast<uintptr_t>();
}

} // namespace

void keepRef(py::handle owner, std::string const& key, py::handle value)
{
    py::dict table = refTable(owner);
    if (value.is_none())
    {
        if (table.contains(key))
        {
            PyDict_DelItemString(table.ptr(), key.c_str());
        }
        return;
    }
    table[py::str(key)] = value;
}

py::object getRef(py::handle owner, std::string const& key)
{
    py::dict table = refTable(owner);
    if (table.contains(key))
    {
        return table[py::str(key)];
    }
    return py::none();
}

void dropRefs(py::handle owner, std::string const& prefix)
{
    py::dict table = refTable(owner);
    py::list doomed;
    for (auto item : table)
    {
        std::string const key = py::str(item.first);
        if (key.rfind(prefix, 0) == 0)
        {
            doomed.append(item.first);
        }
    }
    for (auto key : doomed)
    {
        PyDict_DelItem(table.ptr(), key.ptr());
    }
}

bool isRawAddress(py::handle memory)
{
    return memory.is_none() || (py::isinstance<py::int_>(memory) && !py::isinstance<py::bool_>(memory));
}

uintptr_t toAddress(py::handle memory, char const* what, bool writable, MemoryKind* kind)
{
    if (kind != nullptr)
    {
        *kind = MemoryKind::kHOST;
    }
    if (memory.is_none())
    {
        return 0;
    }
    if (py::isinstance<py::int_>(memory) && !py::isinstance<py::bool_>(memory))
    {
        py::int_ value = py::reinterpret_borrow<py::int_>(memory);
        if (value < py::int_(0))
        {
            throwValueError(std::string(what) + ": a memory address cannot be negative");
        }
        return value.cast<uintptr_t>();
    }
    if (py::hasattr(memory, "__array_interface__"))
    {
        return fromArrayInterface(memory.attr("__array_interface__"), what, writable);
    }
    if (py::hasattr(memory, "__cuda_array_interface__"))
    {
        if (kind != nullptr)
        {
            *kind = MemoryKind::kDEVICE;
        }
        rejectDevice(what, "__cuda_array_interface__");
    }
    if (py::hasattr(memory, "__dlpack__") && py::hasattr(memory, "__dlpack_device__"))
    {
        py::tuple device = memory.attr("__dlpack_device__")();
        int const deviceType = device[0].cast<int>();
        constexpr int kDL_CPU = 1;
        constexpr int kDL_CUDA_HOST = 3;
        if (deviceType != kDL_CPU && deviceType != kDL_CUDA_HOST)
        {
            if (kind != nullptr)
            {
                *kind = MemoryKind::kDEVICE;
            }
            rejectDevice(what, "a DLPack tensor on a non-CPU device");
        }
        py::object array = py::module_::import("numpy").attr("from_dlpack")(memory);
        return fromArrayInterface(array.attr("__array_interface__"), what, writable);
    }
    throwTypeError(std::string(what) + ": expected an integer address, None, or an object with __array_interface__, "
        + "__cuda_array_interface__ or __dlpack__ (got " + std::string(py::str(py::type::of(memory).attr("__name__")))
        + ")");
}

void* toHandle(py::handle handle, char const* what)
{
    if (handle.is_none())
    {
        return nullptr;
    }
    if (!py::isinstance<py::int_>(handle))
    {
        throwTypeError(std::string(what) + ": expected an integer handle or None");
    }
    return reinterpret_cast<void*>(handle.cast<uintptr_t>());
}

} // namespace kiln::python
