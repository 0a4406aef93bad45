// The shared object's one export.
#include "mariadb_adapter.hpp"

DHA_EXPORT_PLUGINS(dha::plugins::MariadbAdapter)
