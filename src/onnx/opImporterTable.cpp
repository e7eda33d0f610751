// The single table of op importers: every family file's entries, looked up by (op_type, domain).
#include "onnx/opImporters.h"

#include <map>
#include <utility>

namespace kiln
{
namespace
{

std::string canonicalDomain(std::string const& domain)
{
    return domain == "ai.onnx" ? std::string() : domain;
}

using Table = std::map<std::pair<std::string, std::string>, OpImporter>;

Table buildTable()
{
    Table table;
    for (auto const& family : {elementwiseImporters(), unaryImporters(), activationImporters(), castImporters(),
             shapeImporters(), layoutImporters(), indexingImporters(), convolutionImporters(), poolingImporters(),
             normalizationImporters(), matrixImporters(), reductionImporters(), softmaxImporters(), resizeImporters(),
             lossImporters(), recurrentImporters(), quantizationImporters(), miscImporters(), layerBackedImporters(),
             dataDependentImporters(), generatorImporters(), trainingImporters(), signalImporters(),
             einsumImporters(), gridSampleImporters(), controlFlowImporters(),
             pluginBackedImporters()})
    {
        for (OpImporterEntry const& entry : family)
        {
            table.emplace(std::make_pair(std::string(entry.opType), canonicalDomain(entry.domain)), entry.importer);
        }
    }
    return table;
}

Table const& table()
{
    static Table const kTable = buildTable();
    return kTable;
}

} // namespace

OpImporter findOpImporter(std::string const& opType, std::string const& domain)
{
    auto const it = table().find(std::make_pair(opType, canonicalDomain(domain)));
    return it == table().end() ? nullptr : it->second;
}

std::vector<std::string> registeredOpTypes()
{
    std::vector<std::string> names;
    for (auto const& entry : table())
    {
        names.push_back(entry.first.first);
    }
    return names;
}

} // namespace kiln
