#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "cluster_backends.hpp"

namespace dha::testing::detail {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool established(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse(body.c_str());
  if (!doc.IsObject() || !doc.HasMember("status") || !doc["status"].IsObject()) return false;
  const auto conditions = doc["status"].FindMember("conditions");
  if (conditions == doc["status"].MemberEnd() || !conditions->value.IsArray()) return false;  // not yet
  for (const auto& c : conditions->value.GetArray())
    if (c.IsObject() && c.HasMember("type") && c["type"].IsString() &&
        std::string(c["type"].GetString()) == "Established" && c.HasMember("status") && c["status"].IsString() &&
        std::string(c["status"].GetString()) == "True")
      return true;
  return false;
}

}  // namespace

std::vector<CrdFile> read_crd_files(const std::vector<std::string>& paths) {
  std::vector<CrdFile> out;
  for (const auto& path : paths) {
    std::vector<fs::path> files;
    if (fs::is_directory(path)) {
      for (const auto& entry : fs::directory_iterator(path)) {
        const auto ext = entry.path().extension().string();
        if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json"))
          files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
    } else if (fs::exists(path)) {
      files.emplace_back(path);
    } else {
      throw std::runtime_error("CRD path does not exist: " + path);
    }
    for (const auto& f : files) out.push_back({f.string(), read_file(f)});
  }
  return out;
}

void install_crds_over_http(const TestCluster& cluster, const std::vector<CrdFile>& files,
                            std::chrono::seconds timeout) {
  const std::string collection = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  std::vector<std::string> names;
  std::vector<std::string> lists;  // one served collection per CRD, e.g. /apis/g/v1/plural
  for (const auto& file : files) {
    const bool json = file.text.find_first_not_of(" \t\r\n") != std::string::npos &&
                      file.text[file.text.find_first_not_of(" \t\r\n")] == '{';
    std::vector<std::string> docs;
    try {
      docs = json ? std::vector<std::string>{file.text} : yaml_documents_as_json(file.text);
    } catch (const std::exception& e) {
      throw std::runtime_error("cannot parse " + file.path + ": " + e.what());
    }
    for (const auto& text : docs) {
      rapidjson::Document doc;
      doc.Parse(text.c_str());
      if (!doc.IsObject() || !doc.HasMember("kind") || !doc["kind"].IsString() ||
          std::string(doc["kind"].GetString()) != "CustomResourceDefinition")
        continue;
      const std::string name = doc["metadata"]["name"].GetString();
      const auto r = cluster.request("admin", "POST", collection, text);
      if (r.status != 201 && r.status != 409)
        throw std::runtime_error("CRD " + name + " from " + file.path + " was refused (" + std::to_string(r.status) +
                                 " " + r.error + "): " + r.body);
      names.push_back(name);
      const auto& spec = doc["spec"];
      for (const auto& v : spec["versions"].GetArray())
        if (v.HasMember("served") && v["served"].IsBool() && v["served"].GetBool()) {
          lists.push_back(std::string("/apis/") + spec["group"].GetString() + "/" + v["name"].GetString() + "/" +
                          spec["names"]["plural"].GetString() + "?limit=1");
          break;
        }
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const auto& name : names) {
    while (true) {
      const auto r = cluster.request("admin", "GET", collection + "/" + name);
      if (r.status == 200 && established(r.body)) break;
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("CRD " + name + " not Established within " + std::to_string(timeout.count()) +
                                 " s: " + r.body);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  // Established is not served yet: kube-apiserver answers 429 "storage is (re)initializing"
  // until the new resource's watch cache is ready. Wait until a list works.
  for (const auto& list : lists) {
    while (true) {
      const auto r = cluster.request("admin", "GET", list);
      if (r.status == 200) break;
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error(list + " not served within " + std::to_string(timeout.count()) + " s: " + r.body);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

}  // namespace dha::testing::detail
