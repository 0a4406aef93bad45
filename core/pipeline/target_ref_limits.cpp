#include "pipeline/target_ref_limits.hpp"

#include <fmt/format.h>

namespace dha::pipeline {

std::optional<std::string> oversized_target_field(const model::TargetRef& ref) {
  const struct {
    const char* field;
    const std::string& value;
    std::size_t limit;
  } fields[] = {{"apiGroup", ref.api_group, kMaxTargetGroupOrName},
                {"kind", ref.kind, kMaxTargetKind},
                {"name", ref.name, kMaxTargetGroupOrName}};
  for (const auto& f : fields)
    if (f.value.size() > f.limit)
      return fmt::format("spec.targetRef.{} is {} characters long; at most {}", f.field, f.value.size(), f.limit);
  return std::nullopt;
}

}  // namespace dha::pipeline
