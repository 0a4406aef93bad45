#include <gtest/gtest.h>

#include "dha/kube/json.hpp"
#include "dha/kube/watch_decoder.hpp"

namespace dha::kube {
namespace {

const std::string kStream = R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}})"
                            "\n"
                            R"({"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"2"}}})"
                            "\r\n\n"
                            R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"5"}}})"
                            "\n"
                            R"({"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"6"}}})"
                            "\n";

std::vector<std::string> decode_in_chunks(std::size_t chunk) {
  WatchDecoder d;
  std::vector<std::string> got;
  for (std::size_t i = 0; i < kStream.size(); i += chunk) {
    d.feed(std::string_view(kStream).substr(i, chunk), [&](WatchEvent&& ev) {
      got.push_back(std::string(to_string(ev.type)) + ":" + resource_version_of(ev.object));
      return true;
    });
  }
  EXPECT_EQ(d.pending(), 0u);
  return got;
}

TEST(KubeWatchDecoder, SameEventsWhateverTheChunking) {
  const std::vector<std::string> want{"ADDED:1", "MODIFIED:2", "BOOKMARK:5", "DELETED:6"};
  for (std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, kStream.size()})
    EXPECT_EQ(decode_in_chunks(chunk), want) << "chunk " << chunk;
}

TEST(KubeWatchDecoder, StopsWhenTheCallbackSaysSo) {
  WatchDecoder d;
  int n = 0;
  EXPECT_FALSE(d.feed(kStream, [&](WatchEvent&&) { return ++n < 2; }));
  EXPECT_EQ(n, 2);
}

TEST(KubeWatchDecoder, ErrorEventCarriesStatus) {
  const WatchEvent ev = WatchDecoder::decode_line(
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version"}})");
  EXPECT_EQ(ev.type, WatchEventType::Error);
  EXPECT_EQ(ev.object["code"].GetInt(), 410);
}

TEST(KubeWatchDecoder, BadLinesAreErrorsNotCrashes) {
  for (const char* bad :
       {"{", "[]", R"({"type":"ADDED"})", R"({"type":"NOPE","object":{}})", R"({"type":"ADDED","object":1})"}) {
    WatchDecoder d;
    EXPECT_THROW(d.feed(std::string(bad) + "\n", [](WatchEvent&&) { return true; }), JsonError) << bad;
  }
}

// Found while fuzzing the watch decoder: the recursive parser overflowed the stack on an object
// nested ~200 000 deep (a 400 KB line, well under max_line).
TEST(KubeWatchDecoder, DeeplyNestedObjectIsAnErrorNotAStackOverflow) {
  const std::string deep =
      R"({"type":"ADDED","object":{"a":)" + std::string(200000, '[') + std::string(200000, ']') + "}}\n";
  WatchDecoder d;
  EXPECT_THROW(d.feed(deep, [](WatchEvent&&) { return true; }), JsonError);
  const std::string fine =
      R"({"type":"ADDED","object":{"a":)" + std::string(1000, '[') + std::string(1000, ']') + "}}\n";
  int events = 0;
  d.feed(fine, [&](WatchEvent&&) { return ++events, true; });
  EXPECT_EQ(events, 1);
}

TEST(KubeWatchDecoder, OverlongLineIsRefused) {
  WatchDecoder d(64);
  EXPECT_THROW(d.feed(std::string(100, 'x'), [](WatchEvent&&) { return true; }), JsonError);
}

}  // namespace
}  // namespace dha::kube
