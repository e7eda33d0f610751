// onnxStructureFuzz.cpp — structure-aware libFuzzer target for the ONNX parser (issue 17). Debian packages no
// libprotobuf-mutator, so the custom mutator here decodes the ModelProto with protobuf, edits it as a model
// exporter or an attacker could (integer and float attributes to extreme values, the ints of pads/strides/
// dilations/axes/perm above the layers' limits, node inputs renamed to other values of the graph, op types
// exchanged, input dims and initializer dims changed, nodes dropped or repeated) and serializes it again, so that
// mutations reach the importers instead of breaking the protobuf encoding. Inputs that do not decode fall back to
// libFuzzer's byte mutations. Every input is then parsed into a fresh network: a failed parse must record an error
// with a description; a successful one must leave a network whose outputs exist.
#include "fuzz/fuzzCommon.h"

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{

//! A value near `v` or an extreme. The arithmetic wraps (in uint64_t), so that the mutator never overflows itself
//! on an attribute that is already extreme (INT64_MIN, INT64_MAX).
int64_t extremeInt(int64_t v, std::mt19937_64& rng)
{
    uint64_t const u = static_cast<uint64_t>(v);
    int64_t const picks[] = {static_cast<int64_t>(u + 1), static_cast<int64_t>(u - 1), 0, -1,
        static_cast<int64_t>(0 - u), 100000, 100001, 200000, int64_t{1} << 31, int64_t{1} << 62, -(int64_t{1} << 62)};
    return picks[rng() % (sizeof(picks) / sizeof(picks[0]))];
}

//! Every value name of the graph (inputs, initializers, node outputs).
std::vector<std::string> valueNames(::onnx::GraphProto const& g)
{
    std::vector<std::string> names;
    for (auto const& in : g.input())
    {
        names.push_back(in.name());
    }
    for (auto const& init : g.initializer())
    {
        names.push_back(init.name());
    }
    for (auto const& node : g.node())
    {
        for (auto const& out : node.output())
        {
            names.push_back(out);
        }
    }
    return names;
}

//! One structural edit of the model's main graph; false when there was nothing of the chosen kind.
bool mutateModel(::onnx::ModelProto& model, std::mt19937_64& rng)
{
    ::onnx::GraphProto& g = *model.mutable_graph();
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
    static char const* const kOPS[] = {"Conv", "MaxPool", "AveragePool", "ConvTranspose", "Gather", "Reshape",
        "Transpose", "Slice", "Concat", "Add", "MatMul", "Softmax", "Pad", "Resize", "Expand", "Tile", "Squeeze",
        "Unsqueeze", "ReduceSum", "TopK", "Split", "Flatten", "Cast", "Where", "NonZero"};
    switch (rng() % 7)
    {
    case 0: // an integer or integer-list attribute
    case 1:
    {
        if (g.node_size() == 0)
        {
            return false;
        }
        ::onnx::NodeProto& node = *g.mutable_node(pick(g.node_size()));
        if (node.attribute_size() == 0 || rng() % 4 == 0)
        {
            static char const* const kNAMES[] = {"pads", "strides", "dilations", "axes", "perm", "axis", "group",
                "kernel_shape", "output_padding", "keepdims", "k"};
            ::onnx::AttributeProto* a = node.add_attribute();
            a->set_name(kNAMES[rng() % (sizeof(kNAMES) / sizeof(kNAMES[0]))]);
            a->set_type(::onnx::AttributeProto::INTS);
            for (int i = 0; i < 1 + pick(6); ++i)
            {
                a->add_ints(extremeInt(1, rng));
            }
            return true;
        }
        ::onnx::AttributeProto& a = *node.mutable_attribute(pick(node.attribute_size()));
        if (a.type() == ::onnx::AttributeProto::INT)
        {
            a.set_i(extremeInt(a.i(), rng));
        }
        else if (a.type() == ::onnx::AttributeProto::INTS && a.ints_size() > 0)
        {
            int const i = pick(a.ints_size());
            a.set_ints(i, extremeInt(a.ints(i), rng));
        }
        else if (a.type() == ::onnx::AttributeProto::FLOAT)
        {
            float const picks[] = {0.0F, -1.0F, 1e30F, -1e-30F, std::numeric_limits<float>::infinity()};
            a.set_f(picks[rng() % 5]);
        }
        else
        {
            return false;
        }
        return true;
    }
    case 2: // a node input renamed to another value of the graph (or to nothing)
    {
        std::vector<std::string> const names = valueNames(g);
        if (g.node_size() == 0 || names.empty())
        {
            return false;
        }
        ::onnx::NodeProto& node = *g.mutable_node(pick(g.node_size()));
        if (node.input_size() == 0)
        {
            node.add_input(names[static_cast<size_t>(pick(static_cast<int>(names.size())))]);
            return true;
        }
        node.set_input(pick(node.input_size()), rng() % 5 == 0 ? std::string() : names[rng() % names.size()]);
        return true;
    }
    case 3: // another op type
    {
        if (g.node_size() == 0)
        {
            return false;
        }
        g.mutable_node(pick(g.node_size()))->set_op_type(kOPS[rng() % (sizeof(kOPS) / sizeof(kOPS[0]))]);
        return true;
    }
    case 4: // an input dimension
    {
        if (g.input_size() == 0)
        {
            return false;
        }
        auto* shape = g.mutable_input(pick(g.input_size()))->mutable_type()->mutable_tensor_type()->mutable_shape();
        if (shape->dim_size() == 0 || rng() % 4 == 0)
        {
            shape->add_dim()->set_dim_value(1 + pick(8));
            return true;
        }
        auto* dim = shape->mutable_dim(pick(shape->dim_size()));
        if (rng() % 3 == 0)
        {
            dim->set_dim_param("d" + std::to_string(pick(3)));
        }
        else
        {
            dim->set_dim_value(extremeInt(dim->dim_value(), rng));
        }
        return true;
    }
    case 5: // an initializer's dims (its data stays: sizes disagree)
    {
        if (g.initializer_size() == 0)
        {
            return false;
        }
        ::onnx::TensorProto& t = *g.mutable_initializer(pick(g.initializer_size()));
        if (t.dims_size() == 0 || rng() % 3 == 0)
        {
            t.add_dims(1 + pick(4));
        }
        else
        {
            int const i = pick(t.dims_size());
            t.set_dims(i, extremeInt(t.dims(i), rng));
        }
        return true;
    }
    default: // drop a node or repeat one
    {
        if (g.node_size() == 0)
        {
            return false;
        }
        int const n = pick(g.node_size());
        if (rng() % 2 == 0)
        {
            g.mutable_node()->DeleteSubrange(n, 1);
        }
        else
        {
            *g.add_node() = g.node(n);
        }
        return true;
    }
    }
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize, unsigned int seed)
{
    std::mt19937_64 rng(seed);
    ::onnx::ModelProto model;
    if (size > static_cast<size_t>(INT32_MAX) || !model.ParseFromArray(data, static_cast<int>(size)) || rng() % 8 == 0)
    {
        return kiln::fuzz::byteMutation(data, size, maxSize, rng);
    }
    int const edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e)
    {
        (void) mutateModel(model, rng);
    }
    std::string bytes;
    if (!model.SerializeToString(&bytes) || bytes.size() > maxSize)
    {
        return kiln::fuzz::byteMutation(data, size, maxSize, rng);
    }
    std::memcpy(data, bytes.data(), bytes.size());
    return bytes.size();
}

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    kiln::fuzz::parseOnnxChecked(data, size);
    return 0;
}
