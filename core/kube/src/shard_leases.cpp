#include "dha/kube/shard_leases.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "dha/kube/client.hpp"
#include "dha/kube/json.hpp"
#include "dha/kube/lease_record.hpp"
#include "dha/kube/shard_assignment.hpp"

namespace dha::kube {

std::string shard_lease_name(const std::string& prefix, int shard) { return fmt::format("{}-shard-{}", prefix, shard); }
std::string member_lease_name(const std::string& prefix, int slot) { return fmt::format("{}-member-{}", prefix, slot); }

ShardLeases::ShardLeases(const Config& config, ShardLeaseConfig c, const Clock& clock)
    : c_(std::move(c)), clock_(clock) {
  if (c_.identity.empty()) throw std::invalid_argument("shard leases: identity (the pod name) is empty");
  if (c_.lease_namespace.empty()) throw std::invalid_argument("shard leases: lease namespace is empty");
  if (c_.shards < 1) throw std::invalid_argument(fmt::format("shard leases: {} shards; at least 1", c_.shards));
  lease::check_timings("shard leases", c_.lease_duration, c_.renew_deadline, c_.retry_period);
  client_ = std::make_unique<Client>(lease::client_config(config, c_.retry_period));
  held_ = std::make_unique<std::atomic<bool>[]>(c_.shards);
  last_renew_ = std::make_unique<std::atomic<Duration::rep>[]>(c_.shards);
  for (int s = 0; s < c_.shards; ++s) {
    held_[s] = false;
    last_renew_[s] = 0;
  }
}

ShardLeases::~ShardLeases() { stop(); }

bool ShardLeases::holds(int shard) const {
  const auto until = valid_until(shard);
  return until.has_value() && clock_.now() < *until;
}

std::optional<TimePoint> ShardLeases::valid_until(int shard) const {
  if (shard < 0 || shard >= c_.shards || !held_[shard].load()) return std::nullopt;
  return TimePoint(Duration(last_renew_[shard].load())) + c_.renew_deadline;
}

std::vector<int> ShardLeases::held() const {
  std::vector<int> out;
  for (int s = 0; s < c_.shards; ++s)
    if (held_[s].load()) out.push_back(s);
  return out;
}

void ShardLeases::note(const std::string& name, const std::string& resource_version) {
  auto& [rv, at] = observed_[name];
  if (rv != resource_version) {
    rv = resource_version;
    at = clock_.now();
  }
}

LeaseAction ShardLeases::action_for(const std::string& name, const Seen& seen, TimePoint now) const {
  if (!seen.exists) return LeaseAction::Acquire;
  const auto it = observed_.find(name);
  const TimePoint at = it == observed_.end() ? now : it->second.second;
  return decide_lease(&seen.record, c_.identity, at, now, c_.lease_duration);
}

// Acquire or renew `name` as this replica: a create, or a compare-and-swap on the
// resourceVersion listed. False when another replica won the race.
bool ShardLeases::write(const std::string& name, Seen& seen) {
  const std::string wall = format_micro_time(clock_.wall_now());
  LeaseRecord next = seen.record;
  next.holder = c_.identity;
  next.lease_duration_seconds = lease::whole_seconds_up(c_.lease_duration);
  next.renew_time = wall;
  if (seen.record.holder != c_.identity || !seen.exists) {
    next.acquire_time = wall;
    next.transitions = seen.exists ? seen.record.transitions + 1 : 0;
  }
  try {
    rapidjson::Document written;
    if (!seen.exists) {
      written =
          client_->create(resources::leases(c_.lease_namespace), lease::new_lease(c_.lease_namespace, name, next));
    } else {
      lease::write_spec(seen.object, next);
      written = client_->update(resources::leases(c_.lease_namespace).named(name), seen.object);
    }
    note(name, resource_version_of(written));
    return true;
  } catch (const ApiError& e) {
    if (e.reason() == Reason::Conflict || e.reason() == Reason::AlreadyExists) return false;
    throw;
  }
}

bool ShardLeases::lose(int shard, const char* why) {
  if (!held_[shard].exchange(false)) return true;
  spdlog::warn("shard leases: {} no longer holds shard {} ({})", c_.identity, shard, why);
  return !c_.on_lost || c_.on_lost(shard);
}

void ShardLeases::drop_overdue(TimePoint now) {
  for (int s = 0; s < c_.shards; ++s)
    if (held_[s].load() && renew_deadline_passed(TimePoint(Duration(last_renew_[s].load())), now, c_.renew_deadline))
      lose(s, "renew deadline passed");
}

void ShardLeases::round() {
  const TimePoint sent = clock_.now();  // a lease counts from its request, not its answer
  ListPage page = client_->list_all(resources::leases(c_.lease_namespace));
  std::map<std::string, Seen> seen;
  if (const auto* items = find_path(page.list, {"items"}); items != nullptr && items->IsArray()) {
    for (const auto& item : items->GetArray()) {
      const std::string name = string_at(item, {"metadata", "name"});
      if (name.rfind(c_.lease_name + "-", 0) != 0) continue;
      Seen& s = seen[name];
      s.exists = true;
      s.record = lease::read_record(item);
      s.object.CopyFrom(item, s.object.GetAllocator());
      note(name, resource_version_of(item));
    }
  }
  const TimePoint now = clock_.now();

  // Membership first: a replica counts only with a slot.
  if (member_slot_ >= 0) {
    const std::string name = member_lease_name(c_.lease_name, member_slot_);
    Seen& s = seen[name];
    if (!s.exists || s.record.holder != c_.identity || !write(name, s)) member_slot_ = -1;
  }
  for (int j = 0; j < c_.shards && member_slot_ < 0; ++j) {
    const std::string name = member_lease_name(c_.lease_name, j);
    Seen& s = seen[name];
    if (action_for(name, s, now) != LeaseAction::Wait && write(name, s)) {
      member_slot_ = j;
      s.record.holder = c_.identity;
    }
  }

  ShardView view;
  view.shards = c_.shards;
  view.live_members = 0;
  for (int j = 0; j < c_.shards; ++j) {
    const std::string name = member_lease_name(c_.lease_name, j);
    const Seen& s = seen[name];
    if (j == member_slot_ || (s.exists && !s.record.holder.empty() && action_for(name, s, now) == LeaseAction::Wait))
      ++view.live_members;
  }

  for (int shard = 0; shard < c_.shards; ++shard) {
    const std::string name = shard_lease_name(c_.lease_name, shard);
    Seen& s = seen[name];
    if (held_[shard].load()) {
      if (!s.exists || s.record.holder != c_.identity) {
        lose(shard, s.exists && !s.record.holder.empty() ? "another holder" : "lease cleared");
      } else if (write(name, s)) {
        last_renew_[shard] = sent.time_since_epoch().count();
        view.held.push_back(shard);
      } else {
        view.held.push_back(shard);  // lost a race; the next list says to whom
      }
    } else if (action_for(name, s, now) == LeaseAction::Acquire) {
      view.free.push_back(shard);
    }
  }
  if (member_slot_ < 0) return;  // standing by: keeps what it holds, takes nothing

  const ShardPlan plan = plan_shards(view);
  for (int shard : plan.release) {
    const std::string why = fmt::format("fair share is {} of {} shards over {} replicas",
                                        fair_share(view.shards, view.live_members), view.shards, view.live_members);
    if (lose(shard, why.c_str()))
      release_lease(shard_lease_name(c_.lease_name, shard));
    else
      spdlog::warn("shard leases: shard {} still has work running; its Lease is left to expire", shard);
  }
  for (int shard : plan.acquire) {
    const std::string name = shard_lease_name(c_.lease_name, shard);
    if (!write(name, seen[name])) continue;
    last_renew_[shard] = sent.time_since_epoch().count();
    held_[shard] = true;
    spdlog::info("shard leases: {} holds shard {} of {} ({} live replicas)", c_.identity, shard, c_.shards,
                 view.live_members);
    if (c_.on_gained) c_.on_gained(shard);
  }
}

void ShardLeases::release_lease(const std::string& name) {
  const ResourceRef ref = resources::leases(c_.lease_namespace).named(name);
  try {
    auto current = client_->get_if_exists(ref);
    if (!current || lease::read_record(*current).holder != c_.identity) return;
    LeaseRecord r = lease::read_record(*current);
    r.holder.clear();
    r.lease_duration_seconds = 1;
    r.renew_time = format_micro_time(clock_.wall_now());
    lease::write_spec(*current, r);
    note(name, resource_version_of(client_->update(ref, *current)));
  } catch (const std::exception& e) {
    spdlog::warn("shard leases: releasing lease {}/{}: {}", c_.lease_namespace, name, e.what());
  }
}

void ShardLeases::run() {
  while (!stop_.load()) {
    try {
      round();
    } catch (const std::exception& e) {
      spdlog::warn("shard leases: {}: {}", c_.lease_namespace, e.what());
    }
    drop_overdue(clock_.now());
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, c_.retry_period, [&] { return stop_.load(); });
  }
}

void ShardLeases::start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { run(); });
}

void ShardLeases::stop() {
  {
    std::lock_guard lock(mu_);
    if (stop_.exchange(true) && !thread_.joinable()) return;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (int s = 0; s < c_.shards; ++s) {
    if (!held_[s].load()) continue;
    if (lose(s, "stopping")) release_lease(shard_lease_name(c_.lease_name, s));
  }
  if (member_slot_ >= 0) release_lease(member_lease_name(c_.lease_name, member_slot_));
  member_slot_ = -1;
}

}  // namespace dha::kube
