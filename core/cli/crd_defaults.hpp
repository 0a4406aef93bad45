#pragma once

#include <rapidjson/document.h>

#include <string_view>

// The API server's defaults for a DHA spec, from the chart's CRD as this binary was built with
// it: `simulate --dha FILE` takes a manifest a user would apply, so it replays what the cluster
// would store (a spec without behavior.policy gets the policy a new DHA gets).
namespace dha::cli {

// The CRD's text, embedded at build time (crd_text.cpp.in).
std::string_view dha_crd_text();

// Fills in every absent field of `spec` that the CRD's schema gives a default, recursively, as
// the API server does when an object is created (objects and array items alike).
void apply_crd_defaults(rapidjson::Value& spec, rapidjson::Document::AllocatorType& alloc);

}  // namespace dha::cli
