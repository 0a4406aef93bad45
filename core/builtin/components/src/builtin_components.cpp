#include "dha/components/builtin_components.hpp"

#include <cstring>
#include <new>
#include <string_view>

namespace dha::op {
namespace {

constexpr const char* kWebhookCaps[] = {"dha.host.admission-webhook/1", nullptr};
constexpr const char* kStatusCaps[] = {"dha.host.status-writer/1", nullptr};

constexpr dha_plugin_descriptor kDescriptors[] = {
    {sizeof(dha_plugin_descriptor), "builtin.admission-webhook", "Replicas-ownership admission webhook", "1.0.0",
     "db-autoscaler",
     "Denies replicas changes of DHA-managed HelmReleases by identities other than the operator and the apps API",
     kWebhookCaps, nullptr},
    {sizeof(dha_plugin_descriptor), "builtin.status-writer", "DHA status writer", "1.0.0", "db-autoscaler",
     "Writes DHA status, conditions and the decision trace through /status, only when changed", kStatusCaps, nullptr},
};

uint32_t count() { return 2; }

const dha_plugin_descriptor* descriptor(uint32_t index) { return index < 2 ? &kDescriptors[index] : nullptr; }

const void* no_extension(const dha_plugin*, const char*) { return nullptr; }

void destroy(const dha_plugin* self) { delete self; }

void write(dha_sink sink, std::string_view text) {
  if (sink.append != nullptr) sink.append(sink.ctx, text.data(), text.size());
}

dha_status create(const dha_host*, dha_str plugin_id, dha_str, const dha_plugin** out, dha_sink error) {
  if (out == nullptr) return DHA_INVALID_ARGUMENT;
  const std::string_view id(plugin_id.data, plugin_id.size);
  for (const auto& d : kDescriptors) {
    if (id != d.id) continue;
    auto* plugin = new (std::nothrow) dha_plugin{sizeof(dha_plugin), &d, nullptr, &destroy, &no_extension};
    if (plugin == nullptr) return DHA_RESOURCE_EXHAUSTED;
    *out = plugin;
    return DHA_OK;
  }
  write(error, "no built-in component with this id");
  return DHA_NOT_FOUND;
}

constexpr dha_plugin_entry kEntry{
    sizeof(dha_plugin_entry), DHA_ABI_VERSION_MAJOR, DHA_ABI_VERSION_MINOR, &count, &descriptor, &create};

}  // namespace

const dha_plugin_entry* builtin_components_entry(void) { return &kEntry; }

}  // namespace dha::op
