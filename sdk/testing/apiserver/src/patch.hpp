#pragma once
// JSON merge patch (RFC 7386) and JSON patch (RFC 6902), applied in place.

#include "json_util.hpp"

namespace dha::testing::apiserver {

// RFC 7386: objects merge recursively, null deletes, anything else replaces.
// When `strategic` is set, strategic-merge directives ("$patch", "$setElementOrder/...",
// "$retainKeys", "$deleteFromPrimitiveList/...") are dropped: lists are replaced as a whole
// (see README: the test kit approximates strategic merge patch for built-in kinds).
void apply_merge_patch(Json& target, const Json& patch, Alloc& alloc, bool strategic = false);

// RFC 6902 add/remove/replace/move/copy/test. Throws ApiError (422 for a failed test or a
// missing path, 400 for a malformed patch) like kube-apiserver.
void apply_json_patch(Json& target, const Json& patch, Alloc& alloc);

}  // namespace dha::testing::apiserver
