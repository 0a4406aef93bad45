#include "dha/testing/world/simulated_database.hpp"

#include <algorithm>

namespace dha::testing::world {

SimulatedDatabase::SimulatedDatabase(std::string pod_prefix, int replicas, Clock::time_point now)
    : pod_prefix_(std::move(pod_prefix)) {
  set_replicas(replicas, now, Clock::duration::zero());
}

void SimulatedDatabase::set_replicas(int replicas, Clock::time_point now, Clock::duration provision) {
  const auto wanted = static_cast<size_t>(std::max(replicas, 0));
  while (instances_.size() > wanted) {
    if (instances_.back().ready_at <= now) removed_.push_back(pod_name(instances_.back().serial));
    instances_.pop_back();
  }
  while (instances_.size() < wanted) instances_.push_back(Member{next_serial_++, now + provision});
}

int SimulatedDatabase::available(Clock::time_point now) const {
  return static_cast<int>(
      std::count_if(instances_.begin(), instances_.end(), [&](const Member& m) { return m.ready_at <= now; }));
}

std::vector<SimulatedDatabase::Instance> SimulatedDatabase::instances(Clock::time_point now) const {
  std::vector<Instance> out;
  out.reserve(instances_.size());
  for (size_t i = 0; i < instances_.size(); ++i)
    out.push_back(Instance{pod_name(instances_[i].serial), i == 0, instances_[i].ready_at <= now});
  return out;
}

std::vector<std::string> SimulatedDatabase::take_removed_pods() {
  std::vector<std::string> out;
  out.swap(removed_);
  return out;
}

}  // namespace dha::testing::world
