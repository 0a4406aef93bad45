#include "dha/simulate/simulation_profiles.hpp"

#include <algorithm>

#include "dha/model/input_error.hpp"

namespace dha::decide {
namespace {

using rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

// An HPA's default scale-up and scale-down policies allow far more than one replica per cycle.
constexpr int kUnlimitedStep = 1000;

Value rules(int window, int step, Alloc& a) {
  Value v(rapidjson::kObjectType);
  v.AddMember("stabilizationWindowSeconds", window, a);
  v.AddMember("step", step, a);
  return v;
}

}  // namespace

std::vector<std::string> profile_names() {
  return {"default", "windowed", "fast", "hpa", "adaptive", "predictive", "forecast-only"};
}

void apply_profile(Value& spec, const std::string& profile, Alloc& a) {
  const auto names = profile_names();
  if (std::find(names.begin(), names.end(), profile) == names.end())
    throw model::InputError(
        "--profile",
        "unknown profile \"" + profile + "\" (default, windowed, fast, hpa, adaptive, predictive or forecast-only)");
  if (!spec.IsObject()) throw model::InputError("spec", "must be an object");
  if (!spec.HasMember("behavior") || !spec["behavior"].IsObject()) {
    spec.RemoveMember("behavior");
    spec.AddMember("behavior", Value(rapidjson::kObjectType), a);
  }
  Value& b = spec["behavior"];
  for (const char* key : {"scaleUp", "scaleDown", "tolerance", "policy", "adaptive"}) b.RemoveMember(key);
  // "default" leaves the behaviour to the defaults a new DHA gets (the caller applies the CRD's);
  // every other profile names its policy, so those defaults cannot change what it means.
  if (profile == "windowed" || profile == "fast" || profile == "hpa")
    b.AddMember("policy", Value(rapidjson::StringRef("Windowed")), a);
  if (profile == "fast") {
    // Reacts at once, several replicas a cycle, and lets go after five quiet minutes.
    b.AddMember("scaleUp", rules(0, 4, a), a);
    b.AddMember("scaleDown", rules(300, 1, a), a);
  } else if (profile == "hpa") {
    // The Kubernetes HPA's defaults: a 10% tolerance, no up-window, a 300 s down-window.
    b.AddMember("tolerance", 0.1, a);
    b.AddMember("scaleUp", rules(0, kUnlimitedStep, a), a);
    b.AddMember("scaleDown", rules(300, kUnlimitedStep, a), a);
  } else if (profile == "adaptive" || profile == "predictive" || profile == "forecast-only") {
    b.AddMember("policy", Value(rapidjson::StringRef("Adaptive")), a);
    if (profile != "adaptive") {
      Value adaptive(rapidjson::kObjectType);
      adaptive.AddMember("predictive", true, a);
      if (profile == "forecast-only") adaptive.AddMember("forecastOnly", true, a);
      b.AddMember("adaptive", adaptive, a);
    }
  }
}

}  // namespace dha::decide
