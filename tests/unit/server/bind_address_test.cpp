#include "dha/server/server.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace dha::server {
namespace {

struct Case {
  const char* text;
  bool disabled;
  const char* host;
  std::uint16_t port;
};

TEST(ParseBindAddress, ValidSpellings) {
  const Case cases[] = {
      {"0", true, "", 0},
      {"", true, "", 0},
      {":8443", false, "0.0.0.0", 8443},
      {"127.0.0.1:9443", false, "127.0.0.1", 9443},
      {"127.0.0.1:0", false, "127.0.0.1", 0},
      {"[::1]:8081", false, "::1", 8081},
      {":65535", false, "0.0.0.0", 65535},
  };
  for (const auto& c : cases) {
    auto parsed = parse_bind_address(c.text);
    EXPECT_EQ(!parsed.has_value(), c.disabled) << c.text;
    if (parsed) {
      EXPECT_EQ(parsed->host, c.host) << c.text;
      EXPECT_EQ(parsed->port, c.port) << c.text;
    }
  }
}

TEST(ParseBindAddress, MalformedThrowsWithTheInputInTheMessage) {
  for (const char* text : {"8443", ":", ":65536", ":-1", ":84a3", "::1:80", "[::1:80", "host:port"}) {
    try {
      (void)parse_bind_address(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace dha::server
