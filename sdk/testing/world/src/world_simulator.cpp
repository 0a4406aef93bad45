#include "dha/testing/world/world_simulator.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "dha/testing/world/engine_exporter.hpp"
#include "dha/testing/world/vm_push.hpp"

namespace dha::testing::world {
namespace {

constexpr const char* kMonitorsPath = "/apis/cozystack.io/v1alpha1";
// A WorkloadMonitor is re-read this often even when nothing changed, so one deleted or edited by
// hand is put back.
constexpr auto kMonitorResync = std::chrono::seconds(5);

std::string collection_path(const char* group_path, const std::string& namespace_name, const char* plural) {
  if (namespace_name.empty()) return std::string(group_path) + "/" + plural;
  return std::string(group_path) + "/namespaces/" + namespace_name + "/" + plural;
}

std::string monitor_path(const std::string& namespace_name, const std::string& monitor) {
  return collection_path(kMonitorsPath, namespace_name, "workloadmonitors") + "/" + monitor;
}

std::string short_body(const std::string& body) { return body.size() > 300 ? body.substr(0, 300) + "..." : body; }

template <typename Build>
std::string json_text(Build&& build) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  build(w);
  return std::string(buffer.GetString(), buffer.GetSize());
}

int64_t int_at(const rapidjson::Value& object, const char* key, int64_t fallback) {
  if (!object.IsObject()) return fallback;
  const auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsNumber()) return fallback;
  return it->value.IsInt64() ? it->value.GetInt64() : static_cast<int64_t>(it->value.GetDouble());
}

// The number at a dotted path ("spec.replicas") of a JSON object; nullopt when it is not there.
std::optional<int64_t> int_at_path(const rapidjson::Value& object, const std::string& path) {
  const rapidjson::Value* at = &object;
  size_t start = 0;
  while (true) {
    const auto dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->IsObject()) return std::nullopt;
    const auto it = at->FindMember(key.c_str());
    if (it == at->MemberEnd()) return std::nullopt;
    at = &it->value;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (!at->IsNumber()) return std::nullopt;
  return at->IsInt64() ? at->GetInt64() : static_cast<int64_t>(at->GetDouble());
}

// Sets `value` at a dotted path ("status.topology.readyNodes") of `doc`, making the objects on the way.
void set_at_path(rapidjson::Document& doc, const std::string& path, rapidjson::Value value) {
  auto& a = doc.GetAllocator();
  rapidjson::Value* at = &doc;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = path.find('.', start);
    const std::string step = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    auto member = at->FindMember(step.c_str());
    if (dot == std::string::npos) {
      if (member != at->MemberEnd())
        member->value = std::move(value);
      else
        at->AddMember(rapidjson::Value(step.c_str(), a), std::move(value), a);
      return;
    }
    if (member == at->MemberEnd() || !member->value.IsObject()) {
      if (member != at->MemberEnd()) at->RemoveMember(member);
      at->AddMember(rapidjson::Value(step.c_str(), a), rapidjson::Value(rapidjson::kObjectType), a);
      member = at->FindMember(step.c_str());
    }
    at = &member->value;
    start = dot + 1;
  }
}

}  // namespace

struct WorldSimulator::App {
  App(const EngineDescription& engine, std::string ns, std::string app_name, int replicas, Clock::time_point now)
      : namespace_name(std::move(ns)),
        name(std::move(app_name)),
        database(fill_placeholders(engine.pods, namespace_name, name), replicas, now),
        exporter(engine, namespace_name, name),
        last_available(replicas) {}

  std::string namespace_name;
  std::string name;
  SimulatedDatabase database;
  EngineExporter exporter;
  int last_available;
  bool gone = false;
  std::vector<std::string> removed_pods;  // waiting for the next scrape's zeros
  // The WorkloadMonitor as last written: {replicas, available, operational}.
  std::optional<std::tuple<int, int, bool>> monitor_written;
  Clock::time_point monitor_checked{};
  std::optional<std::tuple<bool, int, int>>
      status_written;  // the object's {Ready, available, instances} as last written
};

WorldSimulator::WorldSimulator(KubeEndpoint endpoint, LoadCurve curve, WorldOptions options, std::ostream& log)
    : kube_(std::move(endpoint)), curve_(std::move(curve)), options_(std::move(options)), log_(log) {
  if (options_.vm_url.empty()) throw std::invalid_argument("the VictoriaMetrics URL is empty");
  if (!(options_.time_scale > 0)) throw std::invalid_argument("time scale must be > 0");
  if (options_.scrape_interval.count() <= 0) throw std::invalid_argument("scrape interval must be > 0");
  if (options_.poll_interval.count() <= 0) throw std::invalid_argument("poll interval must be > 0");
  if (options_.provision.count() < 0) throw std::invalid_argument("provisioning time must be >= 0");
}

WorldSimulator::~WorldSimulator() = default;

double WorldSimulator::curve_seconds(Clock::time_point now) const {
  if (!curve_start_ || now < *curve_start_) return 0;
  return std::chrono::duration<double>(now - *curve_start_).count() * options_.time_scale;
}

std::vector<AppSnapshot> WorldSimulator::apps(Clock::time_point now) const {
  std::vector<AppSnapshot> out;
  for (const auto& [key, app] : apps_) {
    if (app->gone) continue;
    out.push_back({app->namespace_name, app->name, app->database.replicas(), app->database.available(now)});
  }
  return out;
}

void WorldSimulator::step(Clock::time_point now) {
  observe_applications(now);
  for (auto& [key, app] : apps_) {
    const int available = app->database.available(now);
    if (available != app->last_available) {
      log_ << "world: " << key << ": " << available << "/" << app->database.replicas() << " instances available"
           << std::endl;
      app->last_available = available;
    }
    if (!app->gone) {
      if (options_.engine.workload_monitor) sync_workload_monitor(*app, now);
      if (options_.engine.ready_condition || options_.engine.available_path || !options_.engine.status_fields.empty())
        sync_object_status(*app, now);
    }
  }
  if (!last_scrape_ || now - *last_scrape_ >= options_.scrape_interval) scrape(now);
  if (!options_.status_file.empty()) write_status_file(now);
}

void WorldSimulator::observe_applications(Clock::time_point now) {
  const EngineDescription& engine = options_.engine;
  KubeRest::Response list;
  try {
    list = kube_.get(engine.collection_path(options_.namespace_name));
  } catch (const std::exception& e) {
    log_ << "world: cannot list " << engine.kind << " applications: " << e.what() << std::endl;
    return;
  }
  if (list.status != 200) {
    log_ << "world: listing " << engine.kind << " applications: HTTP " << list.status << " " << short_body(list.body)
         << std::endl;
    return;
  }
  rapidjson::Document doc;
  doc.Parse(list.body.data(), list.body.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("items") || !doc["items"].IsArray()) {
    log_ << "world: the " << engine.kind << " list is not a Kubernetes list: " << short_body(list.body) << std::endl;
    return;
  }
  std::map<std::string, bool> seen;
  for (const auto& item : doc["items"].GetArray()) {
    if (!item.IsObject() || !item.HasMember("metadata") || !item["metadata"].IsObject()) continue;
    const auto& meta = item["metadata"];
    if (!meta.HasMember("name") || !meta["name"].IsString()) continue;
    const std::string name = meta["name"].GetString();
    const std::string ns =
        meta.HasMember("namespace") && meta["namespace"].IsString() ? meta["namespace"].GetString() : "";
    const int replicas = static_cast<int>(int_at_path(item, engine.replicas_path).value_or(engine.default_replicas));
    const std::string key = ns + "/" + name;
    seen[key] = true;
    auto it = apps_.find(key);
    if (it == apps_.end() || it->second->gone) {
      if (!curve_start_) curve_start_ = now;
      apps_[key] = std::make_unique<App>(engine, ns, name, replicas, now);
      log_ << "world: " << key << ": " << engine.kind << " with " << replicas << " instances (all available)"
           << std::endl;
      continue;
    }
    App& app = *it->second;
    const int before = app.database.replicas();
    if (replicas == before) continue;
    app.database.set_replicas(replicas, now, options_.provision);
    auto removed = app.database.take_removed_pods();
    app.removed_pods.insert(app.removed_pods.end(), removed.begin(), removed.end());
    log_ << "world: " << key << ": " << engine.replicas_path << " " << before << " -> " << replicas;
    if (replicas > before)
      log_ << " (new instances available in " << std::chrono::duration<double>(options_.provision).count() << " s)";
    else
      log_ << " (removed at once)";
    log_ << std::endl;
  }
  for (auto& [key, app] : apps_) {
    if (seen.count(key) || app->gone) continue;
    app->gone = true;
    app->database.set_replicas(0, now, options_.provision);
    auto removed = app->database.take_removed_pods();
    app->removed_pods.insert(app->removed_pods.end(), removed.begin(), removed.end());
    log_ << "world: " << key << ": application deleted" << std::endl;
  }
}

void WorldSimulator::sync_workload_monitor(App& app, Clock::time_point now) {
  const int replicas = app.database.replicas();
  const int available = app.database.available(now);
  // Cozystack's charts render minReplicas: 1; operational means at least that many are ready.
  const WorkloadMonitorDescription& described = *options_.engine.workload_monitor;
  const int min_replicas = described.min_replicas;
  const auto wanted = std::make_tuple(replicas, available, available >= min_replicas);
  if (app.monitor_written == wanted && now - app.monitor_checked < kMonitorResync) return;
  app.monitor_checked = now;
  const std::string name = fill_placeholders(described.name, app.namespace_name, app.name);
  const std::string path = monitor_path(app.namespace_name, name);
  try {
    auto current = kube_.get(path);
    if (current.status == 404) {
      const std::string body = json_text([&](auto& w) {
        w.StartObject();
        w.Key("apiVersion"), w.String("cozystack.io/v1alpha1");
        w.Key("kind"), w.String("WorkloadMonitor");
        w.Key("metadata"), w.StartObject();
        w.Key("name"), w.String(name);
        w.Key("namespace"), w.String(app.namespace_name);
        w.EndObject();
        w.Key("spec"), w.StartObject();
        w.Key("kind"), w.String(described.kind);
        w.Key("type"), w.String(described.kind);
        w.Key("replicas"), w.Int(replicas);
        w.Key("minReplicas"), w.Int(min_replicas);
        w.Key("selector"), w.StartObject();
        w.Key("app.kubernetes.io/instance"), w.String(name);
        w.EndObject();
        w.EndObject();
        w.EndObject();
      });
      current = kube_.create(collection_path(kMonitorsPath, app.namespace_name, "workloadmonitors"), body);
      if (current.status != 201 && current.status != 200 && current.status != 409) {
        log_ << "world: creating WorkloadMonitor " << path << ": HTTP " << current.status << " "
             << short_body(current.body) << std::endl;
        return;
      }
      if (current.status == 409) current = kube_.get(path);
    } else if (current.status != 200) {
      log_ << "world: reading WorkloadMonitor " << path << ": HTTP " << current.status << " "
           << short_body(current.body) << std::endl;
      return;
    }
    rapidjson::Document doc;
    doc.Parse(current.body.data(), current.body.size());
    if (doc.HasParseError() || !doc.IsObject()) {
      log_ << "world: WorkloadMonitor " << path << " is not JSON" << std::endl;
      return;
    }
    const rapidjson::Value empty(rapidjson::kObjectType);
    const auto& spec = doc.HasMember("spec") && doc["spec"].IsObject() ? doc["spec"] : empty;
    const auto& status = doc.HasMember("status") && doc["status"].IsObject() ? doc["status"] : empty;
    const bool operational_now =
        status.HasMember("operational") && status["operational"].IsBool() && status["operational"].GetBool();
    if (int_at(spec, "replicas", -1) != replicas) {
      const auto r = kube_.merge_patch(path, "{\"spec\":{\"replicas\":" + std::to_string(replicas) + "}}");
      if (r.status != 200) {
        log_ << "world: patching WorkloadMonitor spec " << path << ": HTTP " << r.status << " " << short_body(r.body)
             << std::endl;
        return;
      }
    }
    const bool operational = std::get<2>(wanted);
    if (int_at(status, "availableReplicas", -1) != available || int_at(status, "observedReplicas", -1) != replicas ||
        !status.HasMember("operational") || operational_now != operational) {
      const std::string patch = json_text([&](auto& w) {
        w.StartObject();
        w.Key("status"), w.StartObject();
        w.Key("availableReplicas"), w.Int(available);
        w.Key("observedReplicas"), w.Int(replicas);
        w.Key("operational"), w.Bool(operational);
        w.EndObject();
        w.EndObject();
      });
      const auto r = kube_.merge_patch(path + "/status", patch);
      if (r.status != 200) {
        log_ << "world: patching WorkloadMonitor status " << path << ": HTTP " << r.status << " " << short_body(r.body)
             << std::endl;
        return;
      }
    }
    app.monitor_written = wanted;
  } catch (const std::exception& e) {
    log_ << "world: WorkloadMonitor " << path << ": " << e.what() << std::endl;
  }
}

void WorldSimulator::sync_object_status(App& app, Clock::time_point now) {
  const EngineDescription& engine = options_.engine;
  const int replicas = app.database.replicas();
  const int available = app.database.available(now);
  const bool ready = replicas > 0 && available == replicas;
  if (app.status_written == std::make_tuple(ready, available, replicas)) return;
  rapidjson::Document patch(rapidjson::kObjectType);
  auto& a = patch.GetAllocator();
  if (engine.ready_condition) {
    rapidjson::Value condition(rapidjson::kObjectType), conditions(rapidjson::kArrayType);
    condition.AddMember("type", "Ready", a);
    condition.AddMember("status", rapidjson::Value(ready ? "True" : "False", a), a);
    condition.AddMember("reason", rapidjson::Value(ready ? "AllInstancesReady" : "InstancesNotReady", a), a);
    condition.AddMember(
        "message",
        rapidjson::Value((std::to_string(available) + " of " + std::to_string(replicas) + " instances ready").c_str(),
                         a),
        a);
    conditions.PushBack(condition, a);
    set_at_path(patch, "status.conditions", std::move(conditions));
  }
  if (engine.available_path) set_at_path(patch, *engine.available_path, rapidjson::Value(available));
  for (const auto& field : engine.status_fields) {
    rapidjson::Value value;
    switch (field.source) {
      case StatusField::Source::kAvailable:
        value.SetInt(available);
        break;
      case StatusField::Source::kInstances:
        value.SetInt(replicas);
        break;
      case StatusField::Source::kReady:
        value.SetBool(ready);
        break;
      case StatusField::Source::kConstant:
        if (field.constant_is_number)
          value.SetDouble(std::strtod(field.constant.c_str(), nullptr));
        else
          value.SetString(field.constant.c_str(), a);
        if (field.constant_is_number &&
            value.GetDouble() == static_cast<double>(static_cast<int64_t>(value.GetDouble())))
          value.SetInt64(static_cast<int64_t>(value.GetDouble()));
        break;
    }
    set_at_path(patch, field.path, std::move(value));
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  patch.Accept(writer);
  const std::string patch_text = buffer.GetString();
  const std::string path = engine.collection_path(app.namespace_name) + "/" + app.name + "/status";
  try {
    const auto r = kube_.merge_patch(path, patch_text);
    if (r.status == 200)
      app.status_written = std::make_tuple(ready, available, replicas);
    else
      log_ << "world: patching " << path << ": HTTP " << r.status << " " << short_body(r.body) << std::endl;
  } catch (const std::exception& e) {
    log_ << "world: patching " << path << ": " << e.what() << std::endl;
  }
}

void WorldSimulator::scrape(Clock::time_point now) {
  const double elapsed = last_scrape_ ? std::chrono::duration<double>(now - *last_scrape_).count() : 0;
  last_scrape_ = now;
  if (apps_.empty()) return;
  const LoadPoint load = this->load(now);
  const int64_t timestamp_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  std::string exposition;
  for (auto& [key, app] : apps_)
    exposition += app->exporter.scrape(app->database.instances(now), load, app->removed_pods, elapsed, timestamp_ms);
  const std::string error = push_to_victoria_metrics(options_.vm_url, exposition);
  if (!error.empty()) {
    log_ << "world: pushing series: " << error << std::endl;
    return;  // removed pods keep waiting for their zeros
  }
  for (auto& [key, app] : apps_) app->removed_pods.clear();
  std::erase_if(apps_, [](const auto& entry) { return entry.second->gone; });
}

void WorldSimulator::write_status_file(Clock::time_point now) const {
  const LoadPoint load = this->load(now);
  char head[160];
  std::snprintf(head, sizeof head, "t=%.0f load=%.1f lag=%.1f", curve_seconds(now), load.read_connections,
                load.lag_seconds.value_or(0));
  std::string text;
  for (const auto& app : apps(now))
    text += std::string(head) + " app=" + app.namespace_name + "/" + app.name +
            " replicas=" + std::to_string(app.replicas) + " available=" + std::to_string(app.available) + "\n";
  if (text.empty()) text = std::string(head) + " app=none\n";
  const std::string temporary = options_.status_file + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    if (!out) return;  // a status file is a convenience; never stop the simulation for it
  }
  std::rename(temporary.c_str(), options_.status_file.c_str());
}

void WorldSimulator::run(const std::atomic<bool>& stop, std::optional<std::chrono::milliseconds> max_duration) {
  const auto start = Clock::now();
  while (!stop.load()) {
    const auto now = Clock::now();
    if (max_duration && now - start >= *max_duration) return;
    step(now);
    const auto next = now + options_.poll_interval;
    while (!stop.load() && Clock::now() < next)
      std::this_thread::sleep_for(std::min<Clock::duration>(next - Clock::now(), std::chrono::milliseconds(50)));
  }
}

}  // namespace dha::testing::world
