// The shared object's one export.
#include "postgres_adapter.hpp"

DHA_EXPORT_PLUGINS(dha::plugins::PostgresAdapter)
