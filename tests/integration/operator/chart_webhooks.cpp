#include "chart_webhooks.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <stdexcept>

#include "dha/kube/json.hpp"
#include "dha/testing/test_cluster.hpp"

namespace dha::optest {
namespace {

std::string base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace

std::string chart_webhooks_on_loopback(const std::string& chart, std::uint16_t port, const std::string& ca_pem) {
  for (const auto& text : testing::yaml_documents_as_json(chart)) {
    rapidjson::Document doc;
    doc.Parse(text.c_str());
    if (kube::string_at(doc, {"kind"}) != "ValidatingWebhookConfiguration") continue;
    auto& a = doc.GetAllocator();
    for (auto& webhook : doc["webhooks"].GetArray()) {
      const std::string path = kube::string_at(webhook, {"clientConfig", "service", "path"});
      rapidjson::Value config(rapidjson::kObjectType);
      config.AddMember("url", rapidjson::Value(fmt::format("https://127.0.0.1:{}{}", port, path).c_str(), a), a);
      config.AddMember("caBundle", rapidjson::Value(base64(ca_pem).c_str(), a), a);
      webhook["clientConfig"] = config;
    }
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    doc.Accept(writer);
    return buffer.GetString();
  }
  throw std::runtime_error("the chart renders no ValidatingWebhookConfiguration");
}

}  // namespace dha::optest
