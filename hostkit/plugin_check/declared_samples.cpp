#include "declared_samples.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dha/model/yaml_to_json.hpp"
#include "plugin_calls.hpp"
#include "samples.hpp"

namespace dha::plugin_check {

namespace {

using plugin_host::CallResult;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail("cannot read {}", path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every YAML (or JSON) document of a file: a CRD file may hold several, separated by "---".
std::vector<sdk::json::Document> documents_of(const std::string& path) {
  const std::string text = read_text(path);
  std::vector<sdk::json::Document> out;
  std::vector<std::string> parts;
  std::string current;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("---", 0) == 0) {
      parts.push_back(current);
      current.clear();
    } else {
      current += line + "\n";
    }
  }
  parts.push_back(current);
  for (const auto& part : parts) {
    if (part.find_first_not_of(" \t\n") == std::string::npos) continue;
    try {
      auto doc = model::yaml_to_json(part, path);
      sdk::json::Document copy;
      copy.CopyFrom(doc, copy.GetAllocator());
      if (!copy.IsNull()) out.push_back(std::move(copy));
    } catch (const std::exception& e) {
      fail("{}: {}", path, e.what());
    }
  }
  return out;
}

std::vector<std::string> sample_files(const Options& options) {
  std::vector<std::string> files;
  if (options.samples_dir.empty()) return files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(options.samples_dir, ec)) {
    const auto ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".json" || ext == ".yaml" || ext == ".yml"))
      files.push_back(entry.path().string());
  }
  if (ec) fail("--samples {}: {}", options.samples_dir, ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::string string_at(const sdk::json::Value& v, std::string_view path) {
  const auto* at = sdk::json::find_path(v, path);
  return at != nullptr && at->IsString() ? std::string(at->GetString()) : std::string();
}

bool is_of_kind(const sdk::json::Value& doc, const sdk::TargetKind& kind) {
  const std::string api_version = string_at(doc, "apiVersion");
  return string_at(doc, "kind") == kind.kind && api_version.substr(0, api_version.find('/')) == kind.api_group;
}

void set_path(sdk::json::Document& doc, const std::string& path, int64_t value) {
  auto& a = doc.GetAllocator();
  sdk::json::Value* at = &doc;
  const auto steps = sdk::json::path_steps(path);
  for (size_t i = 0; i < steps.size(); ++i) {
    const rapidjson::Value key(steps[i].data(), static_cast<rapidjson::SizeType>(steps[i].size()), a);
    if (i + 1 == steps.size()) {
      at->RemoveMember(key);
      at->AddMember(rapidjson::Value(key, a), rapidjson::Value(value), a);
      return;
    }
    auto member = at->FindMember(key);
    if (member == at->MemberEnd() || !member->value.IsObject()) {
      at->RemoveMember(key);
      at->AddMember(rapidjson::Value(key, a), rapidjson::Value(rapidjson::kObjectType), a);
      member = at->FindMember(key);
    }
    at = &member->value;
  }
}

}  // namespace

std::optional<std::string> crd_scale_path(const Options& options, const sdk::TargetKind& kind) {
  for (const auto& file : options.crd_files) {
    for (const auto& crd : documents_of(file)) {
      if (string_at(crd, "kind") != "CustomResourceDefinition" || string_at(crd, "spec.group") != kind.api_group ||
          string_at(crd, "spec.names.kind") != kind.kind)
        continue;
      const auto* versions = sdk::json::find_path(crd, "spec.versions");
      if (versions == nullptr || !versions->IsArray()) continue;
      for (const auto& v : versions->GetArray()) {
        if (string_at(v, "name") != kind.version) continue;
        std::string path = string_at(v, "subresources.scale.specReplicasPath");
        if (path.empty()) return std::nullopt;
        if (path.front() == '.') path.erase(0, 1);
        return path;
      }
    }
  }
  return std::nullopt;
}

CountPath count_path(const plugin_host::PluginInstance& p, const sdk::TargetKind& kind, const Options& options) {
  CountPath out;
  out.crd_path = crd_scale_path(options, kind);
  if (out.crd_path) {
    out.path = *out.crd_path;
    out.origin = "the CRD's /scale specReplicasPath";
    return out;
  }
  // The adapter says where it keeps the count in every answer, a count-less object's included.
  const CallResult r =
      checked(p, p.call(p.engine()->topology, object_with_count(kind, "spec.replicas", std::nullopt)), "topology");
  if (r.ok()) {
    auto doc = parse_or_fail(p, r.output, "topology");
    try {
      out.path = sdk::Topology::from_json(doc).replicas_path;
      out.origin = "the adapter's replicasPath";
      if (!out.path.empty()) return out;
    } catch (const std::exception&) {
      // engine.topology names what is wrong with the answer; the sample falls back below.
    }
  }
  out.path = "spec.replicas";
  out.origin = "the default replicasPath (the adapter refused an object without a count; give --crd or --samples)";
  return out;
}

std::string object_with_count(const sdk::TargetKind& kind, const std::string& path, std::optional<int64_t> count) {
  auto doc = sdk::json::parse(sample_target(kind, false), "sample target");
  if (count) set_path(doc, path, *count);
  return sdk::json::stringify(doc);
}

std::string declared_target(const plugin_host::PluginInstance& p, const sdk::TargetKind& kind, const Options& options) {
  return object_with_count(kind, count_path(p, kind, options).path, 3);
}

std::vector<TargetSample> target_samples(const sdk::TargetKind& kind, const CountPath& path, const Options& options) {
  std::vector<TargetSample> out;
  out.push_back({object_with_count(kind, path.path, 3), 3, "a generated " + kind.kind});
  out.push_back({object_with_count(kind, path.path, std::nullopt), std::nullopt,
                 "a generated " + kind.kind + " without a count"});
  for (const auto& file : sample_files(options)) {
    for (const auto& doc : documents_of(file)) {
      if (!doc.IsObject() || !is_of_kind(doc, kind)) continue;
      const auto* at = sdk::json::find_path(doc, path.path);
      std::optional<int64_t> count;
      if (at != nullptr && at->IsNumber()) count = sdk::json::truncate_to_int64(*at);
      out.push_back({sdk::json::stringify(doc), count, file});
    }
  }
  return out;
}

std::vector<GateSample> author_gate_samples(const Options& options) {
  std::vector<GateSample> out;
  for (const auto& file : sample_files(options)) {
    for (const auto& doc : documents_of(file)) {
      if (!doc.IsObject() || !doc.HasMember("request") || !doc.HasMember("expect")) continue;
      const std::string expect = string_at(doc, "expect");
      if (expect != "hold" && expect != "pass")
        fail("{}: \"expect\" must be \"hold\" or \"pass\", got \"{}\"", file, expect);
      out.push_back({sdk::json::stringify(doc["request"]), expect == "hold", file});
    }
  }
  return out;
}

}  // namespace dha::plugin_check
