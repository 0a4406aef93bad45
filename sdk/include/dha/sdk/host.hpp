#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "dha/abi.h"

namespace dha::sdk {

// The host as a plugin instance sees it: who it is and where log lines go. Copyable; valid as
// long as the `dha_host` it wraps (the ABI guarantees: until the instance is destroyed). A
// default-constructed Host (as in unit tests that build a plugin directly) drops log lines.
class Host {
 public:
  enum class Level : dha_log_level {
    kDebug = DHA_LOG_DEBUG,
    kInfo = DHA_LOG_INFO,
    kWarning = DHA_LOG_WARNING,
    kError = DHA_LOG_ERROR
  };

  Host() = default;
  explicit Host(const dha_host* host) noexcept : host_(host) {}

  // Empty strings when the host did not say (or is absent).
  std::string_view name() const noexcept { return usable() && host_->name ? host_->name : ""; }
  std::string_view version() const noexcept { return usable() && host_->version ? host_->version : ""; }

  // Never throws: logging must be safe inside the exception barrier.
  void log(Level level, std::string_view message) const noexcept {
    if (!usable() || host_->log == nullptr) return;
    host_->log(host_->ctx, static_cast<dha_log_level>(level), dha_str{message.data(), message.size()});
  }
  void debug(std::string_view message) const noexcept { log(Level::kDebug, message); }
  void info(std::string_view message) const noexcept { log(Level::kInfo, message); }
  void warning(std::string_view message) const noexcept { log(Level::kWarning, message); }
  void error(std::string_view message) const noexcept { log(Level::kError, message); }

  const dha_host* raw() const noexcept { return host_; }

 private:
  // A host from an older ABI minor may be shorter; `log` is part of 1.0, so a size that does not
  // reach it means a broken host and we stay silent rather than read past its end.
  bool usable() const noexcept {
    return host_ != nullptr && host_->struct_size >= offsetof(dha_host, log) + sizeof(host_->log);
  }

  const dha_host* host_ = nullptr;
};

}  // namespace dha::sdk
