// A watch response body is outside data: one JSON event per line, cut into chunks wherever the
// network cut it. For every input:
//   - the events do not depend on where the chunks were cut: the whole body at once and the
//     same body in fuzzer-chosen pieces give the same events and the same verdict;
//   - every event has a known type and an object, and re-encoded as a line decodes to itself:
//     the same types, keys and strings, and the same numbers up to the parser's precision
//     (RapidJSON's default number parsing is within a few ULP, not correctly rounded: a
//     90-digit integer need not survive text -> double -> shortest text -> double bit for bit);
//   - a refusal is a JsonError with a message; a line longer than max_line is refused rather
//     than buffered (pending() never exceeds it).

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dha/kube/json.hpp"
#include "dha/kube/watch_decoder.hpp"
#include "fuzz_check.hpp"

namespace {

using dha::kube::WatchDecoder;
using dha::kube::WatchEvent;

struct Outcome {
  std::vector<std::string> events;  // "TYPE object-json"
  std::vector<WatchEvent> decoded;  // the same events, as decoded
  bool refused = false;
  std::size_t pending = 0;
};

// Same JSON value: types, keys in order, strings byte for byte; numbers equal, or within a
// relative 1e-12 when either had to be parsed as a double.
bool same_value(const rapidjson::Value& a, const rapidjson::Value& b) {
  if (a.IsNumber() && b.IsNumber()) {
    if (a.IsInt64() && b.IsInt64()) return a.GetInt64() == b.GetInt64();
    if (a.IsUint64() && b.IsUint64()) return a.GetUint64() == b.GetUint64();
    const double x = a.GetDouble();
    const double y = b.GetDouble();
    return x == y || std::fabs(x - y) <= 1e-12 * std::max(std::fabs(x), std::fabs(y));
  }
  if (a.GetType() != b.GetType()) return false;
  if (a.IsString())
    return std::string_view(a.GetString(), a.GetStringLength()) == std::string_view(b.GetString(), b.GetStringLength());
  if (a.IsArray()) {
    if (a.Size() != b.Size()) return false;
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i)
      if (!same_value(a[i], b[i])) return false;
    return true;
  }
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount()) return false;
    for (auto i = a.MemberBegin(), j = b.MemberBegin(); i != a.MemberEnd(); ++i, ++j)
      if (!same_value(i->name, j->name) || !same_value(i->value, j->value)) return false;
    return true;
  }
  return a == b;  // null, true, false
}

std::string describe(const WatchEvent& ev) {
  FUZZ_CHECK(ev.object.IsObject(), "an event without an object was emitted");
  const std::string_view type = dha::kube::to_string(ev.type);
  FUZZ_CHECK(type == "ADDED" || type == "MODIFIED" || type == "DELETED" || type == "BOOKMARK" || type == "ERROR");
  return std::string(type) + " " + dha::kube::to_json(ev.object);
}

// Feeds `stream` in pieces whose sizes come from `cuts` (cycled; 0 = the rest at once).
Outcome decode(std::string_view stream, std::string_view cuts, std::size_t max_line) {
  WatchDecoder decoder(max_line);
  Outcome out;
  std::size_t next_cut = 0;
  try {
    while (!stream.empty()) {
      std::size_t n = stream.size();
      if (!cuts.empty()) {
        const auto c = static_cast<unsigned char>(cuts[next_cut++ % cuts.size()]);
        if (c != 0) n = std::min<std::size_t>(n, c);
      }
      decoder.feed(stream.substr(0, n), [&](WatchEvent&& ev) {
        out.events.push_back(describe(ev));
        out.decoded.push_back(std::move(ev));
        return true;
      });
      FUZZ_CHECK(decoder.pending() <= max_line, "the decoder buffered more than max_line");
      stream.remove_prefix(n);
    }
  } catch (const dha::kube::JsonError& e) {
    FUZZ_CHECK(std::string_view(e.what()).size() > 0, "a JsonError without a message");
    out.refused = true;
  }
  out.pending = decoder.pending();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // Layout: the first byte is the length of a cut table that follows; the rest is the stream.
  const std::size_t table =
      input.empty() ? 0 : std::min<std::size_t>(static_cast<unsigned char>(input[0]) % 16, input.size() - 1);
  const std::string_view cuts = input.substr(input.empty() ? 0 : 1, table);
  const std::string_view stream = input.substr(input.empty() ? 0 : 1 + table);

  const Outcome whole = decode(stream, {}, 16u << 20);
  const Outcome pieces = decode(stream, cuts, 16u << 20);
  FUZZ_CHECK(whole.events == pieces.events, "the events depend on where the stream was cut");
  FUZZ_CHECK(whole.refused == pieces.refused, "the verdict depends on where the stream was cut");
  if (!whole.refused) FUZZ_CHECK(whole.pending == pieces.pending);

  for (std::size_t i = 0; i < whole.events.size(); ++i) {
    const std::string& ev = whole.events[i];
    const auto space = ev.find(' ');
    const std::string line = R"({"type":")" + ev.substr(0, space) + R"(","object":)" + ev.substr(space + 1) + "}";
    const WatchEvent again = WatchDecoder::decode_line(line);
    FUZZ_CHECK(again.type == whole.decoded[i].type && same_value(again.object, whole.decoded[i].object),
               "an event does not survive re-encoding");
  }

  // A small line limit: long lines must be refused, never buffered past the limit.
  decode(stream, cuts.empty() ? std::string_view("\x07", 1) : cuts, 64);
  return 0;
}
