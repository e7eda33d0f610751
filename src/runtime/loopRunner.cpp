// The loop interpreter of the CPU runtime: runs one loop of a plan (see controlFlowPlan.h). Shapes inside a loop
// are loop-invariant, so every tensor keeps the extents the context evaluated before the run; the builder keeps
// every tensor the loop touches live for the loop's whole node range (memoryPass / extendLoopLifetimes).
#include "core/dataType.h"
#include "core/quoting.h"
#include "runtime/loopRunner.h"

#include <cstring>
#include <limits>

namespace kiln
{

Status runLoop(char const* api, LoopPlan const& loop, Plan const& plan, EvaluatedShapes const& shapes,
    std::vector<void*> const& tensorData, std::function<Status(size_t, bool)> const& runNode)
{
    std::string const prefix = std::string("IExecutionContext::") + api + ": loop " + singleQuoted(loop.name) + ": ";
    auto const data = [&](int32_t t) { return static_cast<uint8_t*>(tensorData[static_cast<size_t>(t)]); };
    auto const bytes = [&](int32_t t) { return shapes.bytes[static_cast<size_t>(t)]; };
    auto const dims = [&](int32_t t) { return shapes.dims[static_cast<size_t>(t)]; };
    auto const elementBytes = [&](int32_t t) { return elementSize(plan.tensors[static_cast<size_t>(t)].type); };
    auto const copy = [&](int32_t to, int32_t from) -> Status {
        if (bytes(to) != bytes(from))
        {
            return invalidArgument(prefix + "tensor " + singleQuoted(plan.tensors[static_cast<size_t>(from)].name) + " has "
                + std::to_string(bytes(from)) + " bytes but " + singleQuoted(plan.tensors[static_cast<size_t>(to)].name)
                + " has " + std::to_string(bytes(to)));
        }
        if (bytes(to) > 0 && data(to) != data(from))
        {
            std::memmove(data(to), data(from), static_cast<size_t>(bytes(to)));
        }
        return Status::ok();
    };
    for (LoopPlan::Recurrence const& r : loop.recurrences)
    {
        KILN_RETURN_IF_ERROR(copy(r.state, r.init));
    }
    for (LoopPlan::Output const& o : loop.outputs)
    {
        if (bytes(o.output) > 0 && data(o.output) != nullptr)
        {
            std::memset(data(o.output), 0, static_cast<size_t>(bytes(o.output))); // iterations that never ran
        }
    }
    int64_t count = std::numeric_limits<int64_t>::max();
    if (loop.countTensor >= 0)
    {
        PlanTensor const& t = plan.tensors[static_cast<size_t>(loop.countTensor)];
        count = t.hasValues ? shapes.values[static_cast<size_t>(loop.countTensor)].at(0)
                            : loadInt(data(loop.countTensor), t.type, 0);
    }
    // Next values that are other recurrences' current values (e.g. a swap) go through a staging buffer.
    bool staged = false;
    for (LoopPlan::Recurrence const& r : loop.recurrences)
    {
        for (LoopPlan::Recurrence const& q : loop.recurrences)
        {
            staged = staged || (r.next == q.state && &r != &q);
        }
    }
    std::vector<std::vector<uint8_t>> staging(staged ? loop.recurrences.size() : 0);
    for (int64_t i = 0; i < count; ++i)
    {
        for (LoopPlan::Iterator const& it : loop.iterators)
        {
            nvinfer1::Dims const d = dims(it.input);
            int64_t const extent = d.d[it.axis];
            if (i >= extent)
            {
                return invalidArgument(prefix + "iteration " + std::to_string(i) + " runs past the end of iterated tensor "
                    + singleQuoted(plan.tensors[static_cast<size_t>(it.input)].name) + " (extent "
                    + std::to_string(extent) + " along axis " + std::to_string(it.axis) + ")");
            }
            extractSlice(data(it.input), d, it.axis, it.reverse ? extent - 1 - i : i, data(it.output),
                elementBytes(it.input));
        }
        for (size_t n : loop.conditionNodes)
        {
            KILN_RETURN_IF_ERROR(runNode(n, true));
        }
        if (loop.whileTensor >= 0 && *data(loop.whileTensor) == 0)
        {
            break;
        }
        for (size_t n : loop.bodyNodes)
        {
            KILN_RETURN_IF_ERROR(runNode(n, true));
        }
        for (LoopPlan::Output const& o : loop.outputs)
        {
            if (o.kind == nvinfer1::LoopOutput::kLAST_VALUE)
            {
                if (!o.fromRecurrence)
                {
                    KILN_RETURN_IF_ERROR(copy(o.output, o.value));
                }
                continue;
            }
            nvinfer1::Dims const d = dims(o.output);
            int64_t const length = d.d[o.axis];
            if (i >= length)
            {
                return invalidArgument(prefix + "iteration " + std::to_string(i) + " does not fit in loop output "
                    + singleQuoted(plan.tensors[static_cast<size_t>(o.output)].name) + ", whose concatenation length is "
                    + std::to_string(length));
            }
            int64_t const position = o.kind == nvinfer1::LoopOutput::kCONCATENATE ? i : length - 1 - i;
            insertSlice(data(o.value), data(o.output), d, o.axis, position, elementBytes(o.output));
        }
        if (staged)
        {
            for (size_t k = 0; k < loop.recurrences.size(); ++k)
            {
                int32_t const next = loop.recurrences[k].next;
                staging[k].assign(data(next), data(next) + bytes(next));
            }
            for (size_t k = 0; k < loop.recurrences.size(); ++k)
            {
                int32_t const state = loop.recurrences[k].state;
                if (static_cast<int64_t>(staging[k].size()) != bytes(state))
                {
                    return invalidArgument(prefix + "a next value's size differs from its recurrence's");
                }
                if (!staging[k].empty())
                {
                    std::memcpy(data(state), staging[k].data(), staging[k].size());
                }
            }
        }
        else
        {
            for (LoopPlan::Recurrence const& r : loop.recurrences)
            {
                KILN_RETURN_IF_ERROR(copy(r.state, r.next));
            }
        }
    }
    for (LoopPlan::Output const& o : loop.outputs)
    {
        if (o.fromRecurrence)
        {
            KILN_RETURN_IF_ERROR(copy(o.output, o.value)); // the value after the last iteration
        }
    }
    return Status::ok();
}

namespace
{
void sliceGeometry(nvinfer1::Dims const& dims, int32_t axis, int64_t elementBytes, int64_t& outer, int64_t& extent,
    int64_t& inner)
{
    outer = 1;
    inner = elementBytes;
    for (int32_t i = 0; i < axis; ++i)
    {
        outer *= dims.d[i];
    }
    extent = dims.d[axis];
    for (int32_t i = axis + 1; i < dims.nbDims; ++i)
    {
        inner *= dims.d[i];
    }
}
} // namespace

void extractSlice(void const* src, nvinfer1::Dims const& dims, int32_t axis, int64_t index, void* dst, int64_t elementBytes)
{
    int64_t outer = 0;
    int64_t extent = 0;
    int64_t inner = 0;
    sliceGeometry(dims, axis, elementBytes, outer, extent, inner);
    auto const* s = static_cast<uint8_t const*>(src);
    auto* d = static_cast<uint8_t*>(dst);
    for (int64_t o = 0; o < outer && inner > 0; ++o)
    {
        std::memcpy(d + o * inner, s + (o * extent + index) * inner, static_cast<size_t>(inner));
    }
}

void insertSlice(void const* src, void* dst, nvinfer1::Dims const& dims, int32_t axis, int64_t index, int64_t elementBytes)
{
    int64_t outer = 0;
    int64_t extent = 0;
    int64_t inner = 0;
    sliceGeometry(dims, axis, elementBytes, outer, extent, inner);
    auto const* s = static_cast<uint8_t const*>(src);
    auto* d = static_cast<uint8_t*>(dst);
    for (int64_t o = 0; o < outer && inner > 0; ++o)
    {
        std::memcpy(d + (o * extent + index) * inner, s + o * inner, static_cast<size_t>(inner));
    }
}

} // namespace kiln
