// Implementation of the shared pieces of the class-based Python plugin bindings (see pluginCommon.h): owned
// plugin fields, error reporting from trampolines, descriptor conversions and the PluginBuffer pointer type.
#include "pluginCommon.h"

#include "deviceMemory.h"

#include <pybind11/eval.h>

#include <cstdio>
#include <cstring>
#include <mutex>

namespace kiln::python
{

namespace
{

//! numpy dtype that holds one element of a plugin field type.
py::dtype fieldDtype(nvinfer1::PluginFieldType type)
{
    using T = nvinfer1::PluginFieldType;
    switch (type)
    {
    case T::kFLOAT16: return py::dtype("float16");
    case T::kFLOAT32: return py::dtype("float32");
    case T::kFLOAT64: return py::dtype("float64");
    case T::kINT8: return py::dtype("int8");
    case T::kINT16: return py::dtype("int16");
    case T::kINT32: return py::dtype("int32");
    case T::kINT64: return py::dtype("int64");
    case T::kBF16: return py::dtype("uint16");
    case T::kDIMS: return py::dtype("uint8");
    case T::kCHAR: return py::dtype("int8");
    case T::kUNKNOWN:
    case T::kFP8:
    case T::kINT4:
    case T::kFP4: return py::dtype("uint8");
    }
    return py::dtype("uint8");
}

//! True for the field types whose length counts bytes rather than typed elements.
bool lengthCountsBytes(nvinfer1::PluginFieldType type)
{
    using T = nvinfer1::PluginFieldType;
    return type == T::kUNKNOWN || type == T::kCHAR || type == T::kFP8 || type == T::kINT4 || type == T::kFP4;
}

std::mutex gErrorMutex;
std::string* gLastError = new std::string(); // never destroyed: may be written during interpreter shutdown

//! numpy typestr of one element of a tensor type; packed 4-bit types are exposed as bytes.
char const* typeString(nvinfer1::DataType type)
{
    using D = nvinfer1::DataType;
    switch (type)
    {
    case D::kFLOAT: return "<f4";
    case D::kHALF: return "<f2";
    case D::kINT8: return "|i1";
    case D::kINT32: return "<i4";
    case D::kBOOL: return "|b1";
    case D::kUINT8: return "|u1";
    case D::kFP8: return "|u1";
    case D::kBF16: return "<u2";
    case D::kINT64: return "<i8";
    case D::kINT4: return "|u1";
    case D::kFP4: return "|u1";
    case D::kE8M0: return "|u1";
    }
    return "|u1";
}

int64_t elementBits(nvinfer1::DataType type)
{
    using D = nvinfer1::DataType;
    switch (type)
    {
    case D::kFLOAT:
    case D::kINT32: return 32;
    case D::kHALF:
    case D::kBF16: return 16;
    case D::kINT64: return 64;
    case D::kINT4:
    case D::kFP4: return 4;
    default: return 8;
    }
}

// PluginBuffer: an int (the address, as tensorrt passes it) that can view its memory without copying: as a numpy
// array on the CPU backend, through __cuda_array_interface__ on the CUDA backend. Defined in Python so that it is a
// true int subclass.
char const* const kBufferSource = R"PY(
class _ArrayInterface:
    """Carries an __array_interface__ so that numpy can view foreign memory without copying."""

    def __init__(self, interface, owner):
        self.__array_interface__ = interface
        self._owner = owner


class _CudaArrayInterface:
    """Carries a __cuda_array_interface__ (a view with another shape or dtype) for torch, CuPy or Numba."""

    def __init__(self, interface, owner):
        self.__cuda_array_interface__ = interface
        self._owner = owner


def _typestr(dtype):
    import numpy as np
    return np.dtype(dtype).str


class PluginBuffer(int):
    """Address of a plugin input, output or workspace buffer, passed to enqueue() as an int like tensorrt does.

    On the CPU backend the memory is host memory: ``numpy()`` returns a writable numpy array that views it
    without copying (shape and dtype from the tensor descriptor; 1-D uint8 for the workspace). On the CUDA backend
    it is device memory: the buffer has ``__cuda_array_interface__`` (version 3, with the enqueue stream), so
    ``torch.as_tensor(buf, device="cuda")``, ``cupy.asarray(buf)`` or ``numba.cuda.as_cuda_array(buf)`` view it
    without copying, and ``cuda_array(shape, dtype)`` gives such a view with another shape or dtype. ``on_device``
    says which. Views are valid only during the enqueue() call that received the buffer.
    """

    def __new__(cls, address, shape, typestr, nbytes, desc=None, on_device=False, stream=0):
        obj = int.__new__(cls, address)
        obj.shape = tuple(shape)
        obj.typestr = typestr
        obj.nbytes = nbytes
        obj.desc = desc
        obj.on_device = bool(on_device)
        obj.stream = int(stream or 0)
        return obj

    @property
    def ptr(self):
        """The address as a plain int."""
        return int(self)

    @property
    def array_interface(self):
        """The numpy __array_interface__ dictionary describing this buffer."""
        return {"shape": self.shape, "typestr": self.typestr, "data": (int(self), False), "version": 3}

    def _cuda_interface(self, shape=None, dtype=None):
        interface = {
            "shape": self.shape if shape is None else tuple(int(d) for d in shape),
            "typestr": self.typestr if dtype is None else _typestr(dtype),
            "data": (int(self), False),
            "strides": None,
            "version": 3,
            # Protocol v3: the consumer orders its work after this stream; 0 (ambiguous) means the legacy default
            # stream, which the protocol spells 1.
            "stream": self.stream if self.stream else 1,
        }
        return interface

    @property
    def __cuda_array_interface__(self):
        """The CUDA array interface (CUDA backend only; AttributeError on host memory)."""
        if not self.on_device:
            raise AttributeError("PluginBuffer.__cuda_array_interface__: the buffer is host memory (CPU backend); "
                                 "use numpy()")
        return self._cuda_interface()

    def cuda_array(self, shape=None, dtype=None):
        """An object with __cuda_array_interface__ viewing this device buffer with another shape or dtype (no copy),
        e.g. for the workspace or the dense part of a data-dependent output; None for a null address."""
        if not self.on_device:
            raise TypeError("PluginBuffer.cuda_array: the buffer is host memory (CPU backend); use numpy()")
        if int(self) == 0:
            return None
        return _CudaArrayInterface(self._cuda_interface(shape, dtype), self)

    def numpy(self, shape=None, dtype=None):
        """A numpy array viewing this buffer (no copy); None for a null address. Host memory only.

        ``shape`` and ``dtype`` override the descriptor's, e.g. to view the workspace or the dense part of a
        data-dependent output.
        """
        import numpy as np
        if self.on_device:
            raise TypeError("PluginBuffer.numpy: the buffer is device memory (CUDA backend); wrap it with "
                            "torch.as_tensor(buf, device='cuda'), cupy.asarray(buf) or numba.cuda.as_cuda_array(buf) "
                            "(__cuda_array_interface__)")
        if int(self) == 0:
            return None
        interface = self.array_interface
        if dtype is not None:
            interface["typestr"] = np.dtype(dtype).str
        if shape is not None:
            interface["shape"] = tuple(int(d) for d in shape)
        return np.asarray(_ArrayInterface(interface, self))

    def __repr__(self):
        return "PluginBuffer(0x%x, shape=%s, typestr=%r, on_device=%s)" % (int(self), self.shape, self.typestr,
                                                                          self.on_device)
)PY";

py::object& bufferClass()
{
    static py::object* cls = new py::object(); // leaked on purpose: outlives the interpreter safely
    return *cls;
}

} // namespace

size_t pluginFieldElementSize(nvinfer1::PluginFieldType type)
{
    using T = nvinfer1::PluginFieldType;
    switch (type)
    {
    case T::kFLOAT16:
    case T::kINT16:
    case T::kBF16: return 2;
    case T::kFLOAT32:
    case T::kINT32: return 4;
    case T::kFLOAT64:
    case T::kINT64: return 8;
    case T::kDIMS: return sizeof(nvinfer1::Dims);
    default: return 1;
    }
}

// ---- PyPluginField ----------------------------------------------------------------------------------------------

PyPluginField::PyPluginField(std::string name, py::object data, nvinfer1::PluginFieldType type)
    : mName(std::move(name))
    , mType(type)
{
    setData(std::move(data));
}

void PyPluginField::setType(nvinfer1::PluginFieldType type)
{
    mType = type;
    setData(mData);
}

void PyPluginField::setData(py::object data)
{
    if (data.is_none())
    {
        mData = py::none();
        mDataPtr = nullptr;
        mLength = 0;
        return;
    }
    py::array arr;
    if (py::isinstance<py::str>(data))
    {
        std::string const text = data.cast<std::string>();
        arr = py::array(py::dtype("uint8"), std::vector<py::ssize_t>{static_cast<py::ssize_t>(text.size())});
        std::memcpy(arr.mutable_data(), text.data(), text.size());
    }
    else if (py::isinstance<py::bytes>(data) || py::isinstance<py::bytearray>(data))
    {
        std::string const bytes = py::isinstance<py::bytes>(data) ? data.cast<std::string>()
                                                                   : py::bytes(data).cast<std::string>();
        arr = py::array(py::dtype("uint8"), std::vector<py::ssize_t>{static_cast<py::ssize_t>(bytes.size())});
        std::memcpy(arr.mutable_data(), bytes.data(), bytes.size());
    }
    else
    {
        py::module_ np = py::module_::import("numpy");
        arr = np.attr("ascontiguousarray")(data);
    }
    // Numeric fields get the element type the creator will read; byte-counted fields keep their bytes.
    if (!lengthCountsBytes(mType) && mType != nvinfer1::PluginFieldType::kDIMS && !arr.dtype().is(fieldDtype(mType)))
    {
        if (!arr.dtype().equal(fieldDtype(mType)))
        {
            arr = arr.attr("astype")(fieldDtype(mType));
        }
    }
    mData = arr;
    mDataPtr = arr.data();
    if (lengthCountsBytes(mType))
    {
        mLength = static_cast<int32_t>(arr.nbytes());
    }
    else if (mType == nvinfer1::PluginFieldType::kDIMS)
    {
        mLength = static_cast<int32_t>(arr.nbytes() / static_cast<py::ssize_t>(sizeof(nvinfer1::Dims)));
    }
    else
    {
        mLength = static_cast<int32_t>(arr.size());
    }
}

nvinfer1::PluginField PyPluginField::view() const
{
    return nvinfer1::PluginField(mName.c_str(), mDataPtr, mType, mLength);
}

// ---- PyPluginFieldCollection ------------------------------------------------------------------------------------

PyPluginFieldCollection::PyPluginFieldCollection(std::vector<py::object> fields)
    : mFields(std::move(fields))
{
    for (auto const& f : mFields)
    {
        if (!py::isinstance<PyPluginField>(f))
        {
            throw py::type_error("PluginFieldCollection: every element must be a PluginField");
        }
    }
}

PyPluginFieldCollection PyPluginFieldCollection::fromC(nvinfer1::PluginFieldCollection const* fc)
{
    std::vector<py::object> fields;
    if (fc != nullptr && fc->fields != nullptr)
    {
        for (int32_t i = 0; i < fc->nbFields; ++i)
        {
            nvinfer1::PluginField const& f = fc->fields[i];
            py::object data = py::none();
            if (f.data != nullptr && f.length > 0)
            {
                size_t const elementBytes = lengthCountsBytes(f.type) ? 1 : pluginFieldElementSize(f.type);
                size_t const bytes = static_cast<size_t>(f.length) * elementBytes;
                py::dtype dt = fieldDtype(f.type);
                py::ssize_t const count = static_cast<py::ssize_t>(bytes / static_cast<size_t>(dt.itemsize()));
                py::array arr(dt, std::vector<py::ssize_t>{count});
                std::memcpy(arr.mutable_data(), f.data, bytes);
                data = arr;
            }
            PyPluginField field(f.name != nullptr ? f.name : "", py::none(), f.type);
            field.setData(data);
            fields.push_back(py::cast(std::move(field)));
        }
    }
    return PyPluginFieldCollection(std::move(fields));
}

nvinfer1::PluginFieldCollection const* PyPluginFieldCollection::view()
{
    mViews.clear();
    for (auto const& f : mFields)
    {
        mViews.push_back(f.cast<PyPluginField const&>().view());
    }
    mCollection.nbFields = static_cast<int32_t>(mViews.size());
    mCollection.fields = mViews.empty() ? nullptr : mViews.data();
    return &mCollection;
}

// ---- PyBacked / errors ------------------------------------------------------------------------------------------

void PyBacked::releaseSelf()
{
    py::object self = std::move(mSelfRef);
    mSelfRef = py::object();
    // `self` goes out of scope here and may delete this object: nothing may touch members afterwards.
}

void reportPluginError(std::string const& message)
{
    {
        std::lock_guard<std::mutex> lock(gErrorMutex);
        *gLastError = message;
    }
    nvinfer1::ILogger* logger = getLogger();
    if (logger != nullptr)
    {
        logger->log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
    }
    else
    {
        std::fprintf(stderr, "[kiln] %s\n", message.c_str());
    }
}

std::string lastPluginError()
{
    std::lock_guard<std::mutex> lock(gErrorMutex);
    return *gLastError;
}

// ---- conversions ------------------------------------------------------------------------------------------------

py::list toPyList(nvinfer1::PluginTensorDesc const* descs, int32_t n)
{
    py::list out;
    for (int32_t i = 0; i < n; ++i)
    {
        out.append(py::cast(descs[i]));
    }
    return out;
}

py::list toPyList(nvinfer1::DynamicPluginTensorDesc const* descs, int32_t n)
{
    py::list out;
    for (int32_t i = 0; i < n; ++i)
    {
        out.append(py::cast(descs[i]));
    }
    return out;
}

py::list toPyList(nvinfer1::DimsExprs const* exprs, int32_t n)
{
    py::list out;
    for (int32_t i = 0; i < n; ++i)
    {
        out.append(py::cast(exprs[i]));
    }
    return out;
}

py::list toPyList(nvinfer1::DataType const* types, int32_t n)
{
    py::list out;
    for (int32_t i = 0; i < n; ++i)
    {
        out.append(py::cast(types[i]));
    }
    return out;
}

int64_t descBytes(nvinfer1::PluginTensorDesc const& desc)
{
    int64_t volume = 1;
    for (int32_t i = 0; i < desc.dims.nbDims; ++i)
    {
        volume *= desc.dims.d[i] < 0 ? 0 : desc.dims.d[i];
    }
    return (volume * elementBits(desc.type) + 7) / 8;
}

py::object makeBuffer(void const* ptr, nvinfer1::PluginTensorDesc const& desc, bool onDevice, void* stream)
{
    py::tuple shape;
    char const* typestr = typeString(desc.type);
    int64_t const bytes = descBytes(desc);
    bool const packed = elementBits(desc.type) < 8;
    if (desc.format == nvinfer1::TensorFormat::kLINEAR && !packed)
    {
        shape = py::tuple(desc.dims.nbDims < 0 ? 0 : desc.dims.nbDims);
        for (int32_t i = 0; i < desc.dims.nbDims; ++i)
        {
            shape[i] = py::int_(desc.dims.d[i]);
        }
    }
    else
    {
        shape = py::make_tuple(bytes);
        typestr = "|u1";
    }
    return bufferClass()(reinterpret_cast<uintptr_t>(ptr), shape, typestr, bytes, py::cast(desc), onDevice,
        reinterpret_cast<uintptr_t>(stream));
}

py::list makeBuffers(void const* const* ptrs, nvinfer1::PluginTensorDesc const* descs, int32_t count, bool onDevice,
    void* stream)
{
    py::list buffers;
    for (int32_t i = 0; i < count; ++i)
    {
        buffers.append(makeBuffer(ptrs[i], descs[i], onDevice, stream));
    }
    return buffers;
}

py::object makeRawBuffer(void const* ptr, int64_t nbytes, bool onDevice, void* stream)
{
    return bufferClass()(reinterpret_cast<uintptr_t>(ptr), py::make_tuple(nbytes), "|u1", nbytes, py::none(),
        onDevice, reinterpret_cast<uintptr_t>(stream));
}

bool enqueueOnDevice(void const* const* inputs, int32_t nbInputs, void const* const* outputs, int32_t nbOutputs,
    void const* workspace)
{
    std::vector<void const*> pointers(inputs, inputs + nbInputs);
    pointers.insert(pointers.end(), outputs, outputs + nbOutputs);
    pointers.push_back(workspace);
    return buffersOnDevice(pointers.data(), static_cast<int32_t>(pointers.size()));
}

void bindPluginBuffers(py::module_& m)
{
    py::dict scope;
    scope["__builtins__"] = py::module_::import("builtins");
    scope["__name__"] = m.attr("__name__");
    py::exec(kBufferSource, scope);
    bufferClass() = scope["PluginBuffer"];
    m.attr("PluginBuffer") = scope["PluginBuffer"];
    m.def("last_plugin_error", &lastPluginError,
        "Text of the last error raised by a Python plugin method and reported by Kiln ('' if none).");
}

} // namespace kiln::python
