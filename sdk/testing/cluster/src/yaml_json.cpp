#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <stdexcept>

#include "dha/testing/base/yaml_json.hpp"
#include "dha/testing/test_cluster.hpp"

namespace dha::testing {

std::vector<std::string> yaml_documents_as_json(const std::string& yaml) {
  std::vector<std::string> out;
  try {
    for (const auto& doc : base::yaml_documents(yaml)) {
      if (!doc.IsObject()) continue;  // only objects are manifests
      rapidjson::StringBuffer buffer;
      rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
      doc.Accept(writer);
      out.emplace_back(buffer.GetString(), buffer.GetSize());
    }
  } catch (const base::YamlError& e) {
    throw std::runtime_error(e.what());
  }
  return out;
}

}  // namespace dha::testing
