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

// The data object of a successful API document; the refusal of an error one.
struct ApiData {
  std::string_view result_type;
  const json::Value* result;
};

ApiData read_api_data(const json::Document& doc) {
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
  return {json::view(*type), result};
}

json::Document parse_body(std::string_view body) {
  try {
    return json::parse(body, "response");
  } catch (const sdk::Error& e) {
    data_loss(e.what());
  }
}

std::map<std::string, std::string> read_labels(const json::Value& entry) {
  std::map<std::string, std::string> labels;
  if (const json::Value* metric = json::find(entry, "metric"); metric != nullptr) {
    if (!metric->IsObject()) data_loss("a result's metric is not an object");
    for (auto it = metric->MemberBegin(); it != metric->MemberEnd(); ++it) {
      if (!it->value.IsString()) data_loss("a label value is not a string");
      labels.emplace(std::string(json::view(it->name)), std::string(json::view(it->value)));
    }
  }
  return labels;
}

}  // namespace

sdk::Samples parse_instant_query_response(std::string_view body) {
  const json::Document doc = parse_body(body);
  const auto [result_type, result] = read_api_data(doc);
  sdk::Samples out;
  if (result_type == "scalar") {
    out.samples.push_back(sdk::Sample{{}, read_value(*result, {})});
    return out;
  }
  if (result_type != "vector") data_loss("an instant query returned a " + std::string(result_type));
  if (!result->IsArray()) data_loss("data.result is not an array");
  for (const auto& entry : result->GetArray()) {
    if (!entry.IsObject()) data_loss("a result entry is not an object");
    sdk::Sample sample;
    sample.labels = read_labels(entry);
    const json::Value* value = json::find(entry, "value");
    if (value == nullptr) data_loss("a result entry has no value");
    sample.value = read_value(*value, sample.labels);
    out.samples.push_back(std::move(sample));
  }
  if (out.samples.empty()) throw sdk::Error(DHA_NOT_FOUND, "the query returned an empty vector");
  return out;
}

sdk::RangeResult parse_range_query_response(std::string_view body, std::int64_t max_points) {
  const json::Document doc = parse_body(body);
  const auto [result_type, result] = read_api_data(doc);
  if (result_type != "matrix") data_loss("a range query returned a " + std::string(result_type));
  if (!result->IsArray()) data_loss("data.result is not an array");
  sdk::RangeResult out;
  bool any = false;
  for (const auto& entry : result->GetArray()) {
    if (!entry.IsObject()) data_loss("a result entry is not an object");
    sdk::Series series;
    series.labels = read_labels(entry);
    const json::Value* values = json::find(entry, "values");
    if (values == nullptr || !values->IsArray()) data_loss("a matrix entry has no values array");
    if (static_cast<std::int64_t>(values->Size()) > max_points) {
      throw sdk::Error(DHA_RESOURCE_EXHAUSTED, "a series " + describe(series.labels) + " has " +
                                                   std::to_string(values->Size()) + " points, more than the " +
                                                   std::to_string(max_points) + " asked for");
    }
    for (const auto& pair : values->GetArray()) {
      double v = 0;
      try {
        v = read_value(pair, series.labels);
      } catch (const sdk::Error& e) {
        // One NaN step in a week is a step without a reading, not a reason to lose the week.
        if (e.status() == DHA_OUT_OF_RANGE) continue;
        throw;
      }
      const double t = pair[0].GetDouble();
      if (!(std::fabs(t) < 1e15)) data_loss("a point's time is out of range");
      const auto seconds = static_cast<std::int64_t>(std::llround(t));
      if (!series.points.empty() && seconds <= series.points.back().first)
        data_loss("points are not in increasing time");
      series.points.emplace_back(seconds, v);
    }
    any = any || !series.points.empty();
    out.series.push_back(std::move(series));
  }
  if (!any) throw sdk::Error(DHA_NOT_FOUND, "the range query returned no points");
  return out;
}

}  // namespace dha::plugins
