#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <spdlog/formatter.h>

// Structured logs: one line per record, JSON ({"ts","level","msg","namespace","name"}) or text
// ("<ts> <level> [ns/name] msg"). The DHA a line is about comes from a thread-local scope that
// the reconciler opens for each reconcile, so every line written while reconciling a DHA — the
// host's, the plugin host's, a plugin's own log — carries its namespace and name.
namespace dha::op {

enum class LogFormat { Json, Text };

// RAII: lines logged on this thread while the scope lives carry ns/name. Scopes nest.
class DhaLogScope {
 public:
  DhaLogScope(std::string ns, std::string name);
  ~DhaLogScope();
  DhaLogScope(const DhaLogScope&) = delete;
  DhaLogScope& operator=(const DhaLogScope&) = delete;

 private:
  std::string saved_ns_;
  std::string saved_name_;
};

class StructuredFormatter final : public spdlog::formatter {
 public:
  explicit StructuredFormatter(LogFormat format) : format_(format) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;

 private:
  LogFormat format_;
};

// "json" | "text" ("console"); "trace" | "debug" | "info" | "warn" | "error" or a zap verbosity
// (0 info, 1 debug, 2+ trace). Throws std::invalid_argument naming the flag for anything else.
LogFormat parse_log_format(std::string_view text);
spdlog::level::level_enum parse_log_level(std::string_view text);

// The level as lines print it: the same words the --log-level flag takes ("warn", not spdlog's
// "warning"); critical prints as "error".
std::string_view level_name(spdlog::level::level_enum level);

// Replaces the default logger's sink with stderr in the given format and level.
void install_logging(LogFormat format, spdlog::level::level_enum level);

// JSON string escaping (quotes, backslash, control characters) for log lines.
void append_json_escaped(std::string_view text, spdlog::memory_buf_t& dest);

}  // namespace dha::op
