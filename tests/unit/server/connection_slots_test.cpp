// The accept-time policy of the server, step by step: who gets a slot, whose connection is
// closed to make room, and when the newcomer itself is closed. And which peers are trusted
// with the reserved slots.

#include "connection_slots.hpp"
#include "trusted_peers.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace dha::server::detail {
namespace {

using Outcome = SlotDecision::Outcome;

// One step of a scenario: a connection named `name` arrives from `peer` (then `expect`, and
// `evicts` names the connection closed for it), or the named connection changes phase, or
// closes.
struct Step {
  enum Op { connect, phase, close } op = connect;
  std::string name;
  std::string peer;
  bool trusted = false;
  Outcome expect = Outcome::admitted;
  std::string evicts;
  Phase to = Phase::silent;
};

Step from(std::string name, std::string peer, Outcome expect = Outcome::admitted, std::string evicts = {}) {
  return {Step::connect, std::move(name), std::move(peer), false, expect, std::move(evicts)};
}
Step trusted(std::string name, std::string peer, Outcome expect = Outcome::admitted, std::string evicts = {}) {
  return {Step::connect, std::move(name), std::move(peer), true, expect, std::move(evicts)};
}
// A newcomer whose first bytes have arrived already.
Step talking(std::string name, std::string peer, Outcome expect = Outcome::admitted, std::string evicts = {}) {
  return {Step::connect, std::move(name), std::move(peer), false, expect, std::move(evicts), Phase::partial};
}
Step becomes(std::string name, Phase to) { return {Step::phase, std::move(name), {}, false, {}, {}, to}; }
Step closes(std::string name) { return {Step::close, std::move(name), {}, false, {}, {}, {}}; }

SlotLimits limits(std::size_t max, std::size_t reserved = 0, std::size_t per_peer = 8, std::size_t closing = 64) {
  return {max, reserved, per_peer, per_peer * 2, closing};
}

struct Scenario {
  std::string what;
  SlotLimits limits;
  std::vector<Step> steps;
};

void PrintTo(const Scenario& scenario, std::ostream* out) { *out << scenario.what; }

class Slots : public ::testing::TestWithParam<Scenario> {};

TEST_P(Slots, DecideEachNewcomerAtOnce) {
  const Scenario& scenario = GetParam();
  ConnectionSlots slots(scenario.limits);
  std::map<std::string, std::uint64_t> ids;
  std::map<std::uint64_t, std::string> names;
  for (std::size_t i = 0; i < scenario.steps.size(); ++i) {
    const Step& step = scenario.steps[i];
    SCOPED_TRACE("step " + std::to_string(i + 1) + " (" + step.name + ")");
    if (step.op == Step::phase) {
      slots.set_phase(ids.at(step.name), step.to);
      continue;
    }
    if (step.op == Step::close) {
      slots.release(ids.at(step.name));
      continue;
    }
    const SlotDecision decision = slots.admit(step.peer, step.trusted, step.to);
    EXPECT_EQ(static_cast<int>(decision.outcome), static_cast<int>(step.expect));
    const std::string evicted = decision.evicted == 0 ? "" : names[decision.evicted];
    EXPECT_EQ(evicted, step.evicts);
    if (decision.admitted()) {
      ids[step.name] = decision.id;
      names[decision.id] = step.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Policy, Slots,
    ::testing::Values(
        Scenario{"a free slot is taken", limits(2), {from("a1", "a"), from("b1", "b")}},
        Scenario{"a peer beyond its share is closed even with room",
                 limits(10, 0, 2),
                 {from("a1", "a"), from("a2", "a"), from("a3", "a", Outcome::refused_peer_share)}},
        Scenario{
            "full: the oldest silent connection of the peer holding the most goes",
            limits(3),
            {from("b1", "b"), from("a1", "a"), from("a2", "a"), from("c1", "c", Outcome::admitted_evicting, "a1")}},
        Scenario{"full: a silent connection goes before one in its handshake, whatever its peer holds",
                 limits(3),
                 {from("a1", "a"), from("a2", "a"), from("b1", "b"), becomes("a1", Phase::partial),
                  becomes("a2", Phase::partial), from("c1", "c", Outcome::admitted_evicting, "b1")}},
        Scenario{"full: with nothing silent, the partial one of the largest peer goes",
                 limits(3),
                 {from("a1", "a"), from("a2", "a"), from("b1", "b"), becomes("a1", Phase::partial),
                  becomes("a2", Phase::partial), becomes("b1", Phase::busy),
                  from("c1", "c", Outcome::admitted_evicting, "a1")}},
        Scenario{
            "a newcomer that has sent its first bytes goes after every silent connection",
            limits(3),
            {talking("x1", "x"), from("a1", "a"), from("b1", "b"), from("c1", "c", Outcome::admitted_evicting, "a1"),
             from("d1", "d", Outcome::admitted_evicting, "b1"), from("e1", "e", Outcome::admitted_evicting, "c1")}},
        Scenario{"a request being served is never cut: the newcomer is closed",
                 limits(2),
                 {from("a1", "a"), from("b1", "b"), becomes("a1", Phase::busy), becomes("b1", Phase::busy),
                  from("c1", "c", Outcome::refused_full)}},
        Scenario{"a newcomer whose peer holds as much as the largest is closed: equal peers do not churn",
                 limits(2),
                 {from("a1", "a"), from("b1", "b"), from("a2", "a", Outcome::refused_full)}},
        Scenario{"many one-connection peers: each newcomer of a new peer takes the oldest slot",
                 limits(3),
                 {from("p1", "p"), from("q1", "q"), from("r1", "r"), from("s1", "s", Outcome::admitted_evicting, "p1"),
                  from("t1", "t", Outcome::admitted_evicting, "q1"), becomes("r1", Phase::busy),
                  from("u1", "u", Outcome::admitted_evicting, "s1")}},
        Scenario{"a keep-alive connection back between requests is the newest silent one",
                 limits(2),
                 {from("a1", "a"), from("a2", "a"), becomes("a1", Phase::busy), becomes("a1", Phase::silent),
                  from("c1", "c", Outcome::admitted_evicting, "a2")}},
        Scenario{"untrusted peers cannot take the reserved slots; trusted ones can",
                 limits(4, 2),
                 {from("a1", "a"), from("b1", "b"), from("c1", "c", Outcome::admitted_evicting, "a1"),
                  trusted("t1", "api"), trusted("t2", "api")}},
        Scenario{"a trusted connection is never closed for an untrusted newcomer",
                 limits(2),
                 {trusted("t1", "api"), trusted("t2", "api2"), from("u1", "u", Outcome::refused_full)}},
        Scenario{"a trusted newcomer takes an untrusted connection's slot even from a small peer",
                 limits(2),
                 {trusted("t1", "api"), from("u1", "u"), trusted("t2", "api", Outcome::admitted_evicting, "u1")}},
        Scenario{
            "a trusted newcomer takes a trusted slot only from a trusted peer holding more",
            limits(3),
            {trusted("t1", "api"), trusted("t2", "api"), trusted("x1", "api2"),
             trusted("y1", "api3", Outcome::admitted_evicting, "t1"), trusted("x2", "api2", Outcome::refused_full)}},
        Scenario{
            "too many closing at once: newcomers are closed until they are gone",
            limits(1, 0, 8, 1),
            {from("a1", "a"), from("b1", "b", Outcome::admitted_evicting, "a1"), from("c1", "c", Outcome::refused_full),
             closes("a1"), from("d1", "d", Outcome::admitted_evicting, "b1")}},
        Scenario{"a closed connection frees its slot and its peer's share",
                 limits(1, 0, 1),
                 {from("a1", "a"), becomes("a1", Phase::busy), from("a2", "a", Outcome::refused_peer_share),
                  closes("a1"), from("a3", "a")}},
        Scenario{"a peer that became trusted moves its connections to the trusted side",
                 limits(2),
                 {from("a1", "a"), trusted("a2", "a"), from("u1", "u", Outcome::refused_full)}}),
    [](const ::testing::TestParamInfo<Scenario>& info) {
      std::string name;
      for (char c : info.param.what) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST(Slots, ReleasingAnEvictedConnectionTwiceCountsNothingTwice) {
  ConnectionSlots slots(limits(1));
  const auto a = slots.admit("a", false);
  const auto b = slots.admit("b", false);
  ASSERT_EQ(b.evicted, a.id);
  EXPECT_EQ(slots.open(), 1u);
  EXPECT_EQ(slots.closing(), 1u);
  slots.release(a.id);
  slots.release(a.id);
  EXPECT_EQ(slots.closing(), 0u);
  EXPECT_EQ(slots.open(), 1u);
  EXPECT_EQ(slots.open_of("b"), 1u);
  slots.release(b.id);
  EXPECT_EQ(slots.open(), 0u);
  EXPECT_EQ(slots.open_of("b"), 0u);
}

TEST(Slots, AFloodFromManyAddressesNeverKeepsANewPeerOut) {
  // 100 flooding peers re-connecting as fast as they are closed; a new peer arriving between
  // any two rounds of their connects still gets a slot at once.
  ConnectionSlots slots(limits(64, 8, 16));
  int refused_legitimate = 0;
  for (int round = 0; round < 60; ++round) {
    for (int peer = 0; peer < 100; ++peer) {
      const auto flood = slots.admit("flood-" + std::to_string(peer), false);
      if (flood.evicted != 0) slots.release(flood.evicted);  // its socket is closed
    }
    const auto legitimate = slots.admit("legitimate-" + std::to_string(round), false);
    if (legitimate.evicted != 0) slots.release(legitimate.evicted);
    refused_legitimate += legitimate.admitted() ? 0 : 1;
    if (!legitimate.admitted()) continue;
    slots.set_phase(legitimate.id, Phase::busy);  // served, then closed
    slots.release(legitimate.id);
  }
  EXPECT_EQ(refused_legitimate, 0);
  EXPECT_LE(slots.open(), 64u);
}

struct NetworkCase {
  std::string network, address;
  bool contains;
};

class Networks : public ::testing::TestWithParam<NetworkCase> {};

TEST_P(Networks, Contain) {
  EXPECT_EQ(Network::parse(GetParam().network).contains(GetParam().address), GetParam().contains)
      << GetParam().network << " " << GetParam().address;
}

INSTANTIATE_TEST_SUITE_P(
    Cidr, Networks,
    ::testing::Values(NetworkCase{"10.0.0.0/24", "10.0.0.7", true}, NetworkCase{"10.0.0.0/24", "10.0.1.7", false},
                      NetworkCase{"10.0.0.0/23", "10.0.1.7", true}, NetworkCase{"10.0.0.5", "10.0.0.5", true},
                      NetworkCase{"10.0.0.5", "10.0.0.6", false}, NetworkCase{"0.0.0.0/0", "192.168.3.4", true},
                      NetworkCase{"127.0.0.0/8", "::ffff:127.0.0.1", true}, NetworkCase{"127.0.0.0/8", "::1", false},
                      NetworkCase{"fd00::/64", "fd00::1", true}, NetworkCase{"fd00::/64", "fd00:0:0:1::1", false},
                      NetworkCase{"10.0.0.0/24", "not an address", false}));

TEST(Networks, MalformedOnesAreRefusedByName) {
  for (const char* bad : {"10.0.0.0/33", "10.0.0/8", "fd00::/129", "/8", "10.0.0.0/", "10.0.0.0/x", "example.com"}) {
    try {
      Network::parse(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

TEST(TrustedPeers, ConfiguredNetworksAloneAreTrustedAndNothingIsLearned) {
  const auto now = TrustedPeers::clock::now();
  TrustedPeers trust({Network::parse("10.0.0.0/24")}, 4, std::chrono::minutes(10));
  trust.vouch("192.168.0.9", now);
  EXPECT_TRUE(trust.trusted("10.0.0.3", now));
  EXPECT_FALSE(trust.trusted("192.168.0.9", now));
}

TEST(TrustedPeers, LearnedPeersAreFewFirstComeAndForgottenWhenQuiet) {
  const auto now = TrustedPeers::clock::now();
  TrustedPeers trust({}, 2, std::chrono::minutes(10));
  EXPECT_FALSE(trust.trusted("10.0.0.1", now));
  trust.vouch("10.0.0.1", now);
  trust.vouch("10.0.0.2", now);
  trust.vouch("10.0.0.3", now);  // full: the first ones keep their places
  EXPECT_TRUE(trust.trusted("10.0.0.1", now));
  EXPECT_TRUE(trust.trusted("10.0.0.2", now));
  EXPECT_FALSE(trust.trusted("10.0.0.3", now));
  trust.vouch("10.0.0.1", now + std::chrono::minutes(8));
  const auto later = now + std::chrono::minutes(11);
  EXPECT_TRUE(trust.trusted("10.0.0.1", later));
  EXPECT_FALSE(trust.trusted("10.0.0.2", later));  // quiet for 11 minutes
  trust.vouch("10.0.0.3", later);
  EXPECT_TRUE(trust.trusted("10.0.0.3", later));
}

}  // namespace
}  // namespace dha::server::detail
