// The gate's shared object, acmedb-backup-window.so: one more plugin, its own library, so an
// operator loads it (--plugins acmedb,acmedb-backup-window) or leaves it out.
#include "backup_window_gate.hpp"

DHA_EXPORT_PLUGINS(acme::BackupWindowGate)
