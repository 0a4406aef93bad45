#pragma once
// Which shard a DHA belongs to, and which shards a replica should hold: the pure half of
// sharding (shard_leases.hpp runs it against the Leases).
//
// Hash: shard_of("namespace/name", N) = mix64(FNV-1a 64-bit of the key's bytes) modulo N, where
// mix64 is MurmurHash3's 64-bit finalizer. FNV-1a alone is not enough: its low bits depend on few
// input bits (modulo 2 it is the parity of the odd bytes) and a change in the last byte barely
// reaches its high bits, so similar names would share a shard. It is part of the contract (a DHA
// must land in the same shard on every replica and every version), so tests pin its values.
//
// Policy, run by every replica each retry period: a replica that holds a member slot counts
// the live member slots L (its own included) and aims at fair = ceil(N / L) shards. Holding
// more, it releases the extras (highest shard first); holding fewer, it takes free shards (no
// Lease, no holder, or not renewed for the lease duration) lowest first, up to fair. Replicas
// joining thus take shards from the others, and a dead replica's shards are free again once
// its Leases expire.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace dha::kube {

// What of a DHA's "namespace/name" key is hashed (--shard-key). By namespace/name (the default)
// a tenant's DHAs spread over the shards; by namespace they stay together, so one replica sends
// the tenant's grouped metric queries instead of every replica sending them, at the price of a
// shard as large as the largest tenant.
enum class ShardKey { namespace_name, namespace_only };
// "namespace-name" / "namespace"; nullopt for anything else.
std::optional<ShardKey> parse_shard_key(std::string_view text);
std::string_view shard_key_name(ShardKey key);

std::uint64_t fnv1a64(std::string_view bytes);
std::uint64_t mix64(std::uint64_t h);
// `key` is "namespace/name"; shards >= 1. By namespace only the part before the first '/' is
// hashed (the whole key when it has none).
int shard_of(std::string_view key, int shards, ShardKey by = ShardKey::namespace_name);

struct ShardView {
  int shards = 1;
  int live_members = 1;   // live member slots, this replica's included
  std::vector<int> held;  // shards this replica holds
  std::vector<int> free;  // shards nobody holds (or whose holder stopped renewing)
};

struct ShardPlan {
  std::vector<int> acquire;
  std::vector<int> release;
};

int fair_share(int shards, int live_members);
ShardPlan plan_shards(const ShardView& view);

}  // namespace dha::kube
