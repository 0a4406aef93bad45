// The shared object's one export.
#include "vm_metric_source.hpp"

DHA_EXPORT_PLUGINS(dha::plugins::VmMetricSource)
