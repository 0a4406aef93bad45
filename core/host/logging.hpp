#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <spdlog/formatter.h>

// Structured logs: one line per record, JSON or text ("<ts> <level> [ns/name] msg"). A JSON line
// has the fields controller-runtime's zap logger writes, so log queries written for those
// operators work here: {"ts","level","logger","msg"} on every line, and on a line written during
// a reconcile "controller" (dha, the controller_runtime_* series' label), "controllerGroup",
// "controllerKind", the DHA as "namespace" and "name", and "reconcileID" (one per reconcile, so
// the lines of one reconcile can be told from the next one's). That scope is thread-local and
// opened by the reconciler for each reconcile, so every line written while reconciling a DHA —
// the host's, the plugin host's, a plugin's own log — carries them.
namespace dha::op {

enum class LogFormat { Json, Text };

// controller-runtime's --zap-time-encoding: seconds, milliseconds (JSON numbers, fractional) or
// nanoseconds (an integer) since the epoch, or a UTC timestamp string.
enum class TimeEncoding { Epoch, Millis, Nano, Iso8601, Rfc3339, Rfc3339Nano };

// The controller name lines of a reconcile carry (the work queue's and the metrics' too).
inline constexpr std::string_view kControllerName = "dha";

// RAII: one reconcile of a DHA. Lines logged on this thread while the scope lives carry ns/name
// and a reconcile ID of their own, a random UUID as controller-runtime makes it. Scopes nest.
class DhaLogScope {
 public:
  DhaLogScope(std::string ns, std::string name);
  ~DhaLogScope();
  DhaLogScope(const DhaLogScope&) = delete;
  DhaLogScope& operator=(const DhaLogScope&) = delete;

  const std::string& reconcile_id() const { return reconcile_id_; }

 private:
  std::string reconcile_id_;
  std::string saved_ns_;
  std::string saved_name_;
  std::string saved_reconcile_id_;
};

// A random (version 4) UUID: "0f8fad5b-d9cb-469f-a165-70867728950e".
std::string random_uuid();

class StructuredFormatter final : public spdlog::formatter {
 public:
  // Records at or above stacktrace_at carry the stack of the logging call (zap's "stacktrace").
  explicit StructuredFormatter(LogFormat format, TimeEncoding time = TimeEncoding::Iso8601,
                               spdlog::level::level_enum stacktrace_at = spdlog::level::off)
      : format_(format), time_(time), stacktrace_at_(stacktrace_at) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;

 private:
  LogFormat format_;
  TimeEncoding time_;
  spdlog::level::level_enum stacktrace_at_;
};

// "json" | "text" ("console"); "trace" | "debug" | "info" | "warn" | "error" or a zap verbosity
// (0 info, 1 debug, 2+ trace). Throws std::invalid_argument naming the flag for anything else.
LogFormat parse_log_format(std::string_view text);
spdlog::level::level_enum parse_log_level(std::string_view text);
TimeEncoding parse_time_encoding(std::string_view text);
// controller-runtime's --zap-stacktrace-level (info, error, panic; zap's other levels too). Nothing
// here logs at panic, so "panic" means no stack traces.
spdlog::level::level_enum parse_stacktrace_level(std::string_view text);

// The level as lines print it: the same words the --log-level flag takes ("warn", not spdlog's
// "warning"); critical prints as "error".
std::string_view level_name(spdlog::level::level_enum level);

// Replaces the default logger's sink with stderr in the given format and level.
void install_logging(LogFormat format, spdlog::level::level_enum level, TimeEncoding time = TimeEncoding::Iso8601,
                     spdlog::level::level_enum stacktrace_at = spdlog::level::off);

// JSON string escaping (quotes, backslash, control characters) for log lines.
void append_json_escaped(std::string_view text, spdlog::memory_buf_t& dest);

}  // namespace dha::op
