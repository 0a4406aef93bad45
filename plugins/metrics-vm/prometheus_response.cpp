#include "prometheus_response.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include "dha/sdk/json.hpp"

namespace dha::plugins {
namespace {

namespace json = sdk::json;

[[noreturn]] void data_loss(const std::string& why) {
  throw sdk::Error(DHA_DATA_LOSS, "not a valid Prometheus API response: " + why);
}

std::string describe(const std::map<std::string, std::string>& labels) {
  std::string out = "{";
  for (const auto& [k, v] : labels) out += (out.size() > 1 ? "," : "") + k + "=\"" + v + "\"";
  return out + "}";
}

// A [<unix time>, "<value>"] pair. Prometheus writes the value as a string so that NaN and Inf
// survive JSON; those are refused here as non-finite.
double read_value(const json::Value& pair, const std::map<std::string, std::string>& labels) {
  if (!pair.IsArray() || pair.Size() != 2 || !pair[0].IsNumber()) data_loss("a sample value is not [time, \"value\"]");
  if (!pair[1].IsString()) data_loss("a sample value is not a string");
  const std::string text(json::view(pair[1]));
  if (text.empty()) data_loss("a sample value is empty");
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) data_loss("a sample value \"" + text + "\" is not a number");
  if (!std::isfinite(v)) {
    throw sdk::Error(DHA_OUT_OF_RANGE, "sample " + describe(labels) + " is " + text + ", not a finite number");
  }
  return v;
}

}  // namespace

sdk::Samples parse_instant_query_response(std::string_view body) {
  json::Document doc;
  try {
    doc = json::parse(body, "response");
  } catch (const sdk::Error& e) {
    data_loss(e.what());
  }
  if (!doc.IsObject()) data_loss("the body is not a JSON object");
  const json::Value* status = json::find(doc, "status");
  if (status == nullptr || !status->IsString()) data_loss("no \"status\" field");
  if (json::view(*status) == "error") {
    const json::Value* type = json::find(doc, "errorType");
    const json::Value* error = json::find(doc, "error");
    std::string message = "the metrics API refused the query";
    if (type != nullptr && type->IsString()) message += " (" + std::string(json::view(*type)) + ")";
    if (error != nullptr && error->IsString()) message += ": " + std::string(json::view(*error));
    throw sdk::Error(DHA_FAILED_PRECONDITION, message);
  }
  if (json::view(*status) != "success") data_loss("status is \"" + std::string(json::view(*status)) + "\"");
  const json::Value* data = json::find(doc, "data");
  if (data == nullptr || !data->IsObject()) data_loss("no \"data\" object");
  const json::Value* type = json::find(*data, "resultType");
  const json::Value* result = json::find(*data, "result");
  if (type == nullptr || !type->IsString() || result == nullptr) data_loss("no data.resultType or data.result");

  sdk::Samples out;
  const std::string_view result_type = json::view(*type);
  if (result_type == "scalar") {
    out.samples.push_back(sdk::Sample{{}, read_value(*result, {})});
    return out;
  }
  if (result_type != "vector") data_loss("an instant query returned a " + std::string(result_type));
  if (!result->IsArray()) data_loss("data.result is not an array");
  for (const auto& entry : result->GetArray()) {
    if (!entry.IsObject()) data_loss("a result entry is not an object");
    sdk::Sample sample;
    if (const json::Value* metric = json::find(entry, "metric"); metric != nullptr) {
      if (!metric->IsObject()) data_loss("a result's metric is not an object");
      for (auto it = metric->MemberBegin(); it != metric->MemberEnd(); ++it) {
        if (!it->value.IsString()) data_loss("a label value is not a string");
        sample.labels.emplace(std::string(json::view(it->name)), std::string(json::view(it->value)));
      }
    }
    const json::Value* value = json::find(entry, "value");
    if (value == nullptr) data_loss("a result entry has no value");
    sample.value = read_value(*value, sample.labels);
    out.samples.push_back(std::move(sample));
  }
  if (out.samples.empty()) throw sdk::Error(DHA_NOT_FOUND, "the query returned an empty vector");
  return out;
}

}  // namespace dha::plugins
