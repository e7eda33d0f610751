// CPU deconvolution: the reference transposed-convolution loop and the kernel entry points. The kernel object
// (oneDNN primitive cache, shape checks, weights handling) is shared with convolution (convolution.cpp).
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{

void referenceDeconvolution(Geometry3 const& g, int64_t n, int64_t c, int64_t k, int64_t groups, double const* x,
    double const* w, double const* bias, double* y)
{
    // Gather form: output position o receives input position i through kernel tap r when
    // o + padBefore == i * stride + r * dilation.
    int64_t const cg = c / groups;
    int64_t const kg = k / groups;
    int64_t const inVol = g.inVolume();
    int64_t const outVol = g.outVolume();
    int64_t const kVol = g.kernelVolume();
    auto source = [&](int32_t axis, int64_t o, int64_t r) -> int64_t {
        int64_t const t = o + g.padBefore[static_cast<size_t>(axis)] - r * g.dilation[static_cast<size_t>(axis)];
        int64_t const s = g.stride[static_cast<size_t>(axis)];
        if (t < 0 || t % s != 0)
        {
            return -1;
        }
        int64_t const i = t / s;
        return i < g.in[static_cast<size_t>(axis)] ? i : -1;
    };
    for (int64_t b = 0; b < n; ++b)
    {
        for (int64_t oc = 0; oc < k; ++oc)
        {
            int64_t const grp = oc / kg;
            int64_t const kk = oc % kg;
            double* yc = y + (b * k + oc) * outVol;
            for (int64_t od = 0; od < g.out[0]; ++od)
            {
                for (int64_t oh = 0; oh < g.out[1]; ++oh)
                {
                    for (int64_t ow = 0; ow < g.out[2]; ++ow)
                    {
                        double acc = bias != nullptr ? bias[oc] : 0.0;
                        for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
                        {
                            int64_t const id = source(0, od, kd);
                            if (id < 0)
                            {
                                continue;
                            }
                            for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
                            {
                                int64_t const ih = source(1, oh, kh);
                                if (ih < 0)
                                {
                                    continue;
                                }
                                for (int64_t kw = 0; kw < g.kernel[2]; ++kw)
                                {
                                    int64_t const iw = source(2, ow, kw);
                                    if (iw < 0)
                                    {
                                        continue;
                                    }
                                    int64_t const xOffset = (id * g.in[1] + ih) * g.in[2] + iw;
                                    int64_t const wOffset = (kd * g.kernel[1] + kh) * g.kernel[2] + kw;
                                    for (int64_t ci = 0; ci < cg; ++ci)
                                    {
                                        int64_t const ic = grp * cg + ci;
                                        acc += x[(b * c + ic) * inVol + xOffset] * w[(ic * kg + kk) * kVol + wOffset];
                                    }
                                }
                            }
                        }
                        yc[(od * g.out[1] + oh) * g.out[2] + ow] = acc;
                    }
                }
            }
        }
    }
}

StatusOr<std::unique_ptr<Kernel>> createDeconvolutionKernel(KernelSetup const& setup)
{
    return createConvolutionLikeKernel(setup, true);
}

std::vector<std::string> deconvolutionTactics(KernelSetup const& setup)
{
    return convolutionLikeTactics(setup, true);
}

} // namespace kiln
