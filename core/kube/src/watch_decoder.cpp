#include "dha/kube/watch_decoder.hpp"

#include <fmt/format.h>

#include "dha/kube/json.hpp"

namespace dha::kube {

std::string_view to_string(WatchEventType type) {
  switch (type) {
    case WatchEventType::Added:
      return "ADDED";
    case WatchEventType::Modified:
      return "MODIFIED";
    case WatchEventType::Deleted:
      return "DELETED";
    case WatchEventType::Bookmark:
      return "BOOKMARK";
    case WatchEventType::Error:
      return "ERROR";
  }
  return "?";
}

WatchEvent WatchDecoder::decode_line(std::string_view line) {
  rapidjson::Document doc = parse_json(line);
  if (!doc.IsObject()) throw JsonError("watch event is not a JSON object");
  const std::string type = string_at(doc, {"type"});
  WatchEventType t;
  if (type == "ADDED") {
    t = WatchEventType::Added;
  } else if (type == "MODIFIED") {
    t = WatchEventType::Modified;
  } else if (type == "DELETED") {
    t = WatchEventType::Deleted;
  } else if (type == "BOOKMARK") {
    t = WatchEventType::Bookmark;
  } else if (type == "ERROR") {
    t = WatchEventType::Error;
  } else {
    throw JsonError(fmt::format("watch event has unknown type '{}'", type));
  }
  auto obj = doc.FindMember("object");
  if (obj == doc.MemberEnd() || !obj->value.IsObject()) throw JsonError("watch event has no object");
  WatchEvent ev{t, rapidjson::Document()};
  // Move the object out with its allocator-owned strings copied into the new document.
  ev.object.CopyFrom(obj->value, ev.object.GetAllocator());
  return ev;
}

bool WatchDecoder::feed(std::string_view chunk, const std::function<bool(WatchEvent&&)>& emit) {
  while (!chunk.empty()) {
    const auto nl = chunk.find('\n');
    if (nl == std::string_view::npos) {
      if (buffer_.size() + chunk.size() > max_line_)
        throw JsonError(fmt::format("watch event longer than {} bytes", max_line_));
      buffer_.append(chunk);
      return true;
    }
    std::string_view line;
    if (buffer_.empty()) {
      line = chunk.substr(0, nl);
    } else {
      buffer_.append(chunk.substr(0, nl));
      line = buffer_;
    }
    chunk.remove_prefix(nl + 1);
    // Blank lines (keep-alive padding, "\r\n" endings) carry no event.
    const bool blank = line.find_first_not_of(" \t\r") == std::string_view::npos;
    bool keep_going = true;
    if (!blank) keep_going = emit(decode_line(line));
    buffer_.clear();
    if (!keep_going) return false;
  }
  return true;
}

}  // namespace dha::kube
