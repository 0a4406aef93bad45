// Feeds arbitrary bytes to the AdmissionReview handler and to the ownership decision, and
// checks what must hold for every input: no crash, no leak, a JSON reply, a status that is
// 200 or 400, and the request uid echoed whenever the review was well-formed.

#include "dha/admission/admission_review.hpp"
#include "dha/admission/go_float_format.hpp"
#include "dha/admission/ownership_policy.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

const dha::admission::Decision& decision() {
  static const auto d = dha::admission::ownership_decision({std::string(dha::admission::default_apps_api_username)});
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  using dha::admission::ReviewResult;

  auto reply = dha::admission::handle_admission_review(input, "application/json", decision());
  require(reply.http_status == 200 || reply.http_status == 400);
  require((reply.http_status == 400) == (reply.result == ReviewResult::bad_request));
  rapidjson::Document out;
  out.Parse<rapidjson::kParseIterativeFlag>(reply.body.data(), reply.body.size());
  require(!out.HasParseError() && out.IsObject() && out.HasMember("response"));
  if (reply.result != ReviewResult::bad_request) {
    require(!reply.uid.empty());
    const auto& uid = out["response"]["uid"];
    require(uid.IsString() && std::string_view(uid.GetString(), uid.GetStringLength()) == reply.uid);
  }

  // The same bytes as "old\0new" objects for the pure decision.
  const auto split = input.find('\0');
  const auto old_json = input.substr(0, split);
  const auto new_json = split == std::string_view::npos ? std::string_view{} : input.substr(split + 1);
  auto verdict = dha::admission::evaluate_ownership(old_json, new_json, "fuzzer", {"allowed"});
  require(verdict.allowed ? verdict.code == 200 && verdict.message.empty()
                          : verdict.code == 403 && verdict.reason == "Forbidden" && !verdict.message.empty());
  // An allowed identity is never denied.
  require(dha::admission::evaluate_ownership(old_json, new_json, "allowed", {"allowed"}).allowed);

  if (size >= sizeof(double)) {
    double value;
    std::memcpy(&value, data, sizeof value);
    require(!dha::admission::format_go_float(value).empty());
  }
  return 0;
}
