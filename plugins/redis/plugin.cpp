// The shared object's one export.
#include "redis_adapter.hpp"

DHA_EXPORT_PLUGINS(dha::plugins::RedisAdapter)
