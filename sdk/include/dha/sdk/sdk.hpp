#pragma once

// Everything a plugin author includes: the base classes, the typed documents, the JSON and
// values helpers, and the export macros.
#include "dha/sdk/error.hpp"        // IWYU pragma: export
#include "dha/sdk/export.hpp"       // IWYU pragma: export
#include "dha/sdk/host.hpp"         // IWYU pragma: export
#include "dha/sdk/json.hpp"         // IWYU pragma: export
#include "dha/sdk/object_view.hpp"  // IWYU pragma: export
#include "dha/sdk/plugin.hpp"       // IWYU pragma: export
#include "dha/sdk/sink.hpp"         // IWYU pragma: export
#include "dha/sdk/values.hpp"       // IWYU pragma: export
