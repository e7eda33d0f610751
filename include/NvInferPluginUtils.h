// NvInferPluginUtils.h — parameter structs of the standard plugin library's legacy detection plugins
// (namespace nvinfer1::plugin), kept for source compatibility.
#ifndef NV_INFER_PLUGIN_UTILS_H
#define NV_INFER_PLUGIN_UTILS_H

#include "NvInferRuntimeBase.h"

namespace nvinfer1
{
namespace plugin
{

//!
//! \struct PriorBoxParameters
//! \brief Parameters of the PriorBox plugin, which generates SSD prior boxes over an H x W grid.
//!
struct PriorBoxParameters
{
    float* minSize;          //!< Minimum box sizes in pixels (numMinSize entries, not null).
    float* maxSize;          //!< Maximum box sizes in pixels (0 or numMinSize entries, may be null).
    float* aspectRatios;     //!< Aspect ratios (may be null).
    int32_t numMinSize;      //!< Entries in minSize (> 0).
    int32_t numMaxSize;      //!< Entries in maxSize.
    int32_t numAspectRatios; //!< Entries in aspectRatios.
    bool flip;               //!< Also generate the reciprocal of each aspect ratio.
    bool clip;               //!< Clip priors to [0, 1].
    float variance[4];       //!< Variances used to adjust the boxes.
    int32_t imgH;            //!< Image height (0: take it from the input).
    int32_t imgW;            //!< Image width (0: take it from the input).
    float stepH;             //!< Vertical step (0: imgH / feature-map height).
    float stepW;             //!< Horizontal step (0: imgW / feature-map width).
    float offset;            //!< Offset of each prior's center within its cell.
};

//!
//! \struct RPROIParams
//! \brief Parameters of the RPROI plugin (region proposal followed by ROI pooling).
//!
struct RPROIParams
{
    int32_t poolingH;          //!< Pooled output height.
    int32_t poolingW;          //!< Pooled output width.
    int32_t featureStride;     //!< Input image size divided by feature-map size.
    int32_t preNmsTop;         //!< Proposals kept before NMS.
    int32_t nmsMaxOut;         //!< Proposals kept after NMS.
    int32_t anchorsRatioCount; //!< Number of anchor aspect ratios.
    int32_t anchorsScaleCount; //!< Number of anchor scales.
    float iouThreshold;        //!< IoU threshold of the NMS step.
    float minBoxSize;          //!< Minimum box size before scaling.
    float spatialScale;        //!< Scale from input image to the last feature map.
};

//!
//! \struct GridAnchorParameters
//! \brief Parameters of one feature map for the GridAnchor plugin.
//!
struct GridAnchorParameters
{
    float minSize;           //!< Anchor scale of the finest resolution.
    float maxSize;           //!< Anchor scale of the coarsest resolution.
    float* aspectRatios;     //!< Aspect ratios placed at each grid point.
    int32_t numAspectRatios; //!< Entries in aspectRatios.
    int32_t H;               //!< Feature-map height.
    int32_t W;               //!< Feature-map width.
    float variance[4];       //!< Variances used to adjust the boxes.
};

//!
//! \enum CodeTypeSSD
//! \brief Box encoding used by the DetectionOutput plugin.
//! \deprecated Deprecated in TensorRT 10.0 with the DetectionOutput plugin.
//!
enum class CodeTypeSSD : int32_t
{
    CORNER TRT_DEPRECATED_ENUM = 0,      //!< Box corners.
    CENTER_SIZE TRT_DEPRECATED_ENUM = 1, //!< Box center and size.
    CORNER_SIZE TRT_DEPRECATED_ENUM = 2, //!< Box corner and size.
    TF_CENTER TRT_DEPRECATED_ENUM = 3    //!< Center and size with x and y swapped.
};

//!
//! \struct DetectionOutputParameters
//! \brief Parameters of the DetectionOutput plugin (box decoding followed by NMS).
//! \deprecated Deprecated in TensorRT 10.0 with the DetectionOutput plugin.
//!
struct TRT_DEPRECATED DetectionOutputParameters
{
    bool shareLocation;           //!< Boxes are shared among classes.
    bool varianceEncodedInTarget; //!< Variance is already encoded in the targets.
    int32_t backgroundLabelId;    //!< Background class id, or -1.
    int32_t numClasses;           //!< Number of classes.
    int32_t topK;                 //!< Boxes per image fed into NMS.
    int32_t keepTopK;             //!< Boxes per image kept after NMS.
    float confidenceThreshold;    //!< Minimum confidence considered.
    float nmsThreshold;           //!< NMS IoU threshold.
    CodeTypeSSD codeType;         //!< Box encoding.
    int32_t inputOrder[3];        //!< Order of {loc, conf, priorbox} inputs.
    bool confSigmoid;             //!< Apply a sigmoid to the confidences.
    bool isNormalized;            //!< Box coordinates are normalized.
    bool isBatchAgnostic{true};   //!< Priors are shared by all batch items.
};

//!
//! \brief Word-tree used by the Region plugin for hierarchical (yolo9000) softmax.
//!
struct softmaxTree
{
    int32_t* leaf;
    int32_t n;
    int32_t* parent;
    int32_t* child;
    int32_t* group;
    char** name;
    int32_t groups;
    int32_t* groupSize;
    int32_t* groupOffset;
};

//!
//! \struct RegionParameters
//! \brief Parameters of the YOLO Region plugin.
//!
struct RegionParameters
{
    int32_t num;         //!< Boxes predicted per grid cell.
    int32_t coords;      //!< Coordinates per box.
    int32_t classes;     //!< Number of classes.
    softmaxTree* smTree; //!< Optional word-tree for hierarchical softmax.
};

//!
//! \struct NMSParameters
//! \brief Parameters of the BatchedNMS plugin.
//! \deprecated Deprecated in TensorRT 10.0 with the BatchedNMS plugin.
//!
struct TRT_DEPRECATED NMSParameters
{
    bool shareLocation;        //!< Boxes are shared among classes.
    int32_t backgroundLabelId; //!< Background class id, or -1.
    int32_t numClasses;        //!< Number of classes.
    int32_t topK;              //!< Boxes fed into NMS.
    int32_t keepTopK;          //!< Boxes kept per image after NMS (<= topK).
    float scoreThreshold;      //!< Boxes scoring below this are dropped.
    float iouThreshold;        //!< NMS IoU threshold.
    bool isNormalized;         //!< Box coordinates are normalized to [0, 1].
};

} // namespace plugin
} // namespace nvinfer1

#endif // NV_INFER_PLUGIN_UTILS_H
