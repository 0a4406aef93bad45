#include "chart_rbac.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace dha::optest {
namespace {

const char* const kChartServiceAccount = "db-autoscaler";

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string collection_path(const std::string& kind, const std::string& namespace_name) {
  static const std::map<std::string, std::string> plural{{"ClusterRole", "clusterroles"},
                                                         {"ClusterRoleBinding", "clusterrolebindings"},
                                                         {"Role", "roles"},
                                                         {"RoleBinding", "rolebindings"}};
  const std::string base = "/apis/rbac.authorization.k8s.io/v1/";
  const bool namespaced = kind == "Role" || kind == "RoleBinding";
  return base + (namespaced ? "namespaces/" + namespace_name + "/" : "") + plural.at(kind);
}

std::string str(const rapidjson::Value& v, const char* name, const std::string& fallback = "") {
  auto it = v.FindMember(name);
  return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString()) : fallback;
}

bool names_chart_service_account(const rapidjson::Value& subject) {
  return str(subject, "kind") == "ServiceAccount" && str(subject, "name") == kChartServiceAccount &&
         str(subject, "namespace") == kReleaseNamespace;
}

void flatten(const rapidjson::Value& rules, std::set<Grant>& out) {
  for (const auto& rule : rules.GetArray()) {
    if (rule.HasMember("nonResourceURLs")) {
      for (const auto& url : rule["nonResourceURLs"].GetArray())
        for (const auto& v : rule["verbs"].GetArray()) out.insert({"", url.GetString(), v.GetString()});
      continue;
    }
    for (const auto& g : rule["apiGroups"].GetArray())
      for (const auto& res : rule["resources"].GetArray())
        for (const auto& v : rule["verbs"].GetArray()) out.insert({g.GetString(), res.GetString(), v.GetString()});
  }
}

}  // namespace

std::string render_chart(const std::vector<std::string>& extra_args) {
  std::string command = "DHA_CHART_WORK=" + shell_quote(DHA_CHART_WORK) + " " +
                        shell_quote(std::string(DHA_SOURCE_DIR) + "/tests/chart/render-chart.sh") + " --namespace " +
                        kReleaseNamespace + " --release " + kChartServiceAccount;
  for (const auto& a : extra_args) command += " " + shell_quote(a);
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string out;
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe) != nullptr) out += buf.data();
  const int status = ::pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("rendering the chart failed:\n" + out);
  return out;
}

std::set<Grant> apply_chart_rbac(const testing::TestCluster& cluster, const std::string& rendered,
                                 const std::vector<std::pair<std::string, std::string>>& service_accounts) {
  std::map<std::string, rapidjson::Document> roles;  // "ClusterRole/name" or "Role/name" -> the role
  std::vector<std::string> bound;                    // the roles bound to the chart's ServiceAccount
  for (const auto& text : testing::yaml_documents_as_json(rendered)) {
    rapidjson::Document doc;
    doc.Parse(text.c_str());
    const std::string kind = str(doc, "kind");
    if (kind != "ClusterRole" && kind != "ClusterRoleBinding" && kind != "Role" && kind != "RoleBinding") continue;
    const std::string ns = str(doc["metadata"], "namespace", kReleaseNamespace);
    if (kind == "RoleBinding" || kind == "ClusterRoleBinding") {
      auto& a = doc.GetAllocator();
      rapidjson::Value subjects(rapidjson::kArrayType);
      bool ours = false;
      for (auto& s : doc["subjects"].GetArray()) {
        if (!names_chart_service_account(s)) {
          subjects.PushBack(rapidjson::Value(s, a), a);
          continue;
        }
        ours = true;
        for (const auto& [sa_ns, sa_name] : service_accounts) {
          rapidjson::Value subject(rapidjson::kObjectType);
          subject.AddMember("kind", "ServiceAccount", a);
          subject.AddMember("name", rapidjson::Value(sa_name.c_str(), a), a);
          subject.AddMember("namespace", rapidjson::Value(sa_ns.c_str(), a), a);
          subjects.PushBack(subject, a);
        }
      }
      doc["subjects"] = subjects;
      if (ours) bound.push_back(str(doc["roleRef"], "kind") + "/" + str(doc["roleRef"], "name"));
    }
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    doc.Accept(writer);
    const std::string collection = collection_path(kind, ns);
    auto r = cluster.request("admin", "POST", collection, buffer.GetString());
    // A control plane shared by several tests has it already, maybe changed by a test that took
    // a grant away: replace it (RBAC objects update without a resourceVersion).
    if (r.status == 409)
      r = cluster.request("admin", "PUT", collection + "/" + str(doc["metadata"], "name"), buffer.GetString());
    if (r.status != 201 && r.status != 200)
      throw std::runtime_error("the chart's " + kind + " was refused (" + std::to_string(r.status) + "): " + r.body);
    if (kind == "ClusterRole" || kind == "Role") roles[kind + "/" + str(doc["metadata"], "name")] = std::move(doc);
  }
  std::set<Grant> grants;
  for (const auto& ref : bound) {
    auto it = roles.find(ref);
    if (it != roles.end() && it->second.HasMember("rules")) flatten(it->second["rules"], grants);
    // else a built-in role such as system:auth-delegator
  }
  return grants;
}

Grant grant_of(const testing::AuditEntry& request) {
  std::vector<std::string> parts;
  std::size_t start = 1;
  while (start <= request.path.size()) {
    auto slash = request.path.find('/', start);
    if (slash == std::string::npos) slash = request.path.size();
    parts.push_back(request.path.substr(start, slash - start));
    start = slash + 1;
  }
  Grant g;
  std::size_t i = 0;
  if (!parts.empty() && parts[0] == "api") {
    i = 2;  // api/v1
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    g.group = parts[1];
    i = 3;  // apis/group/version
  } else {
    g.resource = request.path;
    g.verb = request.method == "GET" ? "get" : "create";
    return g;
  }
  if (i + 1 < parts.size() && parts[i] == "namespaces" && i + 2 < parts.size()) i += 2;
  bool named = false;
  if (i < parts.size()) {
    g.resource = parts[i];
    named = i + 1 < parts.size();
    if (i + 2 < parts.size()) g.resource += "/" + parts[i + 2];
  }
  const bool watch =
      request.query.find("watch=true") != std::string::npos || request.query.find("watch=1") != std::string::npos;
  static const std::map<std::string, std::string> writes{
      {"POST", "create"}, {"PUT", "update"}, {"PATCH", "patch"}, {"DELETE", "delete"}};
  if (request.method == "GET")
    g.verb = watch ? "watch" : named ? "get" : "list";
  else
    g.verb = writes.count(request.method) ? writes.at(request.method) : request.method;
  return g;
}

}  // namespace dha::optest
