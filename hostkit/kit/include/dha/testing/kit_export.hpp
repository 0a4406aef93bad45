#pragma once

// The test kit's shared library (libdha-testkit.so) is built with hidden visibility, like the
// rest of db-autoscaler; the classes a plugin author's test calls are exported explicitly.
#define DHA_TESTING_API __attribute__((visibility("default")))
