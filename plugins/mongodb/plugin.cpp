// The shared object's one export.
#include "mongodb_adapter.hpp"

DHA_EXPORT_PLUGINS(dha::plugins::MongodbAdapter)
