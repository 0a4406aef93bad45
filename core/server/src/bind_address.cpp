#include "dha/server/server.hpp"

#include <charconv>
#include <stdexcept>

namespace dha::server {

std::optional<BindAddress> parse_bind_address(std::string_view text) {
  if (text.empty() || text == "0") return std::nullopt;
  auto fail = [&](const char* why) {
    return std::invalid_argument("invalid bind address \"" + std::string(text) + "\": " + why);
  };
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) throw fail("expected [host]:port");
  std::string_view host = text.substr(0, colon);
  std::string_view port_text = text.substr(colon + 1);
  if (host.starts_with('[')) {
    if (!host.ends_with(']')) throw fail("unterminated IPv6 bracket");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    throw fail("an IPv6 host needs brackets, as in [::1]:8443");
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() || port > 65535)
    throw fail("port must be a number from 0 to 65535");
  BindAddress out;
  out.host = host.empty() ? "0.0.0.0" : std::string(host);
  out.port = static_cast<std::uint16_t>(port);
  return out;
}

}  // namespace dha::server
