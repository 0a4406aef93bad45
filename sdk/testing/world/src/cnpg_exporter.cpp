#include "dha/testing/world/cnpg_exporter.hpp"

namespace dha::testing::world {

CnpgExporter::CnpgExporter(std::string namespace_name, std::string app_name)
    : exporter_(EngineDescription::postgres(), std::move(namespace_name), std::move(app_name)) {}

}  // namespace dha::testing::world
