// Resident memory of 1000 DHA cache entries, each in one right-sized pool as the informer keeps
// them, for plain DHAs and for DHAs carrying a 250 KB annotation or 4500 finalizers: with the
// transform the DHA cache used before (metadata only) and with the one it uses now (what the
// operator reads). RSS is read from /proc/self/status after malloc_trim, before and after.

#include <malloc.h>
#include <rapidjson/document.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "operator/dha_cache_entry.hpp"

namespace {

constexpr int kDhas = 1000;

struct Entry {
  explicit Entry(std::size_t bytes) : allocator(bytes), doc(&allocator) {}
  rapidjson::MemoryPoolAllocator<> allocator;
  rapidjson::Document doc;
};

long rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

std::string padded_dha(int i, std::size_t annotation_bytes, int finalizers) {
  std::string list = "\"autoscaling.cozystack.io/finalizer\"";
  for (int k = 0; k < finalizers; ++k) list += ",\"tenant.example/finalizer-" + std::to_string(k) + "\"";
  const std::string n = std::to_string(i);
  return R"({"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler","metadata":{"name":"db-)" +
         n + R"(-dha","namespace":"tenant-)" + std::to_string(i % 100) + R"(","uid":"0b9e5f4e-8a57-4c1e-9d2a-)" +
         std::to_string(100000000000LL + i) + R"(","resourceVersion":")" + std::to_string(5000 + i) +
         R"(","generation":1,"annotations":{"tenant.example/padding":")" + std::string(annotation_bytes, 'a') +
         R"("},"finalizers":[)" + list +
         R"(]},"spec":{"targetRef":{"apiGroup":"apps.cozystack.io","kind":"Postgres","name":"db-)" + n +
         R"("},"minReplicas":2,"maxReplicas":6,"metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}]}})";
}

void metadata_only(rapidjson::Document& d) {
  d.RemoveMember("spec");
  d.RemoveMember("status");
  d["metadata"].RemoveMember("managedFields");
}

double cache_mib(std::size_t annotation_bytes, int finalizers, void (*transform)(rapidjson::Document&)) {
  malloc_trim(0);
  const long before = rss_kib();
  std::vector<std::shared_ptr<Entry>> cache;
  for (int i = 0; i < kDhas; ++i) {
    rapidjson::Document d;
    const std::string text = padded_dha(i, annotation_bytes, finalizers);
    d.Parse(text.c_str());
    transform(d);
    rapidjson::Document tight;
    tight.CopyFrom(d, tight.GetAllocator());
    auto entry = std::make_shared<Entry>(tight.GetAllocator().Size() + 64);
    entry->doc.CopyFrom(tight, entry->allocator);
    cache.push_back(std::move(entry));
  }
  malloc_trim(0);
  return static_cast<double>(rss_kib() - before) / 1024.0;
}

}  // namespace

int main() {
  const struct {
    const char* name;
    void (*transform)(rapidjson::Document&);
  } transforms[] = {{"metadata only (before)", metadata_only},
                    {"what the operator reads (now)", dha::op::keep_what_the_operator_reads}};
  const struct {
    const char* name;
    std::size_t annotation_bytes;
    int finalizers;
  } shapes[] = {{"plain", 0, 0}, {"250 KB annotation", 256000, 0}, {"4500 finalizers", 0, 4500}};
  for (const auto& t : transforms)
    for (const auto& s : shapes)
      std::printf("%-30s %-18s %7.1f MiB for %d DHAs\n", t.name, s.name,
                  cache_mib(s.annotation_bytes, s.finalizers, t.transform), kDhas);
}
