#pragma once

#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "dha/kube/client.hpp"
#include "dha/model/status.hpp"
#include "host/self_metrics.hpp"

// Writes a DHA's status through the /status subresource, only when something changed, as a
// merge patch of the status alone carrying the resourceVersion it was read at (the rest of the
// object, a tenant's annotations included, is never sent back), and re-reads on a 409 Conflict:
// when only the spec or metadata changed the fresh object gets the same status; when the status
// itself changed (another writer), nothing is sent over it.
namespace dha::status {

// Writes `next` onto `dha` (as last read) unless it equals `previous`. Returns whether a write
// happened (false as well when someone else changed the status since `dha` was read). Throws kube::ApiError when the
// write fails for another reason than a conflict, or when conflicts persist over several re-reads; NotFound (the DHA is
// gone) returns false. `keep_as_stored`: top-level status fields that could not be read; their stored JSON is written
// back as it was, not replaced by the empty value they were read as. The merge patch that turns `dha`'s stored status
// into `next` (fields it drops become null), with `dha`'s resourceVersion as the precondition:
// {"metadata":{"resourceVersion":…},"status":{…}}.
std::string status_patch(const rapidjson::Value& dha, const model::DhaStatus& next,
                         const std::vector<model::UnreadableField>& keep_as_stored = {});

bool update_status(kube::Client& client, op::SelfMetrics& metrics, const rapidjson::Value& dha,
                   const model::DhaStatus& previous, const model::DhaStatus& next,
                   const std::vector<model::UnreadableField>& keep_as_stored = {});

}  // namespace dha::status
