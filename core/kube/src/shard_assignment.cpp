#include "dha/kube/shard_assignment.hpp"

#include <algorithm>

namespace dha::kube {

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::uint64_t mix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

std::optional<ShardKey> parse_shard_key(std::string_view text) {
  if (text == "namespace-name") return ShardKey::namespace_name;
  if (text == "namespace") return ShardKey::namespace_only;
  return std::nullopt;
}

std::string_view shard_key_name(ShardKey key) {
  return key == ShardKey::namespace_only ? "namespace" : "namespace-name";
}

int shard_of(std::string_view key, int shards, ShardKey by) {
  if (shards <= 1) return 0;
  if (by == ShardKey::namespace_only) key = key.substr(0, key.find('/'));
  return static_cast<int>(mix64(fnv1a64(key)) % static_cast<std::uint64_t>(shards));
}

int fair_share(int shards, int live_members) {
  const int live = std::max(1, live_members);
  return (shards + live - 1) / live;
}

ShardPlan plan_shards(const ShardView& view) {
  ShardPlan plan;
  const int fair = fair_share(view.shards, view.live_members);
  std::vector<int> held = view.held;
  std::sort(held.begin(), held.end());
  while (static_cast<int>(held.size()) > fair) {
    plan.release.push_back(held.back());
    held.pop_back();
  }
  std::vector<int> free = view.free;
  std::sort(free.begin(), free.end());
  for (int s : free) {
    if (static_cast<int>(held.size() + plan.acquire.size()) >= fair) break;
    if (std::find(held.begin(), held.end(), s) == held.end()) plan.acquire.push_back(s);
  }
  return plan;
}

}  // namespace dha::kube
