#include "dha/kube/leader_election.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "dha/kube/client.hpp"
#include "dha/kube/json.hpp"
#include "dha/kube/lease_record.hpp"

namespace dha::kube {

LeaseAction decide_lease(const LeaseRecord* current, const std::string& identity, TimePoint observed_at, TimePoint now,
                         Duration fallback_duration) {
  if (current == nullptr || current->holder.empty()) return LeaseAction::Acquire;
  if (current->holder == identity) return LeaseAction::Renew;
  const Duration duration = current->lease_duration_seconds > 0
                                ? Duration(std::chrono::seconds(current->lease_duration_seconds))
                                : fallback_duration;
  return now >= observed_at + duration ? LeaseAction::Acquire : LeaseAction::Wait;
}

bool renew_deadline_passed(TimePoint last_renew, TimePoint now, Duration renew_deadline) {
  return now - last_renew >= renew_deadline;
}

std::string format_micro_time(std::chrono::system_clock::time_point t) {
  const auto secs = std::chrono::time_point_cast<std::chrono::seconds>(t);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t - secs).count();
  if (micros < 0) micros = 0;
  const std::time_t tt = std::chrono::system_clock::to_time_t(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, micros);
}

namespace {

using lease::read_record;
using lease::whole_seconds_up;
using lease::write_spec;

}  // namespace

LeaderElector::LeaderElector(const Config& config, LeaderElectionConfig le, const Clock& clock)
    : le_(std::move(le)), clock_(clock) {
  if (le_.identity.empty()) throw std::invalid_argument("leader election: identity (the pod name) is empty");
  if (le_.lease_namespace.empty()) throw std::invalid_argument("leader election: lease namespace is empty");
  lease::check_timings("leader election", le_.lease_duration, le_.renew_deadline, le_.retry_period);
  client_ = std::make_unique<Client>(lease::client_config(config, le_.retry_period));
}

LeaderElector::~LeaderElector() { stop(); }

std::string LeaderElector::observed_holder() const {
  std::lock_guard lock(mu_);
  return observed_holder_;
}

bool LeaderElector::try_acquire_or_renew() {
  const ResourceRef ref = resources::leases(le_.lease_namespace).named(le_.lease_name);
  const auto wall = format_micro_time(clock_.wall_now());
  auto note = [&](const std::string& rv, const std::string& holder) {
    std::string previous;
    {
      std::lock_guard lock(mu_);
      if (rv != observed_rv_) {
        observed_rv_ = rv;
        observed_at_ = clock_.now();
      }
      previous = observed_holder_;
      observed_holder_ = holder;
    }
    if (previous != holder && le_.on_new_leader) le_.on_new_leader(holder);
  };

  std::optional<rapidjson::Document> current = client_->get_if_exists(ref);
  if (!current) {
    rapidjson::Document lease = parse_json(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{}})");
    auto& a = lease.GetAllocator();
    lease["metadata"].AddMember("name", rapidjson::Value(le_.lease_name, a), a);
    lease["metadata"].AddMember("namespace", rapidjson::Value(le_.lease_namespace, a), a);
    write_spec(lease, {le_.identity, whole_seconds_up(le_.lease_duration), wall, wall, 0});
    try {
      const auto created = client_->create(ref.collection(), lease);
      note(resource_version_of(created), le_.identity);
      return true;
    } catch (const ApiError& e) {
      if (e.reason() == Reason::AlreadyExists || e.reason() == Reason::Conflict)
        return false;  // another candidate won the race
      throw;
    }
  }

  const LeaseRecord record = read_record(*current);
  note(resource_version_of(*current), record.holder);
  TimePoint observed_at;
  {
    std::lock_guard lock(mu_);
    observed_at = observed_at_;
  }
  const LeaseAction action = decide_lease(&record, le_.identity, observed_at, clock_.now(), le_.lease_duration);
  if (action == LeaseAction::Wait) return false;

  LeaseRecord next = record;
  next.holder = le_.identity;
  next.lease_duration_seconds = whole_seconds_up(le_.lease_duration);
  next.renew_time = wall;
  if (record.holder != le_.identity) {
    next.acquire_time = wall;
    next.transitions = record.transitions + 1;
  }
  write_spec(*current, next);
  try {
    // The resourceVersion read above makes this a compare-and-swap.
    const auto updated = client_->update(ref, *current);
    note(resource_version_of(updated), le_.identity);
    return true;
  } catch (const ApiError& e) {
    if (e.reason() == Reason::Conflict) return false;
    throw;
  }
}

void LeaderElector::sleep_for(Duration d) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, d, [&] { return stop_.load(); });
}

void LeaderElector::run() {
  TimePoint last_renew{};
  while (!stop_.load()) {
    bool holding = false;
    const TimePoint sent = clock_.now();  // the lease counts from the request, not its answer
    try {
      holding = try_acquire_or_renew();
    } catch (const std::exception& e) {
      spdlog::warn("leader election: lease {}/{}: {}", le_.lease_namespace, le_.lease_name, e.what());
    }
    const TimePoint now = clock_.now();
    if (holding) {
      last_renew = sent;
      last_renew_ = sent.time_since_epoch().count();
      if (!leading_.exchange(true)) {
        spdlog::info("leader election: {} became the leader", le_.identity);
        if (le_.on_started_leading) le_.on_started_leading();
      }
    } else if (leading_.load()) {
      // Someone else holds it now, or we could not renew in time: stop at once.
      const bool other_holder = [&] {
        std::lock_guard lock(mu_);
        return !observed_holder_.empty() && observed_holder_ != le_.identity;
      }();
      if (other_holder || renew_deadline_passed(last_renew, now, le_.renew_deadline)) {
        leading_ = false;
        spdlog::warn("leader election: {} lost the lease ({})", le_.identity,
                     other_holder ? "another holder" : "renew deadline passed");
        if (le_.on_stopped_leading) le_.on_stopped_leading();
      }
    }
    // A leader that could not renew wakes at its renew deadline rather than a retry period
    // after its last try, so it stops leading then (writes are fenced at that instant anyway:
    // holds_lease()).
    Duration wait = le_.retry_period;
    if (leading_.load() && !holding)
      wait = std::clamp(std::chrono::duration_cast<Duration>(last_renew + le_.renew_deadline - clock_.now()),
                        Duration::zero(), wait);
    sleep_for(wait);
  }
}

bool LeaderElector::holds_lease() const {
  const auto until = lease_valid_until();
  return until.has_value() && clock_.now() < *until;
}

std::optional<TimePoint> LeaderElector::lease_valid_until() const {
  if (!leading_.load()) return std::nullopt;
  return TimePoint(Duration(last_renew_.load())) + le_.renew_deadline;
}

void LeaderElector::start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { run(); });
}

void LeaderElector::release() {
  const ResourceRef ref = resources::leases(le_.lease_namespace).named(le_.lease_name);
  try {
    auto current = client_->get_if_exists(ref);
    if (!current || read_record(*current).holder != le_.identity) return;
    LeaseRecord r = read_record(*current);
    r.holder.clear();
    r.lease_duration_seconds = 1;
    r.renew_time = format_micro_time(clock_.wall_now());
    write_spec(*current, r);
    client_->update(ref, *current);
  } catch (const std::exception& e) {
    spdlog::warn("leader election: releasing lease {}/{}: {}", le_.lease_namespace, le_.lease_name, e.what());
  }
}

void LeaderElector::stop(bool may_release) {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (leading_.exchange(false)) {
    if (le_.on_stopped_leading) le_.on_stopped_leading();
    if (le_.release_on_stop && may_release) release();
  }
}

}  // namespace dha::kube
