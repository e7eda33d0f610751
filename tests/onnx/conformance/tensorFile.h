// Decoding of the ONNX backend tests' reference data (TensorProto .pb files) into plain host arrays. Written
// independently of the parser's own tensor conversion, so the runner does not check Kiln against itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::conformance
{

//! A decoded tensor: floating-point elements in `real`, integer and bool elements in `integer` (exact).
struct RefTensor
{
    std::string name;
    int32_t onnxType{0};
    std::vector<int64_t> dims;
    bool isFloat{false};
    std::vector<double> real;
    std::vector<int64_t> integer;

    int64_t count() const;
};

//! Read a TensorProto file. Returns false with `error` set when the file is unreadable, is not a TensorProto
//! (sequences and optionals are reported as such) or holds an element type the runner cannot decode.
bool readTensorFile(std::string const& path, RefTensor& out, std::string& error);

//! The ONNX element type name ("FLOAT", "INT64", ...).
std::string onnxTypeName(int32_t onnxType);

} // namespace kiln::conformance
