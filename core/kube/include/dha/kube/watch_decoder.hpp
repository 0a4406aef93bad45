#pragma once
// Splits a watch response body (one JSON event per line, arriving in arbitrary chunks) into
// complete events. Pure and allocation-bounded: a line longer than max_line is an error
// rather than unbounded memory.

#include <rapidjson/document.h>
#include <functional>
#include <string>
#include <string_view>

namespace dha::kube {

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

struct WatchEvent {
  WatchEventType type;
  rapidjson::Document object;  // the object, or a meta/v1 Status for Error
};

std::string_view to_string(WatchEventType type);

class WatchDecoder {
 public:
  explicit WatchDecoder(std::size_t max_line = 16u << 20) : max_line_(max_line) {}

  // Feeds one chunk; calls `emit` for each complete event. Returns false as soon as `emit`
  // returns false. Throws JsonError for a line that is not a watch event.
  bool feed(std::string_view chunk, const std::function<bool(WatchEvent&&)>& emit);
  // Bytes of an incomplete trailing line (a stream that ends mid-line lost that event).
  std::size_t pending() const { return buffer_.size(); }

  static WatchEvent decode_line(std::string_view line);

 private:
  std::size_t max_line_;
  std::string buffer_;
};

}  // namespace dha::kube
